"""Every search the simulator offers, listed once: what it is called, runs and promises.

The search view's buttons and status line, the comparison table's rows, the HUD's planner line
and the JSON report all read `SearchKind`, so a search is named, labelled and described in one
place: its own module of `sim.navigation.searches`, whose ``SEARCHES`` declare it (see
`sim.navigation.searches.declaration`); this catalogue collects them. A member's name
(``ASTAR``) is what code and the report's button keys (``algo:ASTAR``) use; its
`SearchKind.label` (``A*``) is what people read, and the report's ``algorithm``.

>>> [str(kind) for kind in SearchKind]
['A*', 'Dijkstra', 'BFS', 'greedy', 'weighted A*', 'DFS', 'JPS', 'bidirectional', 'Theta*']
>>> SearchKind.WEIGHTED.algorithm, SearchKind.WEIGHTED.titled(1.5)
(<Algorithm.ASTAR: 'astar'>, 'weighted A* x1.5')
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sim.navigation.heuristics import Heuristic
from sim.navigation.query import Algorithm
from sim.navigation.searches.declaration import SearchKind, register, unregister

__all__ = [
    "DISTANCE_HEURISTICS",
    "PLANNER",
    "PLANNER_ALGORITHM",
    "PLANNER_HEURISTICS",
    "SearchKind",
    "connectivity_label",
    "register",
    "registered",
    "unregister",
]


@contextmanager
def registered(kind: SearchKind) -> Iterator[SearchKind]:
    """Declare `kind` for the span of a ``with`` block (a test's search), then forget it.

    >>> from dataclasses import replace
    >>> again = replace(SearchKind.DIJKSTRA, name="AGAIN", label="Dijkstra again", order=99)
    >>> with registered(again):
    ...     SearchKind.AGAIN is again, list(SearchKind)[-1] is again
    (True, True)
    >>> again in list(SearchKind)
    False
    """
    register(kind)
    try:
        yield kind
    finally:
        unregister(kind)


DISTANCE_HEURISTICS: tuple[Heuristic, ...] = (
    Heuristic.MANHATTAN,
    Heuristic.OCTILE,
    Heuristic.EUCLIDEAN,
    Heuristic.CHEBYSHEV,
)
"""The heuristics a search that takes one is offered with, in the order shown (zero is
Dijkstra's own, not a choice)."""

PLANNER = SearchKind.ASTAR
"""The search the Start -> End planner and the agents run, as people read it (the HUD)."""

PLANNER_ALGORITHM: Algorithm | None = None
"""What the Start -> End planner asks `find_path_with` for, None being "auto" (as
`SearchSettings.algorithm` holds it): jump point search where it finds A*'s
paths (no terrain, 8-connected, octile; its expansions are jump points), A* otherwise. The
search view and the comparison table stay on the searches of `SearchKind`."""

PLANNER_HEURISTICS: tuple[Heuristic, ...] = (
    Heuristic.OCTILE,
    Heuristic.EUCLIDEAN,
    Heuristic.CHEBYSHEV,
    Heuristic.MANHATTAN,
    Heuristic.ZERO,
)
"""The planner's heuristics in the order the app cycles through them; the first is its
default (octile: the tightest admissible one on an 8-connected grid)."""


def connectivity_label(diagonal: bool) -> str:
    """How the moves are named on screen.

    >>> connectivity_label(True), connectivity_label(False)
    ('8-connected', '4-connected')
    """
    return "8-connected" if diagonal else "4-connected"
