"""Carving: a moving obstacle redoes only the cells it leaves and enters, and says which flipped.

`Carver` keeps, per cell, how many footprints cover it (a map's own walls count as one each),
and the walkable mask that follows: a cell is walkable while nothing covers it. Moving a
footprint applies only its difference (`sim.navigation.raster.footprint_diff`), so a door
sliding a tenth of a cell costs its edge, not its area, and the answer, a `Carve`, names the
cells whose walkability flipped: what a route needs to know to tell whether it was cut, and
what the region labels (`sim.navigation.regions.cache.cells_changed`) need to stay current
without a diff of the whole grid. Unity's NavMeshObstacle carves only while it stands still,
by default; here every obstacle may move every frame.

>>> import numpy as np
>>> from sim.navigation.raster import Box, box_footprint
>>> carver = Carver(np.ones((1, 4), dtype=bool))
>>> door = box_footprint(Box(1.0, 0.5, 2.0, 1.0), (1, 4))
>>> carver.add(door).blocked.tolist(), carver.walkable.astype(int).tolist()
([0, 1], [[0, 0, 1, 1]])
>>> carve = carver.move(door, box_footprint(Box(2.0, 0.5, 2.0, 1.0), (1, 4)))
>>> carve.freed.tolist(), carve.blocked.tolist(), carve.touched
([0], [2], 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.navigation.raster import Footprint, footprint_diff
from sim.navigation.regions import cache as region_cache

NO_FOOTPRINT = Footprint(0, 0, np.zeros((0, 0), dtype=bool))
"""A footprint covering nothing: where an obstacle comes from when it is added."""


@dataclass(frozen=True, slots=True)
class Carve:
    """What one footprint change did to the walkable mask.

    Attributes:
        blocked: Flat cells (``row * width + col``) that became blocked, ascending.
        freed: Flat cells that became walkable, ascending.
        touched: Cells whose cover count changed (left or entered), flipped or not.
    """

    blocked: NDArray[np.intp]
    freed: NDArray[np.intp]
    touched: int

    @property
    def flipped(self) -> bool:
        """Whether a cell's walkability changed."""
        return bool(self.blocked.size or self.freed.size)


NOTHING = Carve(np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp), 0)
"""The carve of a footprint that covers the same cells as before."""


class Carver:
    """Per-cell cover counts and the walkable mask they give; footprints move by difference.

    Args:
        walkable: ``[row, col]`` the mask to keep, C-contiguous; edited in place from now on.
            Its blocked cells are walls no footprint's leaving frees.

    Raises:
        ValueError: If `walkable` is not a C-contiguous 2-D bool array.

    Attributes:
        cells_touched: Cells whose cover count changed, summed over every change so far.
    """

    def __init__(self, walkable: NDArray[np.bool_]) -> None:
        if walkable.dtype != np.bool_ or walkable.ndim != 2 or not walkable.flags.c_contiguous:
            raise ValueError("walkable must be a C-contiguous 2-D bool array")
        self.walkable = walkable
        self._cover = (~walkable).astype(np.int32)
        self._width = walkable.shape[1]
        self.cells_touched = 0

    @property
    def cover(self) -> NDArray[np.int32]:
        """``[row, col]`` how many footprints (and walls) cover each cell (do not modify)."""
        return self._cover

    def add(self, footprint: Footprint) -> Carve:
        """Cover `footprint`'s cells once more."""
        return self.move(NO_FOOTPRINT, footprint)

    def add_all(self, footprints: Sequence[Footprint]) -> Carve:
        """Cover each of `footprints`' cells once more, all in one carve.

        The same counts and mask as adding them one by one, at a slice each and one pass over
        the grid: a map's walls are tens of thousands of footprints, added at once.
        """
        cover = self._cover
        touched = 0
        for footprint in footprints:
            cover[footprint.rows, footprint.cols] += footprint.mask
            touched += int(np.count_nonzero(footprint.mask))
        walkable = self.walkable.reshape(-1)
        # The mask is walkable exactly where nothing covers a cell, so a newly covered free
        # cell is one still marked walkable.
        blocked = np.flatnonzero(walkable & (cover.reshape(-1) > 0)).astype(np.intp)
        walkable[blocked] = False
        self.cells_touched += touched
        if blocked.size:
            region_cache.cells_changed(self.walkable, blocked)
        return Carve(blocked, np.empty(0, dtype=np.intp), touched)

    def remove(self, footprint: Footprint) -> Carve:
        """Uncover `footprint`'s cells once (it must have been added)."""
        return self.move(footprint, NO_FOOTPRINT)

    def move(self, old: Footprint, new: Footprint) -> Carve:
        """Replace footprint `old` (added before) by `new`, touching only their difference."""
        if (
            old.row_start == new.row_start
            and old.col_start == new.col_start
            and np.array_equal(old.mask, new.mask)
        ):
            return NOTHING  # most frames of a slow mover: it moved within the cells it covers
        left, entered = footprint_diff(old, new, self._width)
        cover = self._cover.reshape(-1)
        walkable = self.walkable.reshape(-1)
        # A footprint names each cell once, so plain fancy-index arithmetic is exact here.
        cover[left] -= 1
        freed = left[cover[left] == 0]
        cover[entered] += 1
        blocked = entered[cover[entered] == 1]
        walkable[freed] = True
        walkable[blocked] = False
        touched = int(left.size + entered.size)
        self.cells_touched += touched
        if freed.size or blocked.size:
            region_cache.cells_changed(self.walkable, np.concatenate((freed, blocked)))
        return Carve(blocked, freed, touched)  # subsets of ascending arrays: ascending
