"""Why no path under each diagonal rule, against brute force with a rule-aware flood fill.

For every rule on seeded small random grids: the fix cells are blocked, opening them joins the
ends under that rule, and no smaller set of blocked cells does (every subset tried). The flood
fill here applies each rule's corner test afresh, sharing no code with `sim.navigation`.
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule
from sim.navigation.regions.explain import explain_no_path
from tests.helpers.grids import opened

Cell = tuple[int, int]
ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
# How many of a diagonal step's two corners must be walkable; None: no diagonal steps.
CORNERS_NEEDED = {"never": None, "no-corner-cutting": 2, "one-obstacle": 1, "always": 0}
RULES = tuple(CORNERS_NEEDED)


def flood(walkable: NDArray[np.bool_], start: Cell, rule: str) -> set[Cell]:
    """Cells reachable from walkable `start` by the steps `rule` allows."""
    height, width = walkable.shape
    if not walkable[start]:
        return set()
    needed = CORNERS_NEEDED[rule]
    steps = ORTHOGONAL + (() if needed is None else DIAGONAL)
    seen, frontier = {start}, deque([start])
    while frontier:
        row, col = frontier.popleft()
        for d_row, d_col in steps:
            near = (row + d_row, col + d_col)
            if not (0 <= near[0] < height and 0 <= near[1] < width) or near in seen:
                continue
            if not walkable[near]:
                continue
            if d_row and d_col:
                corners = int(walkable[row + d_row, col]) + int(walkable[row, col + d_col])
                if needed is not None and corners < needed:
                    continue
            seen.add(near)
            frontier.append(near)
    return seen


def joins(
    walkable: NDArray[np.bool_], cells: tuple[Cell, ...], start: Cell, goal: Cell, rule: str
) -> bool:
    return goal in flood(opened(walkable, cells), start, rule)


def fewest_by_brute_force(walkable: NDArray[np.bool_], start: Cell, goal: Cell, rule: str) -> int:
    blocked = [(int(r), int(c)) for r, c in zip(*np.nonzero(~walkable), strict=True)]
    for size in range(len(blocked) + 1):
        for cells in itertools.combinations(blocked, size):
            if joins(walkable, cells, start, goal, rule):
                return size
    raise AssertionError("opening every cell must join the ends")


def random_problem(seed: int, size: int, density: float) -> tuple[NDArray[np.bool_], Cell, Cell]:
    rng = np.random.default_rng(seed)
    height, width = rng.integers(2, size + 1, size=2)
    walkable = rng.random((height, width)) >= density
    start = (int(rng.integers(height)), int(rng.integers(width)))
    goal = (int(rng.integers(height)), int(rng.integers(width)))
    return walkable, start, goal


SEEDS = range(40)
CASES = [pytest.param(rule, seed, id=f"{rule}-seed{seed}") for rule in RULES for seed in SEEDS]


@pytest.mark.parametrize(("rule", "seed"), CASES)
def test_fix_is_blocked_joins_the_ends_and_is_the_fewest(rule: str, seed: int) -> None:
    # Dense grids, so "always" often joins what the others keep apart and the fixes differ.
    walkable, start, goal = random_problem(seed + 5000, size=5, density=0.55)
    why = explain_no_path(walkable, start, goal, diagonal=rule)
    assert len(set(why.fix_cells)) == len(why.fix_cells)
    assert all(not walkable[cell] for cell in why.fix_cells)
    assert joins(walkable, why.fix_cells, start, goal, rule)
    assert len(why.fix_cells) == fewest_by_brute_force(walkable, start, goal, rule)
    assert why.connected == joins(walkable, (), start, goal, rule)


@pytest.mark.parametrize(("rule", "seed"), CASES)
def test_regions_are_the_rules_flood_fills(rule: str, seed: int) -> None:
    walkable, start, goal = random_problem(seed + 6000, size=12, density=0.5)
    why = explain_no_path(walkable, start, goal, diagonal=DiagonalRule(rule))
    for cell, mask, count in (
        (start, why.start_region, why.start_region_cells),
        (goal, why.goal_region, why.goal_region_cells),
    ):
        region = flood(walkable, cell, rule)
        assert count == len(region)
        assert {(int(r), int(c)) for r, c in zip(*np.nonzero(mask), strict=True)} == region


def test_the_rules_differ_where_the_module_docstring_says() -> None:
    # A diagonal of walkable cells across blocked corners: joined only under "always".
    walkable = np.eye(4, dtype=bool)
    answers = {
        rule: explain_no_path(walkable, (0, 0), (3, 3), diagonal=rule).fix_cells for rule in RULES
    }
    assert answers["always"] == ()
    assert len(answers["never"]) == len(answers["one-obstacle"]) == 3
    assert answers["never"] == answers["no-corner-cutting"] == answers["one-obstacle"]


def test_always_crosses_a_wall_on_the_diagonal() -> None:
    # A wall two cells thick across the anti-diagonal: orthogonal steps cross two of its
    # cells, a diagonal step crosses it through one.
    rows, cols = np.indices((6, 6))
    walkable = ~((rows + cols >= 5) & (rows + cols <= 6))
    always = explain_no_path(walkable, (0, 0), (5, 5), diagonal="always")
    assert always.fix_cells == ((3, 3),)
    assert (always.start_region_cells, always.goal_region_cells) == (15, 10)
    assert len(explain_no_path(walkable, (0, 0), (5, 5), diagonal="never").fix_cells) == 2


def test_many_regions_merge_under_always() -> None:
    # A checkerboard: every walkable cell its own 4-connected region, all one 8-connected one.
    rows, cols = np.indices((64, 64))
    walkable = (rows + cols) % 2 == 0
    why = explain_no_path(walkable, (0, 0), (63, 63), diagonal="always")
    assert why.connected
    assert why.start_region_cells == int(walkable.sum())
    apart = explain_no_path(walkable, (0, 0), (63, 63), diagonal="one-obstacle")
    assert apart.start_region_cells == 1
    assert len(apart.fix_cells) == 63
