"""Jump tables (JPS+): Dijkstra's costs, repairs equal to fresh builds, never a stale answer.

Dijkstra here is ``find_path(algorithm="dijkstra")``; "like Dijkstra" means the same found and
reason, a cost within 1e-12 of its cost, a legal path, and a cost that is the path's steps summed
from the start (so equal paths cost the same to the last bit).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import find_path, read_map, read_scenarios
from sim.navigation.maps.generators import generate_layout
from sim.navigation.maps.movingai import sample_scenarios
from sim.navigation.query import Reason
from sim.navigation.searches import jump_cache, landmarks
from sim.navigation.searches.jump_table import JUMP_TABLE_AVAILABLE, JumpTable
from tests.helpers.grids import ascii_grid, grid
from tests.helpers.oracles import assert_legal_path, steps_cost
from tests.helpers.paths import movingai_dir
from tests.helpers.problems import PROPERTY_SETTINGS, Problem, problems

pytestmark = pytest.mark.skipif(
    not JUMP_TABLE_AVAILABLE, reason="sim.navigation.searches._jump_table not built"
)

Cell = tuple[int, int]


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    jump_cache.forget()
    landmarks.forget()
    yield
    jump_cache.forget()
    landmarks.forget()


def assert_like_dijkstra(
    table: JumpTable, walkable: NDArray[np.bool_], start: Cell, goal: Cell
) -> None:
    result = table.find_path(start, goal)
    expected = find_path(walkable.copy(), start, goal, algorithm="dijkstra")
    context = f"{start} -> {goal}\n{ascii_grid(walkable, result.cells)}"
    assert (result.found, result.reason) == (expected.found, expected.reason), context
    if not expected.found:
        assert (result.cells, result.cost) == ((), math.inf), context
        return
    assert math.isclose(result.cost, expected.cost, rel_tol=1e-12), context
    assert_legal_path(walkable, result.cells, start, goal, diagonal=True)
    assert result.cost == steps_cost(result.cells), context


def random_ends(walkable: NDArray[np.bool_], rng: np.random.Generator) -> tuple[Cell, Cell]:
    open_cells = np.argwhere(walkable)
    start, goal = open_cells[rng.integers(len(open_cells), size=2)]
    return (int(start[0]), int(start[1])), (int(goal[0]), int(goal[1]))


@PROPERTY_SETTINGS
@given(problem=problems(with_costs=False))
def test_random_grids_cost_what_dijkstra_costs(problem: Problem) -> None:
    table = JumpTable.build(problem.walkable)
    assert_like_dijkstra(table, problem.walkable, problem.start, problem.goal)


@PROPERTY_SETTINGS
@given(
    kind=st.sampled_from(("maze", "rooms")),
    corridor=st.integers(1, 3),
    room=st.integers(2, 6),
    side=st.integers(12, 40),
    seed=st.integers(0, 2**31),
)
def test_mazes_and_rooms_cost_what_dijkstra_costs(
    kind: str, corridor: int, room: int, side: int, seed: int
) -> None:
    walkable = generate_layout(kind, side, side + 5, seed=seed, corridor=corridor, room=room)
    table = JumpTable.build(walkable)
    rng = np.random.default_rng(seed)
    for _ in range(4):
        assert_like_dijkstra(table, walkable, *random_ends(walkable, rng))


MAP_PATHS = sorted(movingai_dir().glob("*.map"))


@pytest.mark.skipif(not MAP_PATHS, reason="no Moving AI maps ($MOVINGAI_DIR)")
@pytest.mark.parametrize("map_path", MAP_PATHS, ids=lambda p: p.stem)
def test_movingai_maps_get_the_published_optimum(map_path: Path) -> None:
    walkable = read_map(map_path).walkable
    table = JumpTable.build(walkable)
    scenarios = sample_scenarios(read_scenarios(map_path.with_name(map_path.name + ".scen")), 8, 0)
    for scenario in scenarios:
        result = table.find_path(scenario.start, scenario.goal)
        jps = find_path(walkable, scenario.start, scenario.goal, algorithm="jps")
        assert scenario.accepts(result.cost), scenario
        assert math.isclose(result.cost, jps.cost, rel_tol=1e-12), scenario
        assert result.cost == steps_cost(result.cells)


@st.composite
def edits(draw: st.DrawFn) -> tuple[NDArray[np.bool_], list[list[Cell]]]:
    """A grid and a few rounds of cells to flip."""
    height, width = draw(st.integers(1, 30)), draw(st.integers(1, 30))
    seed = draw(st.integers(0, 2**31))
    density = draw(st.sampled_from((0.0, 0.15, 0.3, 0.5)))
    walkable = np.random.default_rng(seed).random((height, width)) >= density
    cell = st.tuples(st.integers(0, height - 1), st.integers(0, width - 1))
    rounds = draw(st.lists(st.lists(cell, min_size=1, max_size=5), min_size=1, max_size=4))
    return walkable, rounds


@PROPERTY_SETTINGS
@given(case=edits(), how=st.sampled_from(("cells", "box", "difference")))
def test_a_repaired_table_equals_a_fresh_build_byte_for_byte(
    case: tuple[NDArray[np.bool_], list[list[Cell]]], how: str
) -> None:
    walkable, rounds = case
    table = JumpTable.build(walkable)
    edited = walkable.copy()
    for flips in rounds:
        for cell in flips:
            edited[cell] = not edited[cell]
        if how == "cells":
            table.update(edited, flips)
        elif how == "box":
            rows = [row for row, _ in flips]
            cols = [col for _, col in flips]
            table.update(edited, box=((min(rows), min(cols)), (max(rows), max(cols))))
        else:
            table.update(edited)
        fresh = JumpTable.build(edited)
        assert table.entries.tobytes() == fresh.entries.tobytes(), ascii_grid(edited)
        assert table.matches(edited)


@pytest.mark.parametrize("kind", ["rooms", "random", "maze"])
def test_a_cube_walked_over_a_map_leaves_a_table_equal_to_a_fresh_build(kind: str) -> None:
    walkable = generate_layout(kind, 60, 70, seed=11, room=5, density=0.2)
    table = JumpTable.build(walkable)
    rng = np.random.default_rng(11)
    for _ in range(60):
        (row, col), _ = random_ends(walkable, rng)
        step = [(row + d_row, col + d_col) for d_row, d_col in ((0, 1), (1, 0), (0, -1), (-1, 0))]
        inside = [c for c in step if 0 <= c[0] < 60 and 0 <= c[1] < 70 and not walkable[c]]
        if not inside:
            continue
        blocked = inside[0]
        walkable[row, col], walkable[blocked] = False, True  # a cube steps onto an open cell
        table.update(walkable, [(row, col), blocked])
        assert table.entries.tobytes() == JumpTable.build(walkable).entries.tobytes()


def test_a_cube_step_rewrites_only_the_lines_it_reaches() -> None:
    walkable = generate_layout("random", 200, 200, seed=3, density=0.2)
    table = JumpTable.build(walkable)
    walkable[100, 100], walkable[100, 101] = True, False
    written = table.update(walkable, [(100, 100), (100, 101)])
    assert 0 < written < walkable.size * 8 // 10
    assert table.entries.tobytes() == JumpTable.build(walkable).entries.tobytes()


def test_update_reads_only_the_cells_it_is_given() -> None:
    walkable = np.ones((6, 6), dtype=bool)
    table = JumpTable.build(walkable)
    walkable[2, 2] = walkable[4, 4] = False
    assert table.update(walkable, [(2, 2)]) > 0
    assert not table.matches(walkable)  # (4, 4) was not given: the table still has it open
    table.update(walkable, box=((4, 4), (4, 4)))
    assert table.matches(walkable)


WALL_WITH_A_GAP = grid(
    """
    .......
    ...#...
    ...#...
    ...#...
    .......
    """
)


def test_an_edited_array_gets_no_answer_from_an_old_table() -> None:
    walkable = WALL_WITH_A_GAP.copy()
    table = JumpTable.build(walkable)
    width = walkable.shape[1]
    assert table.search_if_matches(1 * width + 0, 1 * width + 6, walkable) is not None
    walkable[2, 3] = True  # a shortcut through the wall: the table would miss it
    assert table.search_if_matches(1 * width + 0, 1 * width + 6, walkable) is None


def test_the_table_answers_for_its_own_copy_whatever_the_array_does() -> None:
    walkable = WALL_WITH_A_GAP.copy()
    table = JumpTable.build(walkable)
    before = table.find_path((2, 0), (2, 6))
    walkable[:, 3] = False  # the caller's array changes; the table holds its copy
    assert table.find_path((2, 0), (2, 6)) == before
    table.update(walkable)
    assert table.find_path((2, 0), (2, 6)).reason is Reason.UNREACHABLE


def test_the_cache_repairs_its_table_after_in_place_edits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jump_cache, "BUILD_NS_PER_CELL", 0.0)  # the first query pays for it
    monkeypatch.setattr(jump_cache, "SWITCH_AFTER_QUERIES", 0)  # and the table answers at once
    walkable = WALL_WITH_A_GAP.copy()
    height, width = walkable.shape
    start, goal = 2 * width + 0, 2 * width + 6

    def cost() -> float:
        return jump_cache.search(walkable, height, width, start, goal)[2]

    around = find_path(walkable.copy(), (2, 0), (2, 6), algorithm="dijkstra").cost
    assert cost() == pytest.approx(around)
    table = jump_cache.table_of(walkable)
    assert table is not None
    built = jump_cache.preprocessing_s()
    assert built > 0
    walkable[2, 3] = True  # opened in place: the straight way, 6
    assert cost() == 6.0
    assert jump_cache.table_of(walkable) is table  # repaired, not rebuilt
    assert jump_cache.preprocessing_s() > built  # the repair is counted as preprocessing
    walkable[2, 3] = False
    assert cost() == pytest.approx(around)
    assert jump_cache.storage_bytes() == table.nbytes


def test_find_path_answers_from_a_table_on_an_open_map_and_stays_right_after_edits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jump_cache, "BUILD_NS_PER_CELL", 0.0)
    monkeypatch.setattr(jump_cache, "SWITCH_AFTER_QUERIES", 0)
    walkable = generate_layout("random", 256, 256, seed=5, density=0.02)
    rng = np.random.default_rng(5)
    for _ in range(landmarks.PROBE_QUERIES + 1):
        find_path(walkable, *random_ends(walkable, rng))
    assert jump_cache.table_of(walkable) is not None  # few expansions: no fields, a table
    for _ in range(10):
        start, goal = random_ends(walkable, rng)
        result = find_path(walkable, start, goal)
        assert result.found
        middle = result.cells[len(result.cells) // 2]
        if middle not in (start, goal):
            walkable[middle] = False  # a cube lands on the path just found
        start, goal = random_ends(walkable, rng)
        expected = find_path(walkable.copy(), start, goal, algorithm="dijkstra")
        assert math.isclose(find_path(walkable, start, goal).cost, expected.cost, rel_tol=1e-12)


def test_only_the_moving_ai_rule_is_taken() -> None:
    with pytest.raises(ValueError, match="no-corner-cutting rule only"):
        JumpTable.build(np.ones((3, 3), dtype=bool), diagonal="always")


def test_bad_updates_are_refused() -> None:
    table = JumpTable.build(np.ones((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="the table"):
        table.update(np.ones((3, 4), dtype=bool))
    with pytest.raises(ValueError, match=r"cell \(3, 0\) lies outside the 3x3 grid"):
        table.update(np.ones((3, 3), dtype=bool), [(3, 0)])


def test_a_512_map_costs_16_bytes_and_a_bit_a_cell() -> None:
    table = JumpTable.build(np.ones((512, 512), dtype=bool))
    assert table.nbytes == 512 * 512 * 17 <= 16 * 2**20


def test_plain_and_numpy_cells_get_the_same_answer_and_the_same_reasons() -> None:
    walkable = WALL_WITH_A_GAP.copy()
    table = JumpTable.build(walkable)
    plain = table.find_path((1, 0), (1, 6))
    numpy_start: Any = (np.int64(1), np.int64(0))
    list_goal: Any = [1, 6]
    assert table.find_path(numpy_start, list_goal) == plain
    assert table.find_path((1, 0), (1, 3)).reason is Reason.GOAL_BLOCKED
    assert table.find_path((1, 0), (9, 9)).reason is Reason.GOAL_OUTSIDE
    with pytest.raises(ValueError, match="outside"):
        table.find_path((9, 0), (1, 6))


def test_the_table_takes_over_at_a_counted_query_whatever_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The rent is counted from calls and expansions, and the thread's table answers a fixed
    # number of queries after the rent is paid: two runs of the same queries switch at the
    # same one, so a run's paths never depend on how fast the build or the machine was.
    monkeypatch.setattr(jump_cache, "SWITCH_AFTER_QUERIES", 5)
    walkable = generate_layout("random", 64, 64, seed=3, density=0.05)
    height, width = walkable.shape
    price = jump_cache.BUILD_NS_PER_CELL * walkable.size
    rng = np.random.default_rng(3)
    pairs = [random_ends(walkable, rng) for _ in range(400)]
    switches = []
    for _ in range(2):
        jump_cache.forget()
        array = walkable.copy()
        rent = 0.0
        paid_at = None
        answered = []
        for index, (start, goal) in enumerate(pairs):
            flat_start, flat_goal = start[0] * width + start[1], goal[0] * width + goal[1]
            found = jump_cache.search(array, height, width, flat_start, flat_goal)
            answered.append(jump_cache.table_of(array) is not None)
            if paid_at is None:
                rent += jump_cache.RENT_NS_PER_QUERY + jump_cache.RENT_NS_PER_EXPANSION * found[3]
                if rent >= price:
                    paid_at = index
        assert paid_at is not None
        assert paid_at + 6 < len(pairs)
        # Queries paid_at+1 .. paid_at+4 still search plainly; the fifth after it takes over.
        assert answered.index(True) == paid_at + 5
        switches.append(answered.index(True))
    assert switches[0] == switches[1]
