"""Areas: named kinds of ground (road, grass) and which cells an agent may walk on.

A terrain patch may name its area (`area = "road"`); an agent may list the areas it walks on
(`areas = ["road", "grass"]`, Unity's area mask, Godot's navigation layers). A cell belongs to
the areas of every patch covering it that names one, and to `WALKABLE` (Unity's built-in area
of the same name) when none does. An agent may enter a cell only if it may walk on each of the
cell's areas, so a road patch laid over grass is closed to an agent of the roads alone; an
agent with no list walks everywhere. Planners take the result as one more blocked mask
(``walkable & allowed``), shared by every agent with the same list (`AreaLayer.allowed` keeps
one per distinct list until a patch moves).

>>> from sim.navigation.raster import Footprint
>>> layer = AreaLayer((1, 4))
>>> layer.put("lane", Footprint(0, 1, np.ones((1, 2), dtype=bool)), "road")
>>> layer.allowed(frozenset({"road"})).tolist()
[[False, True, True, False]]
>>> layer.allowed(frozenset({"walkable"})).tolist()
[[True, False, False, True]]
>>> layer.allowed(None) is None
True
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import GridMap
from sim.navigation.raster import Footprint

WALKABLE: Final = "walkable"
"""The area of every cell no named patch covers (Unity's built-in "Walkable")."""


def within_areas(grid: GridMap, allowed: NDArray[np.bool_] | None) -> GridMap:
    """`grid` with the cells outside `allowed` blocked too; `grid` itself for None.

    >>> within_areas(GridMap.open(1, 2), np.array([[True, False]])).walkable.tolist()
    [[True, False]]
    """
    if allowed is None:
        return grid
    return GridMap(grid.walkable & allowed, grid.costs, grid.origin, grid.cell_size)


class AreaLayer:
    """The named patches' footprints, and the cells each set of areas may walk on.

    Args:
        shape: ``(rows, cols)`` of the grid.
    """

    def __init__(self, shape: tuple[int, int]) -> None:
        self.shape = shape
        self._patches: dict[Hashable, tuple[Footprint, str]] = {}
        self._masks: dict[frozenset[str], NDArray[np.bool_]] = {}

    def put(self, key: Hashable, footprint: Footprint, area: str | None) -> None:
        """Patch `key` covers `footprint` as area `area` now (None: it names no area)."""
        if area is None:
            self.remove(key)
            return
        if self._patches.get(key) == (footprint, area):
            return
        self._patches[key] = (footprint, area)
        self._masks.clear()

    def remove(self, key: Hashable) -> None:
        """Patch `key` is gone (nothing if it was never put)."""
        if self._patches.pop(key, None) is not None:
            self._masks.clear()

    def allowed(self, areas: frozenset[str] | None) -> NDArray[np.bool_] | None:
        """``[row, col]`` the cells an agent walking on `areas` may enter; None: all of them.

        The array is shared: read it, do not change it.
        """
        if areas is None:
            return None
        mask = self._masks.get(areas)
        if mask is None:
            named = np.zeros(self.shape, dtype=bool)
            forbidden = np.zeros(self.shape, dtype=bool)
            for footprint, area in self._patches.values():
                window = footprint.rows, footprint.cols
                named[window] |= footprint.mask
                if area not in areas:
                    forbidden[window] |= footprint.mask
            if WALKABLE not in areas:
                forbidden |= ~named
            mask = ~forbidden
            mask.flags.writeable = False
            self._masks[areas] = mask
        return mask
