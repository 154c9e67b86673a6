"""Driven crowd agents cross links on their shared fields: a one-way drop east, a ladder west."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from sim.commands.cli import main
from sim.components.crowd import CrowdField
from sim.components.grid_manager import GridManager
from sim.crowd.links.hops import Hop
from sim.navigation.links import NavLink
from tests.helpers.paths import REPO_ROOT
from tests.unit.test_crowd_sim import Scene

LINKS_SCENE = REPO_ROOT / "scenes" / "links.toml"
COUNT = 30
SPEED = 3.0
DT = 1.0 / 60.0
DROP_Y, LADDER_Y = -3.5, 4.5
DROP_COST, LADDER_COST, TELEPORT_COST = 2.0, 6.0, 8.0
TELEPORT_STEP = 10.0  # world units in one frame: only a teleport
START, END = (-6.5, 0.5), (6.5, 0.5)
CROWDS = f"""
[[crowds]]
name = "west"
count = {COUNT}
area = [-10.0, -3.0, -4.0, 3.0]
seed = 1

[crowds.agent]
speed = {SPEED}

[[crowds]]
name = "east"
count = {COUNT}
area = [4.0, -3.0, 10.0, 3.0]
seed = 2

[crowds.agent]
speed = {SPEED}
target = "start"
"""


@pytest.fixture(scope="module")
def crowd_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The links scene with a crowd each way, run for 30 s: its trace and the report's agents."""
    folder = tmp_path_factory.mktemp("crowd-links")
    scene, trace, report = folder / "s.toml", folder / "t.jsonl", folder / "r.json"
    scene.write_text(LINKS_SCENE.read_text() + CROWDS)
    argv = ["run", str(scene), "--headless", "--frames", "1800", "--trace", str(trace)]
    assert main([*argv, "--report", str(report)]) == 0
    lines = [json.loads(line) for line in trace.read_text().splitlines()[1:]]
    return lines, json.loads(report.read_text())["agents"]


