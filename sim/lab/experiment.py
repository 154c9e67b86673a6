"""Read an experiment file (TOML) into a checked `Experiment`, or fail in one line.

The format (`experiments/demo.toml` is one)::

    name = "demo"
    seed = 0
    scenarios_per_map = 100

    [[maps]]
    movingai = "maps/*.map"      # path or glob, relative to this file
    [[maps]]
    generate = "maze"            # maze (corridor), rooms (room, door), random (density)
    size = [128, 128]            # [width, height]
    corridor = 2
    seed = 1                     # the layout's seed; default: the experiment's

    [[searches]]
    algorithm = "astar"          # any algorithm find_path accepts
    heuristic = "octile"         # optional, find_path's default
    weight = 1.0                 # optional
    connectivity = 8             # optional, 4 or 8
    implementation = "auto"      # optional: auto, c or python, as find_path takes it

``kind = "mapf"`` at the top makes it a multi-agent experiment instead, read by
`sim.lab.mapf_experiment`; ``kind = "path"`` (the default) is the format above.
Every problem is a `SimError` naming the file, the key and what is wrong, e.g.
``exp.toml: searches[1].connectivity: expected 4 or 8, got 6``. Searches are checked by
`find_path` itself on a tiny grid, so any algorithm or option it accepts is accepted here and
its own words say what it refuses. This module checks what the file says and that the map
files exist; `sim.lab.maps` reads them.
"""

from __future__ import annotations

import glob
import inspect
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
from numpy.typing import NDArray

from sim.navigation import LAYOUT_KINDS, LAYOUT_PARAMETERS, Cell, find_path, generate_layout
from sim.navigation.maps.generators import (
    MAX_SCENARIOS,
    SCENARIO_BYTES,
    check_scenario_budget,
)
from sim.navigation.maps.input_file import read_input_file
from sim.navigation.query import PathResult
from sim.scene import values
from sim.scene.spec import SceneError
from sim.scene.values import Reader, Table

MAX_FILE_BYTES: Final = 1 * 2**20
"""An experiment file is a page of TOML; a megabyte is a mistake (or a FIFO)."""

KINDS: Final = ("path", "mapf")
TOP_KEYS: Final = ("kind", "name", "seed", "scenarios_per_map", "maps", "searches")
SEARCH_KEYS: Final = ("algorithm", "heuristic", "weight", "connectivity", "implementation")
MOVINGAI_KEYS: Final = ("movingai",)
GENERATE_KEYS: Final = ("generate", "size", "seed")
# Plain `int`, not Final: a Literal default would narrow what `Table.get` may return.
DEFAULT_SEED: int = 0
DEFAULT_SCENARIOS_PER_MAP: int = 100
DEFAULT_CONNECTIVITY: int = 8
CONNECTIVITIES: Final = (4, 8)

_FIND_PATH_DEFAULTS: Final = {
    name: parameter.default
    for name, parameter in inspect.signature(find_path).parameters.items()
    if parameter.default is not inspect.Parameter.empty
}
_LAYOUT_DEFAULTS: Final = {
    name: parameter.default
    for name, parameter in inspect.signature(generate_layout).parameters.items()
    if parameter.default is not inspect.Parameter.empty
}
_GLOB_CHARS: Final = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class SearchSpec:
    """One search of an experiment, as `find_path` takes it.

    Attributes:
        algorithm: the algorithm's name as the file gives it.
        heuristic: the heuristic (find_path's default when the file names none).
        weight: the heuristic weight, >= 1.
        connectivity: 4 or 8 (``diagonal=False`` / ``True``).
        implementation: find_path's implementation (its default when the file names none).
        label: a short name for tables and plots, unique in the experiment.
    """

    algorithm: str
    heuristic: str
    weight: float
    connectivity: int
    implementation: str
    label: str

    def plan(self, walkable: NDArray[np.bool_], start: Cell, goal: Cell) -> PathResult:
        """Run this search with `find_path` from `start` to `goal` (``(row, col)``)."""
        return find_path(
            walkable,
            start,
            goal,
            algorithm=self.algorithm,
            heuristic=self.heuristic,
            weight=self.weight,
            diagonal=self.connectivity == 8,
            implementation=self.implementation,
        )


