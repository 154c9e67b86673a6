"""Agent motion under Unity's names (`acceleration`, `angular_speed`, `stopping_distance`,
`auto_braking`, `avoidance_priority`): read from the scene, refused in one line, and checked on
the trace of headless runs."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from sim.commands.cli import main
from sim.config import AgentConfig
from sim.scene.file import parse_scene
from sim.scene.spec import SceneError

DT = 1.0 / 60.0
SPEED, ACCELERATION, STOPPING = 4.0, 2.0, 1.5
GOAL_X = 20.5


def _agent(name: str, x: float, heading: float, agent: dict[str, Any]) -> str:
    settings = "\n".join(f"{key} = {json.dumps(value)}" for key, value in agent.items())
    return (
        f'[[objects]]\nname = "{name}"\ntag = "Agent"\nmodel = "agent"\n'
        f"pos = [{x}, 4.5, 0.0]\nheading = {heading}\n[objects.agent]\n{settings}\n"
    )


def _marker(name: str, x: float, tag: str = "Untagged") -> str:
    return (
        f'[[objects]]\nname = "{name}"\ntag = "{tag}"\nmodel = "cube"\n'
        f"pos = [{x}, 4.5, 0.0]\nscale = 0.3\n"
    )


def _scene(*objects: str) -> str:
    grid = "[grid]\norigin = [0.0, 0.0]\nrows = 9\ncolumns = 24\ncell_size = 1.0\n"
    return "version = 1\n" + grid + "\n".join(objects)


def run_trace(tmp_path: Path, text: str, frames: int) -> list[dict[str, Any]]:
    """Run the scene `text` headless for `frames` frames; the trace's frame lines."""
    scene, trace = tmp_path / "scene.toml", tmp_path / "trace.jsonl"
    scene.write_text(text)
    argv = ["run", str(scene), "--headless", "--frames", str(frames), "--trace", str(trace)]
    assert main(argv) == 0
    return [json.loads(line) for line in trace.read_text().splitlines()[1:]]


