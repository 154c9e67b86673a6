"""The offline index (jump tables and landmark fields): Dijkstra's costs before and after edits.

"Like Dijkstra" means what test_jump_table.py means: the same found and reason, a cost within
1e-12 of ``find_path(algorithm="dijkstra")``'s on the edited grid, a legal path, and a cost that
is the path's steps summed from the start. After every edit the fields must also keep the bound
the heuristic's optimality rests on (`lipschitz_violations` is 0), and the table must equal a
fresh build byte for byte.
"""

from __future__ import annotations

import heapq
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import JumpPointSearch, find_path, read_map, read_scenarios
from sim.navigation.maps.generators import generate_layout
from sim.navigation.maps.movingai import sample_scenarios
from sim.navigation.searches.jump_table import JUMP_TABLE_AVAILABLE, JumpTable
from sim.navigation.searches.kernel import JPS_AVAILABLE, path_result
from sim.navigation.searches.offline import (
    FIELD_NONE,
    OfflineIndex,
    lipschitz_violations,
)
from tests.helpers.grids import ascii_grid
from tests.helpers.oracles import assert_legal_path, steps_cost
from tests.helpers.paths import movingai_dir
from tests.helpers.problems import PROPERTY_SETTINGS

pytestmark = pytest.mark.skipif(
    not JUMP_TABLE_AVAILABLE, reason="sim.navigation.searches._jump_table not built"
)

Cell = tuple[int, int]


def assert_like_dijkstra(
    index: OfflineIndex, walkable: NDArray[np.bool_], start: Cell, goal: Cell
) -> None:
    result = index.find_path(start, goal)
    expected = find_path(walkable.copy(), start, goal, algorithm="dijkstra")
    context = f"{start} -> {goal}\n{ascii_grid(walkable, result.cells)}"
    assert (result.found, result.reason) == (expected.found, expected.reason), context
    if not expected.found:
        return
    assert math.isclose(result.cost, expected.cost, rel_tol=1e-12), context
    assert_legal_path(walkable, result.cells, start, goal, diagonal=True)
    assert result.cost == steps_cost(result.cells), context


def some_ends(walkable: NDArray[np.bool_], rng: np.random.Generator, count: int) -> list[Cell]:
    open_cells = np.argwhere(walkable)
    if not len(open_cells):
        return []
    picked = open_cells[rng.integers(len(open_cells), size=count)]
    return [(int(row), int(col)) for row, col in picked]


@st.composite
def edits(draw: st.DrawFn) -> tuple[NDArray[np.bool_], list[list[Cell]], int]:
    """A grid (random walls, a maze or rooms), rounds of cells to flip, and a seed for ends."""
    kind = draw(st.sampled_from(("random", "maze", "rooms")))
    height, width = draw(st.integers(2, 30)), draw(st.integers(2, 30))
    seed = draw(st.integers(0, 2**31))
    if kind == "random":
        density = draw(st.sampled_from((0.0, 0.15, 0.3, 0.45)))
        walkable = np.random.default_rng(seed).random((height, width)) >= density
    else:
        height, width = height + 8, width + 8
        walkable = generate_layout(kind, height, width, seed=seed, corridor=1, room=4)
    cell = st.tuples(st.integers(0, height - 1), st.integers(0, width - 1))
    rounds = draw(st.lists(st.lists(cell, min_size=1, max_size=6), min_size=1, max_size=5))
    return walkable, rounds, seed


@PROPERTY_SETTINGS
@given(
    case=edits(), landmarks=st.integers(1, 6), how=st.sampled_from(("cells", "box", "difference"))
)
def test_after_random_edits_every_answer_costs_what_dijkstra_costs(
    case: tuple[NDArray[np.bool_], list[list[Cell]], int], landmarks: int, how: str
) -> None:
    walkable, rounds, seed = case
    index = OfflineIndex.build(walkable, landmarks=landmarks)
    rng = np.random.default_rng(seed)
    edited = walkable.copy()
    for flips in rounds:
        for cell in flips:
            edited[cell] = not edited[cell]
        if how == "box":
            rows, cols = [row for row, _ in flips], [col for _, col in flips]
            index.update(edited, box=((min(rows), min(cols)), (max(rows), max(cols))))
        else:
            index.update(edited, flips if how == "cells" else None)
        assert lipschitz_violations(index) == 0, ascii_grid(edited)
        assert index.entries.tobytes() == JumpTable.build(edited).entries.tobytes()
        ends = some_ends(edited, rng, 6)
        for start, goal in zip(ends[::2], ends[1::2], strict=True):
            assert_like_dijkstra(index, edited, start, goal)


