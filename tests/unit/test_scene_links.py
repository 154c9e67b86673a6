"""Links in scenes (`[[links]]`): read, refused in one line, saved, planned on and crossed."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import shutil
import tomllib
from typing import Any

import pytest
from panda3d.core import NodePath, Point3

from sim.commands.cli import main
from sim.components.grid_manager import GridManager, PlanOutcome
from sim.components.link_route import LinkRoute
from sim.crowd.rules.link_crossing import Crossing
from sim.editor.history import EditHistory
from sim.editor.link_ends import LinkEnds
from sim.navigation.links import NavLink
from sim.scene.file import load_scene, parse_scene
from sim.scene.links import nav_links
from sim.scene.spec import LinkSpec, SceneError
from sim.scene.writer import ObjectState, save_scene
from tests.helpers.paths import REPO_ROOT

LINKS_SCENE = REPO_ROOT / "scenes" / "links.toml"
DT = 1.0 / 60.0


def test_the_scenes_links_are_read():
    scene = load_scene(LINKS_SCENE)
    ladder, drop, teleport = scene.links
    assert ladder == LinkSpec((-1.5, 4.5), (1.5, 4.5), 6.0, True, "ladder", 1)
    assert (drop.kind, drop.bidirectional, drop.cost) == ("jump", False, 2.0)
    assert teleport.kind == "teleport"
    origin, size = scene.grid.origin, scene.grid.cell_size
    assert nav_links([drop], origin, size) == (NavLink((3, 10), (3, 13), 2.0, False, "jump", 1),)


def _data(link: dict[str, Any]) -> dict[str, Any]:
    grid = {"origin": [0, 0], "rows": 4, "columns": 6, "cell_size": 1.0}
    wall = {"name": "w", "tag": "Obstacle", "model": "cube", "pos": [3.5, 2, 0], "scale": [1, 4, 1]}
    return {"version": 1, "grid": grid, "objects": [wall], "links": [link]}


@pytest.mark.parametrize(
    ("link", "problem"),
    [
        ({"from": [1.5, 1.5], "to": [9.5, 1.5]}, "end (1, 9) lies outside the 4x6 grid [row, col]"),
        ({"from": [1.5, 1.5], "to": [3.5, 1.5]}, "end (1, 3) lies inside a wall"),
        ({"from": [3.5, 0.5], "to": [5.5, 1.5]}, "start (0, 3) lies inside a wall"),
    ],
    ids=["off-grid", "end-in-wall", "start-in-wall"],
)
def test_a_link_end_off_the_grid_or_in_a_wall_is_one_line(link, problem):
    with pytest.raises(SceneError) as caught:
        parse_scene(_data(link), source="x.toml")
    where = f"from {link['from']} to {link['to']}"
    assert str(caught.value) == f"x.toml: links[0]: {where}: {problem}"


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("cost", -1.0, "must be within 0..1000000, got -1.0"),
        ("kind", "rope", "must be one of jump, ladder, teleport, got 'rope'"),
        ("width", 0, "must be at least 1, got 0"),
        ("bidirectional", "no", "expected true or false, got string 'no'"),
    ],
    ids=["negative-cost", "kind", "width", "bidirectional"],
)
def test_a_bad_link_setting_is_one_line(key, value, problem):
    link = {"from": [1.5, 1.5], "to": [5.5, 1.5], key: value}
    with pytest.raises(SceneError) as caught:
        parse_scene(_data(link), source="x.toml")
    assert str(caught.value) == f"x.toml: links[0].{key}: {problem}"


def test_a_bad_link_exits_2(tmp_path, capsys):
    scene = tmp_path / "bad.toml"
    text = LINKS_SCENE.read_text().replace("to = [1.5, 4.5]", "to = [0.0, 4.5]")
    scene.write_text(text)
    assert main(["run", str(scene), "--headless", "--frames", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].endswith(
        "links[0]: from [-1.5, 4.5] to [0.0, 4.5]: end (11, 12) lies inside a wall"
    )


def test_the_scene_round_trips_through_save(tmp_path):
    source = tmp_path / "links.toml"
    shutil.copy(LINKS_SCENE, source)
    old = load_scene(source)
    moved = [
        ObjectState(obj.name, obj.tag.value, obj.model, obj.pos, obj.scale, obj.heading)
        for obj in old.objects
    ]
    moved[0] = dataclasses.replace(moved[0], pos=(-5.5, 0.5, 0.0))  # Start, dragged
    saved = save_scene(source, moved, target=tmp_path / "saved.toml")
    again = load_scene(saved)
    assert again.links == old.links
    assert again.objects[0].pos == (-5.5, 0.5, 0.0)
    assert tomllib.loads(saved.read_text())["links"][1]["bidirectional"] is False


@pytest.fixture(scope="module")
def crossing_trace(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The links scene, traced for 25 s: the dropper, the climber and the hopper cross."""
    trace = tmp_path_factory.mktemp("links") / "t.jsonl"
    argv = ["run", str(LINKS_SCENE), "--headless", "--frames", "1500", "--trace", str(trace)]
    assert main(argv) == 0
    return [json.loads(line) for line in trace.read_text().splitlines()[1:]]