@pytest.fixture(scope="module")
def braking(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """One agent down a straight corridor to End, accelerating, braking, stopping short."""
    settings = {"speed": SPEED, "acceleration": ACCELERATION, "stopping_distance": STOPPING}
    text = _scene(_marker("end", GOAL_X, "End"), _agent("a", 1.5, -90.0, settings))
    return run_trace(tmp_path_factory.mktemp("braking"), text, 600)


def test_speed_never_exceeds_its_cap_and_reaches_it(braking):
    speeds = [line["speed"][0] for line in braking]
    assert max(speeds) <= SPEED + 1e-4
    assert max(speeds) == pytest.approx(SPEED)


def test_speed_changes_by_at_most_the_acceleration(braking):
    speeds = [0.0] + [line["speed"][0] for line in braking]
    # The trace rounds speeds to 5 decimals: a frame's change carries 2e-5 of it.
    changes = [abs(after - before) / DT for before, after in itertools.pairwise(speeds)]
    assert max(changes) <= ACCELERATION + 2e-5 / DT


def test_it_stops_within_the_stopping_distance_without_overshoot(braking):
    xs = [line["pos"][0][0] for line in braking]
    assert braking[-1]["speed"] == [0.0]
    assert GOAL_X - xs[-1] == pytest.approx(STOPPING, abs=1e-3)
    assert max(xs) <= GOAL_X - STOPPING + 1e-3  # it never went past where it stops


def test_angular_speed_caps_the_turn(tmp_path):
    # It starts facing away from its goal: the slerp alone would swing it round in a few frames.
    text = _scene(_marker("end", GOAL_X, "End"), _agent("a", 4.5, 90.0, {"angular_speed": 90.0}))
    lines = run_trace(tmp_path, text, 150)
    headings = [90.0] + [line["heading"][0] for line in lines]
    turns = [abs((b - a + 180.0) % 360.0 - 180.0) for a, b in itertools.pairwise(headings)]
    assert max(turns) <= 90.0 * DT + 1e-3
    assert abs(headings[60] - 90.0) <= 91.0  # a second: a quarter turn at most
    assert headings[-1] == pytest.approx(270.0, abs=5.0)  # and yet it turned round


def _head_on(tmp_path: Path, east: int, west: int) -> tuple[float, float]:
    """Two agents swap ends of a corridor head-on; how far each strays from the centre line."""
    text = _scene(
        _marker("east_end", 22.5),
        _marker("west_end", 1.5),
        _agent("eastbound", 1.5, -90.0, {"target": "east_end", "avoidance_priority": east}),
        _agent("westbound", 22.5, 90.0, {"target": "west_end", "avoidance_priority": west}),
    )
    lines = run_trace(tmp_path, text, 480)
    assert [round(x) for x, _ in lines[-1]["pos"]] == [22, 2]  # both got through
    strays = [max(abs(line["pos"][i][1] - 4.5) for line in lines) for i in range(2)]
    return strays[0], strays[1]


def test_the_lower_priority_agent_yields(tmp_path):
    important, minor = _head_on(tmp_path, 0, 99)
    assert minor > 2.0 * important


def test_equal_priorities_share_the_way(tmp_path):
    east, west = _head_on(tmp_path, 50, 50)
    assert east == pytest.approx(west, rel=0.2)


def test_the_settings_are_read():
    agent = {
        "acceleration": 8.0,
        "angular_speed": 120.0,
        "stopping_distance": 0.5,
        "auto_braking": False,
        "avoidance_priority": 10,
    }
    scene = parse_scene(json.loads(json.dumps(_data(agent))), source="x.toml")
    config = scene.objects[0].agent
    assert config is not None
    assert (config.acceleration, config.angular_speed, config.stopping_distance) == (
        8.0,
        120.0,
        0.5,
    )
    assert (config.auto_braking, config.avoidance_priority) == (False, 10)


def test_the_defaults_keep_todays_motion():
    config = AgentConfig()
    assert math.isinf(config.acceleration)
    assert math.isinf(config.angular_speed)
    assert (config.stopping_distance, config.auto_braking, config.avoidance_priority) == (
        0.0,
        True,
        50,
    )


def _data(agent: dict[str, Any]) -> dict[str, Any]:
    table = {"name": "a", "tag": "Agent", "model": "agent", "pos": [1, 1, 0], "agent": agent}
    grid = {"origin": [0, 0], "rows": 4, "columns": 4, "cell_size": 1.0}
    return {"version": 1, "grid": grid, "objects": [table]}


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("acceleration", -1.0, "must be > 0, got -1.0"),
        ("angular_speed", 0, "must be > 0, got 0"),
        ("stopping_distance", -0.5, "must be >= 0, got -0.5"),
        ("auto_braking", 1, "expected true or false, got integer 1"),
        ("avoidance_priority", 100, "must be within 0..99, got 100"),
        ("avoidance_priority", -1, "must be within 0..99, got -1"),
        ("avoidance_priority", 2.5, "expected an integer, got float 2.5"),
    ],
    ids=[
        "acceleration",
        "angular_speed",
        "stopping",
        "braking",
        "priority-high",
        "priority-low",
        "priority-float",
    ],
)
def test_a_bad_setting_is_one_line(key, value, problem):
    with pytest.raises(SceneError) as caught:
        parse_scene(_data({key: value}), source="x.toml")
    assert str(caught.value) == f"x.toml: objects[0].agent.{key}: {problem}"


def test_a_bad_setting_exits_2(tmp_path, capsys):
    scene = tmp_path / "bad.toml"
    scene.write_text(
        _scene(_marker("end", GOAL_X, "End"), _agent("a", 1.5, 0.0, {"avoidance_priority": 120}))
    )
    assert main(["run", str(scene), "--headless", "--frames", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].endswith("objects[1].agent.avoidance_priority: must be within 0..99, got 120")


def test_a_driven_crowd_accelerates_within_its_setting(tmp_path):
    # Twelve agents chasing one End: the crowd drives them down its shared field.
    crowd = (
        '[[crowds]]\nname = "group"\ncount = 12\narea = [1.0, 1.0, 4.0, 8.0]\nseed = 1\n'
        "heading = -90.0\n[crowds.agent]\nspeed = 3.0\nacceleration = 1.5\n"
    )
    grid = "[grid]\norigin = [0.0, 0.0]\nrows = 9\ncolumns = 24\ncell_size = 1.0\n"
    text = "version = 1\n" + grid + _marker("end", GOAL_X, "End") + crowd
    lines = run_trace(tmp_path, text, 240)
    speeds = [[0.0] * 12] + [line["speed"] for line in lines]
    most = max(
        abs(after[i] - before[i]) / DT
        for before, after in itertools.pairwise(speeds)
        for i in range(12)
    )
    assert max(max(line) for line in speeds) <= 3.0 + 1e-4
    assert most <= 1.5 + 2e-5 / DT
    assert max(max(line) for line in speeds[60:]) > 1.0  # they do get going
