"""The unreachable answer with links: regions joined by a small directed graph of the links.

Without links, two cells in different regions (`sim.navigation.regions.labels`) cannot reach
each other. Links join regions: a two-way link both ways, a one-way link only from its start's
region to its end's, so reachability becomes directional. `apart` condenses the grid to its
regions, adds an edge ``region(start) -> region(end)`` for every link whose ends are both
walkable, and answers by a breadth-first search over that graph of a few nodes. The regions of
the "never" and "no-corner-cutting" rules are strongly connected (their moves are symmetric),
so the answer is exact: True exactly when no path over grid moves and links exists.

The graph and each source region's reachable set are cached per map version and link graph,
so a repeated query on an unchanged grid costs two label lookups and a set membership.

>>> import numpy as np
>>> from sim.navigation.link_graph import LinkGraph
>>> from sim.navigation.links import NavLink
>>> walkable = np.array([[1, 0, 1]], dtype=bool)
>>> drop = LinkGraph.build([NavLink((0, 0), (0, 2), bidirectional=False)], walkable)
>>> regions = RegionMap(walkable)
>>> apart(regions, walkable, (0, 0), (0, 2), drop), apart(regions, walkable, (0, 2), (0, 0), drop)
(False, True)
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell
from sim.navigation.link_graph import LinkGraph
from sim.navigation.regions.labels import RegionMap

MAX_KEPT = 32
"""Condensed graphs kept at once (one per map and link graph)."""


@dataclass(eq=False)
class _Condensed:
    """The regions' graph for one map version: edges, and the reachable sets found so far."""

    version: int
    edges: dict[int, set[int]]
    reach: dict[int, frozenset[int]] = field(default_factory=dict)


_lock = threading.Lock()
_kept: dict[tuple[int, int], tuple[RegionMap, LinkGraph, _Condensed]] = {}


def apart(
    regions: RegionMap,
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    links: LinkGraph,
) -> bool:
    """Whether `start` cannot reach `goal` over grid moves and `links`; exact (module docstring).

    `regions` must be current with `walkable` (`sim.navigation.regions.cache.followed_map`).
    False when either cell is blocked (the search says why).
    """
    source, target = regions.region_of(start), regions.region_of(goal)
    if source < 0 or target < 0 or source == target:
        return False
    condensed = _condensed(regions, walkable, links)
    with _lock:
        reach = condensed.reach.get(source)
        if reach is None:
            reach = condensed.reach[source] = reachable(condensed.edges, source)
    return target not in reach


def _condensed(regions: RegionMap, walkable: NDArray[np.bool_], links: LinkGraph) -> _Condensed:
    """The regions' graph of the links, rebuilt when the map's version moved."""
    key = (id(regions), id(links))
    with _lock:
        kept = _kept.get(key)
        fresh = kept is not None and kept[0] is regions and kept[1] is links
        if kept is not None and fresh and kept[2].version == regions.version:
            return kept[2]
    version = regions.version
    condensed = _Condensed(version, region_edges(regions.labels, walkable, links))
    with _lock:
        if len(_kept) >= MAX_KEPT:
            _kept.clear()
        _kept[key] = (regions, links, condensed)
    return condensed


def region_edges(
    labels: NDArray[np.int32], walkable: NDArray[np.bool_], links: LinkGraph
) -> dict[int, set[int]]:
    """``region -> regions`` one link leads to, for the links whose ends are both walkable.

    `labels` are ``[row, col]`` region numbers (-1 blocked) of any labelling whose regions
    are joined within (the 4-connected ones, or the 8-connected ones of "always").
    """
    flat_labels = labels.ravel()
    flat = np.ascontiguousarray(walkable).ravel()
    edges: dict[int, set[int]] = {}
    for start, hops in links.out.items():
        if not flat[start]:
            continue
        for end, _ in hops:
            if flat[end] and flat_labels[start] != flat_labels[end]:
                edges.setdefault(int(flat_labels[start]), set()).add(int(flat_labels[end]))
    return edges


def reversed_edges(edges: dict[int, set[int]]) -> dict[int, set[int]]:
    """The same edges pointing the other way: who reaches a region, rather than whom it does."""
    back: dict[int, set[int]] = {}
    for source, targets in edges.items():
        for target in targets:
            back.setdefault(target, set()).add(source)
    return back


def reachable(edges: dict[int, set[int]], source: int) -> frozenset[int]:
    """Every region reachable from `source` along `edges` (itself included)."""
    seen = {source}
    frontier = deque([source])
    while frontier:
        for following in edges.get(frontier.popleft(), ()):
            if following not in seen:
                seen.add(following)
                frontier.append(following)
    return frozenset(seen)
