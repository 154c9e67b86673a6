"""The four diagonal rules: moves against a brute-force oracle, C == Python, A* optimal.

The oracle is written from the rules' words (`sim.navigation.diagonal`), cell by cell and
move by move, not from `MoveGraph`'s shifted masks or the C kernel's branches; the Dijkstra
here runs on that oracle's graph.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest

from sim.navigation import MoveGraph, find_path
from sim.navigation.diagonal import DIAGONAL_CHOICES, DiagonalRule, parse_diagonal
from sim.navigation.field import distance_field
from sim.navigation.grid import Cell
from sim.navigation.moves import DIRECTIONS
from sim.navigation.searches.kernel import KERNEL_AVAILABLE
from tests.helpers.grids import ascii_grid

SQRT2 = math.sqrt(2.0)
RULES = tuple(DiagonalRule)
SEEDS = range(40)

needs_kernel = pytest.mark.skipif(
    not KERNEL_AVAILABLE, reason="sim.navigation.searches._kernel not built"
)


def random_grid(seed: int) -> tuple[np.ndarray, np.ndarray | None]:
    """A seeded grid of 2 to 12 cells a side, 0 to 45 % blocked, costs on every other seed."""
    rng = np.random.default_rng(seed)
    height, width = (int(side) for side in rng.integers(2, 13, size=2))
    walkable = rng.random((height, width)) >= rng.uniform(0.0, 0.45)
    costs = None if seed % 2 else rng.choice([1.0, 1.0, 1.5, 2.0, 7.5], size=(height, width))
    return walkable, costs


def open_cells(walkable: np.ndarray) -> list[Cell]:
    """The walkable cells as plain ``(row, col)`` pairs, in row-major order."""
    return [(int(row), int(col)) for row, col in np.argwhere(walkable)]


def oracle_allows(
    walkable: np.ndarray, row: int, col: int, move: tuple[int, int], rule: str
) -> bool:
    """Whether `rule` allows `move` from (row, col), read straight from the rule's words."""
    height, width = walkable.shape
    d_row, d_col = move
    to_row, to_col = row + d_row, col + d_col

    def open_cell(r: int, c: int) -> bool:
        return 0 <= r < height and 0 <= c < width and bool(walkable[r, c])

    if not (open_cell(row, col) and open_cell(to_row, to_col)):
        return False
    if not (d_row and d_col):
        return True
    corners_open = [open_cell(row + d_row, col), open_cell(row, col + d_col)]
    if rule == "never":
        return False
    if rule == "no-corner-cutting":
        return all(corners_open)
    if rule == "one-obstacle":
        return any(corners_open)
    assert rule == "always"
    return True


def oracle_dijkstra(
    walkable: np.ndarray, costs: np.ndarray | None, start: tuple[int, int], rule: str
) -> dict[tuple[int, int], float]:
    """Every cell's least cost from `start` on the oracle's moves (entered cell's cost)."""
    best = {start: 0.0}
    frontier = [(0.0, start)]
    done: set[tuple[int, int]] = set()
    while frontier:
        cost, (row, col) = heapq.heappop(frontier)
        if (row, col) in done:
            continue
        done.add((row, col))
        for move in DIRECTIONS:
            if not oracle_allows(walkable, row, col, move, rule):
                continue
            cell = (row + move[0], col + move[1])
            length = SQRT2 if move[0] and move[1] else 1.0
            step = length * (1.0 if costs is None else float(costs[cell]))
            if cost + step < best.get(cell, math.inf):
                best[cell] = cost + step
                heapq.heappush(frontier, (cost + step, cell))
    return best


@pytest.mark.parametrize("rule", RULES, ids=str)
@pytest.mark.parametrize("seed", SEEDS)
def test_move_graph_matches_the_oracle(seed: int, rule: DiagonalRule) -> None:
    walkable, _ = random_grid(seed)
    graph = MoveGraph.build(walkable, diagonal=rule.value)
    height, width = walkable.shape
    for row in range(height):
        for col in range(width):
            bits = graph.legal[row * width + col]
            for bit, move in enumerate(DIRECTIONS):
                expected = oracle_allows(walkable, row, col, move, rule)
                assert bool(bits >> bit & 1) == expected, (
                    f"{rule} {(row, col)} {move}\n{ascii_grid(walkable)}"
                )


def test_the_rules_differ_on_one_and_two_blocked_corners() -> None:
    one = np.array([[1, 0], [1, 1]], dtype=bool)  # (0, 0) -> (1, 1) passes one blocked corner
    two = np.array([[1, 0], [0, 1]], dtype=bool)  # ... and here two
    found = {
        rule: (
            find_path(one, (0, 0), (1, 1), diagonal=rule, algorithm="astar").cost,
            find_path(two, (0, 0), (1, 1), diagonal=rule, algorithm="astar").found,
        )
        for rule in DIAGONAL_CHOICES
    }
    assert found == {
        "never": (2.0, False),
        "no-corner-cutting": (2.0, False),
        "one-obstacle": (SQRT2, False),
        "always": (SQRT2, True),
    }


@needs_kernel
@pytest.mark.parametrize("rule", RULES, ids=str)
@pytest.mark.parametrize("algorithm", ["astar", "dijkstra", "bfs", "greedy"])
@pytest.mark.parametrize("seed", SEEDS)
def test_c_and_python_agree_under_every_rule(seed: int, algorithm: str, rule: DiagonalRule) -> None:
    walkable, costs = random_grid(seed)
    cells = open_cells(walkable)
    if len(cells) < 2:
        return
    rng = np.random.default_rng(1000 + seed)
    for _ in range(4):
        start, goal = (cells[int(i)] for i in rng.integers(len(cells), size=2))
        # Fresh copies: the region cache would answer a repeat on one array without searching.
        c, python = (
            find_path(
                walkable.copy(),
                start,
                goal,
                diagonal=rule.value,
                algorithm=algorithm,
                costs=costs,
                implementation=implementation,
            )
            for implementation in ("c", "python")
        )
        assert c == python, f"{rule} {algorithm} {start}->{goal}\n{ascii_grid(walkable)}"


