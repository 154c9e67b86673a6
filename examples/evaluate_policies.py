"""Evaluate two policies in gridpath-sim's learning environments: the exact oracle and random.

Trains nothing: it shows how a policy meets the environments and what the baselines score.
Run it from the repository's folder after installing the rl extra:

    .venv/bin/pip install -e ".[rl]"
    .venv/bin/python examples/evaluate_policies.py

For each map (the three that ship in experiments/maps) it plays a few Navigate-v0 episodes
with `oracle_policy` and with uniformly random actions, and one 32-agent episode of the
parallel environment replaying a LaCAM* plan (`mapf_policy`), and prints the success rates, the
mean path cost against the optimum, and the multi-agent metrics.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np

import sim.envs
from sim.envs import mapf_policy, oracle_policy, parallel_env

MAPS = Path(__file__).resolve().parent.parent / "experiments" / "maps"
EPISODES = 5


def play(env: gymnasium.Env, act, seed: int) -> tuple[bool, float]:  # type: ignore[type-arg, no-untyped-def]
    """One episode: whether it reached the goal, and the path's cost."""
    observation, info = env.reset(seed=seed)
    while True:
        observation, _, terminated, truncated, info = env.step(act(observation))
        if terminated or truncated:
            return terminated, info["cost"]


def random_policy(env: gymnasium.Env, seed: int):  # type: ignore[type-arg, no-untyped-def]
    """Uniformly random actions from a seeded stream."""
    rng = np.random.default_rng(seed)
    count = int(env.action_space.n)  # type: ignore[attr-defined]
    return lambda _observation: int(rng.integers(count))


def main() -> None:
    """Print one line per map and policy, then the multi-agent replay's metrics."""
    for map_path in sorted(MAPS.glob("*.map")):
        # Each episode may take 4 x (rows + cols) steps, the default limit.
        env = gymnasium.make(sim.envs.NAVIGATE_ID, map=map_path, random_pairs=True)
        policies = {"oracle": oracle_policy(env), "random": random_policy(env, seed=0)}
        for name, act in policies.items():
            results = [play(env, act, seed) for seed in range(EPISODES)]
            reached = [cost for done, cost in results if done]
            share = len(reached) / EPISODES
            cost = f"{np.mean(reached):.1f}" if reached else "-"
            print(f"{map_path.stem:>10} {name:>7}: {share:.0%} reached, mean cost {cost}")
        many = parallel_env(map=map_path, agents=32, obs_radius=5)
        many.reset(seed=0)
        act = mapf_policy(many, "lacam", time_limit_s=5.0)
        while many.agents:
            many.step(act(None))
        print(f"{map_path.stem:>10}  lacam*: {many.metrics}")


if __name__ == "__main__":
    main()
