"""Local views of a grid around many agents at once, by one fancy-index per channel.

A window of radius R is the ``(2R + 1) x (2R + 1)`` block of cells centred on the agent, row by
row as the grid's own rows; cells off the grid read as blocked (and cost 0).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


class Windows:
    """Cut windows of radius `radius` out of padded copies of a grid's layers.

    Args:
        radius: the window's radius R >= 1.
        blocked: ``[row, col]`` True where no agent may stand.
        costs: ``[row, col]`` entry costs (reported 0 on blocked cells).
    """

    def __init__(self, radius: int, blocked: NDArray[np.bool_], costs: NDArray[np.float64]) -> None:
        self.radius = radius
        self.shape = blocked.shape
        self._size = 2 * radius + 1
        self.blocked_padded = np.pad(blocked.astype(np.float32), radius, constant_values=1.0)
        self._blocked = self.views(self.blocked_padded)
        costs = np.where(blocked, 0.0, costs).astype(np.float32)
        self._costs = self.views(np.pad(costs, radius, constant_values=0.0))

    def views(self, padded: NDArray[np.float32]) -> NDArray[np.float32]:
        """Every window of a padded layer, ``[row, col, R', R']``, as a view (no copy).

        Indexing it by agents' cells copies whole windows at once, far faster than gathering
        each window's cells one by one.
        """
        return np.lib.stride_tricks.sliding_window_view(padded, (self._size, self._size))

    def blocked(self, rows: NDArray[np.int64], cols: NDArray[np.int64]) -> NDArray[np.float32]:
        """``[agent, R', R']`` 1.0 where the window's cell is blocked or off the grid."""
        return self._blocked[rows, cols]

    def costs(self, rows: NDArray[np.int64], cols: NDArray[np.int64]) -> NDArray[np.float32]:
        """``[agent, R', R']`` each window cell's entry cost, 0 where blocked or off the grid."""
        return self._costs[rows, cols]

    def pad(self, layer: NDArray[np.float32]) -> NDArray[np.float32]:
        """`layer` with a border of R zeros: write its inside, read windows through `views`."""
        return np.pad(layer, self.radius, constant_values=0.0)

    def targets(
        self,
        rows: NDArray[np.int64],
        cols: NDArray[np.int64],
        goal_rows: NDArray[np.int64],
        goal_cols: NDArray[np.int64],
    ) -> NDArray[np.float32]:
        """``[agent, R', R']`` 1.0 on each agent's goal, or on the window's edge toward it.

        A goal outside the window is projected onto its border along the offset clipped to R:
        the agent still sees which way its goal lies.
        """
        count = len(rows)
        size = 2 * self.radius + 1
        out = np.zeros((count, size, size), dtype=np.float32)
        # np.minimum and np.maximum: np.clip costs several times more on small arrays.
        reach, twice = self.radius, 2 * self.radius
        d_row = np.minimum(np.maximum(goal_rows - rows + reach, 0), twice)
        d_col = np.minimum(np.maximum(goal_cols - cols + reach, 0), twice)
        out[np.arange(count), d_row, d_col] = 1.0
        return out
