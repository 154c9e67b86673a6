"""Connected regions in pure Python: the readable reference of the C extension `_regions`.

Same functions, same arguments, same contract as `sim/navigation/regions/_regions.c`, so `regions`
runs either; this one is used when the extension is not built. Every array is flat
(``row * width + col``) and C-contiguous: masks bool, labels int32 (-1 on a blocked cell),
sizes and cell lists int64. Regions are 4-connected (`sim.navigation.regions.labels` says why that
serves 8-connected moves too).

The two may number regions differently after an `update` (C keeps the largest piece of a
split region under its old label, this one gives every piece a new one); both give the same
partition, which is all a label means.

>>> import numpy as np
>>> walkable = np.array([1, 1, 0, 1], dtype=bool)  # one row: two regions
>>> labels, sizes = np.empty(4, np.int32), np.empty(3, np.int64)
>>> label(walkable, 1, 4, labels, sizes), labels.tolist(), sizes[:2].tolist()
(2, [0, 0, -1, 1], [2, 1])
"""

from __future__ import annotations

from collections import deque

import numpy as np
from numpy.typing import NDArray

BLOCKED = -1
"""The label of a blocked cell."""


def _neighbours(cell: int, height: int, width: int) -> list[int]:
    """The up to four orthogonal neighbours of flat `cell`."""
    row, col = divmod(cell, width)
    near = []
    if row > 0:
        near.append(cell - width)
    if row + 1 < height:
        near.append(cell + width)
    if col > 0:
        near.append(cell - 1)
    if col + 1 < width:
        near.append(cell + 1)
    return near


def _flood(labels: list[int], seed: int, old: int, new: int, height: int, width: int) -> int:
    """Give every cell labelled `old` joined to `seed` (labelled `old`) label `new`; count them."""
    labels[seed] = new
    frontier = deque([seed])
    count = 1
    while frontier:
        for near in _neighbours(frontier.popleft(), height, width):
            if labels[near] == old:
                labels[near] = new
                frontier.append(near)
                count += 1
    return count


def label(
    walkable: NDArray[np.bool_],
    height: int,
    width: int,
    labels: NDArray[np.int32],
    sizes: NDArray[np.int64],
) -> int:
    """Label every cell from scratch, regions numbered in scan order; return how many.

    Writes `labels` (-1 on blocked cells) and ``sizes[label]``, the cells of each region.

    Raises:
        ValueError: when `sizes` holds too few labels (``(height * width + 1) // 2`` is always
            enough: no two regions touch).
    """
    unseen = -2
    found = [unseen if open_ else BLOCKED for open_ in walkable.tolist()]
    count = 0
    for seed, value in enumerate(found):
        if value != unseen:
            continue
        if count >= len(sizes):
            raise ValueError(f"sizes holds {len(sizes)} labels, too few for this grid")
        sizes[count] = _flood(found, seed, unseen, count, height, width)
        count += 1
    labels[:] = found
    return count


def diff(current: NDArray[np.bool_], snapshot: NDArray[np.bool_], out: NDArray[np.int64]) -> int:
    """Write into `out` the cells where the two masks differ, in order; return how many.

    -1 when more cells differ than `out` holds (its content is then unspecified).
    """
    changed = np.flatnonzero(current != snapshot)
    if len(changed) > len(out):
        return -1
    out[: len(changed)] = changed
    return len(changed)


def same(current: NDArray[np.bool_], snapshot: NDArray[np.bool_]) -> bool:
    """Whether the two masks are equal cell for cell."""
    return bool(np.array_equal(current, snapshot))


def ring_joins(snapshot: NDArray[np.bool_], cell: int, height: int, width: int) -> bool:
    """Whether `cell`'s walkable orthogonal neighbours stay joined round its 3 x 3 ring.

    The ring's cells in order (N, NE, E, SE, S, SW, W, NW) are each 4-adjacent to the next,
    so the open ones form runs; the neighbours stay joined without `cell` when a single run
    holds all of them. When not, they may still be joined the long way round: the caller
    settles that by searching.
    """
    row, col = divmod(cell, width)
    ring = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
    open_ = [
        0 <= row + dr < height and 0 <= col + dc < width and bool(snapshot[cell + dr * width + dc])
        for dr, dc in ring
    ]
    if sum(open_[0::2]) <= 1 or all(open_):
        return True
    first = open_.index(False)
    runs, in_run, with_orthogonal = 0, False, False
    for step in range(1, 9):
        i = (first + step) % 8
        if open_[i]:
            in_run = True
            with_orthogonal = with_orthogonal or i % 2 == 0
        elif in_run:
            runs += with_orthogonal
            in_run = with_orthogonal = False
    return runs <= 1


