"""Readers for the Moving AI Lab grid benchmarks: ``.map`` grids and ``.scen`` scenario lists.

Format (https://movingai.com/benchmarks/formats.html, Sturtevant 2012):

- ``.map``: ``type octile``, ``height H``, ``width W``, ``map``, then H rows of W characters.
  ``.``, ``G`` and ``S`` are passable; ``@``, ``O``, ``T`` and ``W`` are blocked. CRLF line ends
  are accepted.
- ``.scen``: ``version 1``, then one scenario a line, tab- or space-separated: bucket, map,
  map width, map height, start x, start y, goal x, goal y, optimal length. x is the column and
  y the row, (0, 0) the top-left cell of the file (row 0 is the first map row).

Published lengths are rounded, two ways: older files print 6 significant digits and drop
trailing zeros (``%g``: ``1.41421``, ``1004.4`` for 1004.40, ``4`` for 4.00000), newer ones a
fixed number of decimals (``2.83`` in AR0011SR, 8 in the street maps). `Scenario.tolerance` says
how far from the printed length the exact optimum may lie.

Malformed files raise `MapFormatError` whose message starts ``FILE:LINE:``.
"""

from __future__ import annotations

import codecs
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell
from sim.navigation.maps.input_file import read_input_file

PASSABLE = frozenset(".GS")
BLOCKED = frozenset("@OTW")
KNOWN = PASSABLE | BLOCKED
MAX_FILE_BYTES = 64 * 2**20
"""Largest .map or .scen read: the benchmark's largest maps (1024 x 1024, 1 MB) and their
scenario lists (a few MB) fit many times over; a FIFO, a device or a runaway file does not."""
MAX_PROBLEM_CHARS = 200
"""A format error's problem is cut to this length: it may quote a line of megabytes."""
REL_TOLERANCE = 1e-5
"""Relative error a length printed with 6 significant digits may carry (half a unit of the
sixth digit is at most 5e-6 of the value; the margin absorbs our float sums)."""


class MapFormatError(ValueError):
    """A Moving AI file breaks the format; the message starts with ``FILE:LINE:``."""


class ScenarioMismatchError(MapFormatError):
    """A ``.scen`` file does not fit the map it is run on (see `check_scenarios`).

    Another map's name or size reads ``scen X is for map Y (WxH), not Z (wxh)``; a start or
    goal on a blocked cell starts with ``FILE:LINE:`` like any format error.
    """


@dataclass(frozen=True, slots=True, eq=False)
class MovingAIMap:
    """A parsed ``.map`` file.

    Attributes:
        source: where it was read from (a path, or a label for text).
        rows: the map's character rows, top (row 0) first.
        walkable: ``[row, col]`` bool, True on ``.``, ``G``, ``S``.
    """

    source: str
    rows: tuple[str, ...]
    walkable: NDArray[np.bool_]

    @property
    def height(self) -> int:
        """Number of rows."""
        return len(self.rows)

    @property
    def width(self) -> int:
        """Number of columns."""
        return int(self.walkable.shape[1])

    def terrain(self, cell: Cell) -> str:
        """Return the map character at ``(row, col)``."""
        row, col = cell
        return self.rows[row][col]


@dataclass(frozen=True, slots=True)
class Scenario:
    """One line of a ``.scen`` file: a start, a goal and the published optimal length.

    Attributes:
        bucket: the file's difficulty bucket (roughly optimal length // 4).
        map_name: the map named in the file (a path in older files, a bare name in newer).
        map_width: width the scenario expects, in cells.
        map_height: height the scenario expects, in cells.
        start_x: start column.
        start_y: start row.
        goal_x: goal column.
        goal_y: goal row.
        optimal_length: published optimal cost (8-connected, sqrt(2) diagonals, no corner
            cutting), rounded as printed: compare within `tolerance`, never exactly.
        line: line number in the file, 1-based.
        length_decimals: decimals of the length as written (``2.83``: 2, ``4``: 0).
        fixed_decimals: every length in the file is written with `length_decimals` >= 1
            decimals, as a fixed-point writer (``%.2f``) does. False for the ``%g`` writer of
            older files, whose decimals vary with the value and drop trailing zeros, so they
            say nothing of the precision (``1004.4`` is 1004.40, exact to 6 digits).
    """

    bucket: int
    map_name: str
    map_width: int
    map_height: int
    start_x: int
    start_y: int
    goal_x: int
    goal_y: int
    optimal_length: float
    line: int
    length_decimals: int = 0
    fixed_decimals: bool = False

    @property
    def tolerance(self) -> float:
        r"""Largest |exact optimum - `optimal_length`| the printed length allows.

        The larger of `REL_TOLERANCE` of the length (6 significant digits) and, when the file
        prints a fixed number of decimals, half a unit of the last one.

        >>> text = "version 1\n0 m 3 3 0 0 2 2 2.83\n"
        >>> parse_scenarios(text)[0].tolerance
        0.005
        """
        relative = REL_TOLERANCE * self.optimal_length
        if not self.fixed_decimals:
            return relative
        return max(relative, 0.5 * 10.0**-self.length_decimals)

    def accepts(self, cost: float) -> bool:
        """True if `cost` is the published optimum, within `tolerance`."""
        return abs(cost - self.optimal_length) <= self.tolerance

    @property
    def start(self) -> Cell:
        """Start as ``(row, col)``."""
        return self.start_y, self.start_x

    @property
    def goal(self) -> Cell:
        """Goal as ``(row, col)``."""
        return self.goal_y, self.goal_x


