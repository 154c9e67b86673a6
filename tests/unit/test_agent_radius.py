"""Agents with a size: the scene's `radius`, its one-line errors, and the clearance
GridManager plans and steers with; `--trace`'s path checks and options."""

from __future__ import annotations

import json
import math
import shutil
from typing import Any

import pytest
from panda3d.core import NodePath

from sim.app.trace import FRAME_KEYS, TraceWriter, frame_line
from sim.commands.args import Output, OutputKind, check_outputs
from sim.commands.cli import main
from sim.components.grid_manager import GridManager
from sim.config import AGENT_MODEL_RADIUS, AgentConfig
from sim.engine import GameObject, World
from sim.errors import SimError
from sim.scene.file import parse_scene
from sim.scene.spec import SceneError
from tests.helpers.paths import DEFAULT_SCENE


def scene_data(agent: dict[str, Any] | None = None, *, cell_size: float = 1.0) -> dict[str, Any]:
    """A 6 x 10 grid with a wall across rows 2..3 (so two strips two cells tall) and one agent."""
    table: dict[str, Any] = {"name": "a", "tag": "Agent", "model": "agent", "pos": [1, 1, 0]}
    if agent is not None:
        table["agent"] = agent
    wall = {"name": "w", "tag": "Obstacle", "model": "cube", "pos": [5, 3, 0], "scale": [10, 1, 1]}
    grid = {"origin": [0, 0], "rows": 6, "columns": 10, "cell_size": cell_size}
    return {"version": 1, "grid": grid, "objects": [table, wall]}


def scene_error(data: dict[str, Any]) -> str:
    with pytest.raises(SceneError) as caught:
        parse_scene(data, source="x.toml")
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_default_radius_is_the_agent_model_size():
    scene = parse_scene(scene_data(), source="x.toml")
    assert scene.objects[0].agent == AgentConfig()
    assert AgentConfig().radius == AGENT_MODEL_RADIUS == 0.4


def test_default_radius_is_at_most_half_a_cell():
    scene = parse_scene(scene_data(cell_size=0.5), source="x.toml")
    assert scene.objects[0].agent is not None
    assert scene.objects[0].agent.radius == 0.25


def test_a_radius_is_read():
    scene = parse_scene(scene_data({"radius": 0.3}), source="x.toml")
    assert scene.objects[0].agent is not None
    assert scene.objects[0].agent.radius == 0.3


@pytest.mark.parametrize(
    ("radius", "problem"),
    [
        (0, "objects[0].agent.radius: must be > 0, got 0"),
        (-1.5, "objects[0].agent.radius: must be > 0, got -1.5"),
        (math.nan, "objects[0].agent.radius: must be finite, got nan"),
        ("big", "objects[0].agent.radius: expected a number"),
        (True, "objects[0].agent.radius: expected a number"),
    ],
    ids=["zero", "negative", "nan", "string", "bool"],
)
def test_bad_radius_is_one_line(radius, problem):
    message = scene_error(scene_data({"radius": radius}))
    assert message.startswith("x.toml: ")
    assert problem in message


@pytest.mark.parametrize(
    ("radius", "room"),
    [(0.51, "0.5"), (2.6, "2.5")],
    ids=["wider-than-the-strips", "wider-than-the-grid"],
)
def test_a_radius_no_cell_has_room_for_is_one_line(radius, room):
    message = scene_error(scene_data({"radius": radius}))
    assert message.startswith("x.toml: objects[0].agent.radius: ")
    assert "too large for this grid: no cell has room for an agent that size" in message
    assert f"(the most room anywhere is {room})" in message


def test_a_radius_that_fits_one_strip_is_accepted():
    scene = parse_scene(scene_data({"radius": 0.5}), source="x.toml")
    assert scene.objects[0].agent is not None


def test_a_crowd_too_large_names_its_crowd():
    data = scene_data()
    data["crowds"] = [
        {"count": 2, "area": [0, 0, 2, 2]},
        {"name": "big", "count": 3, "area": [0, 0, 2, 2], "agent": {"radius": 4}},
    ]
    message = scene_error(data)
    assert message.startswith("x.toml: crowds[1].agent.radius: 4")


