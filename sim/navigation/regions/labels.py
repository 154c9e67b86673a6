"""Connected regions of a walkable mask: which cells can reach which, kept current cheaply.

A region is a set of walkable cells joined by orthogonal steps; `label_regions` numbers them,
`RegionMap` keeps the numbers of one mask current as it changes and proves, in time that
depends on a region's edge and not on the grid, that two cells cannot reach each other.

One labelling serves both connectivities `find_path` offers. Under the rule of our 8-connected
moves (no corner cutting: a diagonal step needs both orthogonal cells it passes walkable), a
diagonal step from ``a`` to ``b`` passes an orthogonal neighbour ``o`` of both, walkable, so
``a -> o -> b`` joins them by orthogonal steps: 8-connected regions are 4-connected regions.
Other diagonal rules (cutting corners) would join more; a cache keyed by connectivity
(`sim.navigation.regions.cache`) leaves room for them.

The proof that two cells are apart. Take the smaller of their regions, ``R``, and its
boundary: every cell 4-adjacent to ``R`` and not in it (blocked when ``R`` was labelled).
While every boundary cell is still blocked, no move leaves ``R`` whatever else changed: an
orthogonal step out of ``R`` enters a boundary cell, and a diagonal one passes an orthogonal
neighbour of its first cell that is either in ``R`` (then its last cell, 4-adjacent to it, is
a boundary cell) or a boundary cell itself. So a cell of ``R`` cannot reach a cell outside
``R``. Checking the boundary costs its length, not the grid's; when it fails (a boundary cell
opened) the map catches up with the mask (`RegionMap.update`) and decides exactly.

The work is done by the C extension `_regions` (built with ``optional=True``), or by the
identical-contract pure-Python reference `sim.navigation.regions.flood` when it is not built.

>>> walkable = np.array([[1, 1, 0, 1],
...                      [1, 0, 0, 1]], dtype=bool)
>>> regions = RegionMap(walkable)
>>> regions.count, regions.region_of((0, 0)) == regions.region_of((1, 3))
(2, False)
>>> regions.apart(walkable, (0, 0), (1, 3))
True
>>> walkable[0, 2] = True  # opens the wall: a boundary cell of the smaller region
>>> regions.apart(walkable, (0, 0), (1, 3)), regions.count
(False, 1)
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell, check_walkable
from sim.navigation.regions import flood as region_flood

REGIONS_AVAILABLE: bool
"""Whether the compiled extension imported; "auto" labels in C when it is True.