def read_map(path: str | Path) -> MovingAIMap:
    """Read a ``.map`` file; OSError if it cannot be read, MapFormatError if malformed.

    A FIFO, a device or a file past `MAX_FILE_BYTES` cannot be read (`read_input_file`).
    """
    return parse_map(_read_text(path), source=str(path))


def read_scenarios(path: str | Path) -> list[Scenario]:
    """Read a ``.scen`` file; OSError if it cannot be read, MapFormatError if malformed.

    A FIFO, a device or a file past `MAX_FILE_BYTES` cannot be read (`read_input_file`).
    """
    return parse_scenarios(_read_text(path), source=str(path))


def parse_map(text: str, *, source: str = "<map>") -> MovingAIMap:
    r"""Parse the text of a ``.map`` file.

    >>> grid = parse_map("type octile\nheight 2\nwidth 3\nmap\n.@.\nGTS\n")
    >>> grid.walkable.astype(int).tolist()
    [[1, 0, 1], [1, 0, 1]]
    >>> parse_map("type octile\nheight 1\nwidth 2\nmap\n.x\n", source="m.map")
    Traceback (most recent call last):
    ...
    sim.navigation.maps.movingai.MapFormatError: m.map:5: unknown map character 'x' at column 1
    """
    lines = _lines(text)
    header: dict[str, tuple[str, int]] = {}
    index = 0
    while index < len(lines) and lines[index].strip().lower() != "map":
        if not lines[index].strip():
            index += 1
            continue
        key, _, value = lines[index].strip().partition(" ")
        if key.lower() not in {"type", "height", "width"} or not value.strip():
            expected = "expected 'type', 'height', 'width' or 'map'"
            raise _error(source, index, f"{expected}, got {lines[index]!r}")
        header[key.lower()] = (value.strip(), index)
        index += 1
    if index == len(lines):
        raise _error(source, index - 1, "no 'map' line before the end of the file")
    map_type, type_index = header.get("type", ("", index))
    if map_type != "octile":
        raise _error(source, type_index, f"expected 'type octile', got type {map_type!r}")
    height = _header_int(header, "height", source, index)
    width = _header_int(header, "width", source, index)
    first_row = index + 1
    rows = [line.rstrip(" \t") for line in lines[first_row : first_row + height]]
    if len(rows) < height:
        raise _error(
            source, first_row + len(rows), f"expected {height} map rows, found {len(rows)}"
        )
    for offset, row in enumerate(rows):
        if len(row) != width:
            raise _error(source, first_row + offset, f"expected {width} characters, got {len(row)}")
        if not KNOWN.issuperset(row):
            col, char = next((c, ch) for c, ch in enumerate(row) if ch not in KNOWN)
            raise _error(
                source, first_row + offset, f"unknown map character {char!r} at column {col}"
            )
    for extra in range(first_row + height, len(lines)):
        if lines[extra].strip():
            raise _error(source, extra, f"unexpected text after the last map row: {lines[extra]!r}")
    codes = np.frombuffer("".join(rows).encode("latin-1"), dtype=np.uint8).reshape(height, width)
    walkable = np.isin(codes, np.frombuffer("".join(sorted(PASSABLE)).encode(), dtype=np.uint8))
    return MovingAIMap(source=source, rows=tuple(rows), walkable=walkable)