def test_opening_a_wall_lowers_the_fields_and_the_path_takes_the_gap() -> None:
    walkable = np.ones((9, 9), dtype=bool)
    walkable[:, 4] = False  # two halves: the fields of one half cannot reach the other
    index = OfflineIndex.build(walkable, landmarks=3)
    assert (index.fields[np.flatnonzero(~walkable.ravel())] == FIELD_NONE).all()
    assert not index.find_path((4, 0), (4, 8)).found
    walkable[4, 4] = True
    index.update(walkable, [(4, 4)])
    assert index.last_lowered > 0
    assert lipschitz_violations(index) == 0
    # Every walkable cell is reached again, through the gap.
    assert (index.fields[np.flatnonzero(walkable.ravel())] < FIELD_NONE).all()
    assert round(index.find_path((4, 0), (4, 8)).cost, 9) == 8.0


def test_closing_cells_keeps_the_fields_as_they_were() -> None:
    walkable = generate_layout("rooms", 40, 40, seed=2, room=5)
    index = OfflineIndex.build(walkable, landmarks=4)
    before = index.fields.copy()
    rng = np.random.default_rng(2)
    closed = some_ends(walkable, rng, 10)
    for cell in closed:
        walkable[cell] = False
    index.update(walkable, closed)
    assert np.array_equal(index.fields, before)  # still a valid bound: nothing to do
    assert index.last_lowered == 0
    assert lipschitz_violations(index) == 0


def test_a_field_is_a_lower_bound_of_the_distance_in_its_units() -> None:
    walkable = generate_layout("maze", 30, 30, seed=5, corridor=1)
    index = OfflineIndex.build(walkable, landmarks=2)
    landmark = index.landmark_cells[0]
    width = walkable.shape[1]
    for cell in np.flatnonzero(walkable.ravel())[::7]:
        exact = find_path(
            walkable, divmod(landmark, width), divmod(int(cell), width), algorithm="dijkstra"
        ).cost
        assert index.fields[cell, 0] <= exact * index.unit_cells
        assert math.isclose(index.heuristic(int(cell), landmark), exact, rel_tol=1e-3)


def test_the_landmark_heuristic_expands_fewer_jump_points_than_the_table_alone() -> None:
    walkable = generate_layout("maze", 101, 101, seed=7, corridor=1)
    index, table = OfflineIndex.build(walkable), JumpTable.build(walkable)
    rng = np.random.default_rng(7)
    ends = some_ends(walkable, rng, 40)
    ours = theirs = 0
    for start, goal in zip(ends[::2], ends[1::2], strict=True):
        result, plain = index.find_path(start, goal), table.find_path(start, goal)
        assert result.cost == pytest.approx(plain.cost, rel=1e-12)
        ours, theirs = ours + result.expanded, theirs + plain.expanded
    assert ours < theirs / 2


def test_an_edited_array_gets_no_answer_from_an_old_index() -> None:
    walkable = np.ones((5, 7), dtype=bool)
    walkable[0:4, 3] = False
    index = OfflineIndex.build(walkable, landmarks=2)
    assert index.search_if_matches(7, 13, walkable) is not None
    walkable[1, 3] = True
    assert index.search_if_matches(7, 13, walkable) is None


def test_storage_of_a_512_map_stays_within_16_mb() -> None:
    index = OfflineIndex.build(np.ones((512, 512), dtype=bool))
    assert index.nbytes <= 16 * 2**20
    assert index.nbytes == JumpTable.build(np.ones((512, 512), dtype=bool)).nbytes + 512 * 512 * 44


def test_bad_landmark_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="landmarks must be 1 to 32"):
        OfflineIndex.build(np.ones((3, 3), dtype=bool), landmarks=0)


# One map of each kind where jumps are short (the landmarks' case) and one open map.
MAP_NAMES = ("maze512-2-0", "random512-40-0", "8room_000", "AR0011SR")
MAP_PATHS = [path for name in MAP_NAMES if (path := movingai_dir() / f"{name}.map").exists()]


