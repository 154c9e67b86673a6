"""A world that moves, live: movers, rotators and doors where the maths puts them, the grid
following them footprint by footprint, drags and saves of moving objects, the report and the
trace, and the traffic scene running headless."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest
from panda3d.core import Point3

from sim.app.composition import RunOptions, SimApp
from sim.config import DoorConfig, MoverConfig, MoverMode, RotatorConfig
from sim.engine import GameObject
from sim.engine.showbase import DisplaySettings
from sim.navigation import box_footprint, transform_box
from sim.scene.file import load_scene
from sim.scene.motion_paths import MoverRoute, door_is_open, heading_at
from tests.helpers.fixtures import OpenApp
from tests.helpers.paths import SCENES_DIR
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

TRAFFIC = SCENES_DIR / "traffic.toml"
DT = 1.0 / 60.0
# Panda3D keeps a node's transform in float32: a few units from 0 that is 1e-6, and headings
# come back through a matrix, good to a few 1e-5 degrees.
POS_TOL = 1e-5
HEADING_TOL = 1e-3

SCENE = """\
version = 1

[grid]
origin = [0.0, 0.0]
rows = 12
columns = 16
cell_size = 1.0

[[objects]]
name = "start"
tag = "Start"
model = "cube"
pos = [0.5, 0.5, 0.0]
scale = 0.8

[[objects]]
name = "end"
tag = "End"
model = "cube"
pos = [14.5, 10.5, 0.0]
scale = 0.8

[objects.mover]
waypoints = [[14.5, 1.5]]
speed = 1.5

[[objects]]
name = "pillar"  # never moves: the grid must never redo it
tag = "Obstacle"
model = "cube"
pos = [8.5, 10.5, 0.0]

[[objects]]
name = "block"
tag = "Obstacle"
model = "cube"
pos = [2.5, 5.5, 0.0]
scale = [1.0, 1.0, 1.0]

[objects.mover]
waypoints = [[12.5, 5.5], [12.5, 8.5]]
speed = 2.0
mode = "loop"
wait_s = 0.25

[[objects]]
name = "bar"
tag = "Obstacle"
model = "cube"
pos = [5.0, 2.0, 0.0]
scale = [3.0, 0.4, 1.0]
heading = 10.0

[objects.rotator]
deg_per_s = -50.0

[[objects]]
name = "door"
tag = "Obstacle"
model = "cube"
pos = [10.5, 2.5, 0.0]
scale = [1.0, 3.0, 1.5]

[objects.door]
period_s = 1.0
open_fraction = 0.4
phase_s = 0.3

[[objects]]
name = "mud"
tag = "Terrain"
model = "cube"
pos = [3.0, 9.0, 0.0]
scale = [2.0, 2.0, 0.05]

[objects.terrain]
cost = 4.0

[objects.mover]
waypoints = [[6.0, 9.0]]
speed = 1.0
"""


@pytest.fixture
def scene_file(tmp_path: Path) -> Path:
    path = tmp_path / "moving.toml"
    path.write_text(SCENE)
    return path


@pytest.fixture
def app(open_app: OpenApp, scene_file: Path) -> SimApp:
    return open_app(scene_file, size=(320, 240))


def find(app: SimApp, name: str) -> GameObject:
    obj = app.world.find(name)
    assert obj is not None
    return obj


def run(app: SimApp, frames: int) -> None:
    for _ in range(frames):
        app.step()


def footprint_mask(app: SimApp, obj: GameObject) -> np.ndarray:
    """The cells `obj`'s box covers now, as a full-grid mask."""
    node = obj.node
    x, y = obj.xy
    box = transform_box(x, y, node.get_sx(), node.get_sy(), node.get_h())
    grid = app.grid
    shape = (grid.num_of_rows, grid.num_of_columns)
    footprint = box_footprint(box, shape, origin=grid.origin, cell_size=grid.grid_cell_size)
    mask = np.zeros(shape, dtype=bool)
    mask[footprint.rows, footprint.cols] = footprint.mask
    return mask


