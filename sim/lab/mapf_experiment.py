"""Read a ``kind = "mapf"`` experiment: solvers x maps x scenario files x agent counts.

The format (`experiments/mapf-demo.toml` is one)::

    kind = "mapf"
    name = "mapf-demo"
    seed = 0                       # each solver's random seed
    time_limit_s = 1.0             # per solver run, > 0
    agents = [10, 50, 100]         # agent counts: the first K lines of each scenario file
    solvers = ["lacam", "pibt"]    # any of lacam, pibt, cbs

    [[maps]]
    benchmark = "random-32-32-20"  # a map of the MAPF benchmark folder ($MAPF_DIR)
    scenarios = "random"           # optional: random (default) or even
    scen_files = 2                 # optional: files 1..N (default 1)

    [[maps]]
    map = "maps/my.map"            # or a map of one's own, relative to this file,
    scen = "maps/my-*.scen"        # with its scenario files (a path or a glob)

Every problem is a `SimError` (a `SceneError`) naming the file, the key and what is wrong, e.g.
``exp.toml: solvers[1]: expected 'lacam', 'pibt' or 'cbs', got 'astar'``. Agent counts beyond
a scenario file's lines are refused here, before anything runs.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sim.bench.mapf import agent_lines, mapf_dir
from sim.lab.experiment import experiment_kind
from sim.mapf import SOLVERS
from sim.scene import values
from sim.scene.values import Reader, Table

TOP_KEYS: Final = ("kind", "name", "seed", "time_limit_s", "agents", "solvers", "maps")
BENCHMARK_KEYS: Final = ("benchmark", "scenarios", "scen_files")
OWN_KEYS: Final = ("map", "scen")
SCENARIO_KINDS: Final = ("random", "even")
DEFAULT_TIME_LIMIT_S: float = 10.0
DEFAULT_SEED: int = 0
# Plain `int`, not Final: a Literal default would narrow what `Table.get` may return.
DEFAULT_SCEN_FILES: int = 1
DEFAULT_SCENARIOS: str = "random"
_GLOB_CHARS: Final = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class MapfTask:
    """One solver run of the experiment: the first `agents` lines of `scen` on `map_path`.

    Attributes:
        map_path: the ``.map`` file, absolute (workers may start elsewhere).
        scen_path: the ``.scen`` file, absolute.
        agents: K.
        solver: lacam, pibt or cbs.
        time_limit_s: seconds for the solver.
        seed: its random seed.
    """

    map_path: str
    scen_path: str
    agents: int
    solver: str
    time_limit_s: float
    seed: int

    @property
    def key(self) -> str:
        """A name unique in the experiment, for Dask and messages."""
        return f"{Path(self.scen_path).stem}-{self.agents}-{self.solver}"


@dataclass(frozen=True, slots=True)
class MapfExperiment:
    """A checked ``kind = "mapf"`` experiment.

    Attributes:
        source: the file it was read from.
        name: its name (default: the file's stem).
        seed: the solvers' seed.
        time_limit_s: seconds per solver run.
        agents: agent counts, ascending, no repeats.
        solvers: solver names in file order.
        scenarios: ``(map, scen)`` file pairs, in file order.
    """

    source: Path
    name: str
    seed: int
    time_limit_s: float
    agents: tuple[int, ...]
    solvers: tuple[str, ...]
    scenarios: tuple[tuple[Path, Path], ...]

    def tasks(self) -> list[MapfTask]:
        """Every run, by map and scenario file, then agents, then solver."""
        return [
            MapfTask(str(map_path), str(scen), agents, solver, self.time_limit_s, self.seed)
            for map_path, scen in self.scenarios
            for agents in self.agents
            for solver in self.solvers
        ]


def parse_mapf_experiment(document: object, path: Path) -> MapfExperiment:
    """Check an already-parsed ``kind = "mapf"`` experiment read from `path`."""
    at = Reader(str(path))
    if experiment_kind(document, path) != "mapf":
        raise at.at("kind").error("expected 'mapf' for a multi-agent experiment")
    top = Table(at, document, TOP_KEYS)
    name = top.get("name", values.non_empty_string, path.name.removesuffix(".toml"))
    seed = top.get("seed", _seed, DEFAULT_SEED)
    limit = top.get("time_limit_s", values.positive, DEFAULT_TIME_LIMIT_S)
    agents = top.get("agents", _agent_counts)
    solvers = top.get("solvers", _solvers)
    maps = top.get("maps", _map_tables)
    scenarios: list[tuple[Path, Path]] = []
    for index, raw in enumerate(maps):
        scenarios += _scenarios(at.at("maps").at(index), raw, path.parent)
    for map_index, (_, scen) in enumerate(scenarios):
        lines = agent_lines(scen)
        if max(agents) > lines:
            raise at.at("agents").error(
                f"{max(agents)} agents, but {scen.name} holds only {lines} "
                f"(scenario file {map_index + 1} of the experiment)"
            )
    return MapfExperiment(path, name, seed, limit, agents, solvers, tuple(scenarios))


def _scenarios(at: Reader, raw: object, base: Path) -> list[tuple[Path, Path]]:
    if not isinstance(raw, dict):
        raise at.error(f"expected a table, got {values.describe(raw)}")
    if "benchmark" in raw and "map" in raw:
        raise at.error("give either 'benchmark' or 'map' (with 'scen'), not both")
    if "benchmark" in raw:
        table = Table(at, raw, BENCHMARK_KEYS)
        name = table.get("benchmark", values.non_empty_string).removesuffix(".map")
        kind = table.get("scenarios", _scenario_kind, DEFAULT_SCENARIOS)
        files = table.get("scen_files", values.count, DEFAULT_SCEN_FILES)
        folder = mapf_dir()
        map_path = folder / "maps" / f"{name}.map"
        if not map_path.is_file():
            raise at.at("benchmark").error(
                f"no map {name!r} in the MAPF benchmark folder {folder} (set $MAPF_DIR)"
            )
        found = []
        for index in range(1, files + 1):
            scen = folder / f"scen-{kind}" / f"{name}-{kind}-{index}.scen"
            if not scen.is_file():
                raise at.at("scen_files").error(f"no scenario file {scen}")
            found.append((map_path, scen))
        return found
    if "map" in raw:
        table = Table(at, raw, OWN_KEYS)
        map_path = Path(os.path.abspath(base / table.get("map", values.non_empty_string)))
        if not map_path.is_file():
            raise at.at("map").error(f"no such map file: {map_path}")
        pattern = table.get("scen", values.non_empty_string)
        full = os.path.abspath(base / pattern)
        scens = (
            [Path(full)]
            if _GLOB_CHARS.isdisjoint(pattern)
            else [Path(p) for p in sorted(glob.glob(full)) if p.endswith(".scen")]
        )
        if not scens or not all(scen.is_file() for scen in scens):
            raise at.at("scen").error(f"{pattern!r} names no .scen file (looked for {full})")
        return [(map_path, scen) for scen in scens]
    raise at.error("expected a 'benchmark' map name, or a 'map' with its 'scen' files")


def _agent_counts(at: Reader, value: object) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise at.error(f"expected a list of agent counts, got {values.describe(value)}")
    counts = [values.count(at.at(index), item) for index, item in enumerate(value)]
    return tuple(sorted(set(counts)))


def _solvers(at: Reader, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise at.error(f"expected a list of solver names, got {values.describe(value)}")
    names = []
    for index, item in enumerate(value):
        name = values.string(at.at(index), item)
        if name not in SOLVERS:
            raise at.at(index).error(f"expected {values.either(SOLVERS)}, got {values.short(name)}")
        if name in names:
            raise at.at(index).error(f"{name!r} is listed twice")
        names.append(name)
    return tuple(names)


def _scenario_kind(at: Reader, value: object) -> str:
    kind = values.string(at, value)
    if kind not in SCENARIO_KINDS:
        raise at.error(f"expected {values.either(SCENARIO_KINDS)}, got {values.short(kind)}")
    return kind


def _map_tables(at: Reader, value: object) -> list[object]:
    if not isinstance(value, list) or not value:
        raise at.error(f"expected one or more [[maps]] tables, got {values.describe(value)}")
    return list(value)


def _seed(at: Reader, value: object) -> int:
    seed = values.integer(at, value)
    if not 0 <= seed < 2**63:
        raise at.error(f"must be from 0 to 2**63 - 1, got {values.short(seed)}")
    return seed
