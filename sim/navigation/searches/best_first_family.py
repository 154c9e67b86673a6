"""The best-first family as the catalogue knows it: six searches on the one loop of `best_first`.

A*, Dijkstra, breadth-first, greedy, weighted A* and depth-first search differ only in data
(`sim.navigation.query.priority_terms`), so they share `best_first.solve` and
`best_first.Search`; what each promises, and how the comparison table judges its rows, is
declared here (`sim.navigation.searches.declaration`).

>>> [kind.name for kind in SEARCHES]
['ASTAR', 'DIJKSTRA', 'BFS', 'GREEDY', 'WEIGHTED', 'DFS']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim.navigation.heuristics import is_admissible
from sim.navigation.query import Algorithm
from sim.navigation.searches.best_first import Search, solve
from sim.navigation.searches.declaration import Expansions, RowCase, SearchKind, TableFacts


def _astar_guaranteed(case: RowCase) -> bool:
    return (
        case.heuristic is not None
        and case.weight == 1.0
        and is_admissible(case.heuristic, diagonal=case.diagonal)
    )


def _astar_note(case: RowCase, guaranteed: bool) -> str:
    if case.heuristic is not None and not is_admissible(case.heuristic, diagonal=case.diagonal):
        return "manhattan overestimates on 8-connected"
    if case.weight != 1.0:
        return f"within x{case.weight:g} of the optimum"
    return ""


def _bfs_guaranteed(case: RowCase) -> bool:
    # Fewest moves is cheapest only when every move costs the same.
    return not case.diagonal and case.uniform


def _bfs_note(case: RowCase, guaranteed: bool) -> str:
    if guaranteed:
        return "fewest moves = cheapest here"
    return "fewest moves, not least cost" if case.diagonal else "fewest moves; ignores cell costs"


def _always(case: RowCase) -> bool:
    return True


def _declare(
    name: str, label: str, algorithm: Algorithm, promise: str, order: int, **facts: Any
) -> SearchKind:
    """A search of this loop: solved by `solve`, stepped by `Search`, recorded by expansions."""
    return SearchKind(
        name,
        label,
        algorithm,
        promise,
        order,
        solver=solve,
        stepper=Search,
        recording=Expansions(),
        kernel=algorithm in _COMPILED,
        **facts,
    )


_COMPILED = (Algorithm.ASTAR, Algorithm.DIJKSTRA, Algorithm.BFS, Algorithm.GREEDY)
"""What `sim.navigation.searches.kernel.COMPILED_ALGORITHMS` runs in C (a test holds them equal;
importing the kernel here would warn whenever its extension is not built)."""


def _note(words: str) -> Callable[[RowCase, bool], str]:
    return lambda case, guaranteed: words


SEARCHES = (
    _declare(
        "ASTAR",
        "A*",
        Algorithm.ASTAR,
        "shortest path with an admissible heuristic",
        10,
        table=TableFacts(10, own_loop=False, note=_astar_note, guaranteed=_astar_guaranteed),
        shortest=True,
        takes_heuristic=True,
    ),
    _declare(
        "DIJKSTRA",
        "Dijkstra",
        Algorithm.DIJKSTRA,
        "shortest path",
        20,
        table=TableFacts(
            40, own_loop=False, note=_note("the optimum"), guaranteed=_always, optimum=True
        ),
        shortest=True,
    ),
    _declare(
        "BFS",
        "BFS",
        Algorithm.BFS,
        "fewest moves, not least cost",
        30,
        table=TableFacts(50, own_loop=False, note=_bfs_note, guaranteed=_bfs_guaranteed),
    ),
    _declare(
        "GREEDY",
        "greedy",
        Algorithm.GREEDY,
        "not shortest",
        40,
        table=TableFacts(30, own_loop=False, note=_note("ignores the cost so far")),
        takes_heuristic=True,
    ),
    # Weighted A* is its own search for people (its own button, rows and promise) and the
    # astar algorithm with a weight above 1 for `find_path`.
    _declare(
        "WEIGHTED",
        "weighted A*",
        Algorithm.ASTAR,
        "within the weight of shortest",
        50,
        table=TableFacts(20, own_loop=False, note=_astar_note, guaranteed=_astar_guaranteed),
        takes_heuristic=True,
        takes_weight=True,
    ),
    _declare(
        "DFS",
        "DFS",
        Algorithm.DFS,
        "baseline: not shortest",
        60,
        table=TableFacts(60, own_loop=False, note=_note("baseline, not shortest")),
    ),
)
"""The best-first family, declared for the catalogue (`sim.navigation.catalogue`): one loop,
six searches; the fifth argument puts them among the search view's buttons, ``table.order``
among the comparison table's rows."""
