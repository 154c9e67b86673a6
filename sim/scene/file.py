"""Read and validate scene files (`scenes/*.toml`) into a frozen `SceneSpec`.

A scene is plain data a person can edit: the grid, an optional camera pose and a list of objects
(see `scenes/default.toml` for the commented reference). This module knows nothing of Panda3D.

Every problem with a scene file ends in one `SceneError` whose message is a single line naming the
file, the key path and what is wrong, e.g. ``scenes/x.toml: objects[3].pos: expected 3 numbers,
got 2``. Key paths use 0-based indices: ``grid.rows``, ``objects[2].agent.speed``.
"""

from __future__ import annotations

import datetime
import difflib
import math
import random
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from pathlib import Path
from typing import Final, Literal, TypeVar

from sim.config import MODELS_DIR, SCENES_DIR, AgentConfig, AgentMode
from sim.errors import SimError

SUPPORTED_VERSION: Final = 1
# 16.7 M cells: a bool mask of this size is 16 MB, about the most a pure-Python frame loop can own.
MAX_GRID_CELLS: Final = 4096 * 4096
# What a grid costs while it is planned on: the app's masks (5 bytes a cell) plus the search's
# per-cell lists. A full search of a 1024 x 1024 grid peaked at 103 bytes a cell (measured with
# ru_maxrss, CPython 3.11, numpy 2), so 100 is the round figure; the budget follows from the limit.
BYTES_PER_CELL: Final = 100
MEMORY_BUDGET_BYTES: Final = MAX_GRID_CELLS * BYTES_PER_CELL
# Panda3D stores positions as float32; beyond about 1e6 units a 1-unit cell is no longer exact.
MAX_COORDINATE: Final = 1_000_000.0
# The default camera distance fits a sphere around the grid into this field of view: the app's
# lens has a 50-degree minimum field of view (`sim/app.py`), and the sphere leaves a small margin
# around a flat grid seen from above.
CAMERA_FOV_DEG: Final = 50.0
DEFAULT_CONNECTIVITY: Final[int] = 8
DEFAULT_CAMERA_HEADING: Final = 20.0
DEFAULT_CAMERA_PITCH: Final = -55.0
# A [[crowds]] table expands into at most this many agents (each one is a live object).
MAX_CROWD: Final = 10_000
# Crowd agents sit on a lattice in their area, each moved up to this fraction of the lattice
# spacing off its lattice point, so a crowd does not look like a parade.
CROWD_JITTER: Final = 0.25
CROWD_NAME: Final[str] = "crowd"  # crowd agents are called crowd-1, crowd-2, ...
CROWD_MODEL: Final[str] = "agent"
CROWD_SEED: Final[int] = 0

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)
Color = tuple[float, float, float, float]


class SceneError(SimError):
    """A scene file is missing, unreadable or invalid; str() is the whole one-line message."""


class Tag(StrEnum):
    """What an object is to the simulation; Unity's tag spelling is kept as data."""

    OBSTACLE = "Obstacle"
    START = "Start"
    END = "End"
    AGENT = "Agent"
    UNTAGGED = "Untagged"


DEFAULT_COLORS: Final[Mapping[Tag, Color]] = {
    Tag.OBSTACLE: (0.45, 0.52, 0.62, 1.0),  # grey-blue
    Tag.START: (0.2, 0.8, 0.3, 1.0),  # green
    Tag.END: (0.9, 0.1, 0.1, 1.0),  # red
    Tag.AGENT: (1.0, 0.55, 0.1, 1.0),  # orange
    Tag.UNTAGGED: (0.8, 0.8, 0.8, 1.0),  # light grey
}


@dataclass(frozen=True, slots=True)
class GridSpec:
    """The navigation grid: `rows` cells along world y, `columns` along world x.

    `origin` is the world (x, y) of the grid's min corner; cells are `cell_size` units square.
    """

    origin: tuple[float, float]
    rows: int
    columns: int
    cell_size: float
    connectivity: int = 8

    @property
    def width(self) -> float:
        """World extent along x, in units."""
        return self.columns * self.cell_size

    @property
    def height(self) -> float:
        """World extent along y, in units."""
        return self.rows * self.cell_size

    @property
    def center(self) -> tuple[float, float]:
        """World (x, y) of the grid's centre."""
        return (self.origin[0] + self.width / 2, self.origin[1] + self.height / 2)


