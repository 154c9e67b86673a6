"""Checked links as the tables a search reads: out-links and in-links per cell, heuristic bounds.

`LinkGraph.build` checks `NavLink`s against a mask (`sim.navigation.links.check_links`) and keeps,
per flat cell ``row * width + col``, the cheapest link to each other cell (`out`) and the same
edges reversed (`into`): a one-way link appears in `out` of its start and `into` of its end
only; a two-way one in both directions. `csr` gives them as arrays for the C kernels.

**A heuristic that stays admissible with links.** A link may carry a path far faster than the
grid, so octile distance to the goal alone overestimates. `LinkGraph.bounds` computes, for a
target cell, the exact distance ``D(s)`` from each link end ``s`` to the target in a small
*relaxed* graph: its nodes are the target and every link end; from any node to any other there
is an edge of ``scale * H(a, b)`` (the grid heuristic times the heuristic scale: a lower bound on
any grid route between them), and every link is an edge of its cost. The search then estimates

    h'(n) = min( scale * H(n, target),  min over link starts s of  scale * H(n, s) + D(s) )

*Admissible*: a real path from ``n`` either reaches the target by grid moves alone (cost >=
``scale * H(n, target)``) or walks the grid to a first link start ``s`` (cost >= ``scale *
H(n, s)``) and goes on from there; every grid stretch of what follows costs at least the
relaxed edge between its ends and every link exactly its cost, so the rest costs >= ``D(s)``,
however many links it chains. (``min_L H(n, L.start) + L.cost + H(L.end, target)`` alone is
not a bound: with two links in a row the second makes ``H(L.end, target)`` too high.)
*Consistent*: each term is a consistent ``H`` plus a constant, so it satisfies ``h'(n) <= c +
h'(m)`` over grid steps, and a minimum of such functions does too; over a link ``n -> m`` of
cost ``c``, ``h'(n) <= D(n) <= c + dist(m) <= c + h'(m)``, ``dist(m)`` being ``m``'s relaxed
distance, which every term of ``h'(m)`` bounds from above. So a search that never reopens a
closed cell stays optimal. Starts with ``D(s) >= scale * H(s, target)`` add nothing (the
triangle inequality of every heuristic here) and are left out of the table.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.heuristics import SQRT2_MINUS_1, Heuristic
from sim.navigation.links import NavLink, check_link_values, lanes

Hops = dict[int, tuple[tuple[int, float], ...]]
"""Flat cell -> ``(flat cell, cost)`` of the links leaving it, cheapest per pair, by cell."""

Bound = tuple[int, int, float]
"""``(row, col, D)``: a link start and the relaxed distance from it to the target."""

_BOUNDS_KEPT = 256
"""Bound tables kept per graph (one per target, heuristic and direction): a crowd's goals."""


