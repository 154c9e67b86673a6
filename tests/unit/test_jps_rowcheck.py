"""The packed copies of `_jps.c` checked row by row as a search reads them (`_jps_blocks.h`).

A search no longer compares the whole array with the bytes its copies were made from: it
checks a row the first time it reads that row, and the 64 rows a word of the transposed copy
covers the first time it reads that word, and rewrites the bits of a row that differs before
reading them. So a query may run after edits to rows no earlier query checked, or after a
query that checked nothing at all (start == goal). Every answer here is searched on the same
array object, edited in place between queries (single cells, whole rows and columns, blocks
across the words' edges, a fraction of all cells, the whole grid rewritten), and must equal a
fresh search on a copy: the Python reference (`JumpPointSearch`, which keeps no copies) cell
for cell, cost to the last bit and expansion count, and Dijkstra's cost. Both entry points are
checked: `find_path` (jps, and auto under every diagonal rule) and `find_paths`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import JumpPointSearch, PathResult, find_path, find_paths
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.searches.kernel import JPS_AVAILABLE, jps_flat
from sim.navigation.searches.kernel_batch import jps_batch
from tests.helpers.oracles import oracle_cost

pytestmark = pytest.mark.skipif(not JPS_AVAILABLE, reason="sim.navigation.searches._jps not built")

WORD = 64
SIDES = st.one_of(st.sampled_from((1, 2, 63, 64, 65, 127, 128, 129, 130)), st.integers(1, 140))
"""Up to a little past two words: rows checked one by one, columns' words 64 rows at a time."""
EDITS = ("cell", "row", "column", "block", "many", "rewrite")
RULES = tuple(DiagonalRule)
Grid = NDArray[np.bool_]
Cells = tuple[tuple[int, int], ...]


def edit(walkable: Grid, kind: str, rng: np.random.Generator) -> None:
    """Change `walkable` in place, as a user or the editor would, by `kind` of edit."""
    height, width = walkable.shape
    # Half the time a row where the columns' words meet (63 and 64, 127 and 128).
    edges = [line for line in (WORD - 1, WORD, 2 * WORD - 1, 2 * WORD) if line < height]
    row = int(rng.choice(edges)) if edges and rng.random() < 0.5 else int(rng.integers(height))
    col = int(rng.integers(width))
    if kind == "cell":
        for _ in range(int(rng.integers(1, 5))):
            cell = int(rng.integers(height)), int(rng.integers(width))
            walkable[cell] = not walkable[cell]
    elif kind == "row":
        walkable[row, :] = rng.random(width) < rng.choice((0.0, 0.2, 1.0))
    elif kind == "column":
        walkable[:, col] = rng.random(height) < rng.choice((0.0, 0.2, 1.0))
    elif kind == "block":
        # Rows on both sides of a word's edge (63 and 64), so one word's check is not enough.
        top = max(0, row - int(rng.integers(1, 4)))
        walkable[top : row + 2, col : col + int(rng.integers(1, 20))] = bool(rng.random() < 0.5)
    elif kind == "many":
        walkable ^= rng.random(walkable.shape) < rng.choice((0.02, 0.2, 0.5))
    else:
        walkable[...] = rng.random(walkable.shape) >= rng.choice((0.0, 0.2, 0.4))


def pairs(walkable: Grid, rng: np.random.Generator, count: int) -> list[tuple[int, int]]:
    """Flat (start, goal) pairs of walkable cells: random, the same cell, and neighbours."""
    cells = np.flatnonzero(walkable)
    if cells.size == 0:
        return []
    out = []
    for index in range(count):
        start = int(cells[rng.integers(cells.size)])
        goal = int(cells[rng.integers(cells.size)])
        if index % 4 == 1:
            goal = start  # checks no row at all: the next query must still see every edit
        elif index % 4 == 2:
            row, col = divmod(start, walkable.shape[1])
            near = [
                (r, c)
                for r in (row - 1, row, row + 1)
                for c in (col - 1, col, col + 1)
                if 0 <= r < walkable.shape[0] and 0 <= c < walkable.shape[1] and walkable[r, c]
            ]
            goal = int(np.ravel_multi_index(near[rng.integers(len(near))], walkable.shape))
        out.append((start, goal))
    return out


def reference(walkable: Grid, start: int, goal: int) -> tuple[bool, Cells, float, int]:
    """The Python search on a copy: no kept copies, nothing to go stale."""
    width = walkable.shape[1]
    result = JumpPointSearch(walkable.copy(), divmod(start, width), divmod(goal, width)).run()
    return result.found, result.cells, result.cost, result.expanded