@dataclass(frozen=True, slots=True)
class CameraSpec:
    """Where the orbit camera starts: it looks at `target` from `distance` units away.

    `heading` and `pitch` are degrees (Panda3D HPR); a negative pitch looks down.
    """

    target: tuple[float, float, float]
    distance: float
    heading: float = DEFAULT_CAMERA_HEADING
    pitch: float = DEFAULT_CAMERA_PITCH


@dataclass(frozen=True, slots=True)
class ObjectSpec:
    """One object in the scene.

    `pos` is the model's origin in world units (the bottom centre for `cube` and `agent`),
    `heading` is degrees counter-clockwise about +Z, `color` is RGBA in 0..1 (defaulted by tag),
    and `agent` is filled for every Agent-tagged object and None for all others.
    """

    name: str
    tag: Tag
    model: str
    pos: tuple[float, float, float]
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    heading: float = 0.0
    color: Color = DEFAULT_COLORS[Tag.UNTAGGED]
    agent: AgentConfig | None = None


@dataclass(frozen=True, slots=True)
class SceneSpec:
    """A whole validated scene, as read from `path`."""

    path: Path
    version: int
    name: str
    grid: GridSpec
    camera: CameraSpec
    objects: tuple[ObjectSpec, ...] = field(default_factory=tuple)

    def objects_with_tag(self, tag: Tag | str) -> tuple[ObjectSpec, ...]:
        """All objects with `tag` (a `Tag` or its plain string), in file order."""
        return tuple(obj for obj in self.objects if obj.tag == tag)

    def find(self, name: str) -> ObjectSpec | None:
        """The object called `name`, or None."""
        return next((obj for obj in self.objects if obj.name == name), None)


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
        raw = Path(path).read_bytes()
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
        raise SceneError(f"{source}: invalid TOML: {_one_line(str(error))}") from None
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
    root = _Table(_Reader(source), data, _ROOT_KEYS, check_keys=False)
    # The version comes first: another version may have other keys.
    version = root.get("version", _version)
    root.check_keys()
    name = root.get("name", _non_empty_string, Path(source).stem)
    grid = root.get("grid", _grid)
    camera = root.get("camera", _Camera(grid), _default_camera(grid))
    no_objects: tuple[ObjectSpec, ...] = ()
    models = _ModelCatalog(models_dir)
    objects = root.get("objects", _Objects(models), no_objects)
    objects += root.get("crowds", _Crowds(models, objects), no_objects)
    return SceneSpec(Path(source), version, name, grid, camera, objects)


# --- where we are in the document ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Reader:
    """The file and key path being read, so every error can say where it is."""

    source: str
    path: str = ""

    def at(self, key: str | int) -> _Reader:
        """The reader for a key of this table (str) or an item of this array (int)."""
        if isinstance(key, int):
            return _Reader(self.source, f"{self.path}[{key}]")
        name = _toml_key(key)
        return _Reader(self.source, f"{self.path}.{name}" if self.path else name)

    def error(self, problem: str) -> SceneError:
        """A one-line SceneError for `problem` at this key path."""
        where = f"{self.source}: {self.path}: " if self.path else f"{self.source}: "
        return SceneError(_one_line(where + problem))


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _toml_key(key: str) -> str:
    """Spell a key as TOML would: bare if it can be, else quoted with unprintables escaped."""
    if _BARE_KEY.fullmatch(key):
        return key
    return '"' + "".join(_escape(char) for char in key) + '"'


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if char.isprintable():
        return char
    return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"


class _Required(Enum):
    REQUIRED = "required"


_REQUIRED: Final = _Required.REQUIRED
_Read = Callable[[_Reader, object], T]


