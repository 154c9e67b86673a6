"""Read and validate scene files (`scenes/*.toml`) into a frozen `SceneSpec`.

A scene is plain data a person can edit: the grid, an optional camera pose and a list of objects
(see `scenes/default.toml` for the commented reference). This module holds the schema, which keys
each table has and what each must be, built from the value readers of `sim.scene.values`; the
data it yields is `sim.scene.spec`'s. It knows nothing of Panda3D.

Every problem with a scene file ends in one `SceneError` whose message is a single line naming the
file, the key path and what is wrong, e.g. ``scenes/x.toml: objects[3].pos: expected 3 numbers,
got 2``. Key paths use 0-based indices: ``grid.rows``, ``objects[2].agent.speed``.
"""

from __future__ import annotations

import math
import random
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sim.config import AGENT_MODEL_RADIUS, MODELS_DIR, SCENES_DIR, AgentConfig, Tag
from sim.navigation.clearance import clearance
from sim.navigation.diagonal import DIAGONAL_CHOICES, DiagonalRule
from sim.navigation.grid import MAX_COST, MIN_COST
from sim.navigation.maps.input_file import read_input_file
from sim.scene import values
from sim.scene.agents import AgentReader, check_areas, check_targets, object_path
from sim.scene.grid import scene_grid
from sim.scene.links import check_scene_links, read_links
from sim.scene.mapf import read_mapf
from sim.scene.motion import MOTION_KEYS, read_motion
from sim.scene.scripts import read_scripts
from sim.scene.spec import (
    DEFAULT_COLORS,
    CameraSpec,
    CrowdSpec,
    GridSpec,
    LinkSpec,
    MapfSpec,
    ObjectSpec,
    SceneError,
    SceneSpec,
)
from sim.scene.torture import read_torture
from sim.scene.values import Reader, Table

SUPPORTED_VERSION: Final = 1
# 16.7 M cells: a bool mask of this size is 16 MB, about the most a pure-Python frame loop can own.
MAX_GRID_CELLS: Final = 4096 * 4096
# What a grid costs while it is planned on: the app's masks (5 bytes a cell) plus the search's
# per-cell lists. A full search of a 1024 x 1024 grid peaked at 103 bytes a cell (measured with
# ru_maxrss, CPython 3.11, numpy 2), so 100 is the round figure; the budget follows from the limit.
BYTES_PER_CELL: Final = 100
MEMORY_BUDGET_BYTES: Final = MAX_GRID_CELLS * BYTES_PER_CELL
# Some work goes per row and per column, not per cell: a grid line each, a row of labels, a
# numpy row. A 1 x 16,777,216 grid has the cells of 4096 x 4096 but 2,000 times its rows plus
# columns, so the sum is bounded too, at what the largest square grid has.
MAX_GRID_LINES: Final = 4096 + 4096
# A grid may span the whole world, from -MAX_COORDINATE to +MAX_COORDINATE, and no more.
MAX_GRID_EXTENT: Final = 2 * values.MAX_COORDINATE
# Panda3D keeps positions in float32, whose steps grow with the distance from 0 (1/16 unit at
# 1e6). A cell must span at least this many steps at the grid's farthest corner, or objects and
# lines land a visible fraction of a cell off (or, smaller still, in the neighbouring cell).
MIN_CELL_STEPS: Final = 8
# Scenes give a TOML file at most this many bytes: the shipped ones are a few kB, and reading
# stops here, so a device, a pipe or a runaway file cannot hold the program or eat its memory.
MAX_SCENE_BYTES: Final = 16 * 2**20
# The default camera distance fits a sphere around the grid into this field of view: the app's
# lens has a 50-degree minimum field of view (`sim/app/composition.py`), and the sphere leaves a
# small margin around a flat grid seen from above.
CAMERA_FOV_DEG: Final = 50.0
DEFAULT_CONNECTIVITY: Final[int] = 8
# A [[crowds]] table expands into at most this many agents (each one is a live object), and so
# do all the [[crowds]] tables of a scene together.
MAX_CROWD: Final = 10_000
# Crowd seeds are TOML's own integers, signed 64-bit.
SEED_RANGE: Final = range(-(2**63), 2**63)
# Crowd agents sit on a lattice in their area, each moved up to this fraction of the lattice
# spacing off its lattice point, so a crowd does not look like a parade.
CROWD_JITTER: Final = 0.25
CROWD_NAME: Final[str] = "crowd"  # crowd agents are called crowd-1, crowd-2, ...
CROWD_MODEL: Final[str] = "agent"
CROWD_SEED: Final[int] = 0


