"""Simultaneous moves under the multi-agent path finding rules, resolved the same way every time.

Every agent proposes a cell (its own when it waits). A proposal is refused, and the agent stays,
when it would break a rule of a joint plan (`sim.mapf.checker`):

- **vertex**: two agents would stand on one cell. An agent staying on its cell keeps it; among
  agents moving into one cell the earliest (the lowest index) goes and the later ones stop;
- **swap**: two agents would trade cells along one edge: the later of the two stops (and then
  the earlier one, moving onto a cell now held, stops by the vertex rule).

Refusals make new stayers, so the rules are applied again until nothing changes. Following (an
agent moving into a cell its owner leaves this step) and rotations of three or more are allowed,
as in the plans the planners make.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def resolve(current: NDArray[np.int64], proposed: NDArray[np.int64]) -> NDArray[np.int64]:
    """Where each agent ends the step: its proposal, or its current cell when refused.

    Args:
        current: each agent's cell (flat), pairwise distinct.
        proposed: each agent's proposed cell (flat).
    """
    final = proposed.copy()
    count = len(current)
    if count < 2:
        return final
    order_index = np.arange(count)
    while True:
        refused = _vertex_losers(current, final, order_index) | _swap_losers(current, final)
        refused &= final != current
        if not refused.any():
            return final
        final[refused] = current[refused]


def _vertex_losers(
    current: NDArray[np.int64], final: NDArray[np.int64], index: NDArray[np.int64]
) -> NDArray[np.bool_]:
    moving = final != current
    # Sorted by cell, then stayers before movers, then by index: the first of each cell keeps it.
    order = np.lexsort((index, moving, final))
    cells = final[order]
    repeat = np.empty(len(cells), dtype=bool)
    repeat[0] = False
    repeat[1:] = cells[1:] == cells[:-1]
    losers = np.zeros(len(final), dtype=bool)
    losers[order[repeat]] = True
    return losers


def _swap_losers(current: NDArray[np.int64], final: NDArray[np.int64]) -> NDArray[np.bool_]:
    moving = np.flatnonzero(final != current)
    losers = np.zeros(len(final), dtype=bool)
    if len(moving) < 2:
        return losers
    # Who stands on each mover's target now: a sorted lookup instead of a dict.
    by_cell = np.argsort(current)
    at = np.searchsorted(current[by_cell], final[moving])
    at = np.minimum(at, len(current) - 1)
    owner = by_cell[at]
    occupied = current[owner] == final[moving]
    trades = occupied & (final[owner] == current[moving]) & (owner != moving)
    later = np.maximum(moving[trades], owner[trades])
    losers[later] = True
    return losers
