"""Independent oracles for the navigation tests, written from the rules, not from the code.

A path checker and a plain Dijkstra over dicts (slow, obviously right) that the property,
search and benchmark tests compare our searches against; test_nav_oracles.py tests them.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from tests.helpers.grids import ascii_grid

SQRT2 = math.sqrt(2.0)


def path_problem(
    walkable: NDArray[np.bool_],
    cells: Sequence[tuple[int, int]],
    *,
    diagonal: bool,
) -> str | None:
    """Return why `cells` is not a legal path (None if it is legal)."""
    height, width = walkable.shape
    for index, (row, col) in enumerate(cells):
        if not (0 <= row < height and 0 <= col < width):
            return f"cell {index} {(row, col)} is outside the grid"
        if not walkable[row, col]:
            return f"cell {index} {(row, col)} is blocked"
    for index in range(1, len(cells)):
        (r0, c0), (r1, c1) = cells[index - 1], cells[index]
        d_row, d_col = r1 - r0, c1 - c0
        if max(abs(d_row), abs(d_col)) != 1:
            return f"step {index} {cells[index - 1]} -> {cells[index]} is not to a neighbour"
        if d_row and d_col:
            if not diagonal:
                return f"step {index} is diagonal on a 4-connected grid"
            if not (walkable[r0 + d_row, c0] and walkable[r0, c0 + d_col]):
                return f"step {index} {cells[index - 1]} -> {cells[index]} cuts a corner"
    return None


def steps_cost(cells: Sequence[tuple[int, int]], costs: NDArray[np.float64] | None = None) -> float:
    """Sum of the steps: length (1 or sqrt 2) times the cost of the cell entered."""
    total = 0.0
    for (r0, c0), (r1, c1) in itertools.pairwise(cells):
        length = SQRT2 if (r0 != r1 and c0 != c1) else 1.0
        total += length * (1.0 if costs is None else float(costs[r1, c1]))
    return total


def assert_legal_path(
    walkable: NDArray[np.bool_],
    cells: Sequence[tuple[int, int]],
    start: tuple[int, int],
    goal: tuple[int, int],
    *,
    diagonal: bool,
) -> None:
    """Fail with a drawing of the grid unless `cells` is a legal start -> goal path."""
    problem = path_problem(walkable, cells, diagonal=diagonal)
    if problem is None and (not cells or cells[0] != start or cells[-1] != goal):
        problem = f"path does not run from {start} to {goal}"
    assert problem is None, f"{problem}\n{ascii_grid(walkable, cells)}"


def oracle_cost(
    walkable: NDArray[np.bool_],
    start: tuple[int, int],
    goal: tuple[int, int],
    *,
    diagonal: bool,
    costs: NDArray[np.float64] | None = None,
    unit: bool = False,
) -> float:
    """Textbook Dijkstra on (row, col) tuples; `unit` counts moves. inf when unreachable."""
    if not (walkable[start] and walkable[goal]):
        return math.inf
    height, width = walkable.shape
    moves = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    if diagonal:
        moves += [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    best = {start: 0.0}
    frontier = [(0.0, start)]
    done: set[tuple[int, int]] = set()
    while frontier:
        cost, (row, col) = heapq.heappop(frontier)
        if (row, col) in done:
            continue
        if (row, col) == goal:
            return cost
        done.add((row, col))
        for d_row, d_col in moves:
            r, c = row + d_row, col + d_col
            if not (0 <= r < height and 0 <= c < width and walkable[r, c]):
                continue
            if d_row and d_col and not (walkable[row + d_row, col] and walkable[row, col + d_col]):
                continue
            if unit:
                step = 1.0
            else:
                step = (SQRT2 if d_row and d_col else 1.0) * (
                    1.0 if costs is None else float(costs[r, c])
                )
            if cost + step < best.get((r, c), math.inf):
                best[(r, c)] = cost + step
                heapq.heappush(frontier, (cost + step, (r, c)))
    return math.inf
