"""Grids drawn as text (read one from ASCII for a test, draw one for a failure message), and
grids with cells opened."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


def grid(text: str) -> NDArray[np.bool_]:
    """'.' is open, '#' a wall; one row a line."""
    rows = [line.strip() for line in text.strip().splitlines()]
    return np.array([[char == "." for char in row] for row in rows], dtype=bool)


def opened(walkable: NDArray[np.bool_], cells: Sequence[tuple[int, int]]) -> NDArray[np.bool_]:
    """A copy of `walkable` with `cells` made walkable."""
    grid = walkable.copy()
    for cell in cells:
        grid[cell] = True
    return grid


def ascii_grid(walkable: NDArray[np.bool_], cells: Sequence[tuple[int, int]] = ()) -> str:
    """Draw a grid for failure messages: '.' open, '#' wall, '*' path."""
    on_path = set(cells)
    return "\n".join(
        "".join(
            "*" if (r, c) in on_path else ("." if walkable[r, c] else "#")
            for c in range(walkable.shape[1])
        )
        for r in range(walkable.shape[0])
    )