def list_scenes(scenes_dir: Path = SCENES_DIR) -> list[Path]:
    """All `*.toml` files in `scenes_dir`, sorted by name; empty if the folder is missing."""
    return sorted(path for path in scenes_dir.glob("*.toml") if path.is_file())


def load_scene(path: str | Path, *, models_dir: Path = MODELS_DIR) -> SceneSpec:
    """Read and validate one scene file.

    Args:
        path: The TOML file; error messages name it as given.
        models_dir: Where `<model>.egg` files must exist for each object's `model`.

    Returns:
        The scene, with every optional value filled in.

    Raises:
        SceneError: For any problem at all (missing file, bad TOML, invalid content); its message
            is one line, ``<path>: <key path>: <problem>``.
    """
    source = str(path)
    try:
        raw = read_input_file(path, MAX_SCENE_BYTES)
    except OSError as error:
        raise SceneError(f"{source}: cannot read file: {error.strerror or error}") from None
    except ValueError as error:  # a NUL in the path
        raise SceneError(f"{source}: cannot read file: {error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SceneError(f"{source}: not UTF-8 text (byte {error.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SceneError(f"{source}: invalid TOML: {values.one_line(str(error))}") from None
    except ValueError:  # an integer past Python's int-to-str digit limit (4300 digits)
        raise SceneError(f"{source}: invalid TOML: a number is too long") from None
    except RecursionError:
        raise SceneError(f"{source}: invalid TOML: nested too deeply") from None
    return parse_scene(data, source=source, models_dir=models_dir)


def parse_scene(
    data: Mapping[str, object], *, source: str, models_dir: Path = MODELS_DIR
) -> SceneSpec:
    """Validate an already-parsed scene document (what `tomllib` returns) into a `SceneSpec`.

    Args:
        data: The document's top-level table.
        source: The file name to put in error messages; its stem is the default scene name.
        models_dir: Where `<model>.egg` files must exist for each object's `model`.

    Raises:
        SceneError: As for `load_scene`.
    """
    root = Table(Reader(source), data, _ROOT_KEYS, check_keys=False)
    # The version comes first: another version may have other keys.
    version = root.get("version", _version)
    root.check_keys()
    name = root.get("name", values.non_empty_string, Path(source).stem)
    grid = root.get("grid", _grid)
    camera = root.get("camera", _Camera(grid), _default_camera(grid))
    no_objects: tuple[ObjectSpec, ...] = ()
    no_crowds: tuple[CrowdSpec, ...] = ()
    models = _ModelCatalog(models_dir)
    agent = AgentReader(AgentConfig(radius=default_radius(grid)))
    objects = root.get("objects", _Objects(models, agent), no_objects)
    crowds = root.get("crowds", _Crowds(models, agent, objects), no_crowds)
    for crowd in crowds:
        objects += crowd_objects(crowd)
    mapf = root.get("mapf", read_mapf, MapfSpec())
    torture = root.get("torture", read_torture, None)
    no_links: tuple[LinkSpec, ...] = ()
    links = root.get("links", read_links, no_links)
    scene = SceneSpec(
        Path(source), version, name, grid, camera, objects, crowds, mapf, torture, links
    )
    check_targets(Reader(source), scene)
    check_areas(Reader(source), scene)
    _check_agents_fit(Reader(source), scene)
    if links:
        walkable = scene_grid(scene).walkable
        check_scene_links(Reader(source), links, walkable, grid.origin, grid.cell_size)
    return scene


_tag = values.choice(Tag)


def _check_agents_fit(at: Reader, scene: SceneSpec) -> None:
    """Refuse an agent so large that no cell of the scene's grid has room for its disc.

    An agent stands on a cell when its disc around the cell's centre shares no area with a
    blocked cell or the outside (`sim.navigation.clearance`). Up to half a cell that is any
    walkable cell, as for a point; past it the room is measured: first against the grid's
    border alone (free), then with the obstacles rasterized, once for the largest radius.
    """
    grid = scene.grid
    half_cell = grid.cell_size / 2.0
    agents = [
        (index, obj.agent.radius)
        for index, obj in enumerate(scene.objects)
        if obj.agent is not None and obj.agent.radius > half_cell
    ]
    if not agents:
        return
    # The middle cell of an empty grid has the most room: half the shorter side, less half a
    # cell when that side has an even number of cells.
    room = (min(grid.rows - 1, grid.columns - 1) // 2 + 0.5) * grid.cell_size
    index, radius = max(agents, key=lambda agent: agent[1])
    if radius <= room:
        walkable = scene_grid(scene).walkable
        room = float(clearance(walkable).max()) * grid.cell_size if walkable.any() else 0.0
    if radius > room:
        raise (
            object_path(at, scene, index)
            .at("agent")
            .at("radius")
            .error(
                f"{values.short(radius)} is too large for this grid: no cell has room for an agent "
                f"that size (the most room anywhere is {room:.6g})"
            )
        )


def _version(at: Reader, value: object) -> int:
    version = values.integer(at, value)
    if version != SUPPORTED_VERSION:
        raise at.error(
            f"unsupported version {values.short(version)}; "
            f"this program reads version {SUPPORTED_VERSION}"
        )
    return version


# --- the tables -------------------------------------------------------------------------------

_ROOT_KEYS = (
    "version",
    "name",
    "grid",
    "camera",
    "objects",
    "crowds",
    "mapf",
    "torture",
    "links",
)
_CROWD_KEYS = ("name", "count", "area", "seed", "model", "heading", "color", "agent")
_GRID_KEYS = (
    "origin",
    "rows",
    "columns",
    "cell_size",
    "connectivity",
    "diagonal",
    "replan_budget_ms",
)
_CAMERA_KEYS = ("target", "distance", "heading", "pitch")
_OBJECT_KEYS = (
    "name",
    "tag",
    "model",
    "pos",
    "scale",
    "heading",
    "color",
    "agent",
    "terrain",
    *MOTION_KEYS,
    "scripts",
)
_TERRAIN_KEYS = ("cost", "area")


def _connectivity(at: Reader, value: object) -> int:
    number = values.integer(at, value)
    if number not in (4, 8):
        raise at.error(f"must be 4 or 8, got {values.short(number)}")
    return number


def _diagonal(at: Reader, value: object) -> DiagonalRule:
    if not isinstance(value, str) or value not in DIAGONAL_CHOICES:
        raise at.error(f"must be one of {', '.join(DIAGONAL_CHOICES)}, got {values.short(value)}")
    return DiagonalRule(value)


# What each `connectivity` is shorthand for.
_CONNECTIVITY_RULES: Final = {4: DiagonalRule.NEVER, 8: DiagonalRule.NO_CORNER_CUTTING}


def _grid(at: Reader, value: object) -> GridSpec:
    table = Table(at, value, _GRID_KEYS)
    origin = table.get("origin", values.pair)
    rows = table.get("rows", values.count)
    columns = table.get("columns", values.count)
    cell_size = table.get("cell_size", values.length)
    given_connectivity = table.get("connectivity", _connectivity, None)
    diagonal = table.get("diagonal", _diagonal, None)
    connectivity = DEFAULT_CONNECTIVITY if given_connectivity is None else given_connectivity
    shorthand = None if given_connectivity is None else _CONNECTIVITY_RULES[given_connectivity]
    if diagonal is not None and shorthand is not None and shorthand is not diagonal:
        raise at.error(
            f'connectivity = {given_connectivity} is shorthand for diagonal = "{shorthand}", '
            f'but diagonal = "{diagonal}"; keep one of the two'
        )
    rule = _CONNECTIVITY_RULES[connectivity] if diagonal is None else diagonal
    cells = rows * columns
    size = f"{values.thousands(rows)} rows x {values.thousands(columns)} columns"
    if cells > MAX_GRID_CELLS:
        raise at.error(
            f"{size} would need "
            f"{values.gigabytes(cells * BYTES_PER_CELL)} for {values.thousands(cells)} cells "
            f"({BYTES_PER_CELL} bytes a cell); the memory budget is "
            f"{values.gigabytes(MEMORY_BUDGET_BYTES)} ({MAX_GRID_CELLS:,} cells, 4096 x 4096)"
        )
    if rows + columns > MAX_GRID_LINES:
        raise at.error(
            f"{size} are {values.thousands(rows + columns)} rows and columns, each with its "
            f"grid line; the budget is {MAX_GRID_LINES:,} (4096 + 4096)"
        )
    extent = max(rows, columns) * cell_size
    if extent > MAX_GRID_EXTENT:
        raise at.error(
            f"{size} of {values.short(cell_size)} units span {extent:,.0f} units; a grid spans "
            f"at most {MAX_GRID_EXTENT:,.0f} (the world is "
            f"+-{values.MAX_COORDINATE:,.0f})"
        )
    budget = table.get("replan_budget_ms", values.positive, None)
    spec = GridSpec(origin, rows, columns, cell_size, rule, budget)
    _check_cells_resolve(at, spec)
    return spec


def _check_cells_resolve(at: Reader, grid: GridSpec) -> None:
    """Refuse cells too small for float32 to tell apart where the grid lies."""
    x0, y0 = grid.origin
    farthest = max(abs(x0), abs(y0), abs(x0 + grid.width), abs(y0 + grid.height))
    step = _float32_step(farthest)
    if grid.cell_size < MIN_CELL_STEPS * step:
        raise at.error(
            f"cells of {values.short(grid.cell_size)} units are too small this far out: "
            f"{farthest:,.0f} units from 0, Panda3D's float32 positions step by {step:g}, so a "
            f"cell must be at least {MIN_CELL_STEPS * step:g} ({MIN_CELL_STEPS} steps)"
        )


def _float32_step(magnitude: float) -> float:
    """The gap between float32 numbers near `magnitude` (>= 0), like numpy's spacing.

    >>> _float32_step(1_000_000.0)
    0.0625
    """
    _, exponent = math.frexp(magnitude)  # magnitude = m * 2**exponent, 0.5 <= m < 1
    return 2.0 ** (exponent - 24)  # float32 has a 24-bit significand


def _default_camera(grid: GridSpec) -> CameraSpec:
    """Look at the grid's centre from far enough that the whole grid fits the view."""
    radius = math.hypot(grid.width, grid.height) / 2
    distance = radius / math.sin(math.radians(CAMERA_FOV_DEG / 2))
    return CameraSpec((*grid.center, 0.0), distance)


@dataclass(frozen=True, slots=True)
class _Camera:
    """Reads `[camera]`; missing keys default from the grid."""

    grid: GridSpec

    def __call__(self, at: Reader, value: object) -> CameraSpec:
        table = Table(at, value, _CAMERA_KEYS)
        default = _default_camera(self.grid)
        return CameraSpec(
            target=table.get("target", values.triple, default.target),
            distance=table.get("distance", values.length, default.distance),
            heading=table.get("heading", values.angle, default.heading),
            pitch=table.get("pitch", values.angle, default.pitch),
        )


def default_radius(grid: GridSpec) -> float:
    """An agent's radius when its scene gives none: the `agent` model's, at most half a cell.

    The model spans `AGENT_MODEL_RADIUS` (0.4 units) each side of its centre; on a grid of
    smaller cells the default shrinks to half a cell, so an agent always fits a walkable cell.

    >>> default_radius(GridSpec((0.0, 0.0), 4, 4, 0.5))
    0.25
    """
    return min(AGENT_MODEL_RADIUS, grid.cell_size / 2.0)


# The range the planner takes for a walkable cell (see `sim.navigation.grid.check_costs`).
_terrain_cost = values.within(MIN_COST, MAX_COST)


def _terrain(at: Reader, value: object) -> tuple[float, str | None]:
    """Read `[objects.terrain]`: the patch's cost multiplier and its area's name, if any."""
    table = Table(at, value, _TERRAIN_KEYS)
    return table.get("cost", _terrain_cost), table.get("area", values.non_empty_string, None)


class _ModelCatalog:
    """The model names available in `models_dir` (`<name>.egg`), listed once when first needed."""

    def __init__(self, models_dir: Path) -> None:
        self._dir = models_dir
        self._names: list[str] | None = None

    def __call__(self, at: Reader, value: object) -> str:
        name = values.non_empty_string(at, value)
        if self._names is None:
            self._names = sorted(path.stem for path in self._dir.glob("*.egg") if path.is_file())
        if name not in self._names:
            have = ", ".join(self._names) or "none"
            raise at.error(f"no model {values.short(name)} in {self._dir.name}/ (have: {have})")
        return name


@dataclass(frozen=True, slots=True)
class _Objects:
    """Reads the `[[objects]]` array: each object, then unique names."""

    models: _ModelCatalog
    agent: AgentReader

    def __call__(self, at: Reader, value: object) -> tuple[ObjectSpec, ...]:
        if not isinstance(value, list | tuple):
            raise at.error(
                f"expected an array of tables ([[objects]]), got {values.describe(value)}"
            )
        objects = tuple(self._object(at.at(index), item) for index, item in enumerate(value))
        first_index: dict[str, int] = {}
        for index, obj in enumerate(objects):
            if obj.name in first_index:
                first = first_index[obj.name]
                raise (
                    at.at(index)
                    .at("name")
                    .error(f"duplicate name {values.short(obj.name)} (also objects[{first}])")
                )
            first_index[obj.name] = index
        return objects

    def _object(self, at: Reader, value: object) -> ObjectSpec:
        table = Table(at, value, _OBJECT_KEYS)
        name = table.get("name", values.non_empty_string)
        tag = table.get("tag", _tag)
        model = table.get("model", self.models)
        pos = table.get("pos", values.triple)
        scale = table.get("scale", values.scale, (1.0, 1.0, 1.0))
        heading = table.get("heading", values.angle, 0.0)
        color = table.get("color", values.color, DEFAULT_COLORS[tag])
        if tag is not Tag.AGENT and "agent" in table:
            raise at.at("agent").error(f"only allowed on objects tagged 'Agent', not {tag.value!r}")
        agent = table.get("agent", self.agent, self.agent.default) if tag is Tag.AGENT else None
        if tag is not Tag.TERRAIN and "terrain" in table:
            raise at.at("terrain").error(
                f"only allowed on objects tagged 'Terrain', not {tag.value!r}"
            )
        terrain_cost, terrain_area = (
            table.get("terrain", _terrain) if tag is Tag.TERRAIN else (None, None)
        )
        motion = read_motion(at, table, tag)
        scripts = read_scripts(at, table)
        return ObjectSpec(
            name,
            tag,
            model,
            pos,
            scale,
            heading,
            color,
            agent,
            terrain_cost,
            *motion,
            scripts,
            terrain_area=terrain_area,
        )


def _area(at: Reader, value: object) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = values.numbers(at, value, (4,), values.coordinate)
    if not (x0 < x1 and y0 < y1):
        raise at.error(f"expected [x0, y0, x1, y1] with x0 < x1 and y0 < y1, got {value!r}")
    # The spawn lattice divides width by height: a sliver of an area would overflow it.
    if min(x1 - x0, y1 - y0) < values.MIN_SIZE:
        raise at.error(
            f"too narrow: each side must be at least {values.plain(values.MIN_SIZE)}, "
            f"got {values.short(x1 - x0)} x {values.short(y1 - y0)}"
        )
    return (x0, y0, x1, y1)


def _crowd_count(at: Reader, value: object) -> int:
    number = values.count(at, value)
    if number > MAX_CROWD:
        raise at.error(f"must be at most {MAX_CROWD:,}, got {values.short(number)}")
    return number


def _seed(at: Reader, value: object) -> int:
    number = values.integer(at, value)
    if number not in SEED_RANGE:
        raise at.error(f"must be a 64-bit integer, got {values.short(number)}")
    return number


def crowd_positions(
    count: int, area: tuple[float, float, float, float], seed: int
) -> list[tuple[float, float]]:
    """Place `count` points on a seeded jittered lattice inside `area` ``(x0, y0, x1, y1)``.

    The lattice has about as many columns per unit as rows; each point is moved off its lattice
    point by up to `CROWD_JITTER` of the spacing, so it stays strictly inside the area. Points
    come row by row from ``(x0, y0)``; the same arguments always give the same points.

    >>> crowd_positions(2, (0.0, 0.0, 2.0, 1.0), 0)[0][0] < 1.0
    True
    """
    x0, y0, x1, y1 = area
    width, height = x1 - x0, y1 - y0
    columns = max(1, math.ceil(math.sqrt(count * width / height)))
    rows = math.ceil(count / columns)
    step_x, step_y = width / columns, height / rows
    rng = random.Random(seed)
    points = []
    for index in range(count):
        row, column = divmod(index, columns)
        jitter_x = rng.uniform(-CROWD_JITTER, CROWD_JITTER) * step_x
        jitter_y = rng.uniform(-CROWD_JITTER, CROWD_JITTER) * step_y
        points.append(
            (x0 + (column + 0.5) * step_x + jitter_x, y0 + (row + 0.5) * step_y + jitter_y)
        )
    return points


def crowd_objects(crowd: CrowdSpec) -> tuple[ObjectSpec, ...]:
    """The Agent objects `crowd` expands into: `<name>-1` ... `<name>-<count>`, in order."""
    points = crowd_positions(crowd.count, crowd.area, crowd.seed)
    return tuple(
        ObjectSpec(
            name,
            Tag.AGENT,
            crowd.model,
            (x, y, 0.0),
            (1.0, 1.0, 1.0),
            crowd.heading,
            crowd.color,
            crowd.agent,
        )
        for name, (x, y) in zip(crowd.member_names(), points, strict=True)
    )


@dataclass(frozen=True, slots=True)
class _Crowds:
    """Reads `[[crowds]]`; each crowd's agent names must be new to the scene."""

    models: _ModelCatalog
    agent: AgentReader
    objects: tuple[ObjectSpec, ...]

    def __call__(self, at: Reader, value: object) -> tuple[CrowdSpec, ...]:
        if not isinstance(value, list | tuple):
            raise at.error(
                f"expected an array of tables ([[crowds]]), got {values.describe(value)}"
            )
        taken = {obj.name: f"objects[{index}]" for index, obj in enumerate(self.objects)}
        crowds: list[CrowdSpec] = []
        agents = 0
        for index, item in enumerate(value):
            crowd = self._crowd(at.at(index), item, agents_so_far=agents)
            for name in crowd.member_names():
                if name in taken:
                    raise (
                        at.at(index)
                        .at("name")
                        .error(f"{values.short(name)} is already the name of {taken[name]}")
                    )
                taken[name] = f"crowds[{index}]"
            crowds.append(crowd)
            agents += crowd.count
        return tuple(crowds)

    def _crowd(self, at: Reader, value: object, *, agents_so_far: int) -> CrowdSpec:
        table = Table(at, value, _CROWD_KEYS)
        prefix = table.get("name", values.non_empty_string, CROWD_NAME)
        count = table.get("count", _crowd_count)
        if agents_so_far + count > MAX_CROWD:
            raise at.at("count").error(
                f"the crowds before this one have {agents_so_far:,} agents and this one "
                f"{count:,}; all crowds together have at most {MAX_CROWD:,}"
            )
        return CrowdSpec(
            name=prefix,
            count=count,
            area=table.get("area", _area),
            seed=table.get("seed", _seed, CROWD_SEED),
            model=table.get("model", self.models, CROWD_MODEL),
            heading=table.get("heading", values.angle, 0.0),
            color=table.get("color", values.color, DEFAULT_COLORS[Tag.AGENT]),
            agent=table.get("agent", self.agent, self.agent.default),
        )
