"""Time POGEMA's environment steps; run by `sim.bench.envs.steps` in POGEMA's own interpreter.

POGEMA pins numpy and pydantic below what gridpath-sim uses, so it lives in an environment of
its own and this file runs there as a script (it imports nothing of ours):

    POGEMA_PYTHON=/path/to/pogema-env/bin/python sim bench --env

Arguments: agents, steps, obs_radius, size, density, seed. It prints one JSON object:
``{"agents", "steps", "seconds", "version"}``.
"""

from __future__ import annotations

import json
import sys
import time


def main(argv: list[str]) -> int:
    """Step POGEMA's native environment `steps` times with seeded random actions; print JSON."""
    import numpy as np
    import pogema
    from pogema import GridConfig, pogema_v0

    agents, steps, radius, size = (int(value) for value in argv[:4])
    density, seed = float(argv[4]), int(argv[5])
    config = GridConfig(
        num_agents=agents,
        size=size,
        density=density,
        seed=seed,
        obs_radius=radius,
        max_episode_steps=steps + 1,
        on_target="finish",
    )
    env = pogema_v0(grid_config=config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    # Drawn before the clock starts, as ours are: the bench times stepping, not sampling.
    actions = [rng.integers(0, 5, agents).tolist() for _ in range(steps)]
    began = time.perf_counter()
    for chosen in actions:
        env.step(chosen)
    seconds = time.perf_counter() - began
    print(
        json.dumps(
            {"agents": agents, "steps": steps, "seconds": seconds, "version": pogema.__version__}
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
