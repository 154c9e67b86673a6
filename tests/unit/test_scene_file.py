from __future__ import annotations

import copy
import math
import tomllib
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.config import SCENES_DIR, AgentConfig, AgentMode, Tag
from sim.navigation.diagonal import DiagonalRule
from sim.scene.file import MAX_GRID_CELLS, list_scenes, load_scene, parse_scene
from sim.scene.spec import (
    DEFAULT_COLORS,
    CameraSpec,
    GridSpec,
    ObjectSpec,
    SceneError,
    SceneSpec,
)

SHIPPED = list_scenes()
SHIPPED_IDS = [path.name for path in SHIPPED]
# Every shipped scene but the one whose End is walled in on purpose (test_no_path.py runs it)
# and the one whose End lies beyond a wall only links cross (test_scene_links.py runs it).
REACHABLE = [path for path in SHIPPED if path.name not in {"walled.toml", "links.toml"}]

GRID = """
[grid]
origin = [0.0, 0.0]
rows = 10
columns = 10
cell_size = 1.0
"""
OBSTACLE = """
[[objects]]
name = "a"
tag = "Obstacle"
model = "cube"
pos = [1.5, 1.5, 0.0]
"""
AGENT = """
[[objects]]
name = "bot"
tag = "Agent"
model = "agent"
pos = [0.5, 0.5, 0.0]
"""


def scene(*parts: str, head: str = "version = 1\n", grid: str = GRID) -> str:
    """A scene document: the header, the grid, then `parts` (tables or [[objects]] blocks)."""
    return head + grid + "".join(parts)


def top(line: str) -> str:
    """A scene with one more top-level line (before any table, where TOML puts bare keys)."""
    return scene(head=f"version = 1\n{line}\n")


def grid_with(*lines: str) -> str:
    """GRID with more lines, each replacing the line for the same key if there is one."""
    keys = {line.split("=")[0].strip() for line in lines}
    kept = [kept for kept in GRID.splitlines() if kept.split("=")[0].strip() not in keys]
    return "\n".join([*kept, *lines, ""])


def obstacle_with(line: str) -> str:
    """OBSTACLE with one more line, or with the line for the same key replaced."""
    key = line.split("=")[0].strip()
    kept = [kept for kept in OBSTACLE.splitlines() if kept.split("=")[0].strip() != key]
    return "\n".join([*kept, line, ""])