@dataclass(frozen=True, slots=True)
class MovingAIEntry:
    """A Moving AI map of the experiment: ``NAME.map`` with ``NAME.map.scen`` beside it.

    Attributes:
        where: the file and table it comes from, for messages (``exp.toml: maps[0]``).
        map_path: the ``.map`` file, resolved.
        scen_path: its ``.scen`` file.
    """

    where: str
    map_path: Path
    scen_path: Path

    @property
    def name(self) -> str:
        """The map's name in the results: its file stem."""
        return self.map_path.name.removesuffix(".map")


@dataclass(frozen=True, slots=True)
class GeneratedEntry:
    """A generated map of the experiment (`sim.navigation.generate_layout`).

    Attributes:
        where: the file and table it comes from, for messages.
        kind: maze, rooms or random.
        width: columns.
        height: rows.
        seed: the layout's seed.
        parameters: the kind's own parameters (`LAYOUT_PARAMETERS`), defaults filled in.
    """

    where: str
    kind: str
    width: int
    height: int
    seed: int
    parameters: tuple[tuple[str, int | float], ...]

    @property
    def name(self) -> str:
        """A stable, readable name unique per parameters: ``maze-128x128-corridor2-seed1``."""
        own = "-".join(f"{key}{value:g}" for key, value in self.parameters)
        return f"{self.kind}-{self.width}x{self.height}-{own}-seed{self.seed}"


MapEntry = MovingAIEntry | GeneratedEntry


@dataclass(frozen=True, slots=True)
class Experiment:
    """A checked experiment file.

    Attributes:
        source: the file it was read from.
        name: the experiment's name (default: the file's stem).
        seed: the seed of generated maps' scenarios (and their layouts' default seed).
        scenarios_per_map: how many scenarios every map gets, exactly.
        maps: the maps, globs expanded, in file order; names are unique.
        searches: the searches, in file order; no two alike.
    """

    source: Path
    name: str
    seed: int
    scenarios_per_map: int
    maps: tuple[MapEntry, ...]
    searches: tuple[SearchSpec, ...]


def read_experiment(path: Path) -> Experiment:
    """Read and check the experiment file `path`; `SimError` (one line) if anything is wrong."""
    return parse_experiment(read_document(path), path)