def parse_scenarios(text: str, *, source: str = "<scen>") -> list[Scenario]:
    r"""Parse the text of a ``.scen`` file (version 1) into scenarios, in file order.

    >>> text = "version 1\n0\tm.map\t3\t2\t0\t1\t2\t0\t2.41421\n"
    >>> scenario = parse_scenarios(text)[0]
    >>> scenario.start, scenario.goal, scenario.optimal_length
    ((1, 0), (0, 2), 2.41421)
    """
    lines = _lines(text)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise _error(source, 0, "empty file; expected 'version 1'")
    version = lines[first].split()
    if len(version) != 2 or version[0].lower() != "version" or version[1] not in {"1", "1.0"}:
        raise _error(source, first, f"expected 'version 1', got {lines[first]!r}")
    scenarios = []
    for index in range(first + 1, len(lines)):
        if lines[index].strip():
            scenarios.append(_parse_scenario(lines[index], source, index))
    decimals = {scenario.length_decimals for scenario in scenarios}
    if len(decimals) == 1 and decimals != {0}:
        scenarios = [replace(scenario, fixed_decimals=True) for scenario in scenarios]
    return scenarios


def sample_scenarios(scenarios: list[Scenario], count: int, seed: int) -> list[Scenario]:
    r"""Draw `count` scenarios with `seed` and keep them in file order (all if fewer).

    >>> text = "version 1\n" + "".join(f"0 m 9 1 0 0 {x} 0 {x}\n" for x in range(9))
    >>> [s.goal_x for s in sample_scenarios(parse_scenarios(text), 3, seed=0)]
    [0, 6, 8]
    """
    # Imported here: `import sim.navigation` counts towards the first path's time budget.
    import random

    if count >= len(scenarios):
        return scenarios
    picked = sorted(random.Random(seed).sample(range(len(scenarios)), count))
    return [scenarios[i] for i in picked]


def check_scenarios(
    grid: MovingAIMap, scenarios: Sequence[Scenario], *, scen_source: str = "<scen>"
) -> None:
    r"""Raise `ScenarioMismatchError` unless every scenario belongs to `grid` and can be planned.

    A scenario belongs to the map whose file stem is the stem of the map named in column 2
    (older files name a path such as ``maps/dao/arena.map``, newer ones a bare name) and
    whose width and height are columns 3 and 4. Its start and goal must be walkable: one on
    a blocked cell is an error in the file, not a planner's failure. (A start or goal outside
    the size the file states is already a `MapFormatError` of `parse_scenarios`.)

    >>> grid = parse_map("type octile\nheight 1\nwidth 3\nmap\n.@.\n", source="m.map")
    >>> scen = "version 1\n0 maps/m.map 3 1 0 0 2 0 2\n0 m.map 3 1 0 0 1 0 1\n"
    >>> check_scenarios(grid, parse_scenarios(scen)[:1], scen_source="m.map.scen")
    >>> check_scenarios(grid, parse_scenarios(scen), scen_source="m.map.scen")
    Traceback (most recent call last):
    ...
    sim.navigation.maps.movingai.ScenarioMismatchError: m.map.scen:3: goal 1,0 is on a blocked ...
    >>> check_scenarios(grid, parse_scenarios("version 1\n0 n.map 3 1 0 0 2 0 2\n"))
    Traceback (most recent call last):
    ...
    sim.navigation.maps.movingai.ScenarioMismatchError: scen <scen> is for map n.map (3x1), not ...
    """
    map_stem = _stem(grid.source)
    for scenario in scenarios:
        size = (scenario.map_width, scenario.map_height)
        if _stem(scenario.map_name) != map_stem or size != (grid.width, grid.height):
            raise ScenarioMismatchError(
                f"scen {scen_source} is for map {scenario.map_name} "
                f"({scenario.map_width}x{scenario.map_height}), "
                f"not {grid.source} ({grid.width}x{grid.height})"
            )
    if not scenarios:
        return
    # One vectorised look-up: the largest files hold some 12,000 scenarios.
    ends = np.array([(s.start_y, s.start_x, s.goal_y, s.goal_x) for s in scenarios], np.intp)
    open_ends = grid.walkable[ends[:, 0], ends[:, 1]] & grid.walkable[ends[:, 2], ends[:, 3]]
    if open_ends.all():
        return
    scenario = scenarios[int(np.argmin(open_ends))]
    name, cell = (
        ("goal", scenario.goal) if grid.walkable[scenario.start] else ("start", scenario.start)
    )
    raise ScenarioMismatchError(
        f"{scen_source}:{scenario.line}: {name} {cell[1]},{cell[0]} is on a blocked cell "
        f"{grid.terrain(cell)!r}"
    )