# --- where things are -----------------------------------------------------------------------------


@pytest.mark.parametrize("frames", [1, 37, 200, 431])
def test_a_mover_is_where_the_maths_says_at_frame_n(app: SimApp, frames: int) -> None:
    route = MoverRoute.of(
        (2.5, 5.5), MoverConfig(((12.5, 5.5), (12.5, 8.5)), 2.0, MoverMode.LOOP, 0.25)
    )
    run(app, frames)
    x, y = find(app, "block").xy
    expected = route.position_at(frames * DT)
    assert (x, y) == pytest.approx(expected, abs=POS_TOL)


def test_a_moving_end_wanders_and_the_path_follows_it(app: SimApp) -> None:
    route = MoverRoute.of((14.5, 10.5), MoverConfig(((14.5, 1.5),), 1.5))
    run(app, 240)
    end = find(app, "end")
    assert end.xy == pytest.approx(route.position_at(4.0), abs=POS_TOL)
    outcome = app.path.outcome
    assert outcome is not None
    assert outcome.found
    assert outcome.cells[-1] == app.grid.world_to_cell(*end.xy)


def test_a_rotator_turns_at_its_rate(app: SimApp) -> None:
    bar = find(app, "bar")
    for frames in (1, 60, 133):
        run(app, frames - app.frames)
        expected = heading_at(10.0, -50.0, frames * DT)
        turned = math.remainder(bar.node.get_h() - expected, 360.0)
        assert abs(turned) < HEADING_TOL, frames


# --- the grid follows -----------------------------------------------------------------------------


def test_the_blocked_cells_follow_a_moving_block(app: SimApp) -> None:
    block = find(app, "block")
    run(app, 1)
    before = footprint_mask(app, block)
    assert not app.grid.walkable[before].any()
    run(app, 90)  # 1.5 s at 2 units/s: three cells further east
    now = footprint_mask(app, block)
    assert not app.grid.walkable[now].any(), "cells under the block are blocked"
    left = before & ~now
    assert left.any()
    assert app.grid.walkable[left].all(), "cells it left are free again"


def test_a_moving_block_costs_only_its_own_footprint_each_frame(app: SimApp) -> None:
    run(app, 30)  # the door is open here (0..0.3 s closed is past): only the block and the bar
    for _ in range(10):
        door_was_open = door_is_open(DoorConfig(1.0, 0.4, 0.3), app.world.time_s)
        done = app.grid.rasterized_footprints
        app.step()
        door_open = door_is_open(DoorConfig(1.0, 0.4, 0.3), app.world.time_s)
        # The block and the bar move every frame; the door only when it changes state (its
        # footprint stays while it rises and sinks); the pillar never.
        assert app.grid.rasterized_footprints - done == 2 + (door_open != door_was_open)


def test_a_door_blocks_exactly_while_it_is_closed(app: SimApp) -> None:
    door = find(app, "door")
    config = DoorConfig(1.0, 0.4, 0.3)
    cells = footprint_mask(app, door)
    assert cells.sum() == 3
    seen = set()
    for _ in range(150):  # two and a half periods, frame by frame
        app.step()
        opened = door_is_open(config, app.world.time_s)
        seen.add(opened)
        blocked = ~app.grid.walkable[cells]
        assert blocked.all() == (not opened), app.frames
        assert blocked.any() == (not opened), app.frames
        top = door.node.get_z() + door.node.get_sz()
        assert (top > 0.0) == (not opened)
    assert seen == {True, False}


def test_a_door_starts_open_when_its_phase_is_0(open_app: OpenApp, tmp_path: Path) -> None:
    path = tmp_path / "door.toml"
    path.write_text(SCENE.replace("phase_s = 0.3\n", ""))
    app = open_app(path, size=(160, 120))
    app.step()
    cells = footprint_mask(app, find(app, "door"))
    assert app.grid.walkable[cells].all()


