"""The maps of an experiment, ready to run: loaded or generated, checked, scenarios picked.

A Moving AI map is read with its .scen file, which must belong to it (map name and size, no
start or goal on a wall: `check_scenarios`) and hold at least ``scenarios_per_map``
scenarios; exactly that many are picked, spread evenly over its buckets
(`spread_scenarios`). A generated map is drawn with its own seed and gets
``scenarios_per_map`` random connected pairs drawn with the experiment's seed, their optimal
lengths from our Dijkstra (`random_scenarios`); `write_generated` writes both as Moving AI
files under ``OUT/maps`` so anyone can re-check them, and so workers read them from a path
like any other map. Every problem is one line naming the experiment file and the table.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from sim.errors import SimError
from sim.lab.experiment import Experiment, GeneratedEntry, MapEntry, MovingAIEntry
from sim.navigation import (
    MapFormatError,
    Scenario,
    generate_layout,
    random_scenarios,
    read_map,
    read_scenarios,
    write_map,
    write_scenarios,
)
from sim.navigation.maps.movingai import check_scenarios, spread_scenarios
from sim.navigation.maps.movingai_files import format_map

PUBLISHED: Final = "published"
DIJKSTRA: Final = "dijkstra"


@dataclass(frozen=True, slots=True, eq=False)
class PreparedMap:
    """A map with its scenarios, ready to be cut into chunks.

    Attributes:
        name: the map's name in the results (its file stem).
        path: the ``.map`` file workers read (for a generated map, once `write_generated`
            has written it).
        scenarios: exactly ``scenarios_per_map`` scenarios, in sample order.
        optimal_source: where the 8-connected optimal lengths come from: `PUBLISHED` (a
            Moving AI file) or `DIJKSTRA` (ours, for generated maps).
        digest: a hash of the map's cells, so finished chunks of an edited map are not reused.
        cells: the map's size in cells (height x width).
        walkable: a generated map's cells, to write; None for a Moving AI map.
    """

    name: str
    path: Path
    scenarios: tuple[Scenario, ...]
    optimal_source: str
    digest: str
    cells: int
    walkable: NDArray[np.bool_] | None = None


def prepare_maps(experiment: Experiment, maps_dir: Path) -> list[PreparedMap]:
    """Load, generate and check every map of `experiment`; generated ones will live in `maps_dir`.

    Raises:
        SimError: naming the experiment file and the map's table, for a map or .scen that
            cannot be read or does not fit, too few scenarios, or a layout the generator
            refuses.
    """
    return [_prepare(experiment, entry, maps_dir) for entry in experiment.maps]


def write_generated(maps: list[PreparedMap]) -> None:
    """Write every generated map and its scenarios as ``NAME.map`` and ``NAME.map.scen``."""
    for prepared in maps:
        if prepared.walkable is None:
            continue
        prepared.path.parent.mkdir(parents=True, exist_ok=True)
        write_map(prepared.path, prepared.walkable)
        write_scenarios(prepared.path.with_name(prepared.path.name + ".scen"), prepared.scenarios)


def _prepare(experiment: Experiment, entry: MapEntry, maps_dir: Path) -> PreparedMap:
    if isinstance(entry, MovingAIEntry):
        return _movingai(entry, experiment.scenarios_per_map)
    return _generated(entry, experiment, maps_dir)


def _movingai(entry: MovingAIEntry, count: int) -> PreparedMap:
    try:
        grid = read_map(entry.map_path)
        every = read_scenarios(entry.scen_path)
        check_scenarios(grid, every, scen_source=str(entry.scen_path))
    except MapFormatError as error:
        raise SimError(f"{entry.where}: {error}") from None
    except OSError as error:
        raise SimError(f"{entry.where}: {error.filename}: cannot read: {error.strerror}") from None
    if len(every) < count:
        raise SimError(
            f"{entry.where}: {entry.scen_path.name} holds {len(every)} scenarios, fewer than "
            f"scenarios_per_map = {count}"
        )
    return PreparedMap(
        entry.name,
        entry.map_path,
        tuple(spread_scenarios(every, count)),
        PUBLISHED,
        _digest(grid.walkable),
        grid.walkable.size,
    )


def _generated(entry: GeneratedEntry, experiment: Experiment, maps_dir: Path) -> PreparedMap:
    path = maps_dir / f"{entry.name}.map"
    try:
        options: dict[str, Any] = dict(entry.parameters)  # the kind's own, checked there
        walkable = generate_layout(
            entry.kind, entry.height, entry.width, seed=entry.seed, **options
        )
        scenarios = random_scenarios(
            walkable, experiment.scenarios_per_map, seed=experiment.seed, map_name=path.name
        )
    except ValueError as error:
        raise SimError(f"{entry.where}: {error}") from None
    return PreparedMap(
        entry.name,
        path,
        tuple(scenarios),
        DIJKSTRA,
        _digest(walkable),
        walkable.size,
        walkable,
    )


def _digest(walkable: NDArray[np.bool_]) -> str:
    return hashlib.sha1(format_map(walkable).encode("ascii")).hexdigest()[:16]