# --- GridManager: usable cells and the disc's moves ------------------------------------------


def walled_grid() -> GridManager:
    """A 6 x 10 grid (origin 0, 0) with row 3 blocked except a one-cell gap at column 2."""
    world = World(NodePath("root"))
    grid = world.spawn("grid").add_component(
        GridManager(origin=(0.0, 0.0), num_of_rows=6, num_of_columns=10, grid_cell_size=1.0)
    )
    for x0, x1 in ((0.0, 2.0), (3.0, 10.0)):
        node = world.root.attach_new_node("wall")
        node.set_pos((x0 + x1) / 2, 3.5, 0.0)
        node.set_scale(x1 - x0, 1.0, 1.0)
        world.add(GameObject(node, tag="Obstacle"))
    world.step(1 / 60)
    return grid


def test_small_agents_plan_on_the_walkable_cells():
    grid = walled_grid()
    assert grid.usable_grid(0.5) is grid.grid


def test_a_large_agent_has_no_way_through_a_one_cell_gap():
    grid = walled_grid()
    assert grid.plan((2.5, 0.5), (2.5, 5.5), radius=0.4).found
    outcome = grid.plan((2.5, 1.5), (2.5, 5.0), radius=0.6)
    assert not outcome.found


def test_a_goal_too_near_a_wall_moves_to_the_nearest_cell_with_room():
    grid = walled_grid()
    outcome = grid.plan((5.5, 1.5), (5.5, 0.5), radius=0.9)
    assert outcome.found
    assert outcome.cells[-1] == (1, 5)
    assert (
        outcome.reason == "End is too near a wall: using the nearest cell with room for the agent"
    )


def test_the_usable_grid_is_cached_per_radius_until_the_mask_changes():
    grid = walled_grid()
    first = grid.usable_grid(0.9)
    assert grid.usable_grid(0.9) is first
    assert grid.usable_grid(1.2) is not first
    grid.mask_version += 1
    assert grid.usable_grid(0.9) is not first


@pytest.mark.parametrize(
    ("start", "end", "radius", "clear"),
    [
        ((2.5, 2.5), (2.5, 4.5), 0.5, True),  # through the gap, touching both sides
        ((2.5, 2.5), (2.5, 4.5), 0.51, False),
        ((2.3, 2.5), (2.3, 4.5), 0.3, False),  # off the gap's middle
        ((5.5, 1.5), (5.6, 1.55), 0.4, True),  # a small step in open ground
        ((5.5, 2.5), (5.6, 2.55), 0.6, False),  # over the wall's edge
        ((0.3, 0.5), (0.35, 0.5), 0.31, False),  # over the grid's edge
    ],
)
def test_move_is_clear_keeps_the_disc_off_walls_and_the_edge(start, end, radius, clear):
    grid = walled_grid()
    assert grid.move_is_clear(start, end, radius=radius) is clear


# --- --trace: its path is checked like every output's -----------------------------------------


@pytest.mark.parametrize(
    ("content", "accepted"),
    [
        (b"", True),
        (b'{"scene": "x"}\n{"frame": 1}\n', True),
        (b'{"scene": "x"}\n{"fra', True),  # a killed run's trace
        (b"[1, 2]\n", True),
        (b"version = 1\n", False),
        (b"\x89PNG\r\n\x1a\n", False),
    ],
    ids=["empty", "trace", "killed-trace", "json-line", "toml", "png"],
)
def test_an_existing_trace_path_is_replaced_only_when_it_holds_json_lines(
    tmp_path, content, accepted
):
    path = tmp_path / "t.jsonl"
    path.write_bytes(content)
    outputs = [Output("--trace", path, OutputKind.JSONL)]
    if accepted:
        check_outputs(tmp_path / "scene.toml", outputs)
    else:
        with pytest.raises(SimError, match=r"--trace .*t\.jsonl: exists and is not a JSON Lines"):
            check_outputs(tmp_path / "scene.toml", outputs)