@dataclass(frozen=True, slots=True, eq=False)
class LinkGraph:
    """Links of one grid shape as edges between flat cells.

    Attributes:
        links: the checked links it was built from.
        height: rows of the grid.
        width: columns of the grid.
        out: the links leaving each cell (`Hops`), as a forward search walks them.
        into: the links arriving at each cell, reversed: what a backward search walks.
    """

    links: tuple[NavLink, ...]
    height: int
    width: int
    out: Hops
    into: Hops
    _arrays: dict[Any, Any] = field(default_factory=dict, repr=False)
    _bounds: dict[Any, tuple[Bound, ...]] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, links: Iterable[Any], walkable: NDArray[np.bool_]) -> LinkGraph | None:
        """Check `links` against `walkable` and return their graph; None for no links.

        A link whose end is blocked now is kept: the searches skip it while it is blocked.

        Raises:
            ValueError: as `sim.navigation.links.check_links` does, walls allowed.

        >>> graph = LinkGraph.build([NavLink((0, 0), (2, 2), 3.0, False)], np.ones((3, 3), bool))
        >>> graph.out, graph.into
        ({0: ((8, 3.0),)}, {8: ((0, 3.0),)})
        """
        given = tuple(links)
        if not given:
            return None
        height, width = walkable.shape
        try:
            # Checked and built once per set of links: a scene asks with the same ones.
            return _graph(given, height, width)
        except TypeError:  # unhashable parts (a list for a cell): checked first
            return _graph(check_link_values(given, (height, width)), height, width)

    def csr(
        self, *, reverse: bool = False
    ) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
        """``(first, target, cost)``: cell ``i``'s links are ``first[i]:first[i + 1]`` (C's view).

        `reverse` gives `into` instead of `out`. Built once per graph and direction.
        """
        if reverse not in self._arrays:
            hops = self.into if reverse else self.out
            size = self.height * self.width
            counts = np.zeros(size + 1, dtype=np.int32)
            for cell, edges in hops.items():
                counts[cell + 1] = len(edges)
            first = np.cumsum(counts, dtype=np.int32)
            flat = [edge for cell in sorted(hops) for edge in hops[cell]]
            target = np.array([to for to, _ in flat], dtype=np.int32)
            cost = np.array([hop for _, hop in flat], dtype=np.float64)
            self._arrays[reverse] = (first, target, cost)
        result: tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]] = self._arrays[
            reverse
        ]
        return result

    def bounds(
        self, target: tuple[int, int], heuristic: Heuristic, scale: float, *, reverse: bool = False
    ) -> tuple[Bound, ...]:
        """The link starts that lower the estimate to `target`, with ``D(s)`` (module docstring).

        `reverse` bounds a backward search: the distance from `target` *to* each cell, over
        the links reversed. Empty for the zero heuristic (nothing to keep admissible).

        >>> graph = LinkGraph.build([NavLink((0, 0), (0, 9), 1.0)], np.ones((1, 10), bool))
        >>> graph.bounds((0, 8), Heuristic.OCTILE, 1.0)
        ((0, 0, 2.0),)
        """
        if heuristic is Heuristic.ZERO:
            return ()
        key = (target, heuristic, scale, reverse)
        found = self._bounds.get(key)
        if found is None:
            if len(self._bounds) >= _BOUNDS_KEPT:
                self._bounds.clear()
            found = self._bounds[key] = self._relaxed(target, heuristic, scale, reverse)
        return found

    def _relaxed(
        self, target: tuple[int, int], heuristic: Heuristic, scale: float, reverse: bool
    ) -> tuple[Bound, ...]:
        """``D`` of every link start towards `target`, from the ends' table (O(ends²), numpy).

        The shortest relaxed route from an end to the target ends with a grid edge from some
        end ``j`` (the end itself, at distance 0, included), so ``D(i) = min_j R[i, j] +
        scale * H(j, target)`` with ``R`` the ends' all-pairs table (`_ends`): a route
        through the target itself is never shorter (the triangle inequality).
        """
        rows, cols, relaxed, leaving = self._ends(heuristic, scale, reverse)
        if not len(rows):
            return ()  # every link led to its own cell
        to_target = scale * _estimate(heuristic, np.abs(cols - target[1]), np.abs(rows - target[0]))
        distance = np.minimum(to_target, (relaxed + to_target[None, :]).min(axis=1))
        kept = np.flatnonzero(leaving & (distance < to_target))
        return tuple((int(rows[i]), int(cols[i]), float(distance[i])) for i in kept)

    def _ends(
        self, heuristic: Heuristic, scale: float, reverse: bool
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]]:
        """The link ends' rows, columns, all-pairs relaxed distances ``R[i, j]`` and starts.

        The starts are the ends links leave from in the direction searched; built once per
        heuristic, scale and direction. ``R`` is Floyd-Warshall over the ends: between any two,
        an edge of ``scale * H``; each link an edge of its cost (reversed for a backward search).
        """
        key = (heuristic, scale, reverse)
        if key not in self._arrays:
            nodes = sorted({*self.out, *self.into})
            rows = np.array([node // self.width for node in nodes], dtype=np.int64)
            cols = np.array([node % self.width for node in nodes], dtype=np.int64)
            relaxed = scale * _estimate(
                heuristic,
                np.abs(cols[:, None] - cols[None, :]),
                np.abs(rows[:, None] - rows[None, :]),
            )
            index = {node: i for i, node in enumerate(nodes)}
            hops = self.into if reverse else self.out
            for start, edges in hops.items():
                for end, cost in edges:
                    here, there = index[start], index[end]
                    relaxed[here, there] = min(relaxed[here, there], cost)
            for k in range(len(nodes)):
                np.minimum(relaxed, relaxed[:, k : k + 1] + relaxed[k : k + 1, :], out=relaxed)
            leaving = np.array([node in hops for node in nodes], dtype=bool)
            self._arrays[key] = (rows, cols, relaxed, leaving)
        ends: tuple[
            NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]
        ] = self._arrays[key]
        return ends


def _estimate(
    heuristic: Heuristic, dx: NDArray[np.int64], dy: NDArray[np.int64]
) -> NDArray[np.float64]:
    """`heuristic` of arrays of differences, by the operations of `sim.navigation.heuristics`."""
    if heuristic is Heuristic.MANHATTAN:
        return (dx + dy).astype(np.float64)
    if heuristic is Heuristic.OCTILE:
        return np.maximum(dx, dy) + SQRT2_MINUS_1 * np.minimum(dx, dy)
    if heuristic is Heuristic.EUCLIDEAN:
        return np.hypot(dx, dy)
    if heuristic is Heuristic.CHEBYSHEV:
        return np.maximum(dx, dy).astype(np.float64)
    return np.zeros(np.broadcast(dx, dy).shape)


@functools.lru_cache(maxsize=32)
def _graph(given: tuple[Any, ...], height: int, width: int) -> LinkGraph | None:
    """The graph of `given` links, checked, on a grid of this shape: one per scene."""
    links = check_link_values(given, (height, width))
    if not links:
        return None
    out: dict[int, dict[int, float]] = {}
    into: dict[int, dict[int, float]] = {}
    for link in links:
        for (start_row, start_col), (end_row, end_col) in lanes(link):
            start = start_row * width + start_col
            end = end_row * width + end_col
            if start == end:
                continue  # a link to its own cell takes a path nowhere
            ways = ((start, end), (end, start)) if link.bidirectional else ((start, end),)
            for here, there in ways:
                for table, a, b in ((out, here, there), (into, there, here)):
                    edges = table.setdefault(a, {})
                    edges[b] = min(link.cost, edges.get(b, math.inf))
    return LinkGraph(links, height, width, _sorted(out), _sorted(into))


def _sorted(table: dict[int, dict[int, float]]) -> Hops:
    """Each cell's edges in cell order: both implementations relax them in the same order."""
    return {cell: tuple(sorted(edges.items())) for cell, edges in sorted(table.items())}
