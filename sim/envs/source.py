"""Where an environment's grid comes from: a scene file, a Moving AI map, or the default scene.

An environment works on one `GridSource`: the walkable mask and costs agents move on, the diagonal
rule their moves follow, the scene (for the 3D view) and the Start/End cells the source fixes,
if any. Cells are ``(row, col)`` of that mask; for a map, row 0 is the map file's first line.
Panda3D-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from sim.config import DEFAULT_SCENE
from sim.errors import SimError
from sim.navigation import Cell, DiagonalRule
from sim.navigation.maps.movingai import MapFormatError, read_map, read_scenarios
from sim.navigation.regions.labels import label_regions
from sim.scene.file import load_scene
from sim.scene.grid import scene_endpoints, scene_grid
from sim.scene.spec import SceneError, SceneSpec


class EnvError(SimError, ValueError):
    """An environment's arguments cannot make an environment; the message says which and why."""


@dataclass(frozen=True, slots=True, eq=False)
class GridSource:
    """The grid an environment runs on.

    Attributes:
        walkable: ``[row, col]`` bool mask, True where an agent may stand (read-only).
        costs: ``[row, col]`` entry cost of each cell (1 where the source has none), read-only.
        rule: the diagonal rule of the moves.
        name: the scene's or map's name.
        fixed_pair: the Start and End cells the source fixes, or None.
        scene: the scene the 3D view builds (None for a map, built on first render).
        map_cells_flipped: True when mask row 0 is the scene's north edge (a map opened as a
            scene puts its first line north), so the view maps cells through `view_cell`.
        regions: each walkable cell's connected region (-1 on blocked cells).
        region_cells: the flat cells sorted by region (blocked ones first), so that
            ``region_cells[region_bounds[k]:region_bounds[k + 1]]`` are region k's cells:
            sorted once, as a new episode draws its pairs from them.
        region_bounds: where each region starts in `region_cells`, one more than regions.
    """

    walkable: NDArray[np.bool_]
    costs: NDArray[np.float64]
    rule: DiagonalRule
    name: str
    fixed_pair: tuple[Cell, Cell] | None
    scene: SceneSpec | None
    map_cells_flipped: bool
    regions: NDArray[np.int32]
    region_cells: NDArray[np.int64]
    region_bounds: NDArray[np.int64]

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the grid."""
        rows, cols = self.walkable.shape
        return rows, cols

    def view_cell(self, cell: Cell) -> Cell:
        """The scene grid's cell that shows mask cell `cell` in the 3D view."""
        row, col = cell
        return (self.shape[0] - 1 - row, col) if self.map_cells_flipped else (row, col)


def open_source(
    scene: str | Path | None,
    map: str | Path | None,
    *,
    scen: str | Path | None = None,
    index: int = 0,
    diagonal: str | None = None,
) -> GridSource:
    """Open the grid named by `scene` or `map` (not both); the default scene when neither.

    Args:
        scene: a scene TOML file; its Start and End cubes fix the pair when it has both.
        map: a Moving AI ``.map`` file.
        scen: with `map`, a ``.scen`` file whose line `index` fixes the pair.
        index: the scenario line, from 0.
        diagonal: a diagonal rule name overriding the source's ("never" for 4-connected moves);
            a map's own rule is "no-corner-cutting", the benchmark's.

    Raises:
        EnvError: naming the argument, for both or a missing or malformed file, a bad rule, a
            scenario line that does not exist.
    """
    if scene is not None and map is not None:
        raise EnvError("give a scene or a map, not both")
    rule = _rule(diagonal)
    if map is not None:
        return _map_source(Path(map), scen, index, rule)
    if scen is not None:
        raise EnvError("scen goes with a map, not a scene")
    return _scene_source(Path(scene) if scene is not None else DEFAULT_SCENE, rule)


def _rule(diagonal: str | None) -> DiagonalRule | None:
    if diagonal is None:
        return None
    try:
        return DiagonalRule(diagonal)
    except ValueError:
        names = ", ".join(rule.value for rule in DiagonalRule)
        raise EnvError(f"diagonal must be one of {names}, got {diagonal!r}") from None


def _scene_source(path: Path, rule: DiagonalRule | None) -> GridSource:
    try:
        spec = load_scene(path)
    except (SceneError, OSError) as error:
        raise EnvError(f"scene {path}: {error}") from None
    grid = scene_grid(spec)
    walkable = grid.walkable
    costs = grid.costs if grid.costs is not None else np.ones(walkable.shape)
    pair = None
    if spec.objects_with_tag("Start") and spec.objects_with_tag("End"):
        endpoints = scene_endpoints(spec, grid)
        if endpoints.start is not None and endpoints.goal is not None:
            pair = (endpoints.start, endpoints.goal)
    return _source(walkable, costs, rule or spec.grid.rule, spec.name, pair, spec, flipped=False)


def _map_source(
    path: Path, scen: str | Path | None, index: int, rule: DiagonalRule | None
) -> GridSource:
    try:
        grid = read_map(path)
    except (MapFormatError, OSError) as error:
        raise EnvError(f"map {path}: {error}") from None
    pair = None
    if scen is not None:
        try:
            lines = read_scenarios(scen)
        except (MapFormatError, OSError) as error:
            raise EnvError(f"scen {scen}: {error}") from None
        if not 0 <= index < len(lines):
            raise EnvError(f"scen {scen} has {len(lines)} lines; index {index} is not one")
        line = lines[index]
        pair = ((line.start_y, line.start_x), (line.goal_y, line.goal_x))
    walkable = grid.walkable
    rule = rule or DiagonalRule.NO_CORNER_CUTTING
    return _source(walkable, np.ones(walkable.shape), rule, path.stem, pair, None, flipped=True)


def _source(
    walkable: NDArray[np.bool_],
    costs: NDArray[np.float64],
    rule: DiagonalRule,
    name: str,
    pair: tuple[Cell, Cell] | None,
    scene: SceneSpec | None,
    *,
    flipped: bool,
) -> GridSource:
    walkable = np.ascontiguousarray(walkable, dtype=bool)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    if not walkable.any():
        raise EnvError(f"{name} has no walkable cell")
    regions, sizes = label_regions(walkable)
    flat = regions.reshape(-1)
    region_cells = np.argsort(flat, kind="stable").astype(np.int64)
    region_bounds = np.searchsorted(flat[region_cells], np.arange(len(sizes) + 1)).astype(np.int64)
    if pair is not None:
        start, goal = pair
        if not (walkable[start] and walkable[goal]):
            raise EnvError(f"{name}: its start {start} or goal {goal} is not walkable")
    for array in (walkable, costs, regions, region_cells, region_bounds):
        array.flags.writeable = False
    return GridSource(
        walkable, costs, rule, name, pair, scene, flipped, regions, region_cells, region_bounds
    )
