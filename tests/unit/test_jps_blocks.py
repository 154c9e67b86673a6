"""The block scans of `_jps.c` (64 cells a word, rows and a transposed copy for columns).

The compiled search scans bit-packed copies of the array that it keeps between calls
(`_jps_blocks.h`); the Python reference (`JumpPointSearch`) scans cell by cell. Both must find
the same jump points: the same cells, cost (to the last bit) and expansion count, and the cost
Dijkstra finds. The grids here put their edges and walls where the words meet (cells 63 and
64 of a line), and the copies must follow an array edited in place between calls. Jump point
search runs under the Moving AI rule only (`sim.navigation.query.check_jps`), so that is the
rule checked.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import JumpPointSearch
from sim.navigation.maps.generators import generate_layout
from sim.navigation.searches.kernel import JPS_AVAILABLE, jps_flat
from tests.helpers.grids import ascii_grid
from tests.helpers.oracles import oracle_cost
from tests.helpers.problems import PROPERTY_SETTINGS

pytestmark = pytest.mark.skipif(not JPS_AVAILABLE, reason="sim.navigation.searches._jps not built")

WORD = 64
SIDES = st.one_of(st.sampled_from((1, 2, 3, 63, 64, 65, 127, 128, 129)), st.integers(1, 140))
"""Sides of a grid: word-sized and one either side, and anything up to a little past two words."""


def layout(kind: str, height: int, width: int, seed: int) -> NDArray[np.bool_]:
    """A maze, rooms or random cells; random where the grid is too small for the kind."""
    rng = np.random.default_rng(seed)
    corridor, room = 1 + seed % 3, 4 + seed % 5
    if kind == "maze" and min(height, width) >= corridor + 2:
        return generate_layout("maze", height, width, seed=seed, corridor=corridor)
    if kind == "rooms" and min(height, width) >= room + 2:
        return generate_layout("rooms", height, width, seed=seed, room=room)
    walkable: NDArray[np.bool_] = rng.random((height, width)) >= (0.1, 0.25, 0.4)[seed % 3]
    return walkable


def wall_at_word_edges(walkable: NDArray[np.bool_], rng: np.random.Generator) -> None:
    """Block columns and rows 63 and 64 (where words meet), leaving a few gaps, in place."""
    for line in (WORD - 1, WORD):
        for grid in (walkable, walkable.T):
            if line < grid.shape[1]:
                gaps = rng.random(grid.shape[0]) < 0.15
                grid[:, line] = gaps


def walkable_cell(walkable: NDArray[np.bool_], rng: np.random.Generator) -> int | None:
    cells = np.flatnonzero(walkable)
    return None if cells.size == 0 else int(cells[rng.integers(cells.size)])


def assert_same_search(walkable: NDArray[np.bool_], start: int, goal: int, dijkstra: bool) -> None:
    """C on `walkable` itself (its kept copies), the reference and Dijkstra on a copy."""
    width = walkable.shape[1]
    ends = divmod(start, width), divmod(goal, width)
    found, cells, cost, expanded = jps_flat(walkable, start, goal)
    python = JumpPointSearch(walkable.copy(), *ends).run()
    context = f"{ends[0]} -> {ends[1]}\n{ascii_grid(walkable, python.cells)}"
    assert (found, cells, cost, expanded) == (
        python.found,
        python.cells,
        python.cost,
        python.expanded,
    ), context
    if dijkstra:
        expected = oracle_cost(walkable, *ends, diagonal=True)
        assert found == (expected < math.inf), context
        if found:
            assert cost == pytest.approx(expected, rel=1e-9), context


@PROPERTY_SETTINGS
@given(
    kind=st.sampled_from(("random", "maze", "rooms")),
    height=SIDES,
    width=SIDES,
    word_walls=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_block_scans_find_the_reference_jump_points(
    kind: str, height: int, width: int, word_walls: bool, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    walkable = layout(kind, height, width, seed)
    if word_walls:
        wall_at_word_edges(walkable, rng)
    start, goal = walkable_cell(walkable, rng), walkable_cell(walkable, rng)
    if start is None or goal is None:
        return
    assert_same_search(walkable, start, goal, dijkstra=height * width <= 80 * 80)


@PROPERTY_SETTINGS
@given(
    height=st.sampled_from((9, 64, 65, 130)),
    width=st.sampled_from((9, 63, 64, 65, 130)),
    density=st.sampled_from((0.05, 0.2, 0.35)),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_goal_on_a_diagonal_walks_scan_line_is_found_where_the_reference_finds_it(
    height: int, width: int, density: float, seed: int
) -> None:
    # The walk tests for the goal apart from its scans, on the goal's row and column only: a
    # goal before, on, or just past a scan's first stop (a wall or a forced neighbour), in each
    # of the four diagonals from the start, is found as the cell-by-cell scans find it.
    rng = np.random.default_rng(seed)
    walkable = rng.random((height, width)) >= density
    start = walkable_cell(walkable, rng)
    if start is None:
        return
    row, col = divmod(start, width)
    goals: list[int] = []
    for d_row, d_col in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        steps = int(rng.integers(1, 12))
        walk_row, walk_col = row + steps * d_row, col + steps * d_col
        along = int(rng.integers(1, 6))
        for goal_row, goal_col in (
            (walk_row, walk_col + along * d_col),
            (walk_row + along * d_row, walk_col),
        ):
            if 0 <= goal_row < height and 0 <= goal_col < width and walkable[goal_row, goal_col]:
                goals.append(goal_row * width + goal_col)
    for goal in goals:
        assert_same_search(walkable, start, goal, dijkstra=False)


@PROPERTY_SETTINGS
@given(
    height=st.sampled_from((1, 5, 64, 65, 70)),
    width=st.sampled_from((1, 63, 64, 65, 129)),
    seed=st.integers(0, 2**32 - 1),
)
def test_an_array_edited_in_place_is_never_searched_stale(
    height: int, width: int, seed: int
) -> None:
    # The same array object all along: the kept copies are found by its address and shape.
    rng = np.random.default_rng(seed)
    walkable = layout("random", height, width, seed)
    for _ in range(6):
        start, goal = walkable_cell(walkable, rng), walkable_cell(walkable, rng)
        if start is None or goal is None:
            break
        assert_same_search(walkable, start, goal, dijkstra=False)
        # Toggle a few cells, some where words meet and some on the path just found.
        found, cells, _, _ = jps_flat(walkable, start, goal)
        toggles = [(int(rng.integers(height)), min(width - 1, WORD + int(rng.integers(-1, 1))))]
        toggles += [cells[int(rng.integers(len(cells)))]] if found else []
        toggles += [(int(rng.integers(height)), int(rng.integers(width))) for _ in range(3)]
        for cell in toggles:
            walkable[cell] = not walkable[cell]


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(
    height=st.sampled_from((3, 65, 127, 128, 130)),
    width=st.sampled_from((3, 65, 127, 128, 130)),
    seed=st.integers(0, 2**32 - 1),
)
def test_forced_neighbours_an_edit_makes_at_a_word_edge_stop_every_scan(
    height: int, width: int, seed: int
) -> None:
    # The kept stop maps say where a scan stops: a forced neighbour is an open side cell whose
    # cell behind is blocked, and at cells 63 and 64 that cell behind lies in the other word.
    # Each edit toggles cells on those lines (across rows and columns) of the same array, and
    # the queries then scan along the lines beside them both ways, rows and columns.
    rng = np.random.default_rng(seed)
    walkable = rng.random((height, width)) >= 0.03
    for _ in range(6):
        for grid in (walkable, walkable.T):
            edges = [
                line for line in (WORD - 1, WORD, 2 * WORD - 1, 2 * WORD) if line < grid.shape[1]
            ]
            for line in edges[: int(rng.integers(1, 3))]:
                along = int(rng.integers(grid.shape[0]))
                grid[along, line] = not grid[along, line]
        rows, cols = walkable.shape
        pairs = []
        for row in {int(rng.integers(rows)), min(rows - 1, WORD)}:
            pairs += [(row * cols, row * cols + cols - 1), (row * cols + cols - 1, row * cols)]
        for col in {int(rng.integers(cols)), min(cols - 1, WORD)}:
            pairs += [(col, (rows - 1) * cols + col), ((rows - 1) * cols + col, col)]
        for start, goal in pairs:
            if walkable.flat[start] and walkable.flat[goal]:
                assert_same_search(walkable, start, goal, dijkstra=False)


def test_a_wall_put_across_the_path_between_calls_is_seen() -> None:
    walkable = np.ones((3, 130), dtype=bool)
    found, cells, cost, _ = jps_flat(walkable, 130, 259)
    assert (found, cost) == (True, 129.0)
    walkable[:, WORD] = False  # a wall across, on the first cell of the second word
    assert jps_flat(walkable, 130, 259)[0] is False
    walkable[2, WORD] = True  # a gap at the bottom
    found, cells, cost, _ = jps_flat(walkable, 130, 259)
    assert found
    assert (2, WORD) in cells
    assert cost == pytest.approx(127 + 2 * math.sqrt(2))


def test_a_reshape_in_place_is_a_new_grid() -> None:
    # Same buffer, same bytes, other cells: the copies are kept per address *and* shape.
    walkable = np.ones((4, 32), dtype=bool)
    walkable[1:, 16] = False
    assert jps_flat(walkable, 0, 127)[0]
    walkable.shape = (32, 4)
    assert_same_search(walkable, 0, 127, dijkstra=True)


def test_more_arrays_than_the_cache_keeps_take_turns() -> None:
    rng = np.random.default_rng(7)
    arrays = [layout("random", 70, 90, seed) for seed in range(7)]
    for _ in range(3):
        for walkable in arrays:
            start, goal = walkable_cell(walkable, rng), walkable_cell(walkable, rng)
            assert start is not None
            assert goal is not None
            assert_same_search(walkable, start, goal, dijkstra=False)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_only_bools_reach_the_packed_copies(dtype: Any) -> None:
    with pytest.raises(ValueError, match="walkable must be a 2-D numpy bool"):
        jps_flat(np.ones((3, 70), dtype=dtype), 0, 1)