@pytest.mark.skipif(not MAP_PATHS, reason="no Moving AI maps ($MOVINGAI_DIR)")
@pytest.mark.parametrize("map_path", MAP_PATHS, ids=lambda p: p.stem)
def test_movingai_maps_get_the_published_optimum(map_path: Path) -> None:
    walkable = read_map(map_path).walkable
    index = OfflineIndex.build(walkable)
    scenarios = sample_scenarios(read_scenarios(map_path.with_name(map_path.name + ".scen")), 8, 0)
    for scenario in scenarios:
        result = index.find_path(scenario.start, scenario.goal)
        assert scenario.accepts(result.cost), scenario
        assert result.cost == steps_cost(result.cells)


def test_short_jumps_scan_and_long_jumps_read_the_table_with_the_same_costs() -> None:
    maze = generate_layout("maze", 61, 61, seed=4, corridor=1)
    open_map = np.ones((61, 61), dtype=bool)
    open_map[10:50, 30] = False
    for walkable, scans in ((maze, True), (open_map, False)):
        index = OfflineIndex.build(walkable)
        assert index.scans is scans
        rng = np.random.default_rng(4)
        ends = some_ends(walkable, rng, 20)
        for start, goal in zip(ends[::2], ends[1::2], strict=True):
            assert_like_dijkstra(index, walkable, start, goal)


def integer_dijkstra(
    walkable: NDArray[np.bool_], source: int, straight: int, diagonal: int
) -> list[int]:
    """The reference: Dijkstra in integer units under the Moving AI rule, FIELD_NONE unreached."""
    height, width = walkable.shape
    best = [FIELD_NONE] * walkable.size
    best[source] = 0
    frontier = [(0, source)]
    while frontier:
        value, cell = heapq.heappop(frontier)
        if value != best[cell]:
            continue
        row, col = divmod(cell, width)
        for d_row in (-1, 0, 1):
            for d_col in (-1, 0, 1):
                n_row, n_col = row + d_row, col + d_col
                if (d_row, d_col) == (0, 0) or not (0 <= n_row < height and 0 <= n_col < width):
                    continue
                if not walkable[n_row, n_col]:
                    continue
                if d_row and d_col and not (walkable[row, n_col] and walkable[n_row, col]):
                    continue
                new_value = value + (diagonal if d_row and d_col else straight)
                if new_value < best[n_row * width + n_col]:
                    best[n_row * width + n_col] = new_value
                    heapq.heappush(frontier, (new_value, n_row * width + n_col))
    return best


@pytest.mark.parametrize("seed", range(4))
def test_built_fields_are_exact_integer_dijkstras_from_their_landmarks(seed: int) -> None:
    walkable = np.random.default_rng(seed).random((23, 31)) >= 0.3
    index = OfflineIndex.build(walkable, landmarks=3)
    diagonal = math.floor(index.unit_cells * math.sqrt(2.0))
    for column, landmark in enumerate(index.landmark_cells):
        expected = integer_dijkstra(walkable, landmark, index.unit_cells, diagonal)
        assert index.fields[:, column].tolist() == expected


@PROPERTY_SETTINGS
@given(case=edits(), landmarks=st.integers(1, 6))
def test_the_compiled_scan_with_integer_fields_equals_its_python_reference(
    case: tuple[NDArray[np.bool_], list[list[Cell]], int], landmarks: int
) -> None:
    walkable, rounds, seed = case
    index = OfflineIndex.build(walkable, landmarks=landmarks)
    index.scans = JPS_AVAILABLE  # the compiled block scan with the fields, on any map
    rng = np.random.default_rng(seed)
    edited = walkable.copy()
    for flips in [[], *rounds]:  # as built, then repaired (fields lowered round opened cells)
        for cell in flips:
            edited[cell] = not edited[cell]
        index.update(edited, flips)
        width = edited.shape[1]
        ends = some_ends(edited, rng, 8)
        for start, goal in zip(ends[::2], ends[1::2], strict=False):
            c = path_result(index.search(start[0] * width + start[1], goal[0] * width + goal[1]))
            python = JumpPointSearch(edited, start, goal, landmarks=index.reference_fields()).run()
            context = f"{start} -> {goal}\n{ascii_grid(edited, c.cells)}"
            assert (c.found, c.cells, c.cost, c.expanded) == (
                python.found,
                python.cells,
                python.cost,
                python.expanded,
            ), context
