"""A world that moves: `[objects.mover]`, `.rotator` and `.door` in scene files, their one-line
errors, and the pure maths of where a mover, a rotator and a door are at time t."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from panda3d.core import NodePath

from sim.app.trace import TraceWriter
from sim.components.grid_manager import GridManager
from sim.config import DoorConfig, MoverConfig, MoverMode, RotatorConfig, Tag
from sim.engine import GameObject, World
from sim.navigation import Box, box_footprint
from sim.scene.file import load_scene
from sim.scene.motion_paths import (
    DOOR_OPEN,
    DOOR_RAMP_S,
    DOOR_SLIT,
    MoverRoute,
    door_height,
    door_is_open,
    door_ramp_s,
    heading_at,
)
from sim.scene.spec import SceneError, SceneSpec
from tests.helpers.paths import SCENES_DIR
from tests.helpers.scenes import GRID_10

TRAFFIC = SCENES_DIR / "traffic.toml"
HEAD = (
    GRID_10
    + """
[[objects]]
name = "thing"
tag = "{tag}"
model = "cube"
pos = [2.0, 2.0, 0.0]
"""
)
MOVER = "[objects.mover]\nwaypoints = [[6.0, 2.0], [6.0, 6.0]]\nspeed = 2.0\n"
ROTATOR = "[objects.rotator]\ndeg_per_s = 30.0\n"
DOOR = "[objects.door]\nperiod_s = 6.0\nopen_fraction = 0.5\n"


def load_text(tmp_path: Path, text: str) -> SceneSpec:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return load_scene(path)


def document(table: str, *, tag: str = "Obstacle") -> str:
    return HEAD.format(tag=tag) + table


# --- reading the tables -------------------------------------------------------------------------


def test_a_mover_is_read_with_its_defaults(tmp_path: Path) -> None:
    (thing,) = load_text(tmp_path, document(MOVER)).objects
    assert thing.mover == MoverConfig(((6.0, 2.0), (6.0, 6.0)), 2.0, MoverMode.PINGPONG, 0.0)
    assert (thing.rotator, thing.door, thing.moves) == (None, None, True)


def test_a_mover_reads_every_key(tmp_path: Path) -> None:
    table = '[objects.mover]\nwaypoints = [[1, 1]]\nspeed = 3\nmode = "loop"\nwait_s = 0.5\n'
    (thing,) = load_text(tmp_path, document(table)).objects
    assert thing.mover == MoverConfig(((1.0, 1.0),), 3.0, MoverMode.LOOP, 0.5)


def test_a_rotator_and_a_door_are_read(tmp_path: Path) -> None:
    table = ROTATOR + "[objects.door]\nperiod_s = 4\nopen_fraction = 0.25\nphase_s = -1.5\n"
    (thing,) = load_text(tmp_path, document(table)).objects
    assert thing.rotator == RotatorConfig(30.0)
    assert thing.door == DoorConfig(4.0, 0.25, -1.5)
    assert thing.mover is None


def test_a_door_phase_defaults_to_0(tmp_path: Path) -> None:
    (thing,) = load_text(tmp_path, document(DOOR)).objects
    assert thing.door == DoorConfig(6.0, 0.5, 0.0)


@pytest.mark.parametrize("tag", ["Obstacle", "Terrain", "End"])
def test_a_mover_goes_on_obstacles_terrain_and_the_end(tmp_path: Path, tag: str) -> None:
    extra = "[objects.terrain]\ncost = 2.0\n" if tag == "Terrain" else ""
    (thing,) = load_text(tmp_path, document(extra + MOVER, tag=tag)).objects
    assert thing.mover is not None


def test_objects_without_the_tables_do_not_move(tmp_path: Path) -> None:
    (thing,) = load_text(tmp_path, document("")).objects
    assert (thing.mover, thing.rotator, thing.door, thing.moves) == (None, None, None, False)


def test_the_traffic_scene_has_every_kind_of_motion() -> None:
    scene = load_scene(TRAFFIC)
    (end,) = scene.objects_with_tag(Tag.END)
    assert end.mover is not None
    obstacles = scene.objects_with_tag(Tag.OBSTACLE)
    assert any(obj.mover is not None for obj in obstacles)
    assert any(obj.rotator is not None for obj in obstacles)
    assert any(obj.door is not None for obj in obstacles)


def _mover(body: str) -> str:
    return "[objects.mover]\n" + body


BROKEN = {
    # movers
    "mover-no-waypoints": (
        _mover("speed = 2.0\n"),
        "objects[0].mover.waypoints: missing required key",
    ),
    "mover-empty-waypoints": (
        _mover("waypoints = []\nspeed = 2.0\n"),
        "objects[0].mover.waypoints: expected at least one [x, y] point, got an empty array",
    ),
    "mover-waypoints-not-array": (
        _mover("waypoints = 3\nspeed = 2.0\n"),
        "objects[0].mover.waypoints: expected an array of [x, y] points, got integer 3",
    ),
    "mover-waypoint-not-pair": (
        _mover("waypoints = [[1.0, 2.0, 3.0]]\nspeed = 2.0\n"),
        "objects[0].mover.waypoints[0]: expected 2 numbers, got 3",
    ),
    "mover-waypoint-bare-number": (
        _mover("waypoints = [[1.0, 2.0], 4.0]\nspeed = 2.0\n"),
        "objects[0].mover.waypoints[1]: expected an array of 2 numbers, got float 4.0",
    ),
    "mover-waypoint-nan": (
        _mover("waypoints = [[1.0, nan]]\nspeed = 2.0\n"),
        "objects[0].mover.waypoints[0][1]: must be finite, got nan",
    ),
    "mover-waypoint-inf": (
        _mover("waypoints = [[inf, 1.0]]\nspeed = 2.0\n"),
        "objects[0].mover.waypoints[0][0]: must be finite, got inf",
    ),
    "mover-waypoint-string": (
        _mover('waypoints = [["a", 1.0]]\nspeed = 2.0\n'),
        "objects[0].mover.waypoints[0][0]: expected a number, got string 'a'",
    ),
    "mover-no-speed": (
        _mover("waypoints = [[1.0, 1.0]]\n"),
        "objects[0].mover.speed: missing required key",
    ),
    "mover-speed-0": (
        _mover("waypoints = [[1.0, 1.0]]\nspeed = 0\n"),
        "objects[0].mover.speed: must be > 0, got 0",
    ),
    "mover-speed-negative": (
        _mover("waypoints = [[1.0, 1.0]]\nspeed = -1.5\n"),
        "objects[0].mover.speed: must be > 0, got -1.5",
    ),
    "mover-speed-string": (
        _mover('waypoints = [[1.0, 1.0]]\nspeed = "fast"\n'),
        "objects[0].mover.speed: expected a number, got string 'fast'",
    ),
    "mover-speed-bool": (
        _mover("waypoints = [[1.0, 1.0]]\nspeed = true\n"),
        "objects[0].mover.speed: expected a number, got boolean true",
    ),
    "mover-bad-mode": (
        _mover('waypoints = [[1.0, 1.0]]\nspeed = 1\nmode = "pingpang"\n'),
        "objects[0].mover.mode: expected 'loop' or 'pingpong', got 'pingpang'; "
        "did you mean 'pingpong'?",
    ),
    "mover-mode-not-string": (
        _mover("waypoints = [[1.0, 1.0]]\nspeed = 1\nmode = 2\n"),
        "objects[0].mover.mode: expected a string, got integer 2",
    ),
    "mover-wait-negative": (
        _mover("waypoints = [[1.0, 1.0]]\nspeed = 1\nwait_s = -0.5\n"),
        "objects[0].mover.wait_s: must be >= 0, got -0.5",
    ),
    "mover-wait-string": (
        _mover('waypoints = [[1.0, 1.0]]\nspeed = 1\nwait_s = "1"\n'),
        "objects[0].mover.wait_s: expected a number, got string '1'",
    ),
    "mover-unknown-key": (
        _mover("waypoints = [[1.0, 1.0]]\nspeed = 1\nwait = 1\n"),
        "objects[0].mover.wait: unknown key; did you mean 'wait_s'?",
    ),
    "mover-not-a-table": ("mover = 1\n", "objects[0].mover: expected a table, got integer 1"),
    # rotators
    "rotator-0": (
        "[objects.rotator]\ndeg_per_s = 0\n",
        "objects[0].rotator.deg_per_s: must not be 0 (the sign is the direction: "
        "+ counter-clockwise)",
    ),
    "rotator-0.0": (
        "[objects.rotator]\ndeg_per_s = -0.0\n",
        "objects[0].rotator.deg_per_s: must not be 0 (the sign is the direction: "
        "+ counter-clockwise)",
    ),
    "rotator-nan": (
        "[objects.rotator]\ndeg_per_s = nan\n",
        "objects[0].rotator.deg_per_s: must be finite, got nan",
    ),
    "rotator-string": (
        '[objects.rotator]\ndeg_per_s = "30"\n',
        "objects[0].rotator.deg_per_s: expected a number, got string '30'",
    ),
    "rotator-missing": (
        "[objects.rotator]\n",
        "objects[0].rotator.deg_per_s: missing required key",
    ),
    "rotator-unknown-key": (
        "[objects.rotator]\ndeg_per_s = 3\nspeed = 2\n",
        "objects[0].rotator.speed: unknown key; expected 'deg_per_s'",
    ),
    # doors
    "door-period-0": (
        "[objects.door]\nperiod_s = 0\nopen_fraction = 0.5\n",
        "objects[0].door.period_s: must be > 0, got 0",
    ),
    "door-period-negative": (
        "[objects.door]\nperiod_s = -6\nopen_fraction = 0.5\n",
        "objects[0].door.period_s: must be > 0, got -6",
    ),
    "door-period-missing": (
        "[objects.door]\nopen_fraction = 0.5\n",
        "objects[0].door.period_s: missing required key",
    ),
    "door-fraction-0": (
        "[objects.door]\nperiod_s = 6\nopen_fraction = 0\n",
        "objects[0].door.open_fraction: must lie strictly between 0 and 1, got 0",
    ),
    "door-fraction-1": (
        "[objects.door]\nperiod_s = 6\nopen_fraction = 1.0\n",
        "objects[0].door.open_fraction: must lie strictly between 0 and 1, got 1.0",
    ),
    "door-fraction-over-1": (
        "[objects.door]\nperiod_s = 6\nopen_fraction = 1.5\n",
        "objects[0].door.open_fraction: must lie strictly between 0 and 1, got 1.5",
    ),
    "door-fraction-missing": (
        "[objects.door]\nperiod_s = 6\n",
        "objects[0].door.open_fraction: missing required key",
    ),
    "door-phase-string": (
        '[objects.door]\nperiod_s = 6\nopen_fraction = 0.5\nphase_s = "x"\n',
        "objects[0].door.phase_s: expected a number, got string 'x'",
    ),
    "door-phase-inf": (
        "[objects.door]\nperiod_s = 6\nopen_fraction = 0.5\nphase_s = -inf\n",
        "objects[0].door.phase_s: must be finite, got -inf",
    ),
    "door-unknown-key": (
        "[objects.door]\nperiod_s = 6\nopen_fraction = 0.5\nphase = 1\n",
        "objects[0].door.phase: unknown key; did you mean 'phase_s'?",
    ),
}


@pytest.mark.parametrize(("table", "problem"), BROKEN.values(), ids=BROKEN.keys())
def test_a_bad_motion_table_is_one_line_naming_the_key(
    tmp_path: Path, table: str, problem: str
) -> None:
    with pytest.raises(SceneError) as caught:
        load_text(tmp_path, document(table))
    assert str(caught.value) == f"{tmp_path / 'bad.toml'}: {problem}"
    assert "\n" not in str(caught.value)


WRONG_TAG = {
    "mover-on-start": (MOVER, "Start", "mover", "'Obstacle', 'Terrain' or 'End'"),
    "mover-on-untagged": (MOVER, "Untagged", "mover", "'Obstacle', 'Terrain' or 'End'"),
    "rotator-on-end": (ROTATOR, "End", "rotator", "'Obstacle'"),
    "rotator-on-terrain": (ROTATOR, "Terrain", "rotator", "'Obstacle'"),
    "door-on-end": (DOOR, "End", "door", "'Obstacle'"),
    "door-on-agent": (DOOR, "Agent", "door", "'Obstacle'"),
}


@pytest.mark.parametrize(("table", "tag", "key", "allowed"), WRONG_TAG.values(), ids=WRONG_TAG)
def test_a_motion_table_on_the_wrong_tag_is_refused(
    tmp_path: Path, table: str, tag: str, key: str, allowed: str
) -> None:
    extra = "[objects.terrain]\ncost = 2.0\n" if tag == "Terrain" else ""
    with pytest.raises(SceneError) as caught:
        load_text(tmp_path, document(extra + table, tag=tag))
    where = f"{tmp_path / 'bad.toml'}: objects[0].{key}: "
    assert str(caught.value) == f"{where}only allowed on objects tagged {allowed}, not {tag!r}"


# --- movers -------------------------------------------------------------------------------------


def route(*waypoints: tuple[float, float], **options: object) -> MoverRoute:
    config = MoverConfig(tuple(waypoints), **options)  # type: ignore[arg-type]
    return MoverRoute.of((0.0, 0.0), config)


def test_a_mover_starts_at_its_origin_and_stays_there_before_time_0() -> None:
    square = route((4.0, 0.0), speed=2.0)
    assert square.position_at(0.0) == (0.0, 0.0)
    assert square.position_at(-5.0) == (0.0, 0.0)


def test_a_pingpong_mover_goes_there_and_back_the_way_it_came() -> None:
    corner = route((4.0, 0.0), (4.0, 4.0), speed=2.0)  # legs 2 s each: out 4 s, back 4 s
    assert corner.cycle_s == pytest.approx(8.0)
    expected = {
        1.0: (2.0, 0.0),
        2.0: (4.0, 0.0),
        3.0: (4.0, 2.0),
        4.0: (4.0, 4.0),
        5.0: (4.0, 2.0),
        6.0: (4.0, 0.0),
        7.0: (2.0, 0.0),
        8.0: (0.0, 0.0),
        9.0: (2.0, 0.0),
    }
    for t, point in expected.items():
        assert corner.position_at(t) == pytest.approx(point), t


def test_a_loop_mover_comes_back_to_its_origin_from_the_last_waypoint() -> None:
    triangle = route((4.0, 0.0), (4.0, 3.0), speed=1.0, mode=MoverMode.LOOP)  # 4 + 3 + 5 = 12 s
    assert triangle.cycle_s == pytest.approx(12.0)
    assert triangle.position_at(7.0) == pytest.approx((4.0, 3.0))
    assert triangle.position_at(9.5) == pytest.approx((2.0, 1.5))  # halfway down the diagonal
    assert triangle.position_at(12.0) == pytest.approx((0.0, 0.0))
    assert triangle.position_at(13.0) == pytest.approx((1.0, 0.0))  # round again, same way


def test_a_mover_waits_at_every_stop_its_origin_included() -> None:
    there = route((2.0, 0.0), speed=1.0, wait_s=0.5)  # 2 s out, wait, 2 s back, wait: 5 s
    assert there.cycle_s == pytest.approx(5.0)
    assert there.position_at(2.0) == pytest.approx((2.0, 0.0))
    assert there.position_at(2.4) == pytest.approx((2.0, 0.0))  # still waiting
    assert there.position_at(3.5) == pytest.approx((1.0, 0.0))
    assert there.position_at(4.75) == pytest.approx((0.0, 0.0))  # waiting at the origin
    assert there.position_at(5.5) == pytest.approx((0.5, 0.0))


def test_a_mover_whose_waypoints_are_its_origin_stays_put() -> None:
    still = route((0.0, 0.0), speed=1.0)
    assert still.cycle_s == 0.0
    assert still.position_at(3.0) == (0.0, 0.0)


def test_a_mover_never_leaves_the_segments_of_its_route() -> None:
    rng = random.Random(7)
    points = [(rng.uniform(-9, 9), rng.uniform(-9, 9)) for _ in range(5)]
    zigzag = MoverRoute.of((0.0, 0.0), MoverConfig(tuple(points), 1.7, MoverMode.LOOP, 0.2))
    for _ in range(300):
        x, y = zigzag.position_at(rng.uniform(0.0, 500.0))
        distances = [
            _distance_to_segment((x, y), a, b)
            for a, b in zip(zigzag.points, zigzag.points[1:], strict=False)
        ]
        assert min(distances) < 1e-9


def _distance_to_segment(
    p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]
) -> float:
    ax, ay, bx, by = *a, *b
    length2 = (bx - ax) ** 2 + (by - ay) ** 2
    share = 0.0 if length2 == 0 else ((p[0] - ax) * (bx - ax) + (p[1] - ay) * (by - ay)) / length2
    share = min(max(share, 0.0), 1.0)
    return math.dist(p, (ax + share * (bx - ax), ay + share * (by - ay)))


def test_a_mover_moves_at_its_speed() -> None:
    line = route((10.0, 0.0), speed=2.5)
    a, b = line.position_at(1.0), line.position_at(1.2)
    assert math.dist(a, b) == pytest.approx(0.5)


# --- rotators -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "rate", "t", "expected"),
    [
        (0.0, 30.0, 2.0, 60.0),
        (350.0, 30.0, 1.0, 20.0),
        (0.0, -90.0, 1.0, 270.0),
        (45.0, 45.0, 8.0, 45.0),
        (10.0, 360.0, 0.5, 190.0),
    ],
)
def test_a_rotator_turns_at_its_rate(start: float, rate: float, t: float, expected: float) -> None:
    assert heading_at(start, rate, t) == pytest.approx(expected)


def test_a_heading_stays_below_a_whole_turn() -> None:
    assert 0.0 <= heading_at(0.0, -1e-17, 1.0) < 360.0


# --- doors --------------------------------------------------------------------------------------


def test_a_door_starts_open_then_closes_for_the_rest_of_the_period() -> None:
    door = DoorConfig(period_s=6.0, open_fraction=0.25)  # open 1.5 s, closed 4.5 s
    opened = [door_is_open(door, t / 10) for t in range(0, 121)]
    assert opened[:15] == [True] * 15
    assert opened[15:60] == [False] * 45
    assert opened[60:75] == [True] * 15


def test_a_door_phase_shifts_its_schedule_and_the_cycle_extends_backwards() -> None:
    door = DoorConfig(period_s=4.0, open_fraction=0.5, phase_s=1.0)  # open from 1 to 3, 5 to 7
    assert [door_is_open(door, t) for t in (1.0, 2.9, 3.0, 4.9, 5.0)] == [
        True,
        True,
        False,
        False,
        True,
    ]
    # Before the phase: the cycle that ends at 1 s, closed from -1 to 1, open from -3 to -1.
    assert [door_is_open(door, t) for t in (0.0, 0.99, -1.5, -3.0)] == [False, False, True, True]


def test_a_door_stands_exactly_while_it_is_closed() -> None:
    rng = random.Random(3)
    for _ in range(20):
        door = DoorConfig(rng.uniform(0.01, 10.0), rng.uniform(0.01, 0.99), rng.uniform(-5, 5))
        for _ in range(200):
            t = rng.uniform(-20.0, 50.0)
            height = door_height(door, t)
            if door_is_open(door, t):
                assert height == DOOR_OPEN
            else:
                assert DOOR_SLIT <= height <= 1.0


def test_a_door_rises_after_closing_and_sinks_before_opening() -> None:
    door = DoorConfig(period_s=6.0, open_fraction=0.5)  # closed from 3 to 6
    assert door_height(door, 3.0) == pytest.approx(DOOR_SLIT)
    assert door_height(door, 3.0 + DOOR_RAMP_S / 2) == pytest.approx((1.0 + DOOR_SLIT) / 2)
    assert door_height(door, 3.0 + DOOR_RAMP_S) == pytest.approx(1.0)
    assert door_height(door, 4.5) == 1.0
    assert door_height(door, 6.0 - DOOR_RAMP_S / 2) == pytest.approx((1.0 + DOOR_SLIT) / 2)
    assert door_height(door, 6.0 - 1e-9) == pytest.approx(DOOR_SLIT)
    assert door_height(door, 6.0) == DOOR_OPEN


def test_a_short_closed_part_rises_and_sinks_in_halves() -> None:
    door = DoorConfig(period_s=0.5, open_fraction=0.6)  # closed 0.2 s: 0.1 up, 0.1 down
    assert door_ramp_s(door) == pytest.approx(0.1)
    assert door_height(door, 0.4) == pytest.approx(1.0)
    assert door_height(door, 0.35) == pytest.approx((1.0 + DOOR_SLIT) / 2)


# --- the GridManager's door rule ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("z", "scale_z", "covers"),
    [
        (0.0, 1.5, True),
        (-1.4, 1.5, True),  # a door rising or sinking: its top still above the ground
        (-1.5, 1.5, False),  # top exactly on the ground
        (-1.6, 1.5, False),  # wholly sunk
        (-1.0 - 5e-7, 1.0, False),  # within a millionth of the ground counts as on it
        (-1.0 + 1e-5, 1.0, True),
        (-2.0, -1.5, False),  # a mirrored scale is as tall
    ],
)
def test_an_obstacle_whose_top_is_not_above_the_ground_covers_no_cell(
    z: float, scale_z: float, covers: bool
) -> None:
    world = World(NodePath("root"))
    grid = world.spawn("grid").add_component(
        GridManager(origin=(0.0, 0.0), num_of_rows=4, num_of_columns=4, grid_cell_size=1.0)
    )
    node = world.root.attach_new_node("door")
    node.set_pos(1.5, 2.0, z)  # x 1..2, y 1..3: two cells
    node.set_scale(1.0, 2.0, scale_z)
    world.add(GameObject(node, tag=str(Tag.OBSTACLE)))
    grid.sync_obstacles()
    assert grid.blocked_cells() == (2 if covers else 0)


# --- the trace's movers ---------------------------------------------------------------------------


def test_the_trace_keeps_a_removed_movers_column_at_its_last_place(tmp_path: Path) -> None:
    world = World(NodePath("root"))
    movers = []
    for name, x in (("a", 1.0), ("b", 2.0)):
        node = world.root.attach_new_node(name)
        node.set_pos(x, 0.5, 0.0)
        node.set_h(-90.0)
        movers.append(world.add(GameObject(node, tag=str(Tag.OBSTACLE))))
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, every=1, on_failure=pytest.fail, movers=movers)
    movers[0].node.set_x(1.25)
    writer.record(1, 1 / 60, [])
    world.destroy(movers[0])
    world.flush_destroyed()
    movers[1].node.set_h(45.0)
    writer.record(2, 2 / 60, [])
    writer.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["movers"] == [[1.25, 0.5, 270.0], [2.0, 0.5, 270.0]]
    assert lines[1]["movers"] == [[1.25, 0.5, 270.0], [2.0, 0.5, 45.0]]


# --- the traffic scene's timing -------------------------------------------------------------------


def _cells(box: Box, scene: SceneSpec) -> set[int]:
    grid = scene.grid
    footprint = box_footprint(
        box, (grid.rows, grid.columns), origin=grid.origin, cell_size=grid.cell_size
    )
    return {int(cell) for cell in footprint.flat_cells(grid.columns)}


def test_the_traffic_end_walks_through_the_door_only_while_it_is_open_and_no_block_hits_it() -> (
    None
):
    scene = load_scene(TRAFFIC)
    (end,) = scene.objects_with_tag(Tag.END)
    door = scene.find("door")
    assert end.mover is not None
    assert door is not None
    assert door.door is not None
    end_route = MoverRoute.of(end.pos[:2], end.mover)
    door_cells = _cells(Box(*door.pos[:2], door.scale[0], door.scale[1]), scene)
    sliders = [
        (obj, MoverRoute.of(obj.pos[:2], obj.mover))
        for obj in scene.objects_with_tag(Tag.OBSTACLE)
        if obj.mover is not None
    ]
    assert sliders
    through_the_door = 0
    for frame in range(0, 60 * 48):  # two of the End's round trips, frame by frame
        t = frame / 60
        end_cells = _cells(Box(*end_route.position_at(t), end.scale[0], end.scale[1]), scene)
        if end_cells & door_cells:
            through_the_door += 1
            assert door_is_open(door.door, t), f"the End is in the closed doorway at {t:.3f} s"
        for slider, route in sliders:
            box = Box(*route.position_at(t), slider.scale[0], slider.scale[1])
            assert not (_cells(box, scene) & end_cells), f"{slider.name} hits the End at {t:.3f} s"
    assert through_the_door > 0