No warning when it did not: `sim.navigation.searches.kernel` already announces a failed build once.
"""
try:
    from sim.navigation.regions import _regions

    REGIONS_AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the build
    REGIONS_AVAILABLE = False

IMPLEMENTATIONS = ("auto", "c", "python")
"""The values of ``implementation``: the C extension when built, C only, Python only."""

MAX_CELLS = 2**31 - 2
"""The most cells a mask may have: labels and cells are 32-bit in C."""

_EMPTY: NDArray[np.int64] = np.empty(0, dtype=np.int64)


def backend(implementation: str = "auto") -> ModuleType:
    """The module that does the work: `_regions` (C) or `region_flood` (Python).

    Raises:
        ValueError: for an unknown implementation, or "c" when the extension is not built.
    """
    if implementation not in IMPLEMENTATIONS:
        raise ValueError(f"implementation must be auto, c or python, got {implementation!r}")
    if implementation == "c" and not REGIONS_AVAILABLE:
        raise ValueError("implementation='c' but sim.navigation.regions._regions is not built")
    if implementation != "python" and REGIONS_AVAILABLE:
        return _regions
    return region_flood


def label_regions(
    walkable: NDArray[np.bool_], *, implementation: str = "auto"
) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
    """Label the regions of `walkable`: ``(labels, sizes)``.

    ``labels[row, col]`` is the region of each walkable cell, -1 on blocked ones; regions are
    numbered from 0 in the order their first cell comes in a row-by-row scan, and
    ``sizes[label]`` is how many cells each has. The labels serve 4- and 8-connected moves
    alike (see the module docstring).

    Raises:
        ValueError: for a mask that is not 2-D bool, or an unknown implementation.

    >>> labels, sizes = label_regions(np.array([[1, 0, 1], [1, 0, 0]], dtype=bool))
    >>> labels.tolist(), sizes.tolist()
    ([[0, -1, 1], [0, -1, -1]], [2, 1])
    """
    walkable = _check_mask(walkable)
    height, width = walkable.shape
    labels = np.empty(walkable.size, dtype=np.int32)
    sizes = np.empty(walkable.size // 2 + 2, dtype=np.int64)
    flat = np.ascontiguousarray(walkable).reshape(-1)
    count = backend(implementation).label(flat, height, width, labels, sizes)
    return labels.reshape(height, width), sizes[:count].copy()


class RegionMap:
    """The regions of one mask, kept current as it changes; labels stay valid as a partition.

    Holds a snapshot of the mask as it was last labelled (not the mask itself). `update`
    brings the labels up to the mask as it is now, from the cells known to have changed or
    by comparing with the snapshot; `apart` proves two cells cannot reach each other. Labels
    are not renumbered by updates, but a region that changed may get a new number.

    Args:
        walkable: the ``[row, col]`` bool mask; labelled at once.
        implementation: "auto" (C when built), "c" or "python"; both give the same partition.

    Raises:
        ValueError: for a mask that is not 2-D bool or has 2**31 - 1 cells or more, or an
            unknown implementation.
    """

    def __init__(self, walkable: NDArray[np.bool_], *, implementation: str = "auto") -> None:
        walkable = _check_mask(walkable)
        self._work = backend(implementation)
        height, width = walkable.shape
        self._shape = (int(height), int(width))
        self._snapshot = np.array(walkable, dtype=bool, order="C").reshape(-1)
        self._labels = np.empty(self._snapshot.size, dtype=np.int32)
        self._sizes = _EMPTY
        self._next = 0
        self._boundaries: dict[int, NDArray[np.int64]] = {}
        self.version = 0
        """Moves on before the labels, sizes or boundaries change (read it, never set it)."""
        self._relabel()

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the mask."""
        return self._shape

    @property
    def labels(self) -> NDArray[np.int32]:
        """``[row, col]`` the region of each cell as last labelled, -1 when blocked (read-only)."""
        view = self._labels.reshape(self._shape)
        view.flags.writeable = False
        return view

    @property
    def count(self) -> int:
        """How many regions the mask has (as last labelled)."""
        return int(np.count_nonzero(self._sizes[: self._next]))

    @property
    def nbytes(self) -> int:
        """The memory the map holds, in bytes."""
        return int(self._snapshot.nbytes + self._labels.nbytes + self._sizes.nbytes) + sum(
            cells.nbytes for cells in self._boundaries.values()
        )

    def region_of(self, cell: Cell) -> int:
        """The region of ``(row, col)`` as last labelled: -1 when blocked or off the grid."""
        row, col = cell
        height, width = self._shape
        if not (0 <= row < height and 0 <= col < width):
            return -1
        return int(self._labels[row * width + col])

    def size_of(self, region: int) -> int:
        """How many cells `region` has (0 for a number no region has any more)."""
        return int(self._sizes[region]) if 0 <= region < self._next else 0

    def update(self, walkable: NDArray[np.bool_], cells: NDArray[np.integer] | None = None) -> int:
        """Bring the labels up to `walkable` as it is now; return how many cells changed.

        Args:
            walkable: the mask, of the shape the map was made for.
            cells: flat cells (``row * cols + col``) that may have changed since the last
                labelling; others are taken as unchanged (the caller knows). None compares
                the whole mask with the snapshot. Listing a cell that did not change is free.

        Costs about the changed cells and the regions they touch: opening a cell merges its
        neighbours' regions (the smaller ones are renumbered), blocking one may split its
        region (settled by searches from its neighbours, the pieces cut off renumbered).
        Past many changes at once it labels the whole mask again.

        Raises:
            ValueError: for a mask of another shape, or a cell off the grid.
        """
        current = self._current(walkable)
        size = self._snapshot.size
        most = max(64, size // 32)  # past this many changes, one labelling costs less
        if cells is None:
            out = np.empty(most, dtype=np.int64)
            found = self._work.diff(current, self._snapshot, out)
            changed = out[:found] if found >= 0 else None
        else:
            changed = np.asarray(cells, dtype=np.int64).reshape(-1)
            if changed.size > most:
                changed = None
        if changed is None or self._next > max(1024, size // 2):
            # Many changes, or many numbers spent: label again (which renumbers).
            count = int(np.count_nonzero(current != self._snapshot))
            self._snapshot[:] = current
            self._relabel()
            return count
        if changed.size == 0:
            return 0
        # Before the change: a reader that finds the version it knew reads no half-update.
        self.version += 1
        self._reserve(self._next + 4 * changed.size + 1)
        before = self._labels[changed]
        self._next, count = self._work.update(
            current,
            self._snapshot,
            self._labels,
            self._sizes,
            self._shape[0],
            self._shape[1],
            self._next,
            changed,
        )
        if count and self._boundaries:
            # A region's boundary changes only when one of its cells or boundary cells does:
            # then a changed cell had its number before or has it now.
            stale = set(before.tolist()) | set(self._labels[changed].tolist())
            for region in stale & self._boundaries.keys():
                del self._boundaries[region]
        return int(count)

    def boundary(self, cell: Cell) -> NDArray[np.int64]:
        """The flat cells 4-adjacent to the region of `cell` and not in it (all blocked then).

        As last labelled. Built on first asking (its cost is the region's size) and kept
        until the region changes. Empty for a blocked cell.

        >>> regions = RegionMap(np.array([[1, 1, 0], [0, 0, 0]], dtype=bool))
        >>> sorted(regions.boundary((0, 0)).tolist())  # (0, 2), (1, 0), (1, 1)
        [2, 3, 4]
        """
        row, col = cell
        width = self._shape[1]
        region = self.region_of(cell)
        if region < 0:
            return _EMPTY
        return self._boundary(region, row * width + col)

    def sealed(self, walkable: NDArray[np.bool_], cell: Cell) -> bool:
        """Whether every boundary cell of the region of `cell` is blocked in `walkable` now.

        Then no path in `walkable` leaves that region's cells as last labelled (see the
        module docstring), whatever else changed. Costs the boundary's length. False for a
        cell that was blocked.
        """
        if self.region_of(cell) < 0:
            return False
        row, col = cell
        return self._sealed(self._current_2d(walkable), row * self._shape[1] + col)

    def apart(self, walkable: NDArray[np.bool_], start: Cell, goal: Cell) -> bool:
        """Whether `start` cannot reach `goal` in `walkable` now, proven; False when it may.

        True only when both cells are walkable now, in the grid, and no path joins them.
        Answers from the labels when they suffice: the same region says nothing (False: a
        search decides), different regions are apart when the smaller one is still sealed
        (`sealed`). Otherwise the map first catches up with `walkable` (`update`), then
        answers exactly. Repeated queries on an unchanged mask cost two lookups and, when
        apart, one boundary check.
        """
        # The hot path of every `find_path` on a labelled array: plain ints, no numpy scalars.
        if walkable.shape != self._shape:
            raise ValueError(f"walkable has shape {walkable.shape}, the map {self._shape}")
        height, width = self._shape
        start_row, start_col = start
        goal_row, goal_col = goal
        if not (
            0 <= start_row < height
            and 0 <= start_col < width
            and 0 <= goal_row < height
            and 0 <= goal_col < width
        ):
            return False
        start_flat, goal_flat = start_row * width + start_col, goal_row * width + goal_col
        if not (walkable.item(start_flat) and walkable.item(goal_flat)):
            return False
        return self.apart_flat(walkable, start_flat, goal_flat)

    def apart_flat(self, walkable: NDArray[np.bool_], start_flat: int, goal_flat: int) -> bool:
        """`apart` for flat cells its caller has checked: walkable now, in a mask of this shape.

        For `sim.navigation.hot_path`, which has made those checks already: one microsecond
        less on an unreachable answer.
        """
        labels = self._labels
        start_region, goal_region = labels.item(start_flat), labels.item(goal_flat)
        if start_region == goal_region and start_region >= 0:
            return False
        if start_region >= 0 and goal_region >= 0:
            sizes = self._sizes
            if sizes.item(start_region) <= sizes.item(goal_region):
                smaller, seed = start_region, start_flat
            else:
                smaller, seed = goal_region, goal_flat
            cells = self._boundaries.get(smaller)
            if cells is None:
                cells = self._boundary(smaller, seed)
            try:
                if self._work.sealed(walkable, cells):
                    return True
            except ValueError:  # not C-contiguous
                if self._all_blocked(walkable, cells):
                    return True
        self.update(walkable)
        return labels.item(start_flat) != labels.item(goal_flat)

    def prepare(self, start: Cell, goal: Cell) -> None:
        """Build now the boundary `apart` will check for these two cells, if it will check one."""
        start_region, goal_region = self.region_of(start), self.region_of(goal)
        if start_region >= 0 and goal_region >= 0 and start_region != goal_region:
            self.boundary(
                start if self.size_of(start_region) <= self.size_of(goal_region) else goal
            )

    def proof_parts(
        self,
    ) -> tuple[NDArray[np.int32], NDArray[np.int64], dict[int, NDArray[np.int64]], int]:
        """What `apart_flat` proves from, as they stand: for a reader outside Python (C).

        The flat labels, the sizes by region number, the boundaries built so far (region ->
        flat cells) and `version`. The map changes them in place or replaces them, moving
        `version` on first: a reader must read them again once `version` moved, and must not
        change them.
        """
        return self._labels, self._sizes, self._boundaries, self.version

    def _current_2d(self, walkable: NDArray[np.bool_]) -> NDArray[np.bool_]:
        if walkable.shape != self._shape:
            raise ValueError(f"walkable has shape {walkable.shape}, the map {self._shape}")
        return walkable

    def _current(self, walkable: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """`walkable` flat and C-contiguous (a view when it already is), its shape checked."""
        return np.ascontiguousarray(self._current_2d(walkable), dtype=bool).reshape(-1)

    def _sealed(self, walkable: NDArray[np.bool_], seed: int) -> bool:
        """`sealed` for the region of flat `seed`, walkable and of the right shape."""
        region = self._labels.item(seed)
        return self._all_blocked(walkable, self._boundary(region, seed))

    def _all_blocked(self, walkable: NDArray[np.bool_], cells: NDArray[np.int64]) -> bool:
        try:
            return bool(self._work.sealed(walkable, cells))
        except ValueError:  # not C-contiguous: C cannot read it flat
            rows, cols = np.divmod(cells, self._shape[1])
            return not bool(walkable[rows, cols].any())

    def _relabel(self) -> None:
        self.version += 1
        size = self._snapshot.size
        self._sizes = np.empty(size // 2 + 2, dtype=np.int64)
        height, width = self._shape
        self._next = int(self._work.label(self._snapshot, height, width, self._labels, self._sizes))
        self._boundaries.clear()

    def _reserve(self, labels: int) -> None:
        if labels > len(self._sizes):
            grown = np.empty(max(labels, 2 * len(self._sizes)), dtype=np.int64)
            grown[: self._next] = self._sizes[: self._next]
            self._sizes = grown

    def _boundary(self, region: int, seed: int) -> NDArray[np.int64]:
        cells = self._boundaries.get(region)
        if cells is None:
            size = self.size_of(region)
            out = np.empty(min(self._snapshot.size, 4 * size + 4), dtype=np.int64)
            height, width = self._shape
            count = self._work.boundary(self._labels, height, width, seed, size, out)
            cells = self._boundaries[region] = out[:count].copy()
        return cells


def _check_mask(walkable: object) -> NDArray[np.bool_]:
    mask = check_walkable(walkable)
    if mask.size > MAX_CELLS:
        raise ValueError(f"walkable must have fewer than 2**31 - 1 cells, got {mask.shape}")
    return mask