@pytest.fixture
def write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write a document to ./bad.toml in a temporary folder; messages then say `bad.toml`."""
    monkeypatch.chdir(tmp_path)

    def write(text: str | bytes, name: str = "bad.toml") -> str:
        data = text.encode() if isinstance(text, str) else text
        (tmp_path / name).write_bytes(data)
        return name

    return write


# --- shipped scenes -----------------------------------------------------------------------------


def test_scenes_folder_has_the_three_scenes():
    assert {"default.toml", "maze.toml", "field.toml"} <= set(SHIPPED_IDS)


@pytest.mark.parametrize("path", SHIPPED, ids=SHIPPED_IDS)
def test_shipped_scene_loads(path: Path):
    spec = load_scene(path)
    assert spec.version == 1
    assert len(spec.objects_with_tag(Tag.START)) == 1
    assert len(spec.objects_with_tag(Tag.END)) == 1
    assert len(spec.objects_with_tag(Tag.AGENT)) >= 1


def test_default_scene_has_everything_a_demo_needs():
    spec = load_scene(SCENES_DIR / "default.toml")
    obstacles = spec.objects_with_tag(Tag.OBSTACLE)
    (start,) = spec.objects_with_tag(Tag.START)
    (end,) = spec.objects_with_tag(Tag.END)
    (agent,) = spec.objects_with_tag(Tag.AGENT)
    assert (spec.grid.rows, spec.grid.columns, spec.grid.cell_size) == (20, 20, 1.0)
    assert spec.grid.origin == (-10.0, -10.0)
    assert spec.grid.connectivity == 8
    assert len(obstacles) >= 3
    assert len({obj.scale[:2] for obj in obstacles}) >= 3, "obstacles of different sizes"
    assert any(obj.heading % 90 != 0 for obj in obstacles), "at least one turned obstacle"
    assert agent.model == "agent"
    assert math.dist(agent.pos, start.pos) <= 1.0, "the agent starts beside Start"
    assert math.dist(start.pos, end.pos) > 10
    assert start.color != end.color


def footprint_cells(spec: SceneSpec, obj: ObjectSpec, inflate: float) -> set[tuple[int, int]]:
    """Cells under the bounding box of the turned box grown by `inflate`: over-blocks on purpose."""
    grid = spec.grid
    cos, sin = math.cos(math.radians(obj.heading)), math.sin(math.radians(obj.heading))
    half_x, half_y = obj.scale[0] / 2 + inflate, obj.scale[1] / 2 + inflate
    reach_x = abs(cos) * half_x + abs(sin) * half_y
    reach_y = abs(sin) * half_x + abs(cos) * half_y
    col_lo = math.floor((obj.pos[0] - reach_x - grid.origin[0]) / grid.cell_size)
    col_hi = math.ceil((obj.pos[0] + reach_x - grid.origin[0]) / grid.cell_size)
    row_lo = math.floor((obj.pos[1] - reach_y - grid.origin[1]) / grid.cell_size)
    row_hi = math.ceil((obj.pos[1] + reach_y - grid.origin[1]) / grid.cell_size)
    return {(row, col) for row in range(row_lo, row_hi) for col in range(col_lo, col_hi)}


def cell_of(spec: SceneSpec, obj: ObjectSpec) -> tuple[int, int]:
    grid = spec.grid
    col = math.floor((obj.pos[0] - grid.origin[0]) / grid.cell_size)
    return math.floor((obj.pos[1] - grid.origin[1]) / grid.cell_size), col


@pytest.mark.parametrize("path", REACHABLE, ids=[path.name for path in REACHABLE])
def test_shipped_scene_start_reaches_end(path: Path):
    # Conservative on purpose: bounding boxes grown by an agent's radius, 4-connected moves, so any
    # rasterizer the app uses finds at least this route.
    spec = load_scene(path)
    blocked = set().union(
        *(footprint_cells(spec, obj, 0.4) for obj in spec.objects_with_tag(Tag.OBSTACLE))
    )
    start = cell_of(spec, spec.objects_with_tag(Tag.START)[0])
    end = cell_of(spec, spec.objects_with_tag(Tag.END)[0])
    came_from = {start: start}
    frontier = deque([start])
    while frontier:
        row, col = frontier.popleft()
        for step in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1)):
            inside = 0 <= step[0] < spec.grid.rows and 0 <= step[1] < spec.grid.columns
            if inside and step not in blocked and step not in came_from:
                came_from[step] = (row, col)
                frontier.append(step)
    assert end in came_from


def covers(obj: ObjectSpec, x: float, y: float) -> bool:
    cos, sin = math.cos(math.radians(obj.heading)), math.sin(math.radians(obj.heading))
    dx, dy = x - obj.pos[0], y - obj.pos[1]
    local_x, local_y = cos * dx + sin * dy, -sin * dx + cos * dy
    return abs(local_x) <= obj.scale[0] / 2 and abs(local_y) <= obj.scale[1] / 2


@pytest.mark.parametrize("path", SHIPPED, ids=SHIPPED_IDS)
def test_shipped_scene_blocks_the_straight_line(path: Path):
    spec = load_scene(path)
    (start,), (end,) = spec.objects_with_tag(Tag.START), spec.objects_with_tag(Tag.END)
    line = [
        (
            start.pos[0] + (end.pos[0] - start.pos[0]) * t / 200,
            start.pos[1] + (end.pos[1] - start.pos[1]) * t / 200,
        )
        for t in range(201)
    ]
    obstacles = spec.objects_with_tag(Tag.OBSTACLE)
    assert any(covers(obj, x, y) for obj in obstacles for x, y in line)


# --- what the loader fills in -------------------------------------------------------------------


def test_minimal_scene_gets_every_default(write):
    spec = load_scene(write(scene(OBSTACLE, AGENT), name="tiny.toml"))
    assert spec.name == "tiny"
    assert spec.path == Path("tiny.toml")
    assert spec.grid == GridSpec((0.0, 0.0), 10, 10, 1.0, DiagonalRule.NO_CORNER_CUTTING)
    assert spec.camera.target == (5.0, 5.0, 0.0)
    assert spec.camera.heading == 20.0
    assert spec.camera.pitch == -55.0
    assert spec.camera.distance == pytest.approx(
        math.hypot(10, 10) / 2 / math.sin(math.radians(25))
    )
    obstacle, agent = spec.objects
    color = DEFAULT_COLORS[Tag.OBSTACLE]
    assert obstacle == ObjectSpec(
        "a", Tag.OBSTACLE, "cube", (1.5, 1.5, 0.0), (1, 1, 1), 0, color, None
    )
    assert agent.agent == AgentConfig(3.0, 5.0, 1.0, 0.25, AgentMode.CHASE, True)
    assert agent.color == DEFAULT_COLORS[Tag.AGENT]


def test_partial_tables_keep_the_other_defaults(write):
    text = scene(
        "[camera]\npitch = -80\n",
        AGENT,
        "scale = 2\ncolor = [0.1, 0.2, 0.3, 0.5]\n[objects.agent]\nmode = 'patrol'\n",
    )
    spec = load_scene(write(text))
    assert spec.camera == CameraSpec((5.0, 5.0, 0.0), spec.camera.distance, 20.0, -80.0)
    (agent,) = spec.objects
    assert agent.scale == (2.0, 2.0, 2.0)
    assert agent.color == (0.1, 0.2, 0.3, 0.5)
    assert agent.agent == AgentConfig(mode=AgentMode.PATROL)


def test_grid_spec_geometry():
    grid = GridSpec((-10.0, -4.0), rows=4, columns=10, cell_size=0.5, rule=DiagonalRule.NEVER)
    assert (grid.width, grid.height) == (5.0, 2.0)
    assert grid.center == (-7.5, -3.0)


def test_find_and_objects_with_tag(write):
    spec = load_scene(write(scene(OBSTACLE, AGENT)))
    assert spec.find("bot") is spec.objects[1]
    assert spec.find("nobody") is None
    assert (
        spec.objects_with_tag("Obstacle") == spec.objects_with_tag(Tag.OBSTACLE) == spec.objects[:1]
    )


def test_list_scenes_is_sorted_toml_only(tmp_path: Path):
    for name in ("b.toml", "a.toml", "notes.txt"):
        (tmp_path / name).write_text("")
    assert list_scenes(tmp_path) == [tmp_path / "a.toml", tmp_path / "b.toml"]


def test_parse_scene_takes_a_parsed_dict():
    data = tomllib.loads(scene(OBSTACLE))
    spec = parse_scene(data, source="edited.toml")
    assert (spec.name, spec.path, len(spec.objects)) == ("edited", Path("edited.toml"), 1)


# --- odd but valid ------------------------------------------------------------------------------

START = '[[objects]]\nname = "s"\ntag = "Start"\nmodel = "cube"\npos = [2.5, 2.5, 0]\n'
END_AT_START = '[[objects]]\nname = "e"\ntag = "End"\nmodel = "cube"\npos = [2.5, 2.5, 0]\n'

ODD_BUT_VALID = [
    pytest.param(scene(), id="no-objects"),
    pytest.param(top("objects = []"), id="empty-objects-array"),
    pytest.param(scene(START), id="only-start"),
    pytest.param(scene(START, END_AT_START), id="start-equals-end"),
    pytest.param(scene(AGENT), id="agent-without-agent-table"),
    pytest.param(scene(obstacle_with("pos = [50.0, -30.0, 0.0]")), id="object-outside-grid"),
    pytest.param(
        scene(obstacle_with("pos = [9.9, 1.0, 0.0]"), "scale = 6\n"), id="object-half-outside"
    ),
    pytest.param(scene(obstacle_with("pos = [1, 2, 0]")), id="integer-coordinates"),
    pytest.param(scene(obstacle_with("heading = -720")), id="heading-beyond-360"),
    pytest.param(scene(obstacle_with("color = [0, 1, 0.5, 0]")), id="color-at-bounds-rgba"),
    pytest.param(scene(obstacle_with('tag = "Untagged"')), id="untagged"),
    pytest.param(scene(obstacle_with('model = "plane"')), id="plane-model"),
    pytest.param(scene(grid=grid_with("connectivity = 4")), id="connectivity-4"),
    pytest.param(scene(grid=grid_with("rows = 1")), id="one-row"),
    pytest.param(scene(grid=grid_with("rows = 4096", "columns = 4096")), id="largest-grid"),
    pytest.param(scene(grid=grid_with("cell_size = 0.001")), id="tiny-cells"),
    pytest.param(scene(grid=grid_with("origin = [-1000000, 1e6]")), id="origin-at-world-limit"),
    pytest.param(scene("[camera]\ntarget = [100.0, 0.0, 5.0]\n"), id="camera-off-grid"),
    pytest.param(scene(OBSTACLE.replace('"a"', '"Crate #1 (big)"')), id="name-with-spaces"),
    pytest.param(
        "version = 1\n[grid]\norigin=[0,0]\nrows=2\ncolumns=2\ncell_size=1\n", id="compact"
    ),
    pytest.param(
        top('objects = [{name = "a", tag = "End", model = "cube", pos = [1, 1, 0]}]'),
        id="inline-objects",
    ),
]


@pytest.mark.parametrize("text", ODD_BUT_VALID)
def test_odd_but_valid_scene_loads(write, text: str):
    assert isinstance(load_scene(write(text)), SceneSpec)


# --- broken scenes: one line, naming the file, the key and the problem --------------------------

TAGS = "'Obstacle', 'Start', 'End', 'Agent', 'Terrain', 'Untagged'"
GRID_KEYS = (
    "'origin', 'rows', 'columns', 'cell_size', 'connectivity', 'diagonal', 'replan_budget_ms'"
)
TOP_KEYS = "'version', 'name', 'grid', 'camera', 'objects', 'crowds', 'mapf', 'torture', 'links'"
HAVE = "(have: agent, cube, plane)"


def with_grid(*lines: str) -> str:
    return scene(grid=grid_with(*lines))


def with_obstacle(line: str) -> str:
    return scene(obstacle_with(line))


CROWD_HEAD = """
[[crowds]]
"""


def crowd(*lines: str, area: str = "[1.0, 1.0, 4.0, 3.0]") -> str:
    return scene(CROWD_HEAD, f"area = {area}\n", *(line + "\n" for line in lines))


def with_agent(table: str) -> str:
    return scene(AGENT, "[objects.agent]\n" + table + "\n")


# id: (document, the message after "bad.toml: ")
BROKEN = {
    "version-missing": (scene(head=""), "version: missing required key"),
    "version-2": (
        scene(head="version = 2\n"),
        "version: unsupported version 2; this program reads version 1",
    ),
    "version-string": (
        scene(head='version = "1"\n'),
        "version: expected an integer, got string '1'",
    ),
    "version-bool": (
        scene(head="version = true\n"),
        "version: expected an integer, got boolean true",
    ),
    "scene-name-empty": (top('name = ""'), "name: must not be empty"),
    # unknown keys, at every level
    "top-typo": (top("gird = 3"), "gird: unknown key; did you mean 'grid'?"),
    "grid-typo": (with_grid("colums = 3"), "grid.colums: unknown key; did you mean 'columns'?"),
    "grid-junk-key": (with_grid("zzz = 3"), f"grid.zzz: unknown key; expected one of {GRID_KEYS}"),
    "camera-typo": (
        scene("[camera]\npich = -40\n"),
        "camera.pich: unknown key; did you mean 'pitch'?",
    ),
    "object-typo": (
        with_obstacle("colour = [1, 0, 0]"),
        "objects[0].colour: unknown key; did you mean 'color'?",
    ),
    "agent-typo": (
        with_agent("sped = 2"),
        "objects[0].agent.sped: unknown key; did you mean 'speed'?",
    ),
    "key-with-newline": (
        top('"two\\nlines" = 1'),
        f'"two\\nlines": unknown key; expected one of {TOP_KEYS}',
    ),
    # grid
    "grid-missing": ("version = 1\n", "grid: missing required key"),
    "grid-not-table": (scene(grid="grid = 5\n"), "grid: expected a table, got integer 5"),
    "rows-missing": (
        scene(grid=GRID.replace("rows = 10\n", "")),
        "grid.rows: missing required key",
    ),
    "rows-bool": (with_grid("rows = true"), "grid.rows: expected an integer, got boolean true"),
    "rows-float": (with_grid("rows = 2.5"), "grid.rows: expected an integer, got float 2.5"),
    "rows-zero": (with_grid("rows = 0"), "grid.rows: must be at least 1, got 0"),
    "columns-negative": (with_grid("columns = -3"), "grid.columns: must be at least 1, got -3"),
    "cell-size-zero": (with_grid("cell_size = 0"), "grid.cell_size: must be > 0, got 0"),
    "cell-size-nan": (with_grid("cell_size = nan"), "grid.cell_size: must be finite, got nan"),
    "cell-size-bool": (
        with_grid("cell_size = true"),
        "grid.cell_size: expected a number, got boolean true",
    ),
    "connectivity-6": (with_grid("connectivity = 6"), "grid.connectivity: must be 4 or 8, got 6"),
    "grid-far-too-big": (
        with_grid("rows = 16384", "columns = 16384"),
        "grid: 16,384 rows x 16,384 columns would need 26.8 GB for 268,435,456 cells "
        f"(100 bytes a cell); the memory budget is 1.7 GB ({MAX_GRID_CELLS:,} cells, 4096 x 4096)",
    ),
    "grid-too-big": (
        with_grid("rows = 5000", "columns = 5000"),
        "grid: 5,000 rows x 5,000 columns would need 2.5 GB for 25,000,000 cells "
        "(100 bytes a cell); the memory budget is 1.7 GB (16,777,216 cells, 4096 x 4096)",
    ),
    "origin-3-numbers": (with_grid("origin = [0, 0, 0]"), "grid.origin: expected 2 numbers, got 3"),
    "origin-string": (
        with_grid('origin = "0, 0"'),
        "grid.origin: expected an array of 2 numbers, got string '0, 0'",
    ),
    "origin-inf": (with_grid("origin = [-inf, 0.0]"), "grid.origin[0]: must be finite, got -inf"),
    "origin-too-far": (
        with_grid("origin = [0.0, 2e6]"),
        "grid.origin[1]: must lie within +-1000000, got 2000000.0",
    ),
    # camera
    "camera-not-table": (top("camera = []"), "camera: expected a table, got an array of 0"),
    "camera-distance-negative": (
        scene("[camera]\ndistance = -5.0\n"),
        "camera.distance: must be > 0, got -5.0",
    ),
    "camera-target-2-numbers": (
        scene("[camera]\ntarget = [1, 2]\n"),
        "camera.target: expected 3 numbers, got 2",
    ),
    # objects
    "objects-not-array": (
        top("objects = 3"),
        "objects: expected an array of tables ([[objects]]), got integer 3",
    ),
    "object-not-table": (top("objects = [1]"), "objects[0]: expected a table, got integer 1"),
    "name-missing": (
        scene(OBSTACLE.replace('name = "a"\n', "")),
        "objects[0].name: missing required key",
    ),
    "name-blank": (with_obstacle('name = " "'), "objects[0].name: must not be empty"),
    "name-date": (
        with_obstacle("name = 1979-05-27"),
        "objects[0].name: expected a string, got date 1979-05-27",
    ),
    "name-duplicate": (
        scene(OBSTACLE, OBSTACLE, OBSTACLE.replace('"a"', '"b"'), OBSTACLE),
        "objects[1].name: duplicate name 'a' (also objects[0])",
    ),
    "tag-missing": (
        scene(OBSTACLE.replace('tag = "Obstacle"\n', "")),
        "objects[0].tag: missing required key",
    ),
    "tag-not-string": (
        with_obstacle("tag = 1"),
        "objects[0].tag: expected a string, got integer 1",
    ),
    "tag-wrong-case": (
        with_obstacle('tag = "obstacle"'),
        f"objects[0].tag: expected one of {TAGS}, got 'obstacle'; did you mean 'Obstacle'?",
    ),
    "tag-unknown": (
        with_obstacle('tag = "Wall"'),
        f"objects[0].tag: expected one of {TAGS}, got 'Wall'",
    ),
    "model-unknown": (
        with_obstacle('model = "cub"'),
        f"objects[0].model: no model 'cub' in models/ {HAVE}",
    ),
    "model-path": (
        with_obstacle('model = "../models/cube"'),
        f"objects[0].model: no model '../models/cube' in models/ {HAVE}",
    ),
    "model-not-string": (
        with_obstacle("model = 3"),
        "objects[0].model: expected a string, got integer 3",
    ),
    "pos-missing": (
        scene(OBSTACLE.replace("pos = [1.5, 1.5, 0.0]\n", "")),
        "objects[0].pos: missing required key",
    ),
    "pos-2-numbers": (
        with_obstacle("pos = [1.0, 2.0]"),
        "objects[0].pos: expected 3 numbers, got 2",
    ),
    "pos-bool": (
        with_obstacle("pos = [1.0, 2.0, false]"),
        "objects[0].pos[2]: expected a number, got boolean false",
    ),
    "pos-too-far": (
        with_obstacle("pos = [1e300, 0, 0]"),
        "objects[0].pos[0]: must lie within +-1000000, got 1e+300",
    ),
    "scale-negative": (with_obstacle("scale = -1"), "objects[0].scale: must be > 0, got -1"),
    "scale-zero-component": (
        with_obstacle("scale = [1, 0, 1]"),
        "objects[0].scale[1]: must be > 0, got 0",
    ),
    "scale-2-numbers": (
        with_obstacle("scale = [2, 2]"),
        "objects[0].scale: expected a number or 3 numbers, got 2",
    ),
    "scale-string": (
        with_obstacle('scale = "big"'),
        "objects[0].scale: expected a number or an array of 3 numbers, got string 'big'",
    ),
    "heading-string": (
        with_obstacle('heading = "45"'),
        "objects[0].heading: expected a number, got string '45'",
    ),
    "color-above-1": (
        with_obstacle("color = [0.2, 1.5, 0.3]"),
        "objects[0].color[1]: must be within 0..1, got 1.5",
    ),
    "color-negative": (
        with_obstacle("color = [0.2, -0.1, 0.3]"),
        "objects[0].color[1]: must be within 0..1, got -0.1",
    ),
    "color-5-numbers": (
        with_obstacle("color = [0, 0, 0, 1, 1]"),
        "objects[0].color: expected 3 or 4 numbers, got 5",
    ),
    # agent tables
    "agent-on-obstacle": (
        scene(OBSTACLE, "[objects.agent]\nspeed = 2\n"),
        "objects[0].agent: only allowed on objects tagged 'Agent', not 'Obstacle'",
    ),
    "agent-not-table": (
        scene(AGENT, "agent = 3\n"),
        "objects[0].agent: expected a table, got integer 3",
    ),
    "mode-unknown": (
        with_agent("mode = 'wander'"),
        "objects[0].agent.mode: expected 'chase' or 'patrol', got 'wander'",
    ),
    "speed-zero": (with_agent("speed = 0"), "objects[0].agent.speed: must be > 0, got 0"),
    "replan-negative": (
        with_agent("replan_interval_s = -1.0"),
        "objects[0].agent.replan_interval_s: must be > 0, got -1.0",
    ),
    "turn-rate-inf": (
        with_agent("turn_rate = inf"),
        "objects[0].agent.turn_rate: must be finite, got inf",
    ),
    "smoothing-int": (
        with_agent("smoothing = 1"),
        "objects[0].agent.smoothing: expected true or false, got integer 1",
    ),
    "second-object-index": (
        scene(OBSTACLE, AGENT, "[objects.agent]\narrival_radius = true\n"),
        "objects[1].agent.arrival_radius: expected a number, got boolean true",
    ),
    # [[crowds]]
    "crowd-typo": (crowd("cont = 3"), "crowds[0].cont: unknown key; did you mean 'count'?"),
    "crowd-count-missing": (crowd(), "crowds[0].count: missing required key"),
    "crowd-count-zero": (crowd("count = 0"), "crowds[0].count: must be at least 1, got 0"),
    "crowd-count-huge": (
        crowd("count = 20000"),
        "crowds[0].count: must be at most 10,000, got 20000",
    ),
    "crowd-area-short": (
        crowd("count = 2", area="[0, 0, 1]"),
        "crowds[0].area: expected 4 numbers, got 3",
    ),
    "crowd-area-inverted": (
        crowd("count = 2", area="[3, 0, 1, 1]"),
        "crowds[0].area: expected [x0, y0, x1, y1] with x0 < x1 and y0 < y1, got [3, 0, 1, 1]",
    ),
    "crowd-agent-typo": (
        crowd("count = 2", "[crowds.agent]", "sped = 1"),
        "crowds[0].agent.sped: unknown key; did you mean 'speed'?",
    ),
    "crowd-name-clash": (
        scene(AGENT.replace('"bot"', '"crowd-2"'), CROWD_HEAD, "count = 3\narea = [1, 1, 3, 3]\n"),
        "crowds[0].name: 'crowd-2' is already the name of objects[0]",
    ),
    "crowds-not-array": (
        top("crowds = 3"),
        "crowds: expected an array of tables ([[crowds]]), got integer 3",
    ),
}


@pytest.mark.parametrize(("text", "problem"), BROKEN.values(), ids=BROKEN.keys())
def test_broken_scene_is_one_line_naming_file_and_key(write, text: str, problem: str):
    with pytest.raises(SceneError) as caught:
        load_scene(write(text))
    assert str(caught.value) == f"bad.toml: {problem}"
    assert len(str(caught.value).splitlines()) == 1


def test_crowd_expands_into_named_agents_inside_its_area(write):
    spec = load_scene(
        write(crowd("count = 7", "seed = 3", "[crowds.agent]", "speed = 5.0"), name="c.toml")
    )
    agents = spec.objects_with_tag(Tag.AGENT)
    assert [agent.name for agent in agents] == [f"crowd-{number}" for number in range(1, 8)]
    assert all(1.0 < agent.pos[0] < 4.0 and 1.0 < agent.pos[1] < 3.0 for agent in agents)
    assert len({agent.pos for agent in agents}) == 7
    assert all(agent.agent == AgentConfig(speed=5.0) for agent in agents)
    assert all(agent.model == "agent" for agent in agents)


def test_crowd_positions_repeat_for_a_seed(write):
    text = crowd("count = 5", "seed = 9")
    first = [obj.pos for obj in load_scene(write(text)).objects]
    second = [obj.pos for obj in load_scene(write(text)).objects]
    assert first == second


def test_broken_cases_are_distinct():
    problems = [problem for _, problem in BROKEN.values()]
    assert len(set(problems)) == len(problems) >= 20


def test_missing_file(write):
    with pytest.raises(
        SceneError, match=r"^nowhere\.toml: cannot read file: No such file or directory$"
    ):
        load_scene("nowhere.toml")


def test_folder_instead_of_file(write, tmp_path: Path):
    (tmp_path / "folder.toml").mkdir()
    with pytest.raises(SceneError, match=r"^folder\.toml: cannot read file: Is a directory$"):
        load_scene("folder.toml")


def test_not_utf8(write):
    path = write(b"version = 1\nname = '\xff'\n")
    with pytest.raises(SceneError, match=r"^bad\.toml: not UTF-8 text \(byte 20\)$"):
        load_scene(path)


def test_malformed_toml_names_the_line(write):
    path = write("version = 1\n[grid]\nrows = = 3\n")
    with pytest.raises(
        SceneError, match=r"^bad\.toml: invalid TOML: .* \(at line 3, column \d+\)$"
    ):
        load_scene(path)


def test_path_with_nul(write):
    with pytest.raises(SceneError, match=r"^a\x00b\.toml: cannot read file: embedded null byte$"):
        load_scene("a\x00b.toml")


def test_nesting_too_deep_for_the_parser(write):
    path = write("version = 1\nname = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(SceneError, match=r"^bad\.toml: invalid TOML: nested too deeply$"):
        load_scene(path)


def test_number_too_long_for_python(write):
    path = write(scene(head=f"version = 1{'0' * 5000}\n"))
    with pytest.raises(SceneError, match=r"^bad\.toml: invalid TOML: a number is too long$"):
        load_scene(path)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        pytest.param(
            {"version": 10**5000},
            "version: unsupported version a number too long to print; this program reads version 1",
            id="version",
        ),
        pytest.param(
            {
                "version": 1,
                "grid": {"origin": [0, 0], "rows": 10**5000, "columns": 1, "cell_size": 1},
            },
            "grid: a number too long to print rows x 1 columns would need more GB than any "
            "machine has for a number too long to print cells (100 bytes a cell); the memory "
            "budget is 1.7 GB (16,777,216 cells, 4096 x 4096)",
            id="rows",
        ),
        pytest.param(
            {
                "version": 1,
                "grid": {"origin": [-(10**5000), 0], "rows": 1, "columns": 1, "cell_size": 1},
            },
            "grid.origin[0]: must be finite, got a number too long to print",
            id="origin",
        ),
    ],
)
def test_parse_scene_survives_huge_integers(data: dict[str, Any], problem: str):
    with pytest.raises(SceneError) as caught:
        parse_scene(data, source="edited.toml")
    assert str(caught.value) == f"edited.toml: {problem}"


def test_parse_scene_rejects_a_non_table():
    with pytest.raises(SceneError, match=r"^edited\.toml: expected a table, got an array of 0$"):
        parse_scene([], source="edited.toml")  # type: ignore[arg-type]


def test_model_missing_from_models_dir(write, tmp_path: Path):
    models = tmp_path / "my_models"
    models.mkdir()
    path = write(scene(OBSTACLE))
    with pytest.raises(
        SceneError,
        match=r"^bad\.toml: objects\[0\]\.model: no model 'cube' in my_models/ \(have: none\)$",
    ):
        load_scene(path, models_dir=models)


# --- fuzz: mutated shipped scenes either load or fail with one line -----------------------------

SHIPPED_DOCS = [tomllib.loads(path.read_text()) for path in SHIPPED]

SCALARS = (
    st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=12)
    | st.dates()
    | st.datetimes()
    | st.times()
    | st.none()
)


def _containers(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3)


VALUES = st.recursive(SCALARS, _containers, max_leaves=8)


def containers(node: Any, into: list[Any]) -> list[Any]:
    """Every table and array in the document, depth first."""
    if isinstance(node, dict | list):
        into.append(node)
        for child in node.values() if isinstance(node, dict) else node:
            containers(child, into)
    return into


@st.composite
def mutated_scenes(draw: st.DrawFn) -> dict[str, Any]:
    doc = copy.deepcopy(draw(st.sampled_from(SHIPPED_DOCS)))
    for _ in range(draw(st.integers(1, 3))):
        node = draw(st.sampled_from(containers(doc, [])))
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        action = draw(st.sampled_from(["drop", "replace", "add"]))
        if action == "add" or not keys:
            if isinstance(node, dict):
                node[draw(st.text(min_size=1, max_size=10))] = draw(VALUES)
            else:
                node.append(draw(VALUES))
        elif action == "drop":
            del node[draw(st.sampled_from(keys))]
        else:
            node[draw(st.sampled_from(keys))] = draw(VALUES)
    return doc


@settings(max_examples=200, derandomize=True, deadline=None)
@given(doc=mutated_scenes())
def test_fuzzed_scene_loads_or_fails_in_one_line(doc: dict[str, Any]):
    try:
        parse_scene(doc, source="fuzz.toml")
    except SceneError as error:
        message = str(error)
    else:
        return
    assert message.startswith("fuzz.toml: ")
    assert len(message.splitlines()) == 1


@settings(
    max_examples=100,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    source=st.sampled_from([path.read_text() for path in SHIPPED]),
    cut=st.tuples(st.integers(0, 5000), st.integers(0, 40)),
    junk=st.text(max_size=8),
)
def test_fuzzed_scene_text_loads_or_fails_in_one_line(
    write, source: str, cut: tuple[int, int], junk: str
):
    start, length = cut
    start = min(start, len(source))
    path = write(source[:start] + junk + source[start + length :])
    try:
        load_scene(path)
    except SceneError as error:
        message = str(error)
    else:
        return
    assert message.startswith("bad.toml: ")
    assert len(message.splitlines()) == 1


# --- fuzz: random TOML-ish documents either load or fail with one line --------------------------

KNOWN_KEYS = sorted(
    {"version", "name", "origin", "rows", "columns", "cell_size", "connectivity", "diagonal"}
    | {"target"}
    | {"distance", "heading", "pitch", "tag", "model", "pos", "scale", "color", "agent"}
    | {"speed", "turn_rate", "replan_interval_s", "arrival_radius", "mode", "smoothing"}
)
HEADERS = ["[grid]", "[camera]", "[[objects]]", "[objects.agent]", "[[grid]]", "[objects]", "["]
WORDS = ["Obstacle", "Start", "End", "Agent", "cube", "agent", "plane", "chase", "x", ""]
STRING_CHARS = st.characters(exclude_categories=("Cc", "Cs"), exclude_characters='"\\')
TOML_SCALARS = st.one_of(
    st.integers(-(2**66), 2**66).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(
        lambda number: {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(number), repr(number))
    ),
    st.sampled_from(["true", "false", "1979-05-27", "07:32:00", "0x1F", "1_000", "+1.5e3"]),
    st.sampled_from(WORDS).map(lambda word: f'"{word}"'),
    st.text(STRING_CHARS, max_size=6).map(lambda text: f'"{text}"'),
)


def _toml_containers(inner: st.SearchStrategy) -> st.SearchStrategy:
    arrays = st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]")
    tables = st.lists(st.tuples(st.sampled_from(KNOWN_KEYS), inner), max_size=3).map(
        lambda pairs: "{" + ", ".join(f"{key} = {value}" for key, value in pairs) + "}"
    )
    return arrays | tables


TOML_VALUES = st.recursive(
    TOML_SCALARS,
    _toml_containers,
    max_leaves=6,
)
TOML_KEYS = st.sampled_from(KNOWN_KEYS) | st.from_regex(r"[a-z_]{1,6}", fullmatch=True)
TOML_LINES = st.one_of(
    st.sampled_from(HEADERS),
    st.tuples(TOML_KEYS, TOML_VALUES).map(lambda pair: f"{pair[0]} = {pair[1]}"),
    st.tuples(TOML_KEYS, TOML_VALUES).map(lambda pair: f"{pair[0]} = {pair[1]}"),
    st.text(max_size=4),  # junk: mostly not TOML at all
)


@st.composite
def tomlish_documents(draw: st.DrawFn) -> str:
    """Random lines of TOML-ish text; often with a version and a good grid so more gets read."""
    lines = []
    if draw(st.booleans()):
        lines.append("version = 1")
    if draw(st.booleans()):
        lines.append(GRID)
    lines += draw(st.lists(TOML_LINES, max_size=12))
    return "\n".join(lines) + "\n"


@settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=tomlish_documents())
def test_random_tomlish_document_loads_or_fails_in_one_line(write, text: str):
    path = write(text)
    try:
        load_scene(path)
    except SceneError as error:
        message = str(error)
    else:
        return
    assert message.startswith("bad.toml: ")
    assert len(message.splitlines()) == 1