def check_dijkstra(walkable: Grid, start: int, goal: int, found: bool, cost: float) -> None:
    if walkable.size > 70 * 70:
        return
    width = walkable.shape[1]
    expected = oracle_cost(walkable, divmod(start, width), divmod(goal, width), diagonal=True)
    assert found == (expected < math.inf)
    if found:
        assert cost == pytest.approx(expected, rel=1e-9)


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(
    height=SIDES,
    width=SIDES,
    edits=st.lists(st.sampled_from(EDITS), min_size=1, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_queries_between_in_place_edits_equal_fresh_searches(
    height: int, width: int, edits: list[str], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    walkable = rng.random((height, width)) >= rng.choice((0.0, 0.1, 0.3))
    for kind in [*edits, "cell"]:
        for start, goal in pairs(walkable, rng, 4):
            found, cells, cost, expanded = jps_flat(walkable, start, goal)
            assert (found, cells, cost, expanded) == reference(walkable, start, goal), kind
            check_dijkstra(walkable, start, goal, found, cost)
        edit(walkable, kind, rng)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(
    height=st.integers(2, 40),
    width=st.sampled_from((513, 1030, 2050, 4100)),
    edits=st.lists(st.sampled_from(EDITS), min_size=1, max_size=3),
    seed=st.integers(0, 2**32 - 1),
)
def test_wide_grids_check_rows_a_few_at_a_time(
    height: int, width: int, edits: list[str], seed: int
) -> None:
    # A chunk checked at a time holds about 4 KB: 8, 4, 2 and 1 rows of these widths, so a
    # search crosses many chunks' edges in a few rows.
    rng = np.random.default_rng(seed)
    walkable = rng.random((height, width)) >= rng.choice((0.0, 0.1, 0.3))
    for kind in [*edits, "cell"]:
        for start, goal in pairs(walkable, rng, 3):
            found, cells, cost, expanded = jps_flat(walkable, start, goal)
            assert (found, cells, cost, expanded) == reference(walkable, start, goal), kind
        edit(walkable, kind, rng)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    height=SIDES,
    width=SIDES,
    edits=st.lists(st.sampled_from(EDITS), min_size=1, max_size=4),
    seed=st.integers(0, 2**32 - 1),
)
def test_batches_between_in_place_edits_equal_fresh_searches(
    height: int, width: int, edits: list[str], seed: int
) -> None:
    # One batch checks a row once for all its searches: each answer must still be right.
    rng = np.random.default_rng(seed)
    walkable = rng.random((height, width)) >= rng.choice((0.0, 0.1, 0.3))
    for kind in [*edits, "cell"]:
        ends = pairs(walkable, rng, 8)
        starts = np.array([s for s, _ in ends], dtype=np.int64)
        goals = np.array([g for _, g in ends], dtype=np.int64)
        for (start, goal), answer in zip(ends, jps_batch(walkable, starts, goals, 1), strict=True):
            expected = reference(walkable, start, goal)
            assert (answer.found, answer.cells, answer.cost, answer.expanded) == expected, kind
        edit(walkable, kind, rng)


Search = Callable[[Grid, tuple[int, int], tuple[int, int]], tuple[bool, Cells, float]]


def entry_points(rule: DiagonalRule) -> dict[str, tuple[Search, Search]]:
    """Each public way in, on the array itself and (fresh, in Python) on a copy."""

    def answer(result: PathResult) -> tuple[bool, Cells, float]:
        return result.found, result.cells, result.cost

    def one(algorithm: str, implementation: str) -> Search:
        return lambda grid, a, b: answer(
            find_path(
                grid, a, b, diagonal=rule.value, algorithm=algorithm, implementation=implementation
            )
        )

    def batch(grid: Grid, a: tuple[int, int], b: tuple[int, int]) -> tuple[bool, Cells, float]:
        return answer(find_paths(grid, [a], [b], diagonal=rule.value)[0])

    fresh = one("auto", "python")
    ways = {"auto": (one("auto", "auto"), fresh), "find_paths": (batch, fresh)}
    if rule is DiagonalRule.NO_CORNER_CUTTING:
        ways["jps"] = (one("jps", "auto"), one("jps", "python"))
    return ways


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    rule=st.sampled_from(RULES),
    height=st.sampled_from((5, 64, 65, 70)),
    width=st.sampled_from((3, 63, 64, 65)),
    edits=st.lists(st.sampled_from(EDITS), min_size=1, max_size=4),
    seed=st.integers(0, 2**32 - 1),
)
def test_find_path_and_find_paths_read_in_place_edits(
    rule: DiagonalRule, height: int, width: int, edits: list[str], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    walkable = rng.random((height, width)) >= rng.choice((0.0, 0.1, 0.3))
    ways = entry_points(rule)
    for kind in [*edits, "cell"]:
        for start, goal in pairs(walkable, rng, 4):
            a, b = divmod(start, width), divmod(goal, width)
            for name, (search, fresh) in ways.items():
                found, cells, cost = search(walkable, a, b)
                expected = fresh(walkable.copy(), a, b)
                assert found == expected[0], (name, kind)
                assert cost == expected[2], (name, kind)
                if name == "jps":
                    assert cells == expected[1], (name, kind)
                if rule in (DiagonalRule.NEVER, DiagonalRule.NO_CORNER_CUTTING):
                    diagonal = rule is DiagonalRule.NO_CORNER_CUTTING
                    oracle = oracle_cost(walkable, a, b, diagonal=diagonal)
                    assert found == (oracle < math.inf), (name, kind)
                    assert not found or cost == pytest.approx(oracle, rel=1e-9), (name, kind)
        edit(walkable, kind, rng)


def test_a_row_far_from_the_last_query_is_read_when_first_reached() -> None:
    # The first query reads the top rows only; the second crosses rows and a column word (rows
    # 64 to 127) that no query has checked since a wall went up there.
    walkable = np.ones((200, 70), dtype=bool)
    walkable[10, :] = False
    assert jps_flat(walkable, 0, 3 * 70 + 5)[0]
    walkable[10, :] = True
    walkable[100, :] = False
    walkable[100, WORD] = True
    found, cells, cost, _ = jps_flat(walkable, 0, 199 * 70)
    assert found
    assert (100, WORD) in cells
    assert (found, cells, cost) == reference(walkable, 0, 199 * 70)[:3]
    walkable[100, WORD] = False
    assert jps_flat(walkable, 5, 5) == (True, ((0, 5),), 0.0, 1)  # reads no row
    assert jps_flat(walkable, 0, 199 * 70)[0] is False
