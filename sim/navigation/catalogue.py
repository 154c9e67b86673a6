"""Every search the simulator offers, listed once: what it is called, runs and promises.

The search view's buttons and status line, the comparison table's rows, the HUD's planner line
and the JSON report all read `SearchKind`, so a search is named, labelled and described in one
place. A member's name (``ASTAR``) is what code and the report's button keys (``algo:ASTAR``)
use; its `SearchKind.label` (``A*``) is what people read, and the report's ``algorithm``.

>>> [str(kind) for kind in SearchKind]
['A*', 'Dijkstra', 'BFS', 'greedy', 'weighted A*', 'DFS', 'JPS', 'bidirectional', 'Theta*']
>>> SearchKind.WEIGHTED.algorithm, SearchKind.WEIGHTED.titled(1.5)
(<Algorithm.ASTAR: 'astar'>, 'weighted A* x1.5')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from sim.navigation.heuristics import Heuristic
from sim.navigation.query import Algorithm


@dataclass(frozen=True, slots=True)
class SearchFacts:
    """What one search is; see `SearchKind`, which reads these through its properties."""

    label: str
    algorithm: Algorithm
    promise: str
    shortest: bool = False
    heuristic: bool = False
    weighted: bool = False


class SearchKind(Enum):
    """The searches on offer, in the order the search view's buttons show them.

    Weighted A* is its own search for people (its own button, rows and promise) and the astar
    algorithm with a weight above 1 for `find_path`.
    """

    _value_: SearchFacts

    ASTAR = SearchFacts(
        "A*",
        Algorithm.ASTAR,
        "shortest path with an admissible heuristic",
        shortest=True,
        heuristic=True,
    )
    DIJKSTRA = SearchFacts("Dijkstra", Algorithm.DIJKSTRA, "shortest path", shortest=True)
    BFS = SearchFacts("BFS", Algorithm.BFS, "fewest moves, not least cost")
    GREEDY = SearchFacts("greedy", Algorithm.GREEDY, "not shortest", heuristic=True)
    WEIGHTED = SearchFacts(
        "weighted A*",
        Algorithm.ASTAR,
        "within the weight of shortest",
        heuristic=True,
        weighted=True,
    )
    DFS = SearchFacts("DFS", Algorithm.DFS, "baseline: not shortest")
    JPS = SearchFacts(
        "JPS",
        Algorithm.JPS,
        "A*'s shortest path, expanding jump points",
        shortest=True,
        heuristic=True,
    )
    BIDIRECTIONAL = SearchFacts(
        "bidirectional",
        Algorithm.BIDIRECTIONAL,
        "shortest path, A* from both ends",
        shortest=True,
        heuristic=True,
    )
    # Theta*'s heuristic is always the straight line: no choice to offer.
    THETA = SearchFacts("Theta*", Algorithm.THETA, "any-angle: never longer than A*'s")

    @property
    def label(self) -> str:
        """The name people read: "A*", "Dijkstra", "BFS", "greedy", "weighted A*", "DFS"."""
        return self.value.label

    @property
    def algorithm(self) -> Algorithm:
        """The `find_path` algorithm it runs."""
        return self.value.algorithm

    @property
    def promise(self) -> str:
        """What it promises about its path, in a few words."""
        return self.value.promise

    @property
    def shortest(self) -> bool:
        """Whether it promises a shortest path (A*: when its heuristic is admissible)."""
        return self.value.shortest

    @property
    def takes_heuristic(self) -> bool:
        """Whether a heuristic steers it (the others search with zero)."""
        return self.value.heuristic

    @property
    def takes_weight(self) -> bool:
        """Whether it weighs its heuristic by a weight above 1 (the others use 1)."""
        return self.value.weighted

    def titled(self, weight: float) -> str:
        """The label, with the weight for weighted A*: "weighted A* x1.5", else "A*" etc."""
        return f"{self.label} x{weight:g}" if self.takes_weight else self.label

    def __str__(self) -> str:
        return self.label

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self.name}>"


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

PLANNER_ALGORITHM = "auto"
"""What the Start -> End planner asks `find_path` for: jump point search where it finds A*'s
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
