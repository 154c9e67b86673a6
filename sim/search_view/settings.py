"""What the search view replays: its settings, the problem a recorded search answers, speeds.

`ViewSettings` is the user's choice (search, heuristic, weight, connectivity; the searches come
from `sim.navigation.catalogue`); `ViewProblem` is that choice on a grid between two cells, and
a view restarts when it changes; `ComparisonProblem` hands the same grid and cells to the
comparison table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.navigation.catalogue import DISTANCE_HEURISTICS, SearchKind, connectivity_label
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.heuristics import Heuristic

SPEEDS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
"""Playback speeds in expansions per second; `faster`/`slower` move along this list."""
DEFAULT_SPEED = 10
DEFAULT_WEIGHT = 1.5
WEIGHT_STEP = 0.25
MAX_WEIGHT = 10.0
HEURISTICS = tuple(heuristic.value for heuristic in DISTANCE_HEURISTICS)
"""The heuristics the view offers, in the order of its buttons."""


@dataclass(frozen=True, slots=True)
class ViewSettings:
    """Which search the view replays.

    Attributes:
        choice: The search (see `SearchKind`).
        heuristic: manhattan, octile, euclidean or chebyshev (A*, weighted A*, greedy).
        weight: The heuristic weight of weighted A* (>= 1; plain A* always uses 1).
        rule: The diagonal rule the search moves by (the grid's when the view opens or the
            grid's rule is switched).
    """

    choice: SearchKind = SearchKind.ASTAR
    heuristic: str = Heuristic.OCTILE.value
    weight: float = DEFAULT_WEIGHT
    rule: DiagonalRule = DiagonalRule.NO_CORNER_CUTTING

    @property
    def diagonal(self) -> bool:
        """8-connected moves (any rule but "never")."""
        return self.rule is not DiagonalRule.NEVER

    @property
    def search_heuristic(self) -> str:
        """The heuristic the search runs with: the chosen one, or zero if it takes none."""
        return self.heuristic if self.choice.takes_heuristic else Heuristic.ZERO.value

    @property
    def search_weight(self) -> float:
        """The weight the search runs with: the chosen one for weighted A*, else 1."""
        return self.weight if self.choice.takes_weight else 1.0

    def describe(self) -> str:
        """One line, e.g. "greedy (not shortest), octile, 8-connected (always)"."""
        name = self.choice.titled(self.weight)
        if not self.choice.shortest:
            name += f" ({self.choice.promise})"
        parts = [name]
        if self.choice.takes_heuristic:
            parts.append(self.heuristic)
        parts.append(moves_label(self.rule))
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class ViewProblem:
    """What a recorded search answered: a restart is due when this changes."""

    mask_version: int
    start: tuple[int, int]
    goal: tuple[int, int]
    settings: ViewSettings
    costs_version: int = 0


@dataclass(frozen=True, slots=True, eq=False)
class ComparisonProblem:
    """The view's search problem, for running every algorithm on it (see `compare_searches`).

    Attributes:
        walkable: The grid the view searches (a snapshot; do not modify).
        start: Start cell.
        goal: Goal cell.
        mask_key: Changes whenever the grid changes.
        diagonal: 8-connected moves.
        weight: The weight weighted A* uses.
        cell_size: World units per cell (costs are shown in world units).
        costs: The cells' cost multipliers the view searches with (a snapshot), or None.
        rule: The diagonal rule the view searches under (`diagonal` is False for "never").
    """

    walkable: NDArray[np.bool_]
    start: tuple[int, int]
    goal: tuple[int, int]
    mask_key: int
    diagonal: bool
    weight: float
    cell_size: float
    costs: NDArray[np.float64] | None = None
    rule: DiagonalRule = DiagonalRule.NO_CORNER_CUTTING


def moves_label(rule: DiagonalRule) -> str:
    """The moves as the HUD names them: the rules that pass blocked corners follow in brackets.

    >>> moves_label(DiagonalRule.NO_CORNER_CUTTING), moves_label(DiagonalRule.ALWAYS)
    ('8-connected', '8-connected (always)')
    """
    label = connectivity_label(rule is not DiagonalRule.NEVER)
    if rule in (DiagonalRule.ONE_OBSTACLE, DiagonalRule.ALWAYS):
        label += f" ({rule.value})"
    return label


def view_heuristic(heuristic: str) -> str:
    """The planner's heuristic if the view offers it ("zero" is Dijkstra's: octile then)."""
    return heuristic if heuristic in HEURISTICS else Heuristic.OCTILE.value


def next_speed(speed: int, direction: int) -> int:
    """The next playback speed up (+1) or down (-1) the SPEEDS list."""
    index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - speed))
    return SPEEDS[min(max(index + direction, 0), len(SPEEDS) - 1)]
