"""What the search view reads off a stepped search, the same for every search that keeps lists.

`Search`, `ThetaStar` and each half of `BidirectionalSearch` keep their state in flat Python
lists (a heap of ``(priority, h, cell)`` entries, closed flags, g, parents); these turn them
into the ``[row, col]`` arrays the view draws.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


def frontier_mask(
    frontier: Sequence[tuple[float, float, int]], closed: bytearray, shape: tuple[int, int]
) -> NDArray[np.bool_]:
    """``[row, col]`` True on cells waiting on the frontier (queued and not yet closed)."""
    mask = np.zeros(len(closed), dtype=bool)
    waiting = [cell for _, _, cell in frontier if not closed[cell]]
    mask[np.array(waiting, dtype=np.intp)] = True
    return mask.reshape(shape)


def closed_mask(closed: bytearray, shape: tuple[int, int]) -> NDArray[np.bool_]:
    """``[row, col]`` True on expanded (closed) cells."""
    return np.frombuffer(bytes(closed), dtype=np.uint8).astype(bool).reshape(shape)


def priorities(
    g: Sequence[float], h: Sequence[float], shape: tuple[int, int], g_weight: float = 1.0
) -> NDArray[np.float64]:
    """``[row, col]`` ``g_weight * g + h`` on touched cells (finite g), inf elsewhere."""
    costs = np.array(g, dtype=np.float64)
    estimates = np.array(h, dtype=np.float64)
    touched = np.isfinite(costs)
    f = np.full_like(costs, np.inf)
    f[touched] = g_weight * costs[touched] + estimates[touched]
    return f.reshape(shape)