DROPPER, CLIMBER, HOPPER = 0, 1, 2
LADDER_Y, DROP_Y = 4.5, -3.5


def _crossings(lines: list[dict[str, Any]], agent: int) -> list[tuple[float, float, float]]:
    """Each time the agent passed x = 0 (the wall): (y there, x before, x after)."""
    found = []
    for before, after in itertools.pairwise(lines):
        (x0, y0), (x1, _) = before["pos"][agent], after["pos"][agent]
        if (x0 < 0.0) != (x1 < 0.0):
            found.append((y0, x0, x1))
    return found


def test_the_dropper_takes_the_drop_east(crossing_trace):
    crossings = _crossings(crossing_trace, DROPPER)
    assert len(crossings) == 1
    y, x0, x1 = crossings[0]
    assert abs(y - DROP_Y) < 0.5
    assert x1 > x0


def test_a_one_way_link_is_never_walked_backwards(crossing_trace):
    # West, the drop would be the climber's cheapest way: it climbs the ladder instead.
    crossings = _crossings(crossing_trace, CLIMBER)
    assert len(crossings) == 1
    y, x0, x1 = crossings[0]
    assert abs(y - LADDER_Y) < 0.5
    assert x1 < x0
    assert crossing_trace[-1]["pos"][CLIMBER][0] < -5.0  # at Start


def test_a_crossing_takes_the_links_cost_based_time():
    grid = GridManager(origin=(0.0, 0.0), num_of_rows=1, num_of_columns=6, grid_cell_size=0.5)
    grid.links = (NavLink((0, 0), (0, 5), cost=3.0, kind="ladder"),)
    route = LinkRoute(grid)
    plan = PlanOutcome(True, "", ((0, 0), (0, 5)), ((2.75, 0.25),))
    assert route.waypoints(plan, radius=0.0, allowed=None, smoothing=True) == [(0.25, 0.25)]
    assert route.link_ahead
    route.begin((0.25, 0.25), speed=2.0)
    crossing = route.crossing
    assert crossing is not None
    assert crossing.duration_s == pytest.approx(3.0 * 0.5 / 2.0)  # cost * cell / speed
    node = NodePath("agent")
    frames = 0
    while route.crossing is not None:
        (x, _), waypoints = route.step(crossing, DT, node)
        frames += 1
    assert frames == math.ceil(0.75 / DT - 1e-9)
    assert (x, waypoints) == (2.75, [(2.75, 0.25)])  # on the far foot, the goal ahead
    assert not route.link_ahead
    assert node.get_z() == 0.0
    assert not node.is_hidden()


def test_the_teleport_takes_the_hopper_across(crossing_trace):
    xs = [line["pos"][HOPPER][0] for line in crossing_trace]
    assert xs[0] < -10.0
    assert max(xs) > 9.0  # it came out on the far side
    assert not any(-0.5 < x < 0.5 for x in xs)  # and never walked through the wall's column


