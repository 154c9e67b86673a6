"""The parallel environment's C kernel against its numpy reference: the same episode, exactly."""

from __future__ import annotations

import numpy as np
import pytest

from sim.envs import parallel_env
from sim.envs.parallel import kernel_for
from tests.helpers.paths import REPO_ROOT

MAP = REPO_ROOT / "tests" / "data" / "maps" / "two_rooms.map"

pytestmark = pytest.mark.skipif(kernel_for("auto") is None, reason="the kernel is not built")


@pytest.mark.parametrize("diagonal", ["never", "no-corner-cutting", "one-obstacle", "always"])
@pytest.mark.parametrize("seed", range(4))
def test_c_and_numpy_play_the_same_episode(diagonal: str, seed: int) -> None:
    envs = [
        parallel_env(
            map=MAP,
            agents=40,
            obs_radius=3,
            diagonal=diagonal,
            max_steps=120,
            progress_weight=0.3,
            implementation=implementation,
        )
        for implementation in ("c", "python")
    ]
    first = [env.reset(seed=seed)[0] for env in envs]
    assert all(np.array_equal(first[0][name], first[1][name]) for name in first[0])
    rng = np.random.default_rng(seed)
    count = envs[0].action_space("agent_0").n
    while envs[0].agents:
        assert envs[0].agents == envs[1].agents
        # Mostly moves toward crowded places: plenty of refused moves to resolve.
        actions = {name: int(rng.integers(count)) for name in envs[0].agents}
        got = [env.step(actions) for env in envs]
        for part in range(1, 4):
            assert got[0][part] == got[1][part], part  # rewards, terminations, truncations
        assert got[0][0].keys() == got[1][0].keys()
        for name in got[0][0]:
            assert np.array_equal(got[0][0][name], got[1][0][name]), name
        assert envs[0].positions.tolist() == envs[1].positions.tolist()
    assert envs[0].metrics == envs[1].metrics


def test_an_unknown_implementation_is_refused() -> None:
    from sim.envs import EnvError

    with pytest.raises(EnvError, match="implementation"):
        parallel_env(map=MAP, agents=2, implementation="fortran")
