"""Terrain patches in the live scene: their cost, their colour, and the grid's cost layer.

A `Terrain`-tagged object is a flat patch (mud, water, road) whose `TerrainPatch` component
holds its cost multiplier; the patch is painted with the colour of its cost on the ramp the
HUD's legend shows (`COST_BANDS`), so what a user sees and what the planner pays agree.
`TerrainTracker` keeps the GridManager's `TerrainLayer` in step with the patches: only a patch
that moved, turned, was rescaled, changed cost or went is redone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

import numpy as np
from numpy.typing import NDArray
from panda3d.core import TransformState

from sim.engine import Component, GameObject
from sim.navigation import Box, TerrainLayer, box_footprint, check_terrain_cost
from sim.navigation.areas import AreaLayer

Color = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class CostBand:
    """Costs from `low` (included) up to the next band's `low` share one colour and label."""

    low: float
    label: str
    color: Color


COST_BANDS: Final[tuple[CostBand, ...]] = (
    CostBand(0.25, "< 1 road", (0.34, 0.37, 0.46, 1.0)),  # slate
    CostBand(1.0, "1 - 2", (0.82, 0.72, 0.46, 1.0)),  # sand
    CostBand(2.0, "2 - 3", (0.72, 0.52, 0.26, 1.0)),  # ochre
    CostBand(3.0, "3 - 5 mud", (0.47, 0.30, 0.14, 1.0)),  # brown
    CostBand(5.0, "5 - 10 swamp", (0.20, 0.34, 0.26, 1.0)),  # dark green
    CostBand(10.0, "10+ water", (0.12, 0.28, 0.62, 1.0)),  # blue
)
"""The legend, cheapest first: every cost from 0.25 to 100 falls in exactly one band."""

COST_CYCLE: Final = (1.5, 2.0, 3.0, 5.0, 10.0)
"""The costs the cost key steps a patch through, in order, round and round."""

# Patches are drawn in the background bin after the ground and without writing depth: the grid
# lines, the shading of blocked cells, the search view's cells and the paths, all lower than a
# patch's top, then still show on it. Dearer patches are drawn later, so where patches overlap
# the one on top is the one whose cost the cells take.
PATCH_BIN: Final = "background"
PATCH_BIN_SORT: Final = 10


def cost_band(cost: float) -> CostBand:
    """The band of the ramp `cost` falls in.

    >>> cost_band(4.0).label, cost_band(0.5).label, cost_band(100.0).label
    ('3 - 5 mud', '< 1 road', '10+ water')
    """
    chosen = COST_BANDS[0]
    for band in COST_BANDS:
        if cost >= band.low:
            chosen = band
    return chosen


def terrain_color(cost: float) -> Color:
    """The colour a patch of `cost` is painted (its band's)."""
    return cost_band(cost).color


def next_cost(cost: float) -> float:
    """The cost after `cost` in `COST_CYCLE`: the first one above it, or the first of all.

    >>> next_cost(1.5), next_cost(4.0), next_cost(10.0), next_cost(0.5)
    (2.0, 5.0, 1.5, 1.5)
    """
    return next((step for step in COST_CYCLE if step > cost), COST_CYCLE[0])


class TerrainPatch(Component):
    """The cost multiplier of the cells a Terrain object covers; paints the object to match.

    Setting `cost` repaints the patch at once; the GridManager notices the new cost on its
    next sync and the planners replan.
    """

    def __init__(self, cost: float, area: str | None = None) -> None:
        super().__init__()
        self._cost = check_terrain_cost(cost)
        self.area = area  # the area its cells belong to (`sim.navigation.areas`), if named

    @property
    def cost(self) -> float:
        """The multiplier, 0.25 to 100."""
        return self._cost

    @cost.setter
    def cost(self, value: float) -> None:
        self._cost = check_terrain_cost(value)
        if self.attached:
            self._paint()

    def awake(self) -> None:
        """Paint the patch in its cost's colour, unlit so it reads as the legend does."""
        node = self.game_object.node
        node.set_light_off()
        node.set_depth_write(False)
        self._paint()

    def _paint(self) -> None:
        node = self.game_object.node
        node.set_color(*terrain_color(self._cost))
        node.set_bin(PATCH_BIN, PATCH_BIN_SORT + round(self._cost * 100))


@dataclass(slots=True)
class _Tracked:
    box: Box
    cost: float
    transform: TransformState = field(repr=False)


class TerrainTracker:
    """Keeps a `TerrainLayer` fed from the Terrain objects' footprints and costs.

    Footprints follow the obstacles' rule (`box_footprint` of the object's box seen from
    above, clipped to the grid). A Terrain object without a `TerrainPatch` costs nothing
    extra and is left out.
    """

    def __init__(
        self,
        shape: tuple[int, int],
        *,
        origin: tuple[float, float],
        cell_size: float,
        box_of: Callable[[GameObject], Box],
    ) -> None:
        self.layer = TerrainLayer(shape)
        self.areas = AreaLayer(shape)
        self._origin, self._cell_size = origin, cell_size
        self._box_of = box_of
        self._tracked: dict[int, _Tracked] = {}

    @property
    def costs(self) -> NDArray[np.float64] | None:
        """The ``[row, col]`` costs now (read-only), or None while there is no patch."""
        return self.layer.costs if len(self.layer) else None

    def sync(self, patches: Iterable[GameObject]) -> bool:
        """Redo the patches that changed since the last call; True if any cell's cost did."""
        layer = self.layer
        before = layer.version
        current = {id(obj): obj for obj in patches if obj.alive}
        for gone in set(self._tracked) - set(current):
            del self._tracked[gone]
            layer.remove(gone)
            self.areas.remove(gone)
        for key, obj in current.items():
            patch = obj.get_component(TerrainPatch)
            if patch is None:
                continue
            tracked = self._tracked.get(key)
            transform = obj.node.get_net_transform()
            if tracked is not None and tracked.transform == transform:
                if tracked.cost == patch.cost:
                    continue
                box = tracked.box
            else:
                box = self._box_of(obj)
            if tracked is not None and tracked.box == box and tracked.cost == patch.cost:
                tracked.transform = transform
                continue
            footprint = box_footprint(
                box, layer.shape, origin=self._origin, cell_size=self._cell_size
            )
            layer.put(key, footprint, patch.cost)
            self.areas.put(key, footprint, patch.area)
            self._tracked[key] = _Tracked(box, patch.cost, transform)
        return layer.version != before


def legend_lines() -> list[tuple[str, Color]]:
    """The legend's rows, cheapest first: each band's label with its colour."""
    return [(band.label, band.color) for band in COST_BANDS]
