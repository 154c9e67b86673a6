"""Why no path (`explain_no_path`) against brute force and independent flood fills.

Seeded random grids: small ones (up to 6 x 6) where every subset of blocked cells can be
tried, larger ones against a textbook deque 0-1 search. Each flood fill here is written
afresh, so none shares code with the regions it checks.
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest
from numpy.typing import NDArray

from sim.navigation.regions.explain import NoPathExplanation, explain_no_path
from tests.helpers.grids import opened

Cell = tuple[int, int]
ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def flood(walkable: NDArray[np.bool_], start: Cell, *, diagonal: bool) -> set[Cell]:
    """Cells reachable from walkable `start`; diagonals need both orthogonal cells walkable."""
    height, width = walkable.shape
    if not walkable[start]:
        return set()
    seen, frontier = {start}, deque([start])
    while frontier:
        row, col = frontier.popleft()
        steps = ORTHOGONAL + (DIAGONAL if diagonal else ())
        for d_row, d_col in steps:
            near = (row + d_row, col + d_col)
            if not (0 <= near[0] < height and 0 <= near[1] < width) or near in seen:
                continue
            if not walkable[near]:
                continue
            if d_row and d_col and not (walkable[row + d_row, col] and walkable[row, col + d_col]):
                continue
            seen.add(near)
            frontier.append(near)
    return seen


def joined(walkable: NDArray[np.bool_], start: Cell, goal: Cell, *, diagonal: bool) -> bool:
    return goal in flood(walkable, start, diagonal=diagonal)


def fewest_by_brute_force(
    walkable: NDArray[np.bool_], start: Cell, goal: Cell, *, diagonal: bool
) -> int:
    """The size of the smallest set of blocked cells whose opening joins the ends."""
    blocked = [(int(r), int(c)) for r, c in zip(*np.nonzero(~walkable), strict=True)]
    for size in range(len(blocked) + 1):
        for cells in itertools.combinations(blocked, size):
            if joined(opened(walkable, cells), start, goal, diagonal=diagonal):
                return size
    raise AssertionError("opening every cell must join the ends")


def zero_one_cost(walkable: NDArray[np.bool_], start: Cell, goal: Cell) -> int:
    """Textbook 0-1 BFS with a deque: entering a blocked cell costs 1 (the start included)."""
    height, width = walkable.shape
    best = {start: 0 if walkable[start] else 1}
    frontier = deque([start])
    while frontier:
        cell = frontier.popleft()
        for d_row, d_col in ORTHOGONAL:
            near = (cell[0] + d_row, cell[1] + d_col)
            if not (0 <= near[0] < height and 0 <= near[1] < width):
                continue
            step = 0 if walkable[near] else 1
            if best[cell] + step < best.get(near, height * width + 1):
                best[near] = best[cell] + step
                if step:
                    frontier.append(near)
                else:
                    frontier.appendleft(near)
    return best[goal]


def random_problem(seed: int, size: int, density: float) -> tuple[NDArray[np.bool_], Cell, Cell]:
    rng = np.random.default_rng(seed)
    height, width = rng.integers(2, size + 1, size=2)
    walkable = rng.random((height, width)) >= density
    start = (int(rng.integers(height)), int(rng.integers(width)))
    goal = (int(rng.integers(height)), int(rng.integers(width)))
    return walkable, start, goal


def assert_fix_is_sound(
    walkable: NDArray[np.bool_], start: Cell, goal: Cell, why: NoPathExplanation
) -> None:
    assert len(set(why.fix_cells)) == len(why.fix_cells)
    assert all(not walkable[cell] for cell in why.fix_cells)
    fixed = opened(walkable, why.fix_cells)
    assert joined(fixed, start, goal, diagonal=False)
    assert joined(fixed, start, goal, diagonal=True)


SMALL_SEEDS = range(60)


@pytest.mark.parametrize("seed", SMALL_SEEDS, ids=[f"seed{seed}" for seed in SMALL_SEEDS])
def test_fix_is_the_fewest_blocked_cells_that_join_the_ends(seed: int) -> None:
    walkable, start, goal = random_problem(seed, size=6, density=0.45)
    why = explain_no_path(walkable, start, goal)
    assert_fix_is_sound(walkable, start, goal, why)
    assert len(why.fix_cells) == fewest_by_brute_force(walkable, start, goal, diagonal=False)
    assert why.connected == joined(walkable, start, goal, diagonal=False)


@pytest.mark.parametrize("seed", SMALL_SEEDS, ids=[f"seed{seed}" for seed in SMALL_SEEDS])
def test_eight_connected_fewest_equals_four_connected(seed: int) -> None:
    # The module docstring's argument, checked: no corner cutting adds no cheaper fix.
    walkable, start, goal = random_problem(seed + 1000, size=5, density=0.5)
    eight = fewest_by_brute_force(walkable, start, goal, diagonal=True)
    assert eight == fewest_by_brute_force(walkable, start, goal, diagonal=False)
    assert len(explain_no_path(walkable, start, goal, diagonal=True).fix_cells) == eight
    assert len(explain_no_path(walkable, start, goal, diagonal=False).fix_cells) == eight


LARGE_SEEDS = range(40)


@pytest.mark.parametrize("seed", LARGE_SEEDS, ids=[f"seed{seed}" for seed in LARGE_SEEDS])
def test_fix_size_matches_a_deque_zero_one_search(seed: int) -> None:
    walkable, start, goal = random_problem(seed + 2000, size=40, density=0.55)
    why = explain_no_path(walkable, start, goal)
    assert_fix_is_sound(walkable, start, goal, why)
    assert len(why.fix_cells) == zero_one_cost(walkable, start, goal)


@pytest.mark.parametrize("seed", LARGE_SEEDS, ids=[f"seed{seed}" for seed in LARGE_SEEDS])
def test_regions_match_a_flood_fill(seed: int) -> None:
    walkable, start, goal = random_problem(seed + 3000, size=30, density=0.4)
    why = explain_no_path(walkable, start, goal)
    for cell, mask, count in (
        (start, why.start_region, why.start_region_cells),
        (goal, why.goal_region, why.goal_region_cells),
    ):
        region = flood(walkable, cell, diagonal=True)
        assert region == flood(walkable, cell, diagonal=False)
        assert count == len(region) == int(mask.sum())
        assert {(int(r), int(c)) for r, c in zip(*np.nonzero(mask), strict=True)} == region


def test_walled_in_goal_gets_the_thinnest_crossing() -> None:
    walkable = np.ones((9, 9), dtype=bool)
    walkable[2:7, 2:7] = False  # a ring two cells thick round (4, 4), thinner on the right
    walkable[4, 4:6] = True
    why = explain_no_path(walkable, (0, 0), (4, 4))
    assert why.fix_cells == ((4, 6),)
    assert (why.start_region_cells, why.goal_region_cells) == (81 - 25, 2)
    assert not why.connected


def test_connected_ends_need_no_fix() -> None:
    walkable = np.ones((3, 4), dtype=bool)
    walkable[1, 1:3] = False
    why = explain_no_path(walkable, (0, 0), (2, 3))
    assert why.connected
    assert why.fix_cells == ()
    assert why.start_region_cells == why.goal_region_cells == 10
    assert np.array_equal(why.start_region, why.goal_region)


def test_blocked_goal_is_part_of_the_fix() -> None:
    walkable = np.ones((1, 5), dtype=bool)
    walkable[0, 2:] = False
    why = explain_no_path(walkable, (0, 0), (0, 4))
    assert why.fix_cells == ((0, 2), (0, 3), (0, 4))
    assert (why.start_region_cells, why.goal_region_cells) == (2, 0)
    assert not why.goal_region.any()


def test_blocked_start_on_the_goal_is_the_whole_fix() -> None:
    walkable = np.zeros((2, 2), dtype=bool)
    why = explain_no_path(walkable, (1, 1), (1, 1))
    assert why.fix_cells == ((1, 1),)
    assert (why.start_region_cells, why.goal_region_cells) == (0, 0)


def test_same_mask_same_fix() -> None:
    walkable, start, goal = random_problem(7, size=40, density=0.55)
    first = explain_no_path(walkable, start, goal).fix_cells
    assert explain_no_path(walkable.copy(), start, goal).fix_cells == first


def test_region_masks_are_read_only() -> None:
    why = explain_no_path(np.ones((2, 2), dtype=bool), (0, 0), (1, 1))
    with pytest.raises(ValueError, match="read-only"):
        why.start_region[0, 0] = False


@pytest.mark.parametrize(
    ("start", "goal", "diagonal", "message"),
    [
        pytest.param((3, 0), (0, 0), True, r"start \(3, 0\) lies outside", id="start-outside"),
        pytest.param((0, 0), (0, -1), True, r"goal \(0, -1\) lies outside", id="goal-outside"),
        pytest.param((0, 0), (1, 1), "corner", "diagonal must be True, False or one", id="rule"),
        pytest.param((0, 0), (1, 1), 1, "diagonal must be True, False or one", id="int-rule"),
        pytest.param((0, 0), (1.5, 1), True, "goal must be a", id="not-ints"),
    ],
)
def test_bad_input_is_refused(start: Cell, goal: Cell, diagonal: object, message: str) -> None:
    walkable = np.ones((3, 3), dtype=bool)
    with pytest.raises(ValueError, match=message):
        explain_no_path(walkable, start, goal, diagonal=diagonal)  # type: ignore[arg-type]


def test_mask_must_be_bool() -> None:
    with pytest.raises(ValueError, match="dtype bool"):
        explain_no_path(np.ones((3, 3)), (0, 0), (1, 1))  # type: ignore[arg-type]