@pytest.mark.parametrize(
    ("kind", "at", "pose"),
    [
        ("jump", 0.5, (2.0, 0.0, 2.4, True)),
        ("ladder", 1.0 / 6.0, (0.0, 0.0, 1.0, True)),
        ("ladder", 0.5, (2.0, 0.0, 2.0, True)),
        ("teleport", 0.5, (0.0, 0.0, 0.0, False)),
        ("teleport", 1.0, (4.0, 0.0, 0.0, True)),
    ],
    ids=["jump-arcs", "ladder-climbs", "ladder-top", "teleport-hidden", "teleport-shown"],
)
def test_each_kind_is_crossed_its_way(kind, at, pose):
    crossing = Crossing(kind, (0.0, 0.0), (4.0, 0.0), duration_s=1.0)
    crossing.advance(at)
    assert crossing.pose() == pytest.approx(pose)


def test_a_crowd_in_a_scene_with_links_crosses_them(tmp_path):
    # Ten agents chasing End follow the crowd's shared field, links and all: every one gets
    # across.
    crowd = (
        '\n[[crowds]]\nname = "group"\ncount = 10\narea = [-10.0, -2.0, -6.0, 2.0]\nseed = 1\n'
        "[crowds.agent]\nspeed = 3.0\n"
    )
    scene = tmp_path / "crowd.toml"
    scene.write_text(LINKS_SCENE.read_text() + crowd)
    report = tmp_path / "r.json"
    argv = ["run", str(scene), "--headless", "--frames", "1200", "--report", str(report)]
    assert main(argv) == 0
    agents = json.loads(report.read_text())["agents"]
    group = [agent for agent in agents if agent["name"].startswith("group")]
    assert len(group) == 10
    assert all(agent["pos"][0] > 0.5 for agent in group)  # east of the wall, at End


class _Ground:
    """A picker whose ground point is the mouse position itself (world x, y)."""

    def ground_point(self, mouse: tuple[float, float], *, z: float = 0.0) -> Point3:
        return Point3(mouse[0], mouse[1], z)


def _link_ends() -> tuple[LinkEnds, GridManager, EditHistory, list[str]]:
    scene = load_scene(LINKS_SCENE)
    spec = scene.grid
    grid = GridManager(
        origin=spec.origin,
        num_of_rows=spec.rows,
        num_of_columns=spec.columns,
        grid_cell_size=spec.cell_size,
    )
    grid._walkable[:, 12] = False  # the wall, as the scene's obstacle rasterizes
    grid.links = nav_links(scene.links, spec.origin, spec.cell_size)
    history, notes = EditHistory(), list[str]()
    ends = LinkEnds(_Ground(), grid, history, scene.links, notes.append)  # type: ignore[arg-type]
    return ends, grid, history, notes


def test_a_dragged_link_end_moves_the_planners_link_in_one_undoable_edit():
    ends, grid, history, _ = _link_ends()
    assert ends.press((-1.3, 4.6))  # near the ladder's west foot
    for x in (-2.0, -2.6, -3.4):
        ends.move((x, 4.5))
    ends.release((-3.4, 5.4))
    assert ends.specs[0].start == (-3.5, 5.5)  # on the centre of the cell it was dropped on
    assert grid.links[0].start == (12, 8)
    assert history.undo_depth == 1
    history.undo()
    assert ends.specs[0].start == (-1.5, 4.5)
    assert grid.links[0].start == (11, 10)


def test_a_link_end_dropped_in_a_wall_goes_back():
    ends, _, history, notes = _link_ends()
    assert ends.press((1.5, -3.5))  # the drop's landing
    ends.release((0.2, -3.5))
    assert ends.specs[1].end == (1.5, -3.5)
    assert history.undo_depth == 0
    assert notes == ["link 1 stays: end (3, 12) lies inside a wall"]


def test_a_press_away_from_every_end_is_not_taken():
    ends, _, _, _ = _link_ends()
    assert not ends.press((-6.0, 0.0))


def test_moved_link_ends_are_saved(tmp_path):
    source = tmp_path / "links.toml"
    shutil.copy(LINKS_SCENE, source)
    old = load_scene(source)
    states = [
        ObjectState(obj.name, obj.tag.value, obj.model, obj.pos, obj.scale, obj.heading)
        for obj in old.objects
    ]
    moved = dataclasses.replace(old.links[2], end=(9.5, 4.5))
    links = [old.links[0], old.links[1], moved]
    save_scene(source, states, links=links)
    again = load_scene(source)
    assert again.links == tuple(links)
    assert "# A link's `from` and `to`" in source.read_text()  # the comments stay
