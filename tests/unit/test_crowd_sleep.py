"""Sleep (`sim.crowd.rules.sleep`): arrived agents standing still skip ORCA and parting.

They fall asleep where they stand and stay exactly there; a walker coming near wakes them
(and gets through: the parting torture case), and so does a change of goal.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.bench.crowd_suite import DT, _Case
from sim.crowd.crowd import Crowd
from sim.crowd.state import AgentState
from sim.scene.file import load_scene
from tests.helpers.paths import SCENES_DIR
from tests.unit.test_crowd_api import crowd_of, locate_by_name

pytestmark = pytest.mark.timeout(300)


def asleep(crowd: Crowd) -> np.ndarray:
    return crowd._rows.asleep.copy()  # the rows' own flags: no public reader needs them


def settle(crowd: Crowd, frames: int) -> None:
    locate = locate_by_name(crowd, [])
    for _ in range(frames):
        crowd.update(DT, locate)


def test_arrived_agents_fall_asleep_and_stay_exactly_where_they_stand() -> None:
    crowd, indices = crowd_of(12)
    locate = locate_by_name(crowd, [])
    for _ in range(round(20.0 / DT)):
        crowd.update(DT, locate)
        if asleep(crowd).all():
            break
    else:
        pytest.fail(f"never all asleep: {asleep(crowd)}")
    assert all(crowd.status(index).state is AgentState.ARRIVED for index in indices)
    standing = crowd.positions.copy()
    for _ in range(120):
        crowd.update(DT, locate)
        assert asleep(crowd).all()
        np.testing.assert_array_equal(crowd.positions, standing)
    assert not crowd.velocities.any()


def test_a_new_goal_wakes_a_sleeping_agent() -> None:
    crowd, indices = crowd_of(12)
    settle(crowd, round(20.0 / DT))
    assert asleep(crowd).all()
    crowd.request_target(indices[0], "b")
    settle(crowd, 1)
    assert not asleep(crowd)[0]


def test_a_moved_sleeper_wakes() -> None:
    crowd, indices = crowd_of(12)
    settle(crowd, round(20.0 / DT))
    assert asleep(crowd).all()
    x, y = crowd.position(indices[1])
    crowd.place(indices[1], (x, y - 0.5), 0.0)
    settle(crowd, 1)
    assert not asleep(crowd)[1]


def test_the_standing_crowd_wakes_for_the_late_agent_who_gets_through() -> None:
    case = _Case(load_scene(SCENES_DIR / "torture" / "parting.toml"), 0)
    crowd = case.sim.crowd
    names = [agent.game_object.name for agent in case.sim.agents]
    late = names.index("late")
    slept_before = woke_for_it = False
    for _ in range(round(30.0 / DT)):
        case.world.step(DT)
        x = float(crowd.positions[late, 0])
        sleeping = asleep(crowd)
        if x < 8.0 and sleeping.any():
            slept_before = True
        # Passing through the crowd round End (x = 16): nobody within reach of it sleeps.
        if slept_before and 12.0 < x < 20.0:
            near = np.hypot(*(crowd.positions - crowd.positions[late]).T) < 2.0
            assert not (sleeping & near).any()
            woke_for_it = True
        if crowd.status(late).state is AgentState.ARRIVED:
            break
    else:
        pytest.fail(f"the late agent never got through: at {crowd.positions[late]}")
    assert slept_before
    assert woke_for_it
    assert crowd.positions[late, 0] > 29.0