def refusal(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    return lines[0]


def test_the_trace_may_not_be_the_scene_or_the_report(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(DEFAULT_SCENE, tmp_path / "sc.toml")
    line = refusal(capsys, ["run", "sc.toml", "--headless", "--trace", "sc.toml"])
    assert line == "sim: --trace sc.toml: is the scene being run"
    argv = ["run", "sc.toml", "--headless", "--report", "r.json", "--trace", "r.json"]
    assert refusal(capsys, argv) == "sim: --trace r.json: is also the --report output"


def test_trace_every_needs_a_trace(capsys):
    line = refusal(capsys, ["run", "--headless", "--trace-every", "5"])
    assert line == "sim: --trace-every needs --trace FILE.jsonl"


@pytest.mark.parametrize("every", ["0", "-1", "x"])
def test_trace_every_is_a_whole_number_from_1(capsys, every, tmp_path):
    line = refusal(capsys, ["run", "--trace", str(tmp_path / "t.jsonl"), "--trace-every", every])
    assert line.startswith("sim run: argument --trace-every: ")


class _Agent:
    """What the trace reads of an agent."""

    def __init__(self, x: float, y: float, heading: float) -> None:
        self.position = (x, y)
        self.heading_deg = heading
        self.speed = 1.5


def test_trace_writer_writes_every_nth_frame_and_flushes_each_line(tmp_path):
    path = tmp_path / "t.jsonl"
    failures: list[str] = []
    writer = TraceWriter(path, every=3, on_failure=failures.append)
    writer.write_header({"scene": "x"})
    agents: Any = [_Agent(1.0, 2.0, 90.0), _Agent(-1.234567891, 0.5, 359.99999)]
    for frame in range(1, 8):
        writer.record(frame, frame / 60, agents)
        # Flushed as it goes: what is on disk is whole lines only.
        assert path.read_text().endswith("\n")
    writer.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0] == {"scene": "x"}
    assert [line["frame"] for line in lines[1:]] == [3, 6]
    assert list(lines[1]) == list(FRAME_KEYS)
    assert lines[1]["pos"] == [[1.0, 2.0], [-1.23457, 0.5]]
    assert lines[1]["heading"] == [90.0, 360.0]
    assert lines[1]["speed"] == [1.5, 1.5]
    assert failures == []


def test_a_trace_that_cannot_be_opened_reports_why(tmp_path):
    failures: list[str] = []
    writer = TraceWriter(tmp_path / "no" / "t.jsonl", every=1, on_failure=failures.append)
    writer.write_header({"scene": "x"})
    writer.record(1, 0.1, [])
    writer.close()
    assert failures == ["No such file or directory"]
    assert writer.lines == 0


def test_frame_line_keeps_the_agents_order():
    agents: Any = [_Agent(3.0, 4.0, 10.0), _Agent(1.0, 2.0, 20.0)]
    line = frame_line(2, 1 / 30, agents)
    assert line == {
        "frame": 2,
        "t": 0.033333,
        "pos": [[3.0, 4.0], [1.0, 2.0]],
        "heading": [10.0, 20.0],
        "movers": [],  # no mover in the scene
        "speed": [1.5, 1.5],
        "jams": [],  # no hand-off to a joint plan since the line before
    }


def test_the_hud_says_when_a_large_agents_end_is_too_near_a_wall():
    from sim.app.hud_text import agent_line
    from sim.components.agent_controller import AgentController

    grid = walled_grid()
    world = grid.world
    assert world is not None
    for name, tag, pos in (("end", "End", (5.5, 0.5)), ("agent", "Agent", (5.5, 1.5))):
        node = world.root.attach_new_node(name)
        node.set_pos(pos[0], pos[1], 0.0)
        obj = world.add(GameObject(node, tag=tag))
    agent = obj.add_component(AgentController(grid, AgentConfig(radius=0.9)))
    world.step(1 / 60)
    line = agent_line(agent)
    assert line.endswith("(End is too near a wall: using the nearest cell with room for the agent)")