def update(
    current: NDArray[np.bool_],
    snapshot: NDArray[np.bool_],
    labels: NDArray[np.int32],
    sizes: NDArray[np.int64],
    height: int,
    width: int,
    next_label: int,
    cells: NDArray[np.int64],
) -> tuple[int, int]:
    """Apply the listed `cells` where `current` and `snapshot` differ; return (next label, count).

    Afterwards `snapshot` equals `current` on those cells and `labels` / `sizes` partition
    the snapshot into its regions again. Blocked cells go first: one whose neighbours stay
    joined round its ring (`ring_joins`) cannot split its region; every other region that
    lost a cell is flooded again from the walkable neighbours of its lost cells (each piece
    of it touches one), each piece under a new label. Then opened cells, in order: each
    merges its neighbours' regions into the largest one, or starts a new region. New
    labels are `next_label` on; `sizes` must hold ``next_label + 4 * len(cells) + 1``.
    Unlisted cells are left alone; a cell listed twice counts once.
    """
    if next_label + 4 * len(cells) + 1 > len(sizes):
        raise ValueError("sizes must hold next_label + 4 * cells + 1 labels")
    for cell in cells.tolist():
        if not 0 <= cell < len(labels):
            raise ValueError(f"cell {cell} lies outside the {len(labels)} cells of the grid")
    found = labels.tolist()
    removed: list[int] = []
    may_split: set[int] = set()
    for cell in (int(c) for c in cells):
        if not snapshot[cell] or current[cell]:
            continue
        old = found[cell]
        snapshot[cell] = False
        found[cell] = BLOCKED
        sizes[old] -= 1
        removed.append(cell)
        if not ring_joins(snapshot, cell, height, width):
            may_split.add(old)
    for cell in removed:
        for seed in _neighbours(cell, height, width):
            old = found[seed]
            if old in may_split:
                sizes[next_label] = _flood(found, seed, old, next_label, height, width)
                sizes[old] -= sizes[next_label]
                next_label += 1
    changed = len(removed)
    for cell in (int(c) for c in cells):
        if snapshot[cell] or not current[cell]:
            continue
        joined = sorted(
            {found[near] for near in _neighbours(cell, height, width) if found[near] >= 0},
            key=lambda region: -int(sizes[region]),
        )
        snapshot[cell] = True
        changed += 1
        if not joined:
            found[cell] = next_label
            sizes[next_label] = 1
            next_label += 1
            continue
        target = joined[0]
        for other in joined[1:]:
            seed = next(n for n in _neighbours(cell, height, width) if found[n] == other)
            _flood(found, seed, other, target, height, width)
            sizes[target] += sizes[other]
            sizes[other] = 0
        found[cell] = target
        sizes[target] += 1
    labels[:] = found
    return next_label, changed


def boundary(
    labels: NDArray[np.int32],
    height: int,
    width: int,
    seed: int,
    region_size: int,
    out: NDArray[np.int64],
) -> int:
    """Write into `out` every cell 4-adjacent to `seed`'s region and not in it; return how many.

    `region_size` is the region's cell count (C sizes its work by it). With labels that
    partition the mask, those cells are all blocked.

    Raises:
        ValueError: for a blocked `seed`, or a list longer than `out`.
    """
    region = int(labels[seed])
    if region < 0:
        raise ValueError(f"seed {seed} is not a walkable cell")
    found = labels.tolist()
    inside, listed = -2, set()
    frontier = deque([seed])
    found[seed] = inside
    count = 0
    while frontier:
        for near in _neighbours(frontier.popleft(), height, width):
            if found[near] == region:
                found[near] = inside
                frontier.append(near)
            elif found[near] != inside and near not in listed:
                if count == len(out):
                    raise ValueError("the region or its boundary outgrew the given room")
                listed.add(near)
                out[count] = near
                count += 1
    return count


def sealed(current: NDArray[np.bool_], cells: NDArray[np.int64]) -> bool:
    """Whether every one of the flat `cells` is blocked in `current` (C-contiguous, any shape).

    Raises:
        ValueError: when `current` is not C-contiguous (as C, which reads it flat).
    """
    if not current.flags.c_contiguous:
        raise ValueError("current must be C-contiguous")
    return not bool(current.reshape(-1)[cells].any())