@pytest.fixture(scope="module")
def crowd_trace(
    crowd_run: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> tuple[list[dict[str, Any]], list[str]]:
    """The run's trace and its agents' names, by index."""
    lines, agents = crowd_run
    return lines, [agent["name"] for agent in agents]


def _members(names: list[str], prefix: str) -> list[int]:
    found = [index for index, name in enumerate(names) if name.startswith(prefix)]
    assert len(found) == COUNT
    return found


def _xs(lines: list[dict[str, Any]], agent: int) -> np.ndarray:
    return np.array([line["pos"][agent][0] for line in lines])


def _ys(lines: list[dict[str, Any]], agent: int) -> np.ndarray:
    return np.array([line["pos"][agent][1] for line in lines])


def test_the_crowds_all_arrive_across_the_wall(crowd_run):
    _, agents = crowd_run
    for prefix, goal in (("west", END), ("east", START)):
        group = [agent for agent in agents if agent["name"].startswith(prefix)]
        assert len(group) == COUNT
        for agent in group:
            assert agent["state"] == "arrived", agent["name"]
            assert np.sign(agent["pos"][0]) == np.sign(goal[0])  # on its goal's side


def _link_taken(lines: list[dict[str, Any]], agent: int) -> tuple[str, int]:
    """Which link the agent took over the wall (by where it crossed x = 0), and which way."""
    xs = _xs(lines, agent)
    over = np.flatnonzero(np.sign(xs[:-1]) != np.sign(xs[1:]))
    assert len(over) == 1, f"agent {agent} crossed the wall {len(over)} times"
    step = xs[over[0] + 1] - xs[over[0]]
    if abs(step) > TELEPORT_STEP:
        return "teleport", int(np.sign(step))
    y = _ys(lines, agent)[over[0]]
    kind = "jump" if abs(y - DROP_Y) < 0.6 else "ladder" if abs(y - LADDER_Y) < 0.6 else "wall"
    return kind, int(np.sign(step))


def test_the_west_crowd_drops_and_the_east_crowd_never_walks_the_drop_backwards(crowd_trace):
    lines, names = crowd_trace
    west = [_link_taken(lines, agent) for agent in _members(names, "west")]
    east = [_link_taken(lines, agent) for agent in _members(names, "east")]
    assert {way for _, way in west} == {1}
    assert {way for _, way in east} == {-1}
    assert {kind for kind, _ in west} <= {"jump", "ladder"}
    assert sum(kind == "jump" for kind, _ in west) > COUNT // 2  # the cheap way for most
    # East, the drop would be the cheapest way for many: none takes it.
    assert {kind for kind, _ in east} <= {"ladder", "teleport"}
    assert sum(kind == "ladder" for kind, _ in east) > COUNT // 2


def _run(steps: np.ndarray, at: int) -> int:
    """How many steps round `at` equal the one at `at` (to rounding)."""
    first = last = at
    while first > 0 and abs(steps[first - 1] - steps[at]) < 1e-3:
        first -= 1
    while last + 1 < len(steps) and abs(steps[last + 1] - steps[at]) < 1e-3:
        last += 1
    return last - first + 1


def test_a_crossing_takes_the_links_time(crowd_trace):
    lines, names = crowd_trace
    # A jump moves evenly all the way, a ladder over its middle third; a teleport holds the
    # agent still (hidden) all the time, then puts it on the far end.
    expected = {
        "jump": DROP_COST / SPEED,
        "ladder": LADDER_COST / SPEED / 3.0,
        "teleport": TELEPORT_COST / SPEED,
    }
    for agent in _members(names, "west") + _members(names, "east"):
        kind, _ = _link_taken(lines, agent)
        steps = np.diff(_xs(lines, agent))
        over = int(
            np.flatnonzero(np.sign(_xs(lines, agent)[:-1]) != np.sign(_xs(lines, agent)[1:]))[0]
        )
        frames = _run(steps, over - 1) + 1 if kind == "teleport" else _run(steps, over)
        assert frames * DT == pytest.approx(expected[kind], abs=1.5 * DT), (kind, agent)


def test_a_field_steps_down_a_link_only_where_it_beats_the_grid():
    grid = GridManager(origin=(0.0, 0.0), num_of_rows=1, num_of_columns=6, grid_cell_size=1.0)
    grid.links = (NavLink((0, 0), (0, 5), cost=2.0, bidirectional=False),)
    fields = CrowdField(grid)
    east = fields.goal_field((0, 5))
    assert east.hops == {0: Hop(5, grid.links[0])}  # 2 beats walking 5
    assert list(east.tables.following)[:2] == [5, 0]  # 1 walks back to the link
    assert fields.goal_field((0, 0)).hops == {}  # one-way: never back


def _walled_scene(count: int, kind: str) -> Scene:
    """A 5 x 12 grid cut by a wall at x = 6, one link over it, `count` agents west of it."""
    scene = Scene(5, 12)
    scene.sim.hide_driven = True
    scene.wall("wall", (6.5, 2.5), (1.0, 5.0))
    scene.grid.links = (NavLink((2, 4), (2, 8), cost=3.0, kind=kind),)
    scene.add("exit", "Untagged", (10.5, 2.5))
    for index in range(count):
        scene.agent(f"walker-{index + 1}", (0.5 + index % 4, 0.5 + index // 4), target="exit")
    return scene


def _watch(scene: Scene, seconds: float) -> list[tuple[bool, float, bool]]:
    """Per frame and agent over a link (a driven one crossing, a self-steered one hidden):
    (its model shown, its model's height, its marker shown)."""
    seen = []
    for _ in range(round(seconds / DT)):
        scene.step()
        visible = scene.sim.marker_visible()
        assert visible is not None
        crossing = scene.sim.crowd.link_poses.crossing
        for row, agent in enumerate(scene.sim.agents):
            node = agent.game_object.node
            if crossing[row] or (node.is_hidden() and not scene.sim.driven[row]):
                seen.append((not node.is_hidden(), node.get_z(), bool(visible[row])))
    return seen


@pytest.mark.parametrize("count", [1, 10], ids=["self-steered", "driven"])
def test_a_teleport_hides_the_agent_and_its_marker(count):
    scene = _walled_scene(count, "teleport")
    seen = _watch(scene, 15.0)
    hidden = [frame for frame in seen if not frame[0]]
    assert hidden  # the blink was seen
    assert not any(marker for _, _, marker in hidden)
    assert all(agent.reached_goal for agent in scene.agents)


def test_a_driven_agent_jumping_shows_its_own_model_in_the_air_then_lands_hidden():
    scene = _walled_scene(10, "jump")
    seen = _watch(scene, 15.0)
    aloft = [frame for frame in seen if frame[1] > 0.0]
    assert aloft
    assert all(shown and not marker for shown, _, marker in aloft)
    assert all(agent.reached_goal for agent in scene.agents)
    for agent in scene.agents:  # back on the ground, drawn by the markers again
        assert agent.game_object.node.get_z() == 0.0
        assert agent.game_object.node.is_stashed()  # out of the cull and the rays
