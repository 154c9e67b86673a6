"""The reward every environment pays, in one place so the two environments agree.

Each step pays, per agent:

    goal_reward                                  when the step reaches the goal
  + progress_weight * (h(before) - h(after))     progress: h the straight-line grid distance
  - step_cost * (the step's cost, or 1 waiting)  time and terrain

h is the octile distance with diagonal moves and the Manhattan distance without. The progress
term is a potential difference, so over an episode it adds up to ``progress_weight * h(start)``
whatever the route: it speeds learning without changing which policy is best (Ng, Harada and
Russell, 1999). An action the cell does not allow (into a wall, off the grid, across a corner
the rule forbids) leaves the agent in place and costs a wait.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.envs.source import EnvError


@dataclass(frozen=True, slots=True)
class Rewards:
    """The reward's three weights (see the module).

    Attributes:
        goal_reward: paid once, on the step that reaches the goal.
        progress_weight: per cell of straight-line distance gained toward the goal.
        step_cost: per unit of a step's cost (a wait costs 1).
    """

    goal_reward: float = 1.0
    progress_weight: float = 0.1
    step_cost: float = 0.01

    def __post_init__(self) -> None:
        for name in ("goal_reward", "progress_weight", "step_cost"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value)):
                raise EnvError(f"{name} must be a finite number, got {value!r}")

    def pay(
        self,
        before: NDArray[np.float64],
        after: NDArray[np.float64],
        step_costs: NDArray[np.float64],
        arrived: NDArray[np.bool_],
    ) -> NDArray[np.float64]:
        """Each agent's reward for one step (see the module)."""
        paid_time = np.where(step_costs > 0, step_costs, 1.0)
        paid = (
            np.where(arrived, self.goal_reward, 0.0)
            + self.progress_weight * (before - after)
            - self.step_cost * paid_time
        )
        return np.asarray(paid, dtype=np.float64)


def grid_distance(
    rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    goal_rows: NDArray[np.int64],
    goal_cols: NDArray[np.int64],
    *,
    diagonal: bool,
) -> NDArray[np.float64]:
    """Octile (`diagonal`) or Manhattan distance from each cell to its goal, ignoring walls."""
    d_row = np.abs(goal_rows - rows).astype(np.float64)
    d_col = np.abs(goal_cols - cols).astype(np.float64)
    if not diagonal:
        return np.asarray(d_row + d_col, dtype=np.float64)
    octile = np.maximum(d_row, d_col) + (math.sqrt(2.0) - 1.0) * np.minimum(d_row, d_col)
    return np.asarray(octile, dtype=np.float64)