def spread_scenarios(scenarios: Sequence[Scenario], count: int) -> list[Scenario]:
    r"""Pick `count` scenarios spread evenly over the file's buckets (all if fewer).

    The scenarios are ordered by bucket, then by file order, and `count` evenly spaced indices
    are taken over that whole list, first and last included: each bucket gets its share of the
    sample in proportion to its size (not k per bucket), and the easiest and the hardest
    bucket are always covered. Deterministic: no seed. The result is in that (bucket) order;
    a single pick is the middle scenario.

    >>> text = "version 1\n" + "".join(f"{x // 3} m 9 1 0 0 {x} 0 {x}\n" for x in range(9))
    >>> [(s.bucket, s.goal_x) for s in spread_scenarios(parse_scenarios(text), 4)]
    [(0, 0), (1, 3), (1, 5), (2, 8)]
    """
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    ordered = sorted(scenarios, key=lambda scenario: scenario.bucket)  # stable: file order
    total = len(ordered)
    if count >= total:
        return ordered
    if count == 1:
        return [ordered[(total - 1) // 2]]
    # Rounded half up in integers: with count <= total the step is >= 1, so no index repeats.
    steps = count - 1
    return [ordered[(i * (total - 1) + steps // 2) // steps] for i in range(count)]


def _parse_scenario(line: str, source: str, index: int) -> Scenario:
    fields = [f.strip() for f in line.split("\t")] if "\t" in line else line.split()
    fields = [f for f in fields if f]
    if len(fields) != 9:
        raise _error(source, index, f"expected 9 fields, got {len(fields)}: {line!r}")
    names = ("bucket", "map width", "map height", "start x", "start y", "goal x", "goal y")
    raw = [fields[0], *fields[2:8]]
    numbers: list[int] = []
    for name, value in zip(names, raw, strict=True):
        try:
            number = int(value)
        except ValueError:
            raise _error(source, index, f"{name} must be an integer, got {value!r}") from None
        if number < 0:
            raise _error(source, index, f"{name} must be >= 0, got {number}")
        numbers.append(number)
    bucket, width, height, start_x, start_y, goal_x, goal_y = numbers
    for name, x, y in (("start", start_x, start_y), ("goal", goal_x, goal_y)):
        if x >= width or y >= height:
            raise _error(source, index, f"{name} ({x}, {y}) lies outside the {width}x{height} map")
    try:
        optimal = float(fields[8])
    except ValueError:
        raise _error(source, index, f"optimal length must be a number, got {fields[8]!r}") from None
    if not (math.isfinite(optimal) and optimal >= 0):
        raise _error(source, index, f"optimal length must be finite and >= 0, got {fields[8]!r}")
    return Scenario(
        bucket,
        fields[1],
        width,
        height,
        start_x,
        start_y,
        goal_x,
        goal_y,
        optimal,
        index + 1,
        length_decimals=_decimals(fields[8]),
    )


def _stem(name: str) -> str:
    """The file stem of a map's name or path: ``maps/dao/arena.map`` and ``arena.map``: arena."""
    return PurePosixPath(name.replace("\\", "/")).stem


def _decimals(number: str) -> int:
    """Decimals of a number `float` accepted, as written: ``2.83``: 2, ``4``: 0, ``1.5e-3``: 4."""
    mantissa, _, exponent = number.lower().partition("e")
    fraction = mantissa.partition(".")[2]
    return max(0, len(fraction) - int(exponent or 0))


def _read_text(path: str | Path) -> str:
    # latin-1 never fails to decode, so a stray byte is reported with its line number. A UTF-8
    # byte order mark (editors on Windows add one) is no part of the first line: it is dropped.
    data = read_input_file(path, MAX_FILE_BYTES)
    return data.removeprefix(codecs.BOM_UTF8).decode("latin-1")


def _lines(text: str) -> list[str]:
    """Split into lines without their CR/LF ends (a final line end opens no extra line)."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def _header_int(header: dict[str, tuple[str, int]], key: str, source: str, map_index: int) -> int:
    value, index = header.get(key, ("", map_index))
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 1:
        raise _error(source, index, f"expected '{key} N' with N >= 1 before 'map', got {value!r}")
    return number


def _error(source: str, index: int, message: str) -> MapFormatError:
    """Make the error for 0-based line `index` of `source`.

    Messages end with the text they quote from the file, which may be one line of megabytes:
    the message is cut to `MAX_PROBLEM_CHARS`.
    """
    if len(message) > MAX_PROBLEM_CHARS:
        message = message[: MAX_PROBLEM_CHARS - 3] + "..."
    return MapFormatError(f"{source}:{index + 1}: {message}")