def test_a_moving_terrain_patch_moves_its_costs(app: SimApp) -> None:
    mud = find(app, "mud")
    run(app, 1)
    costs = app.grid.costs
    assert costs is not None
    before = footprint_mask(app, mud)
    assert (costs[before] == 4.0).all()
    run(app, 120)  # 2 s at 1 unit/s: two cells east
    costs = app.grid.costs
    assert costs is not None
    now = footprint_mask(app, mud)
    assert (costs[now] == 4.0).all()
    assert (costs[before & ~now] == 1.0).all()


# --- dragging and saving --------------------------------------------------------------------------


def pixel_of(app: SimApp, x: float, y: float, z: float = 0.5) -> tuple[int, int]:
    pixel = app.screen_of_point(Point3(x, y, z))
    assert pixel is not None
    return pixel


def test_a_dropped_mover_sets_off_again_from_where_it_was_dropped(
    open_app: OpenApp, scene_file: Path
) -> None:
    app = open_app(scene_file, size=(640, 480))
    mouse = Mouse(app)
    block = find(app, "block")
    run(app, 10)
    target = (6.5, 2.5)
    mouse.drag(pixel_of(app, *block.xy, z=0.0), pixel_of(app, *target, z=0.0))
    # Dropped: where the pointer let go, not where its route had got to meanwhile.
    dropped = block.xy
    assert dropped == pytest.approx(target, abs=0.3)
    dropped_at = app.world.time_s  # the drop's frame: its route set off from there, then
    run(app, 30)
    route = MoverRoute.of(
        dropped, MoverConfig(((12.5, 5.5), (12.5, 8.5)), 2.0, MoverMode.LOOP, 0.25)
    )
    assert block.xy == pytest.approx(route.position_at(app.world.time_s - dropped_at), abs=1e-4)


def test_saving_keeps_the_motion_tables_and_the_route_origin(
    open_app: OpenApp, scene_file: Path, tmp_path: Path
) -> None:
    saved = tmp_path / "saved.toml"
    app = open_app(scene_file, size=(640, 480), save_as=saved)
    mouse = Mouse(app)
    block = find(app, "block")
    run(app, 10)
    mouse.drag(pixel_of(app, *block.xy, z=0.0), pixel_of(app, 4.5, 3.5, z=0.0))
    dropped = block.xy
    run(app, 45)  # mid-route, the bar turned, the door and End elsewhere
    assert block.xy != pytest.approx(dropped, abs=0.1)
    assert app.editor.save() == saved
    original = tomllib.loads(SCENE)["objects"]
    written = tomllib.loads(saved.read_text())["objects"]
    for before, after in zip(original, written, strict=True):
        for table in ("mover", "rotator", "door", "terrain"):
            assert after.get(table) == before.get(table), (before["name"], table)
        if before["name"] != "block":
            # Moving by itself is no edit: each keeps where its motion starts.
            assert after["pos"] == before["pos"], before["name"]
            assert after.get("heading") == before.get("heading"), before["name"]
    (block_entry,) = [entry for entry in written if entry["name"] == "block"]
    assert block_entry["pos"][:2] == pytest.approx(dropped, abs=1e-4)
    assert block_entry["pos"][2] == 0.0
    reloaded = load_scene(saved).find("block")
    assert reloaded is not None
    assert reloaded.mover == MoverConfig(((12.5, 5.5), (12.5, 8.5)), 2.0, MoverMode.LOOP, 0.25)


def test_saving_an_unedited_moving_scene_changes_nothing(
    open_app: OpenApp, scene_file: Path, tmp_path: Path
) -> None:
    saved = tmp_path / "same.toml"
    app = open_app(scene_file, size=(160, 120), save_as=saved)
    run(app, 77)
    assert app.editor.save() == saved
    assert saved.read_text() == SCENE


# --- report and trace -----------------------------------------------------------------------------


