"""The move rules of a grid, precomputed once into flat tables the search loop reads.

Rules (the Moving AI ones): a step goes to one of the 4 (or 8) neighbouring cells; it costs its
length, 1 or sqrt(2), times the cost multiplier of the cell it enters; the cell entered must be
walkable and inside the grid; a diagonal step is legal when as many of the two orthogonal
cells it passes between (its corners) are walkable as the diagonal rule asks
(`sim.navigation.diagonal`): both by default (no corner cutting, no squeezing between two
walls), one for "one-obstacle", none for "always".

Layout: a cell is the flat index ``row * width + col``. ``legal[cell]`` is a byte whose bit
``i`` says whether move ``i`` of `DIRECTIONS` is legal from the cell, and ``moves[bits]``
lists the ``(offset, length)`` of those moves, so the search loop needs no bounds checks and a
compiled kernel can take over the same arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.grid import check_costs, check_walkable, heuristic_scale

SQRT2 = math.sqrt(2.0)

DIRECTIONS: tuple[tuple[int, int], ...] = (
    (-1, 0),
    (1, 0),
    (0, -1),
    (0, 1),
    (-1, -1),
    (-1, 1),
    (1, -1),
    (1, 1),
)
"""``(d_row, d_col)`` of each move: the 4 orthogonal ones first, then the 4 diagonals."""

MoveTable = tuple[tuple[tuple[int, float], ...], ...]


@dataclass(frozen=True, slots=True, eq=False)
class MoveGraph:
    """A grid's moves as flat tables: build once per grid, search it many times.

    Attributes:
        height: rows of the grid.
        width: columns of the grid.
        diagonal: whether the 4 diagonal moves are allowed (the rule is not "never").
        rule: the diagonal rule (`sim.navigation.diagonal.DiagonalRule`).
        walkable: the ``[row, col]`` bool mask it was built from (held, not copied).
        legal: one byte per flat cell; bit ``i`` set when move ``DIRECTIONS[i]`` is legal.
        moves: for each byte value, the ``(flat offset, length)`` of the moves it allows.
        unit_moves: the same with every length 1 (breadth-first search counts moves).
        cell_cost: cost multiplier of each flat cell (1.0 everywhere when no costs given).
        has_costs: whether a cost array was given.
        heuristic_scale: what every search on the graph multiplies its heuristic by: the
            smallest cost of a walkable cell when that is below 1, else 1 (see
            `sim.navigation.grid.heuristic_scale`).

    >>> graph = MoveGraph.build(np.ones((2, 3), dtype=bool))
    >>> graph.neighbours(0)
    [(3, 1.0), (1, 1.0), (4, 1.4142135623730951)]
    """

    height: int
    width: int
    diagonal: bool
    rule: DiagonalRule
    walkable: NDArray[np.bool_]
    legal: bytes
    moves: MoveTable
    unit_moves: MoveTable
    cell_cost: list[float]
    has_costs: bool
    heuristic_scale: float

    @classmethod
    def build(
        cls,
        walkable: NDArray[np.bool_],
        *,
        diagonal: bool | str = True,
        costs: NDArray[np.floating] | None = None,
    ) -> MoveGraph:
        """Precompute the moves of `walkable` (``[row, col]`` bool) with optional `costs`.

        `diagonal` is True, False or a rule name (`sim.navigation.diagonal.parse_diagonal`).
        Raises ValueError (naming the value) for a mask that is not 2-D bool, costs of
        another shape or outside [0.25, 100] on a walkable cell (`check_costs`), or an
        unknown diagonal rule.
        """
        rule = parse_diagonal(diagonal)
        walkable = check_walkable(walkable)
        checked_costs = check_costs(costs, walkable)
        height, width = walkable.shape
        padded = np.pad(walkable, 1, constant_values=False)

        def shifted(d_row: int, d_col: int) -> NDArray[np.bool_]:
            """Walkability of the cell at (d_row, d_col) from each cell, False off the grid."""
            return padded[1 + d_row : 1 + d_row + height, 1 + d_col : 1 + d_col + width]

        count = 4 if rule is DiagonalRule.NEVER else 8
        legal = np.zeros((height, width), dtype=np.uint8)
        for bit, (d_row, d_col) in enumerate(DIRECTIONS[:count]):
            allowed = walkable & shifted(d_row, d_col)
            if d_row and d_col:
                corners = shifted(d_row, 0).astype(np.uint8) + shifted(0, d_col)
                allowed &= corners >= rule.corners_needed
            legal |= allowed.astype(np.uint8) << bit
        cell_cost = (
            [1.0] * (height * width) if checked_costs is None else checked_costs.ravel().tolist()
        )
        return cls(
            height=height,
            width=width,
            diagonal=rule is not DiagonalRule.NEVER,
            rule=rule,
            walkable=walkable,
            legal=legal.tobytes(),
            moves=_move_table(width, count, unit=False),
            unit_moves=_move_table(width, count, unit=True),
            cell_cost=cell_cost,
            has_costs=checked_costs is not None,
            heuristic_scale=heuristic_scale(walkable, checked_costs),
        )

    def neighbours(self, cell: int) -> list[tuple[int, float]]:
        """Return ``(flat neighbour, step cost)`` of every legal move from flat `cell`."""
        return [
            (cell + offset, length * self.cell_cost[cell + offset])
            for offset, length in self.moves[self.legal[cell]]
        ]


def _move_table(width: int, count: int, *, unit: bool) -> MoveTable:
    """For each legal-move byte, the ``(offset, length)`` of its moves in DIRECTIONS order."""
    steps = [
        (d_row * width + d_col, 1.0 if unit or not (d_row and d_col) else SQRT2)
        for d_row, d_col in DIRECTIONS[:count]
    ]
    return tuple(
        tuple(step for bit, step in enumerate(steps) if bits >> bit & 1)
        for bits in range(1 << count)
    )