class _Table:
    """A TOML table being read: rejects unknown keys and reads each key with a field reader."""

    def __init__(
        self, at: _Reader, value: object, known: Sequence[str], *, check_keys: bool = True
    ) -> None:
        if not isinstance(value, Mapping):
            raise at.error(f"expected a table, got {_describe(value)}")
        self._at, self._data, self._known = at, value, known
        if check_keys:
            self.check_keys()

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def check_keys(self) -> None:
        """Reject the first key that is not known, suggesting the closest known one."""
        for key in self._data:
            if key in self._known:
                continue
            spelled = key if isinstance(key, str) else repr(key)
            close = difflib.get_close_matches(spelled, self._known, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"expected {_either(self._known)}"
            raise self._at.at(spelled).error(f"unknown key; {hint}")

    def get(
        self, key: str, read: _Read[T], default: T | Literal[_Required.REQUIRED] = _REQUIRED
    ) -> T:
        """Read `key` with `read`; a missing key is `default`, or an error if it is required."""
        if key in self._data:
            return read(self._at.at(key), self._data[key])
        if default is _REQUIRED:
            raise self._at.at(key).error("missing required key")
        return default


# --- field readers: (where, raw value) -> checked value ---------------------------------------


def _describe(value: object) -> str:
    """Name a value's TOML type, and the value itself when it is short."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"{'integer' if isinstance(value, int) else 'float'} {_short(value)}"
    if isinstance(value, str):
        return f"string {_short(value)}"
    if isinstance(value, list | tuple):
        return f"an array of {len(value)}"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, datetime.date | datetime.time):
        return f"{type(value).__name__} {value.isoformat()}"
    return type(value).__name__


def _short(value: object) -> str:
    """repr() cut to 40 characters; never raises, never spans lines."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's int-to-str digit limit
        return "a number too long to print"
    return text if len(text) <= 40 else text[:37] + "..."


def _thousands(number: int) -> str:
    """`25,000,000`; never raises for an int past Python's int-to-str digit limit."""
    try:
        return f"{number:,}"
    except ValueError:
        return "a number too long to print"


def _gigabytes(size: int) -> str:
    """A byte count in GB (10**9 bytes), one decimal: `2.5 GB`."""
    if size.bit_length() > 1000:  # float() would overflow
        return "more GB than any machine has"
    return f"{size / 10**9:,.1f} GB"


def _one_line(text: str) -> str:
    return " ".join(text.splitlines())


def _either(choices: Sequence[object]) -> str:
    """`'a' or 'b'`, or `one of 'a', 'b', 'c'`."""
    quoted = [repr(str(choice)) for choice in choices]
    return " or ".join(quoted) if len(quoted) <= 2 else "one of " + ", ".join(quoted)


def _string(at: _Reader, value: object) -> str:
    if not isinstance(value, str):
        raise at.error(f"expected a string, got {_describe(value)}")
    return value


def _non_empty_string(at: _Reader, value: object) -> str:
    text = _string(at, value)
    if not text.strip():
        raise at.error("must not be empty")
    return text


def _boolean(at: _Reader, value: object) -> bool:
    if not isinstance(value, bool):
        raise at.error(f"expected true or false, got {_describe(value)}")
    return value


def _integer(at: _Reader, value: object) -> int:
    # bool is an int subclass; `rows = true` is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise at.error(f"expected an integer, got {_describe(value)}")
    return value


def _count(at: _Reader, value: object) -> int:
    number = _integer(at, value)
    if number < 1:
        raise at.error(f"must be at least 1, got {_short(number)}")
    return number


def _number(at: _Reader, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise at.error(f"expected a number, got {_describe(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise at.error(f"must be finite, got {_short(value)}")
    return number


def _positive(at: _Reader, value: object) -> float:
    number = _number(at, value)
    if number <= 0:
        raise at.error(f"must be > 0, got {_short(value)}")
    return number


def _coordinate(at: _Reader, value: object) -> float:
    number = _number(at, value)
    if abs(number) > MAX_COORDINATE:
        raise at.error(f"must lie within +-{MAX_COORDINATE:.0f}, got {_short(value)}")
    return number


def _length(at: _Reader, value: object) -> float:
    return _coordinate(at, _positive(at, value))


def _unit(at: _Reader, value: object) -> float:
    number = _number(at, value)
    if not 0.0 <= number <= 1.0:
        raise at.error(f"must be within 0..1, got {_short(value)}")
    return number


def _numbers(at: _Reader, value: object, sizes: Sequence[int], item: _Read[float]) -> list[float]:
    """An array of len in `sizes`, each element read with `item`."""
    wanted = " or ".join(str(size) for size in sizes)
    if not isinstance(value, list | tuple):
        raise at.error(f"expected an array of {wanted} numbers, got {_describe(value)}")
    if len(value) not in sizes:
        raise at.error(f"expected {wanted} numbers, got {len(value)}")
    return [item(at.at(index), element) for index, element in enumerate(value)]


def _pair(at: _Reader, value: object) -> tuple[float, float]:
    x, y = _numbers(at, value, (2,), _coordinate)
    return (x, y)


def _triple(at: _Reader, value: object) -> tuple[float, float, float]:
    x, y, z = _numbers(at, value, (3,), _coordinate)
    return (x, y, z)


def _scale(at: _Reader, value: object) -> tuple[float, float, float]:
    if isinstance(value, list | tuple):
        if len(value) != 3:
            raise at.error(f"expected a number or 3 numbers, got {len(value)}")
        x, y, z = _numbers(at, value, (3,), _length)
        return (x, y, z)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise at.error(f"expected a number or an array of 3 numbers, got {_describe(value)}")
    size = _length(at, value)
    return (size, size, size)


def _color(at: _Reader, value: object) -> Color:
    components = _numbers(at, value, (3, 4), _unit)
    r, g, b, a = [*components, 1.0][:4]
    return (r, g, b, a)


def _choice(choices: type[E]) -> _Read[E]:
    """A reader for a string that must be one of an enum's values."""
    values = [str(member) for member in choices]

    def read(at: _Reader, value: object) -> E:
        text = _string(at, value)
        if text not in values:
            close = difflib.get_close_matches(text, values, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise at.error(f"expected {_either(values)}, got {_short(text)}{hint}")
        return choices(text)

    return read


_tag = _choice(Tag)
_mode = _choice(AgentMode)


def _version(at: _Reader, value: object) -> int:
    version = _integer(at, value)
    if version != SUPPORTED_VERSION:
        raise at.error(
            f"unsupported version {_short(version)}; this program reads version {SUPPORTED_VERSION}"
        )
    return version


# --- the tables -------------------------------------------------------------------------------

_ROOT_KEYS = ("version", "name", "grid", "camera", "objects", "crowds")
_CROWD_KEYS = ("name", "count", "area", "seed", "model", "heading", "color", "agent")
_GRID_KEYS = ("origin", "rows", "columns", "cell_size", "connectivity")
_CAMERA_KEYS = ("target", "distance", "heading", "pitch")
_OBJECT_KEYS = ("name", "tag", "model", "pos", "scale", "heading", "color", "agent")
_AGENT_KEYS = ("speed", "turn_rate", "replan_interval_s", "arrival_radius", "mode", "smoothing")


def _connectivity(at: _Reader, value: object) -> int:
    number = _integer(at, value)
    if number not in (4, 8):
        raise at.error(f"must be 4 or 8, got {_short(number)}")
    return number


def _grid(at: _Reader, value: object) -> GridSpec:
    table = _Table(at, value, _GRID_KEYS)
    origin = table.get("origin", _pair)
    rows = table.get("rows", _count)
    columns = table.get("columns", _count)
    cell_size = table.get("cell_size", _length)
    connectivity = table.get("connectivity", _connectivity, DEFAULT_CONNECTIVITY)
    cells = rows * columns
    if cells > MAX_GRID_CELLS:
        raise at.error(
            f"{_thousands(rows)} rows x {_thousands(columns)} columns would need "
            f"{_gigabytes(cells * BYTES_PER_CELL)} for {_thousands(cells)} cells "
            f"({BYTES_PER_CELL} bytes a cell); the memory budget is "
            f"{_gigabytes(MEMORY_BUDGET_BYTES)} ({MAX_GRID_CELLS:,} cells, 4096 x 4096)"
        )
    return GridSpec(origin, rows, columns, cell_size, connectivity)


def _default_camera(grid: GridSpec) -> CameraSpec:
    """Look at the grid's centre from far enough that the whole grid fits the view."""
    radius = math.hypot(grid.width, grid.height) / 2
    distance = radius / math.sin(math.radians(CAMERA_FOV_DEG / 2))
    return CameraSpec((*grid.center, 0.0), distance)


@dataclass(frozen=True, slots=True)
class _Camera:
    """Reads `[camera]`; missing keys default from the grid."""

    grid: GridSpec

    def __call__(self, at: _Reader, value: object) -> CameraSpec:
        table = _Table(at, value, _CAMERA_KEYS)
        default = _default_camera(self.grid)
        return CameraSpec(
            target=table.get("target", _triple, default.target),
            distance=table.get("distance", _length, default.distance),
            heading=table.get("heading", _number, default.heading),
            pitch=table.get("pitch", _number, default.pitch),
        )


def _agent(at: _Reader, value: object) -> AgentConfig:
    table = _Table(at, value, _AGENT_KEYS)
    default = AgentConfig()
    return AgentConfig(
        speed=table.get("speed", _positive, default.speed),
        turn_rate=table.get("turn_rate", _positive, default.turn_rate),
        replan_interval_s=table.get("replan_interval_s", _positive, default.replan_interval_s),
        arrival_radius=table.get("arrival_radius", _positive, default.arrival_radius),
        mode=table.get("mode", _mode, default.mode),
        smoothing=table.get("smoothing", _boolean, default.smoothing),
    )


class _ModelCatalog:
    """The model names available in `models_dir` (`<name>.egg`), listed once when first needed."""

    def __init__(self, models_dir: Path) -> None:
        self._dir = models_dir
        self._names: list[str] | None = None

    def __call__(self, at: _Reader, value: object) -> str:
        name = _non_empty_string(at, value)
        if self._names is None:
            self._names = sorted(path.stem for path in self._dir.glob("*.egg") if path.is_file())
        if name not in self._names:
            have = ", ".join(self._names) or "none"
            raise at.error(f"no model {_short(name)} in {self._dir.name}/ (have: {have})")
        return name


@dataclass(frozen=True, slots=True)
class _Objects:
    """Reads the `[[objects]]` array: each object, then unique names."""

    models: _ModelCatalog

    def __call__(self, at: _Reader, value: object) -> tuple[ObjectSpec, ...]:
        if not isinstance(value, list | tuple):
            raise at.error(f"expected an array of tables ([[objects]]), got {_describe(value)}")
        objects = tuple(self._object(at.at(index), item) for index, item in enumerate(value))
        first_index: dict[str, int] = {}
        for index, obj in enumerate(objects):
            if obj.name in first_index:
                first = first_index[obj.name]
                raise (
                    at.at(index)
                    .at("name")
                    .error(f"duplicate name {_short(obj.name)} (also objects[{first}])")
                )
            first_index[obj.name] = index
        return objects

    def _object(self, at: _Reader, value: object) -> ObjectSpec:
        table = _Table(at, value, _OBJECT_KEYS)
        name = table.get("name", _non_empty_string)
        tag = table.get("tag", _tag)
        model = table.get("model", self.models)
        pos = table.get("pos", _triple)
        scale = table.get("scale", _scale, (1.0, 1.0, 1.0))
        heading = table.get("heading", _number, 0.0)
        color = table.get("color", _color, DEFAULT_COLORS[tag])
        if tag is not Tag.AGENT and "agent" in table:
            raise at.at("agent").error(f"only allowed on objects tagged 'Agent', not {tag.value!r}")
        agent = table.get("agent", _agent, AgentConfig()) if tag is Tag.AGENT else None
        return ObjectSpec(name, tag, model, pos, scale, heading, color, agent)


def _area(at: _Reader, value: object) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = _numbers(at, value, (4,), _coordinate)
    if not (x0 < x1 and y0 < y1):
        raise at.error(f"expected [x0, y0, x1, y1] with x0 < x1 and y0 < y1, got {value!r}")
    return (x0, y0, x1, y1)


def _crowd_count(at: _Reader, value: object) -> int:
    number = _count(at, value)
    if number > MAX_CROWD:
        raise at.error(f"must be at most {MAX_CROWD:,}, got {_short(number)}")
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


@dataclass(frozen=True, slots=True)
class _Crowds:
    """Reads `[[crowds]]`: each expands into Agent objects `<name>-1` ... `<name>-<count>`."""

    models: _ModelCatalog
    objects: tuple[ObjectSpec, ...]

    def __call__(self, at: _Reader, value: object) -> tuple[ObjectSpec, ...]:
        if not isinstance(value, list | tuple):
            raise at.error(f"expected an array of tables ([[crowds]]), got {_describe(value)}")
        taken = {obj.name: f"objects[{index}]" for index, obj in enumerate(self.objects)}
        expanded: list[ObjectSpec] = []
        for index, item in enumerate(value):
            crowd = self._crowd(at.at(index), item)
            for obj in crowd:
                if obj.name in taken:
                    raise (
                        at.at(index)
                        .at("name")
                        .error(f"{_short(obj.name)} is already the name of {taken[obj.name]}")
                    )
                taken[obj.name] = f"crowds[{index}]"
            expanded += crowd
        return tuple(expanded)

    def _crowd(self, at: _Reader, value: object) -> list[ObjectSpec]:
        table = _Table(at, value, _CROWD_KEYS)
        prefix = table.get("name", _non_empty_string, CROWD_NAME)
        count = table.get("count", _crowd_count)
        area = table.get("area", _area)
        seed = table.get("seed", _integer, CROWD_SEED)
        model = table.get("model", self.models, CROWD_MODEL)
        heading = table.get("heading", _number, 0.0)
        color = table.get("color", _color, DEFAULT_COLORS[Tag.AGENT])
        agent = table.get("agent", _agent, AgentConfig())
        return [
            ObjectSpec(
                f"{prefix}-{number}",
                Tag.AGENT,
                model,
                (x, y, 0.0),
                (1.0, 1.0, 1.0),
                heading,
                color,
                agent,
            )
            for number, (x, y) in enumerate(crowd_positions(count, area, seed), start=1)
        ]