@pytest.mark.parametrize("rule", RULES, ids=str)
@pytest.mark.parametrize("implementation", ["python", pytest.param("c", marks=needs_kernel)])
@pytest.mark.parametrize("seed", SEEDS)
def test_astar_is_optimal_under_every_rule(
    seed: int, implementation: str, rule: DiagonalRule
) -> None:
    walkable, costs = random_grid(seed)
    cells = open_cells(walkable)
    if not cells:
        return
    rng = np.random.default_rng(2000 + seed)
    start = cells[int(rng.integers(len(cells)))]
    best = oracle_dijkstra(walkable, costs, start, rule)
    for goal in cells[:: max(1, len(cells) // 6)]:
        for algorithm in ("astar", "bidirectional", "auto"):
            if algorithm == "bidirectional" and implementation == "c":
                continue
            result = find_path(
                walkable,
                start,
                goal,
                diagonal=rule.value,
                costs=costs,
                algorithm=algorithm,
                implementation=implementation,
            )
            context = f"{rule} {algorithm} {start}->{goal}\n{ascii_grid(walkable, result.cells)}"
            if goal not in best:
                assert not result.found, context
                continue
            assert result.found, context
            assert result.cost == pytest.approx(best[goal], abs=1e-9), context
            steps = zip(result.cells, result.cells[1:], strict=False)
            for (r0, c0), (r1, c1) in steps:
                assert oracle_allows(walkable, r0, c0, (r1 - r0, c1 - c0), rule), context


@pytest.mark.parametrize("rule", RULES, ids=str)
@pytest.mark.parametrize("implementation", ["python", pytest.param("c", marks=needs_kernel)])
@pytest.mark.parametrize("seed", range(10))
def test_distance_field_under_every_rule(
    seed: int, implementation: str, rule: DiagonalRule
) -> None:
    walkable, costs = random_grid(seed)
    cells = open_cells(walkable)
    if not cells:
        return
    goal = cells[len(cells) // 2]
    field = distance_field(
        walkable, goal, diagonal=rule.value, costs=costs, implementation=implementation
    )
    # Moves are symmetric under every rule, so costs *to* the goal are costs *from* it with
    # the cost of the cell entered charged the other way: check reachability and the goal.
    best = oracle_dijkstra(walkable, None, goal, rule)
    reachable = {cell for cell in cells if math.isfinite(field[cell])}
    assert reachable == set(best), f"{rule}\n{ascii_grid(walkable)}"
    if costs is None:
        for cell, cost in best.items():
            assert field[cell] == pytest.approx(cost, abs=1e-9)


@pytest.mark.parametrize("value", [True, False, *DIAGONAL_CHOICES, np.bool_(True)])
def test_parse_diagonal_takes_the_rules_and_bools(value: object) -> None:
    rule = parse_diagonal(value)
    if isinstance(value, str):
        assert rule.value == value
    else:
        assert rule is (DiagonalRule.NO_CORNER_CUTTING if value else DiagonalRule.NEVER)


@pytest.mark.parametrize("value", ["diagonal", "Always", "", None, 2, 1, 0, 1.0])
def test_unknown_diagonal_values_raise_naming_the_choices(value: object) -> None:
    walkable = np.ones((2, 2), dtype=bool)
    with pytest.raises(ValueError, match=r"never, no-corner-cutting, one-obstacle, always") as err:
        find_path(walkable, (0, 0), (1, 1), diagonal=value)  # type: ignore[arg-type]
    assert repr(value) in str(err.value)
    assert "\n" not in str(err.value)


def test_true_and_false_keep_their_old_meanings() -> None:
    walkable = np.array([[1, 1, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)
    for old, name in ((True, "no-corner-cutting"), (False, "never")):
        assert find_path(walkable, (0, 0), (2, 0), diagonal=old) == find_path(
            walkable, (0, 0), (2, 0), diagonal=name
        )


@pytest.mark.parametrize("rule", ["one-obstacle", "always"])
def test_jps_and_theta_refuse_corner_cutting_rules_and_auto_runs_astar(rule: str) -> None:
    walkable = np.ones((4, 4), dtype=bool)
    for algorithm in ("jps", "theta"):
        with pytest.raises(ValueError, match=rule):
            find_path(walkable, (0, 0), (3, 3), diagonal=rule, algorithm=algorithm)
    auto = find_path(walkable, (0, 0), (3, 3), diagonal=rule)
    assert auto == find_path(walkable, (0, 0), (3, 3), diagonal=rule, algorithm="astar")


def test_an_unreachable_answer_under_one_rule_does_not_leak_into_another() -> None:
    # The region cache labels "never" / "no-corner-cutting" regions only: the same array
    # asked again under "always" must search, and find the squeeze.
    walkable = np.array([[1, 0], [0, 1]], dtype=bool)
    for _ in range(2):
        assert not find_path(walkable, (0, 0), (1, 1)).found
    assert find_path(walkable, (0, 0), (1, 1), diagonal="always").found
    assert not find_path(walkable, (0, 0), (1, 1), diagonal="one-obstacle").found