def read_document(path: Path) -> object:
    """Read the TOML of the experiment file `path`, unchecked; `SimError` (one line) if unread."""
    at = Reader(str(path))
    try:
        data = read_input_file(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        raise at.error("no such file") from None
    except OSError as error:
        raise at.error(f"cannot read: {error.strerror or error}") from None
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise at.error("invalid TOML: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise at.error(f"invalid TOML: {values.one_line(str(error))}") from None
    except ValueError:  # an integer past Python's int-to-str digit limit
        raise at.error("invalid TOML: a number is too long") from None
    return document


def experiment_kind(document: object, path: Path) -> str:
    """The experiment's ``kind``: ``path`` (the default) or ``mapf``; `SimError` otherwise."""
    if not isinstance(document, dict) or "kind" not in document:
        return "path"
    at = Reader(str(path)).at("kind")
    kind = values.string(at, document["kind"])
    if kind not in KINDS:
        raise at.error(f"expected {values.either(KINDS)}, got {values.short(kind)}")
    return kind


def parse_experiment(document: object, path: Path) -> Experiment:
    """Check an already-parsed experiment (what `tomllib` returns) read from `path`."""
    at = Reader(str(path))
    if experiment_kind(document, path) != "path":
        raise at.at("kind").error("a 'mapf' experiment is read by sim.lab.mapf_experiment")
    top = Table(at, document, TOP_KEYS)
    name = top.get("name", values.non_empty_string, path.name.removesuffix(".toml"))
    seed = top.get("seed", _seed, DEFAULT_SEED)
    per_map = top.get("scenarios_per_map", values.count, DEFAULT_SCENARIOS_PER_MAP)
    maps = _tables(top, at, "maps")
    searches = _tables(top, at, "searches")
    entries: list[MapEntry] = []
    for index, raw in enumerate(maps):
        entries += _map_entries(at.at("maps").at(index), raw, path.parent, seed)
    _check_unique_names(entries)
    _check_scenario_budget(at.at("scenarios_per_map"), per_map, entries)
    specs = [_search(at.at("searches").at(index), raw) for index, raw in enumerate(searches)]
    _check_unique_searches(at, specs)
    return Experiment(path, name, seed, per_map, tuple(entries), tuple(specs))


# --- maps -----------------------------------------------------------------------------------


def _map_entries(at: Reader, raw: object, base: Path, default_seed: int) -> list[MapEntry]:
    if not isinstance(raw, dict):
        raise at.error(f"expected a table, got {values.describe(raw)}")
    if "movingai" in raw and "generate" in raw:
        raise at.error("give either 'movingai' or 'generate', not both")
    if "movingai" in raw:
        table = Table(at, raw, MOVINGAI_KEYS)
        return _movingai(at, table.get("movingai", values.non_empty_string), base)
    if "generate" in raw:
        return [_generated(at, raw, default_seed)]
    raise at.error("expected a 'movingai' path or a 'generate' kind")


def _movingai(table_at: Reader, pattern: str, base: Path) -> list[MapEntry]:
    # Absolute, for workers that start elsewhere; symbolic links are kept: they name the map.
    full = Path(os.path.abspath(base / Path(pattern).expanduser()))
    at = table_at.at("movingai")
    if _GLOB_CHARS.isdisjoint(pattern):
        if not full.is_file():
            raise at.error(f"no such map file: {full}")
        paths = [full]
    else:
        paths = [Path(found) for found in sorted(glob.glob(str(full))) if found.endswith(".map")]
        paths = [found for found in paths if found.is_file()]
        if not paths:
            raise at.error(f"{pattern!r} matches no .map file (looked for {full})")
    entries: list[MapEntry] = []
    for map_path in paths:
        if map_path.suffix != ".map":
            raise at.error(f"expected a .map file, got {map_path.name}")
        scen_path = map_path.with_name(map_path.name + ".scen")
        if not scen_path.is_file():
            raise at.error(f"{map_path.name} has no scenario file {scen_path.name} beside it")
        entries.append(MovingAIEntry(_where(table_at), map_path, scen_path))
    return entries


def _generated(at: Reader, raw: dict[str, object], default_seed: int) -> GeneratedEntry:
    kind = values.string(at.at("generate"), raw["generate"])
    if kind not in LAYOUT_KINDS:
        raise at.at("generate").error(
            f"expected {values.either(LAYOUT_KINDS)}, got {values.short(kind)}"
        )
    own = LAYOUT_PARAMETERS[kind]
    table = Table(at, raw, (*GENERATE_KEYS, *own), check_keys=False)
    for key in raw:
        if key not in GENERATE_KEYS and key not in own:
            takes = f"takes {', '.join(own)}" if own else "takes no parameters"
            raise at.at(key).error(f"unknown key for a {kind} map; a {kind} map {takes}")
    width, height = table.get("size", _size)
    seed = table.get("seed", _seed, default_seed)
    parameters = tuple((key, table.get(key, _parameter, _LAYOUT_DEFAULTS[key])) for key in own)
    # Ranges (a corridor of 0, a density of 1, a size too small for a room) are the
    # generator's to judge when `sim.lab.maps` draws the layout.
    return GeneratedEntry(_where(at), kind, width, height, seed, parameters)


def _size(at: Reader, value: object) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise at.error(f"expected [width, height], 2 integers, got {values.describe(value)}")
    width, height = (values.count(at.at(index), side) for index, side in enumerate(value))
    return width, height


def _parameter(at: Reader, value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise at.error(f"expected a number, got {values.describe(value)}")
    return value


def _seed(at: Reader, value: object) -> int:
    seed = values.integer(at, value)
    if not 0 <= seed < 2**63:
        raise at.error(f"must be from 0 to 2**63 - 1, got {values.short(seed)}")
    return seed


def _check_scenario_budget(at: Reader, per_map: int, entries: list[MapEntry]) -> None:
    """Refuse `per_map` past what any map can be given, before a map is read or drawn.

    A generated map gets that many random scenarios (`check_scenario_budget` by its size); a
    Moving AI map's file must hold them, which no file of the size we read could past
    `MAX_SCENARIOS`.
    """
    try:
        for entry in entries:
            if isinstance(entry, GeneratedEntry):
                check_scenario_budget(per_map, entry.height, entry.width)
    except ValueError as error:
        raise at.error(str(error)) from None
    if per_map > MAX_SCENARIOS:
        memory_gb = per_map * SCENARIO_BYTES / 1e9
        raise at.error(
            f"{per_map} scenarios a map would take about {memory_gb:.3g} GB; at most "
            f"{MAX_SCENARIOS} fit"
        )


def _check_unique_names(entries: list[MapEntry]) -> None:
    taken: dict[str, MapEntry] = {}
    for entry in entries:
        first = taken.setdefault(entry.name, entry)
        if first is not entry:
            raise SceneError(
                f"{entry.where}: a second map named {entry.name!r} (also {first.where}); "
                "every map needs its own name in the results"
            )


# --- searches -------------------------------------------------------------------------------


def _search(at: Reader, raw: object) -> SearchSpec:
    table = Table(at, raw, SEARCH_KEYS)
    algorithm = table.get("algorithm", values.non_empty_string)
    heuristic = table.get("heuristic", values.non_empty_string, None)
    weight = table.get("weight", values.number, float(_FIND_PATH_DEFAULTS["weight"]))
    connectivity = table.get("connectivity", _connectivity, DEFAULT_CONNECTIVITY)
    implementation = table.get("implementation", values.non_empty_string, None)
    spec = SearchSpec(
        algorithm,
        heuristic if heuristic is not None else str(_FIND_PATH_DEFAULTS["heuristic"]),
        weight,
        connectivity,
        implementation
        if implementation is not None
        else str(_FIND_PATH_DEFAULTS["implementation"]),
        _label(algorithm, heuristic, weight, connectivity, implementation),
    )
    _check_with_find_path(at, spec)
    return spec


def _connectivity(at: Reader, value: object) -> int:
    connectivity = values.integer(at, value)
    if connectivity not in CONNECTIVITIES:
        raise at.error(f"expected 4 or 8, got {values.short(connectivity)}")
    return connectivity


def _label(
    algorithm: str,
    heuristic: str | None,
    weight: float,
    connectivity: int,
    implementation: str | None,
) -> str:
    """``astar``, ``astar manhattan w2 4-conn python``: what the file sets, briefly."""
    parts = [algorithm]
    if heuristic is not None:
        parts.append(heuristic)
    if weight != 1.0:
        parts.append(f"w{weight:g}")
    if connectivity != 8:
        parts.append(f"{connectivity}-conn")
    if implementation is not None:
        parts.append(implementation)
    return " ".join(parts)


def _check_with_find_path(at: Reader, spec: SearchSpec) -> None:
    """Let `find_path` judge the search on a tiny open grid, in its own words."""
    try:
        spec.plan(np.ones((2, 2), dtype=bool), (0, 0), (1, 1))
    except ValueError as error:
        message = str(error)
        key = next((key for key in SEARCH_KEYS if key in message), None)
        raise (at.at(key) if key else at).error(message) from None


def _check_unique_searches(at: Reader, specs: list[SearchSpec]) -> None:
    seen: dict[tuple[object, ...], int] = {}
    for index, spec in enumerate(specs):
        same = (spec.algorithm, spec.heuristic, spec.weight, spec.connectivity, spec.implementation)
        first = seen.setdefault(same, index)
        if first != index:
            raise at.at("searches").at(index).error(f"the same search as searches[{first}]")


def _where(at: Reader) -> str:
    """``exp.toml: maps[0]``: the file and key path, for messages made elsewhere."""
    return f"{at.source}: {at.path}"


def _tables(top: Table, at: Reader, key: str) -> list[object]:
    def read(where: Reader, value: object) -> list[object]:
        if not isinstance(value, list) or not value:
            raise where.error(
                f"expected one or more [[{key}]] tables, got {values.describe(value)}"
            )
        return list(value)

    return top.get(key, read)
