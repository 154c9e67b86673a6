"""The unreachable row of `sim bench`: queries whose start and goal lie in different regions.

A user's script asks `find_path(walkable, start, goal)` again and again with the same array;
some goals cannot be reached. Where a map has islands (more than one connected region of
walkable cells) the pairs are drawn, seeded, with one end in the largest region and the other
outside it (every other pair reversed). Where the map is one region, a copy of it gets a
walled-in goal: the 8 cells around a seeded walkable cell are blocked, and that cell is every
pair's goal. The regions are found here with a plain flood fill of our own, so the bench does
not take the planner's word for which pairs are unreachable.

The array the row times is a fresh copy, so the first query pays whatever a first query on a
new array pays (labels are built lazily: it may run a full search); it is timed and reported
apart. The repeats that follow, on the same array object, should each answer at once:
``found=False``, ``reason=unreachable``, ``expanded=0``. Their median is compared with the
median reachable query of the same map.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation import PathResult, Reason, find_path

Cell = tuple[int, int]
Find = Callable[[NDArray[np.bool_], Cell, Cell], PathResult]

UNREACHABLE_QUERIES = 50
"""Repeats timed after the first unreachable query of a map."""
ISLANDS = "islands"
WALLED_GOAL = "walled-in goal"


def label_regions(walkable: NDArray[np.bool_]) -> tuple[NDArray[np.int32], int]:
    """Label each walkable cell with its connected region (flood fill); -1 on blocked cells.

    Regions are 4-connected, which under the Moving AI rule (no corner cutting) are also the
    8-connected ones: a legal diagonal step needs both side cells walkable, so its two cells
    are joined through a side cell too. Labels count from 0 in row-major order of the
    regions' first cells.

    >>> labels, count = label_regions(np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1]], dtype=bool))
    >>> labels.tolist(), count
    ([[0, -1, 1], [0, -1, -1], [-1, 2, 2]], 3)
    """
    height, width = walkable.shape
    # A blocked border around the grid spares the bounds checks in the loop below.
    padded_width = width + 2
    padded = np.zeros((height + 2, padded_width), dtype=bool)
    padded[1:-1, 1:-1] = walkable
    open_cells = padded.ravel().tolist()
    labels = [-1] * len(open_cells)
    steps = (-padded_width, padded_width, -1, 1)
    count = 0
    for seed_cell in np.flatnonzero(padded).tolist():
        if labels[seed_cell] >= 0:
            continue
        labels[seed_cell] = count
        frontier = [seed_cell]
        while frontier:
            current = frontier.pop()
            for step in steps:
                neighbour = current + step
                if open_cells[neighbour] and labels[neighbour] < 0:
                    labels[neighbour] = count
                    frontier.append(neighbour)
        count += 1
    grid = np.array(labels, dtype=np.int32).reshape(height + 2, padded_width)
    return np.ascontiguousarray(grid[1:-1, 1:-1]), count


@dataclass(frozen=True, slots=True)
class UnreachableSetup:
    """The array and the pairs one map's unreachable row times.

    Attributes:
        walkable: a fresh array (a copy of the map's, walled in for `WALLED_GOAL`).
        pairs: ``(start, goal)`` pairs, ``(row, col)``, each in two different regions; the
            first is the first query, the rest the repeats.
        kind: `ISLANDS` or `WALLED_GOAL`.
        regions: connected regions of the map as read (before any walling in).
        walled: the walled-in goal cell, or None for islands.
    """

    walkable: NDArray[np.bool_]
    pairs: tuple[tuple[Cell, Cell], ...]
    kind: str
    regions: int
    walled: Cell | None = None


def unreachable_setup(
    walkable: NDArray[np.bool_], count: int, seed: int
) -> UnreachableSetup | None:
    """Pick `count` seeded unreachable pairs on a fresh copy of `walkable` (None if none exist).

    Islands when the map has more than one region; else a walled-in goal (`wall_in`). None
    when the map has no walkable cell, or walling in leaves no cell to start from.

    >>> setup = unreachable_setup(np.ones((3, 5), dtype=bool), 3, seed=1)
    >>> setup.kind, setup.regions, len(setup.pairs), setup.walled
    ('walled-in goal', 1, 3, (1, 1))
    >>> setup.walkable.astype(int).tolist(), sorted({start for start, _ in setup.pairs})
    ([[0, 0, 0, 1, 1], [0, 1, 0, 1, 1], [0, 0, 0, 1, 1]], [(0, 3), (1, 3), (2, 3)])
    >>> unreachable_setup(np.ones((3, 3), dtype=bool), 3, seed=1) is None  # no start left
    True
    """
    labels, regions = label_regions(walkable)
    if regions == 0:
        return None
    rng = random.Random(seed)
    if regions > 1:
        pairs = pick_pairs(labels, count, rng)
        return UnreachableSetup(walkable.copy(), tuple(pairs), ISLANDS, regions)
    walled, goal = wall_in(walkable, labels, rng)
    walled_labels, _ = label_regions(walled)
    sizes = np.bincount(walled_labels[walled_labels >= 0])
    sizes[walled_labels[goal]] = 0  # the goal's own region never holds a start
    if sizes.max() == 0:
        return None
    starts = _cells_of(walled_labels, int(sizes.argmax()))
    picked = [starts[rng.randrange(len(starts))] for _ in range(count)]
    return UnreachableSetup(
        walled, tuple((start, goal) for start in picked), WALLED_GOAL, regions, goal
    )


def pick_pairs(
    labels: NDArray[np.int32], count: int, rng: random.Random
) -> list[tuple[Cell, Cell]]:
    """`count` pairs in different regions: one end in the largest region, one outside it.

    The first pair starts in the largest region (a search from there, without region labels,
    would have to exhaust it); every other pair after it is reversed, so both ends of the
    check are exercised. `labels` must hold at least two regions.

    >>> labels = np.array([[0, 0, -1, 1]], dtype=np.int32)
    >>> pick_pairs(labels, 3, random.Random(0))
    [((0, 1), (0, 3)), ((0, 3), (0, 0)), ((0, 1), (0, 3))]
    """
    sizes = np.bincount(labels[labels >= 0])
    if len(sizes) < 2:
        raise ValueError(f"pick_pairs needs two regions or more, got {len(sizes)}")
    largest = int(sizes.argmax())
    inside = _cells_of(labels, largest)
    outside = [
        (int(row), int(col)) for row, col in np.argwhere((labels >= 0) & (labels != largest))
    ]
    pairs = []
    for index in range(count):
        main = inside[rng.randrange(len(inside))]
        island = outside[rng.randrange(len(outside))]
        pairs.append((main, island) if index % 2 == 0 else (island, main))
    return pairs


def wall_in(
    walkable: NDArray[np.bool_], labels: NDArray[np.int32], rng: random.Random
) -> tuple[NDArray[np.bool_], Cell]:
    """A copy of `walkable` with the 8 cells around a seeded cell of the largest region blocked.

    The cell is drawn from those off the grid's edge when the region has any (a cell on the
    edge has fewer than 8 neighbours to block). Returns the copy and that cell, now a region
    of its own: the goal no start can reach.

    >>> walled, goal = wall_in(np.ones((3, 3), dtype=bool), np.zeros((3, 3), np.int32),
    ...                        random.Random(0))
    >>> goal, walled.astype(int).tolist()
    ((1, 1), [[0, 0, 0], [0, 1, 0], [0, 0, 0]])
    """
    sizes = np.bincount(labels[labels >= 0])
    cells = _cells_of(labels, int(sizes.argmax()))
    height, width = walkable.shape
    inner = [(row, col) for row, col in cells if 0 < row < height - 1 and 0 < col < width - 1]
    cells = inner or cells
    goal = cells[rng.randrange(len(cells))]
    walled = walkable.copy()
    row, col = goal
    walled[max(row - 1, 0) : min(row + 2, height), max(col - 1, 0) : min(col + 2, width)] = False
    walled[goal] = True
    return walled, goal


def _cells_of(labels: NDArray[np.int32], region: int) -> list[Cell]:
    return [(int(row), int(col)) for row, col in np.argwhere(labels == region).tolist()]


@dataclass
class UnreachableRow:
    """What `find_path` did on one map's unreachable pairs.

    Attributes:
        kind: `ISLANDS` or `WALLED_GOAL`.
        regions: connected regions of the map as read.
        first_ms: the first query on the fresh array.
        first_expanded: what that first query expanded.
        ms: each repeat's time.
        expanded: each repeat's expanded count.
        wrong: answers that were not ``found=False, reason=unreachable`` (first included).
        searched: repeats that expanded a cell (they should answer with no search at all).
    """

    kind: str
    regions: int
    first_ms: float = 0.0
    first_expanded: int = 0
    ms: list[float] = field(default_factory=list)
    expanded: list[int] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    searched: int = 0

    @property
    def queries(self) -> int:
        """Every query timed, the first one included."""
        return len(self.ms) + 1

    @property
    def median_ms(self) -> float:
        """The median repeat."""
        return statistics.median(self.ms) if self.ms else self.first_ms

    @property
    def answered_right(self) -> int:
        """Queries answered ``found=False, reason=unreachable``."""
        return self.queries - len(self.wrong)

    def ratio(self, reachable_ms: float) -> float:
        """Median repeat / `reachable_ms` (the map's median reachable query)."""
        return self.median_ms / reachable_ms if reachable_ms > 0 else float("inf")

    def verdict(self) -> str:
        """Say whether every answer was right and every repeat answered without a search."""
        if self.wrong:
            return f"NO ({len(self.wrong)}/{self.queries}: {self.wrong[0]})"
        if self.searched:
            return f"unreachable, but {self.searched}/{len(self.ms)} repeats searched"
        return f"yes: {self.queries}/{self.queries} unreachable, repeats expanded 0"

    def describe(self) -> str:
        """How the pairs were made, for the table's rule column."""
        if self.kind == ISLANDS:
            return f"islands: {self.regions} regions, one end in the largest"
        return "walled-in goal (the map is one region)"

    def to_json(self, reachable_ms: float | None) -> dict[str, Any]:
        """The row's figures; times in ms to 4 significant decimals."""
        return {
            "kind": self.kind,
            "regions": self.regions,
            "queries": self.queries,
            "first_ms": round(self.first_ms, 4),
            "first_expanded": self.first_expanded,
            "median_ms": round(self.median_ms, 6),
            "p95_ms": round(float(np.percentile(self.ms, 95)), 6) if self.ms else None,
            "max_expanded": max(self.expanded, default=0),
            "all_unreachable": not self.wrong,
            "wrong": len(self.wrong),
            "searched": self.searched,
            "over_reachable": None if reachable_ms is None else round(self.ratio(reachable_ms), 6),
        }


def time_unreachable(setup: UnreachableSetup, find: Find = find_path) -> UnreachableRow:
    """Time `find` (by default `find_path` with its defaults) on `setup`'s pairs, in order.

    Every call gets the same array object, as a user's loop would give it.
    """
    row = UnreachableRow(setup.kind, setup.regions)
    for index, (start, goal) in enumerate(setup.pairs):
        began = time.perf_counter()
        result = find(setup.walkable, start, goal)
        elapsed_ms = (time.perf_counter() - began) * 1000.0
        if result.found or result.reason != Reason.UNREACHABLE:
            answer = "found a path" if result.found else str(result.reason)
            row.wrong.append(f"{start} -> {goal}: {answer}")
        if index == 0:
            row.first_ms, row.first_expanded = elapsed_ms, result.expanded
            continue
        row.ms.append(elapsed_ms)
        row.expanded.append(result.expanded)
        if result.expanded:
            row.searched += 1
    return row
