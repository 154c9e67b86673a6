"""The discrete actions of an environment and which of them a cell allows, vectorised over agents.

Action 0 waits; 1-4 step along the grid's axes; 5-8 step diagonally, offered only when the rule
has diagonal moves. As ``(d_row, d_col)``:

    0 (0, 0)   1 (-1, 0)   2 (0, 1)    3 (1, 0)    4 (0, -1)
    5 (-1, 1)  6 (1, 1)    7 (1, -1)   8 (-1, -1)

A diagonal step passes its two corner cells as the rule says (`sim.navigation.diagonal`): both
walkable under "no-corner-cutting", one under "one-obstacle", neither needed under "always". A
step costs 1 (axis) or sqrt(2) (diagonal) times the entry cost of the cell entered, as
`find_path` charges it; an action the cell does not allow leaves the agent where it stands.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from sim.navigation import DiagonalRule

AXIS_DELTAS = ((0, 0), (-1, 0), (0, 1), (1, 0), (0, -1))
DIAGONAL_DELTAS = ((-1, 1), (1, 1), (1, -1), (-1, -1))


class StepTable:
    """The actions of one grid under one rule, and their legality and cost, for many agents.

    Args:
        walkable: ``[row, col]`` bool mask.
        costs: ``[row, col]`` entry costs.
        rule: the diagonal rule.
    """

    def __init__(
        self, walkable: NDArray[np.bool_], costs: NDArray[np.float64], rule: DiagonalRule
    ) -> None:
        deltas = AXIS_DELTAS + (DIAGONAL_DELTAS if rule is not DiagonalRule.NEVER else ())
        self.rule = rule
        self.deltas: NDArray[np.int64] = np.array(deltas, dtype=np.int64)
        self.lengths: NDArray[np.float64] = np.array(
            [0.0] + [math.hypot(*delta) for delta in deltas[1:]]
        )
        # One cell of blocked border: a step off the grid lands on it and is refused.
        self.open_padded: NDArray[np.bool_] = np.pad(walkable, 1, constant_values=False)
        self.costs_padded: NDArray[np.float64] = np.pad(costs, 1, constant_values=1.0)
        self._open = self.open_padded
        self._costs = self.costs_padded

    @property
    def count(self) -> int:
        """How many actions there are (5 with axis steps only, 9 with diagonals)."""
        return len(self.deltas)

    @property
    def rule_code(self) -> int:
        """The rule as the C kernel numbers it: the order of `DiagonalRule`, never = 0."""
        return list(DiagonalRule).index(self.rule)

    def allowed(self, rows: NDArray[np.int64], cols: NDArray[np.int64]) -> NDArray[np.bool_]:
        """``[agent, action]``: which actions each agent's cell allows (wait always)."""
        r = rows[:, None] + 1
        c = cols[:, None] + 1
        d_row = self.deltas[None, :, 0]
        d_col = self.deltas[None, :, 1]
        ok = self._open[r + d_row, c + d_col]
        if self.count > len(AXIS_DELTAS):
            corner_a = self._open[r + d_row, c]
            corner_b = self._open[r, c + d_col]
            diagonal = (d_row != 0) & (d_col != 0)
            if self.rule is DiagonalRule.NO_CORNER_CUTTING:
                passes = corner_a & corner_b
            elif self.rule is DiagonalRule.ONE_OBSTACLE:
                passes = corner_a | corner_b
            else:
                passes = np.ones_like(ok)
            ok &= ~diagonal | passes
        return np.asarray(ok, dtype=bool)

    def apply(
        self, rows: NDArray[np.int64], cols: NDArray[np.int64], actions: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:
        """Where each agent wants to go: ``(rows, cols, legal)``; illegal actions stay put.

        Only each agent's own action is checked, not the whole `allowed` table.
        """
        d_row = self.deltas[actions, 0]
        d_col = self.deltas[actions, 1]
        r, c = rows + 1, cols + 1
        legal = self._open[r + d_row, c + d_col]
        if self.count > len(AXIS_DELTAS) and self.rule is not DiagonalRule.ALWAYS:
            corner_a = self._open[r + d_row, c]
            corner_b = self._open[r, c + d_col]
            passes = (
                corner_a & corner_b
                if self.rule is DiagonalRule.NO_CORNER_CUTTING
                else corner_a | corner_b
            )
            legal &= (d_row == 0) | (d_col == 0) | passes
        return rows + d_row * legal, cols + d_col * legal, legal

    def cost(
        self, rows: NDArray[np.int64], cols: NDArray[np.int64], actions: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """What each action costs if it is taken: length times the entered cell's cost."""
        moved = self.lengths[actions]
        entered = self._costs[
            rows + 1 + self.deltas[actions, 0], cols + 1 + self.deltas[actions, 1]
        ]
        return np.where(moved > 0, moved * entered, 0.0)