def test_the_report_gives_moving_objects_where_they_are_now(app: SimApp) -> None:
    run(app, 100)
    entries = {entry["name"]: entry for entry in app.report()["objects"]}
    block, bar = find(app, "block"), find(app, "bar")
    assert entries["block"]["pos"][:2] == pytest.approx(list(block.xy), abs=1e-5)
    assert entries["block"]["pos"][:2] != pytest.approx([2.5, 5.5], abs=0.5)
    expected = heading_at(10.0, -50.0, 100 * DT)
    assert math.remainder(entries["bar"]["heading"] - expected, 360.0) == pytest.approx(
        0.0, abs=HEADING_TOL
    )
    assert entries["bar"]["heading"] == pytest.approx(round(bar.node.get_h(), 4))


def test_the_trace_lists_the_movers_and_where_they_stand_each_frame(
    scene_file: Path, tmp_path: Path
) -> None:
    trace = tmp_path / "run.jsonl"
    display = DisplaySettings(headless=True, size=(160, 120))
    app = SimApp(RunOptions(load_scene(scene_file), display, frames=90, trace=trace))
    try:
        app.run()
    finally:
        app.destroy()
    header, *lines = [json.loads(line) for line in trace.read_text().splitlines()]
    # Movers and rotators, in scene order; the door neither travels nor turns.
    assert header["movers"] == [
        {"name": "end", "scale": [0.8, 0.8, 0.8], "heading": 0.0},
        {"name": "block", "scale": [1.0, 1.0, 1.0], "heading": 0.0},
        {"name": "bar", "scale": [3.0, 0.4, 1.0], "heading": 10.0},
        {"name": "mud", "scale": [2.0, 2.0, 0.05], "heading": 0.0},
    ]
    assert len(lines) == 90
    block = MoverRoute.of(
        (2.5, 5.5), MoverConfig(((12.5, 5.5), (12.5, 8.5)), 2.0, MoverMode.LOOP, 0.25)
    )
    for line in (lines[0], lines[44], lines[89]):
        t = line["frame"] * DT
        assert len(line["movers"]) == 4
        x, y, heading = line["movers"][1]
        assert (x, y) == pytest.approx(block.position_at(t), abs=2e-5)
        assert line["movers"][2][2] == pytest.approx(heading_at(10.0, -50.0, t), abs=HEADING_TOL)
        assert heading == 0.0


def test_motion_runs_on_simulated_time_so_a_paused_world_stands_still(app: SimApp) -> None:
    run(app, 20)
    app.toggle_pause()
    block = find(app, "block")
    where = block.xy
    run(app, 20)
    assert block.xy == where
    app.toggle_pause()
    app.step()
    assert block.xy != where


# --- the traffic scene ----------------------------------------------------------------------------


def test_the_traffic_scene_runs_headless(open_app: OpenApp) -> None:
    app = open_app(TRAFFIC, size=(320, 240))
    run(app, 600)
    report = app.report()
    assert report["errors"] == []
    assert report["sim_time_s"] == pytest.approx(10.0)
    for agent in report["agents"]:
        assert agent["blocked_cell_frames"] == 0
    # Everything that moves has moved.
    scene = load_scene(TRAFFIC)
    for spec in scene.objects:
        if spec.mover is None and spec.rotator is None and spec.door is None:
            continue
        obj = find(app, spec.name)
        moved = obj.world_pos != pytest.approx(spec.pos, abs=1e-3)
        turned = abs(math.remainder(obj.node.get_h() - spec.heading, 360.0)) > 1e-3
        assert moved or turned, spec.name


def test_every_motion_of_the_traffic_scene_is_on_the_grid() -> None:
    scene = load_scene(TRAFFIC)
    x0, y0 = scene.grid.origin
    x1, y1 = x0 + scene.grid.width, y0 + scene.grid.height
    for spec in scene.objects:
        if spec.mover is None:
            continue
        for x, y in (spec.pos[:2], *spec.mover.waypoints):
            assert x0 < x < x1, spec.name
            assert y0 < y < y1, spec.name


def test_rotator_config_reads_from_the_scene(scene_file: Path) -> None:
    bar = load_scene(scene_file).find("bar")
    assert bar is not None
    assert bar.rotator == RotatorConfig(-50.0)
