"""Distance estimates for A*: tiny pure functions of the cell differences ``(dx, dy) >= 0``.

Admissible (never above the true cost, so A* returns an optimal path) and also consistent:

============  ===============  ===============
heuristic     4-connected      8-connected
============  ===============  ===============
manhattan     yes (tightest)   **no**
octile        yes              yes (tightest)
euclidean     yes              yes
chebyshev     yes              yes
zero          yes (Dijkstra)   yes (Dijkstra)
============  ===============  ===============

The table is for cells costing 1. Cell cost multipliers of 1 or more only raise the true cost,
so every "yes" still holds; cells cheaper than 1 (roads, down to 0.25) would let a path cost
less than the estimate, so the searches multiply every heuristic by the smallest walkable cost
when it is below 1 (`sim.navigation.grid.heuristic_scale`), which keeps each "yes" a "yes".
Manhattan on an 8-connected grid overestimates (a diagonal step costs sqrt(2) < 2), so A* with
it is fast but may return a longer path.

`CATALOGUE` is the one table of them: each heuristic's function, its number in the C kernels
and the diagonal rules it is admissible under (`Heuristic.admissible`); `HEURISTICS` is its
name -> function view.

>>> Heuristic.OCTILE.estimate(3, 4) == octile(3, 4), Heuristic.OCTILE.code
(True, 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from sim.navigation.diagonal import DiagonalRule

SQRT2_MINUS_1 = math.sqrt(2.0) - 1.0

HeuristicFn = Callable[[int, int], float]


class Heuristic(StrEnum):
    """The heuristic names `find_path` accepts."""

    MANHATTAN = "manhattan"
    OCTILE = "octile"
    EUCLIDEAN = "euclidean"
    CHEBYSHEV = "chebyshev"
    ZERO = "zero"

    @property
    def estimate(self) -> HeuristicFn:
        """The function of ``(dx, dy)`` it names."""
        return CATALOGUE[self].estimate

    @property
    def code(self) -> int:
        """Its number in the C kernels (``_grid_search.h``, ``_incremental.c``)."""
        return CATALOGUE[self].code

    def admissible(self, rule: DiagonalRule) -> bool:
        """Whether it never overestimates under `rule` (see the module's table).

        >>> Heuristic.MANHATTAN.admissible(DiagonalRule.NEVER)
        True
        >>> Heuristic.MANHATTAN.admissible(DiagonalRule.ALWAYS)
        False
        """
        return rule in CATALOGUE[self].admissible_under


def manhattan(dx: int, dy: int) -> float:
    """Sum of the differences: 4-connected unit-cost distance.

    >>> manhattan(3, 4)
    7.0
    """
    return float(dx + dy)


def octile(dx: int, dy: int) -> float:
    """Diagonal steps while both differ, then straight: 8-connected unit-cost distance.

    >>> round(octile(3, 4), 6)
    5.242641
    """
    if dx < dy:
        dx, dy = dy, dx
    return dx + SQRT2_MINUS_1 * dy


def euclidean(dx: int, dy: int) -> float:
    """Straight-line distance between the cell centres.

    >>> euclidean(3, 4)
    5.0
    """
    return math.hypot(dx, dy)


def chebyshev(dx: int, dy: int) -> float:
    """Larger difference: the move count with diagonals costing 1.

    >>> chebyshev(3, 4)
    4.0
    """
    return float(max(dx, dy))


def zero(dx: int, dy: int) -> float:
    """No estimate at all: A* becomes Dijkstra.

    >>> zero(3, 4)
    0.0
    """
    return 0.0


@dataclass(frozen=True, slots=True)
class HeuristicFacts:
    """One heuristic's entry in `CATALOGUE`.

    Attributes:
        estimate: the function of the cell differences ``(dx, dy)``.
        code: its number in the C kernels (``_grid_search.h``).
        admissible_under: the diagonal rules under which it never overestimates.
    """

    estimate: HeuristicFn
    code: int
    admissible_under: frozenset[DiagonalRule]


_EVERY_RULE = frozenset(DiagonalRule)

CATALOGUE: dict[Heuristic, HeuristicFacts] = {
    # A diagonal step costs sqrt(2) < 2 under every rule that has one.
    Heuristic.MANHATTAN: HeuristicFacts(manhattan, 0, frozenset({DiagonalRule.NEVER})),
    Heuristic.OCTILE: HeuristicFacts(octile, 1, _EVERY_RULE),
    Heuristic.EUCLIDEAN: HeuristicFacts(euclidean, 2, _EVERY_RULE),
    Heuristic.CHEBYSHEV: HeuristicFacts(chebyshev, 3, _EVERY_RULE),
    Heuristic.ZERO: HeuristicFacts(zero, 4, _EVERY_RULE),
}
"""Every heuristic: its function, its C number and where it is admissible."""

HEURISTICS: dict[Heuristic, HeuristicFn] = {
    heuristic: facts.estimate for heuristic, facts in CATALOGUE.items()
}
"""Each heuristic's function, by name (`CATALOGUE` without the rest)."""


def parse_heuristic(name: str) -> Heuristic:
    """Return the Heuristic called `name`, or raise ValueError naming it and the choices.

    >>> parse_heuristic("octile")
    <Heuristic.OCTILE: 'octile'>
    >>> parse_heuristic("taxicab")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown heuristic 'taxicab'; expected one of manhattan, octile, ...
    """
    try:
        return Heuristic(name)
    except ValueError:
        choices = ", ".join(h.value for h in Heuristic)
        raise ValueError(f"unknown heuristic {name!r}; expected one of {choices}") from None


def is_admissible(heuristic: str, *, diagonal: bool) -> bool:
    """Tell whether `heuristic` never overestimates on a 4- or 8-connected grid.

    Under cell costs it holds for the heuristic as the searches use it, scaled by
    `sim.navigation.grid.heuristic_scale`.

    >>> is_admissible("manhattan", diagonal=True), is_admissible("manhattan", diagonal=False)
    (False, True)
    """
    rule = DiagonalRule.NO_CORNER_CUTTING if diagonal else DiagonalRule.NEVER
    return parse_heuristic(heuristic).admissible(rule)
