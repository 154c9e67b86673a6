"""Links in find_path: every search against a plain Dijkstra over grid moves plus link edges.

The oracle below is written from the rules (`sim.navigation.links`, `sim.navigation.diagonal`),
not from the code: a dict-based Dijkstra whose edges are the grid moves of the diagonal rule
(length times the cost of the cell entered) and each link's hop (exactly its cost; both ways
for a two-way link). Random grids carry walls, terrain costs, and one-way and two-way links.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.navigation.field import distance_field, field_path
from sim.navigation.link_graph import LinkGraph
from sim.navigation.links import NavLink, check_links, link_hops
from sim.navigation.pathfinder import find_path, find_path_with
from sim.navigation.query import Reason, SearchSettings
from sim.navigation.regions import linked as linked_regions
from sim.navigation.regions.explain import explain_no_path
from sim.navigation.regions.labels import RegionMap
from sim.navigation.searches.incremental import IncrementalSearch
from tests.helpers.links import RULES, Cell, LinkedProblem, moving_starts, random_problem
from tests.helpers.problems import PROPERTY_SETTINGS

SQRT2 = math.sqrt(2.0)
CORNERS_NEEDED = {"no-corner-cutting": 2, "one-obstacle": 1, "always": 0}


def edges(
    problem: LinkedProblem, cell: Cell, rule: str, *, unit: bool
) -> Iterator[tuple[Cell, float]]:
    """Every edge out of `cell`: the rule's grid moves, then the links (one move each if unit)."""
    walkable, costs = problem.walkable, problem.costs
    height, width = walkable.shape
    row, col = cell
    for d_row in (-1, 0, 1):
        for d_col in (-1, 0, 1):
            if not (d_row or d_col) or (d_row and d_col and rule == "never"):
                continue
            r, c = row + d_row, col + d_col
            if not (0 <= r < height and 0 <= c < width and walkable[r, c]):
                continue
            if d_row and d_col:
                open_corners = int(walkable[row + d_row, col]) + int(walkable[row, col + d_col])
                if open_corners < CORNERS_NEEDED[rule]:
                    continue
            entered = 1.0 if costs is None else float(costs[r, c])
            yield (r, c), 1.0 if unit else (SQRT2 if d_row and d_col else 1.0) * entered
    for link in problem.links:
        if not (walkable[link.start] and walkable[link.end]):
            continue  # a link is walked while both of its ends are
        ways = [(link.start, link.end)] + ([(link.end, link.start)] if link.bidirectional else [])
        for here, there in ways:
            if here == cell and there != cell:
                yield there, 1.0 if unit else link.cost


def oracle(problem: LinkedProblem, rule: str, *, unit: bool = False) -> float:
    """Textbook Dijkstra from start to goal over `edges`; inf when unreachable."""
    best = {problem.start: 0.0}
    frontier = [(0.0, problem.start)]
    done: set[Cell] = set()
    while frontier:
        cost, cell = heapq.heappop(frontier)
        if cell in done:
            continue
        if cell == problem.goal:
            return cost
        done.add(cell)
        for there, step in edges(problem, cell, rule, unit=unit):
            if cost + step < best.get(there, math.inf):
                best[there] = cost + step
                heapq.heappush(frontier, (cost + step, there))
    return math.inf


def walked_cost(problem: LinkedProblem, cells: tuple[Cell, ...], rule: str) -> float:
    """The cost of `cells` step by step; fails unless every step is an edge of the oracle."""
    total = 0.0
    for here, there in itertools.pairwise(cells):
        steps = [step for cell, step in edges(problem, here, rule, unit=False) if cell == there]
        assert steps, f"step {here} -> {there} is no grid move and no link\n{problem!r}"
        total += min(steps)
    return total


CASES = [(seed, rule) for seed in range(60) for rule in RULES]


@pytest.mark.parametrize("algorithm", ["astar", "dijkstra"])
@pytest.mark.parametrize(("seed", "rule"), CASES)
def test_optimal_searches_match_the_oracle(algorithm: str, seed: int, rule: str) -> None:
    problem = random_problem(seed, with_costs=seed % 2 == 1)
    expected = oracle(problem, rule)
    result = problem.solve(diagonal=rule, algorithm=algorithm, implementation="python")
    assert result.found == math.isfinite(expected), problem
    if result.found:
        assert result.cost == pytest.approx(expected, abs=1e-9), problem
        assert (result.cells[0], result.cells[-1]) == (problem.start, problem.goal)
        assert walked_cost(problem, result.cells, rule) == pytest.approx(result.cost, abs=1e-9)
    else:
        assert result.reason is Reason.UNREACHABLE


@pytest.mark.parametrize("algorithm", ["greedy", "dfs", "bfs"])
@pytest.mark.parametrize(("seed", "rule"), CASES[::3])
def test_other_searches_find_a_legal_path_when_there_is_one(
    algorithm: str, seed: int, rule: str
) -> None:
    problem = random_problem(seed, with_costs=seed % 2 == 0)
    expected = oracle(problem, rule)
    result = problem.solve(diagonal=rule, algorithm=algorithm, implementation="python")
    assert result.found == math.isfinite(expected), problem
    if result.found:
        assert walked_cost(problem, result.cells, rule) == pytest.approx(result.cost, abs=1e-9)
        assert result.cost >= expected - 1e-9
    if algorithm == "bfs" and result.found:
        # A link is one move: bfs finds the fewest moves, grid steps and hops alike.
        assert len(result.cells) - 1 == oracle(problem, rule, unit=True), problem


def test_a_chain_of_links_keeps_astar_optimal() -> None:
    """Two cheap links in a row: a heuristic from one link alone would overestimate."""
    walkable = np.ones((1, 40), dtype=bool)
    links = (NavLink((0, 1), (0, 20), 0.5), NavLink((0, 21), (0, 39), 0.5))
    problem = LinkedProblem(walkable, None, links, (0, 0), (0, 39))
    result = find_path(walkable, (0, 0), (0, 39), links=links, implementation="python")
    assert result.cost == oracle(problem, "no-corner-cutting") == 3.0
    assert result.cells == ((0, 0), (0, 1), (0, 20), (0, 21), (0, 39))


def test_a_one_way_link_is_walked_from_its_start_only() -> None:
    walkable = np.ones((3, 7), dtype=bool)
    walkable[:, 3] = False
    drop = NavLink((1, 2), (1, 4), 1.0, bidirectional=False)
    there = find_path(walkable, (0, 0), (2, 6), links=[drop])
    back = find_path(walkable, (2, 6), (0, 0), links=[drop])
    assert {(1, 2), (1, 4)} <= set(there.cells)
    assert back.reason is Reason.UNREACHABLE
    assert link_hops(there.cells, [drop]).count(drop) == 1


def test_link_hops_names_the_link_of_each_step() -> None:
    ladder = NavLink((0, 0), (4, 0), 2.0, kind="ladder")
    shortcut = NavLink((4, 0), (4, 1), 0.25)
    hops = link_hops([(0, 0), (4, 0), (4, 1), (4, 2)], [ladder, shortcut])
    assert hops == [ladder, shortcut, None]
    # Between neighbours, a link dearer than the grid step is not taken.
    assert link_hops([(4, 0), (4, 1)], [NavLink((4, 0), (4, 1), 3.0)]) == [None]
    with pytest.raises(ValueError, match="no grid move and no link"):
        link_hops([(0, 0), (0, 5)], [ladder])


@pytest.mark.parametrize(
    ("link", "message"),
    [
        (NavLink((0, 0), (5, 0)), r"link 0 \(0, 0\) -> \(5, 0\): end \(5, 0\) lies outside"),
        (NavLink((-1, 0), (0, 0)), r"start \(-1, 0\) lies outside the 3x4 grid"),
        (NavLink((0, 0), (1, 1)), r"end \(1, 1\) lies inside a wall"),
        (NavLink((0, 0), (2, 3), cost=-0.5), "cost must be a finite number >= 0, got -0.5"),
        (NavLink((0, 0), (2, 3), cost=math.inf), "cost must be a finite number >= 0, got inf"),
        (NavLink((0, 0), (2, 3), cost=math.nan), "cost must be a finite number >= 0, got nan"),
        (NavLink((0, 0), (2, 3), kind="rope"), "kind must be one of jump, ladder, teleport"),
        (NavLink((0, 0), (2, 3), width=0), "width must be an integer >= 1, got 0"),
        (NavLink((0, 0), (0, 3), width=3), r"start \(-1, 0\) lies outside"),
        (NavLink((0, 0.5), (2, 3)), "start must be a .row, col. pair of integers"),  # type: ignore[arg-type]
    ],
)
def test_check_links_names_the_link_and_what_is_wrong(link: NavLink, message: str) -> None:
    walkable = np.ones((3, 4), dtype=bool)
    walkable[1, 1] = False
    with pytest.raises(ValueError, match=message):
        check_links([link], walkable)
    if "inside a wall" not in message:
        with pytest.raises(ValueError, match=message):
            find_path(walkable, (0, 0), (2, 3), links=[link])


def test_a_link_with_a_blocked_end_is_shut_not_an_error() -> None:
    """An obstacle moved onto a link's end at run time shuts the link for every planner."""
    walkable = np.ones((3, 9), dtype=bool)
    walkable[:, 4] = False
    links = [NavLink((1, 3), (1, 5), 1.0)]
    assert find_path(walkable, (1, 0), (1, 8), links=links).found
    walkable[1, 5] = False
    for algorithm in ("astar", "dijkstra", "bfs", "greedy", "dfs", "jps", "bidirectional"):
        for implementation in ("python", "auto"):
            result = find_path(
                walkable,
                (1, 0),
                (1, 8),
                algorithm=algorithm,
                links=links,
                implementation=implementation,
            )
            assert result.reason is Reason.UNREACHABLE, algorithm
    assert distance_field(walkable, (1, 8), links=links)[1, 0] == math.inf


def test_a_wide_link_joins_parallel_lanes() -> None:
    walkable = np.ones((5, 7), dtype=bool)
    walkable[:, 3] = False
    bridge = NavLink((2, 2), (2, 4), 1.0, width=3)
    graph = LinkGraph.build([bridge], walkable)
    assert graph is not None
    assert sorted(graph.out) == [9, 11, 16, 18, 23, 25]
    result = find_path(walkable, (1, 0), (1, 6), links=[bridge])
    assert result.cells == ((1, 0), (1, 1), (1, 2), (1, 4), (1, 5), (1, 6))


def test_no_links_is_the_plain_search() -> None:
    walkable = np.ones((4, 4), dtype=bool)
    assert find_path(walkable, (0, 0), (3, 3), links=[]) == find_path(walkable, (0, 0), (3, 3))


@pytest.mark.parametrize("heuristic", ["octile", "euclidean", "chebyshev", "zero"])
@pytest.mark.parametrize("seed", range(150))
def test_jump_point_search_matches_the_oracle(seed: int, heuristic: str) -> None:
    """A link's ends are jump points: jps finds A*'s cost with links too."""
    problem = random_problem(seed + 500, with_costs=False)
    expected = oracle(problem, "no-corner-cutting")
    result = problem.solve(algorithm="jps", heuristic=heuristic, implementation="python")
    assert result.found == math.isfinite(expected), problem
    if result.found:
        assert result.cost == pytest.approx(expected, abs=1e-9), problem
        walked = walked_cost(problem, result.cells, "no-corner-cutting")
        assert walked == pytest.approx(result.cost, abs=1e-9)


def test_jps_with_links_refuses_c() -> None:
    links = [NavLink((0, 0), (0, 3))]
    with pytest.raises(ValueError, match="jps with links runs in Python only"):
        find_path(
            np.ones((2, 4), dtype=bool),
            (0, 0),
            (0, 3),
            algorithm="jps",
            links=links,
            implementation="c",
        )


@pytest.mark.parametrize(("seed", "rule"), CASES)
def test_bidirectional_search_matches_the_oracle(seed: int, rule: str) -> None:
    """The backward half walks links reversed: a one-way link only from its end back."""
    problem = random_problem(seed + 2000, with_costs=seed % 2 == 1)
    expected = oracle(problem, rule)
    result = problem.solve(diagonal=rule, algorithm="bidirectional")
    assert result.found == math.isfinite(expected), problem
    if result.found:
        assert result.cost == pytest.approx(expected, abs=1e-9), problem
        assert walked_cost(problem, result.cells, rule) == pytest.approx(result.cost, abs=1e-9)


@pytest.mark.parametrize("rule", ["never", "no-corner-cutting"])
@pytest.mark.parametrize("seed", range(12))
def test_the_distance_field_walks_links_backwards(seed: int, rule: str) -> None:
    """Every cell's field value is the cost find_path finds from it with the same links."""
    problem = random_problem(seed + 3000, with_costs=seed % 2 == 1)
    field = distance_field(
        problem.walkable, problem.goal, diagonal=rule, costs=problem.costs, links=problem.links
    )
    for row, col in np.argwhere(problem.walkable):
        cell = (int(row), int(col))
        there = LinkedProblem(problem.walkable, problem.costs, problem.links, cell, problem.goal)
        assert field[cell] == pytest.approx(oracle(there, rule), abs=1e-9), (cell, problem)
    if math.isfinite(field[problem.start]) and all(link.cost > 0 for link in problem.links):
        cells = field_path(
            field,
            problem.start,
            walkable=problem.walkable,
            diagonal=rule,
            costs=problem.costs,
            links=problem.links,
        )
        assert cells[-1] == problem.goal
        walked = walked_cost(problem, tuple(cells), rule)
        assert walked == pytest.approx(field[problem.start], abs=1e-9)


@pytest.mark.parametrize("rule", ["never", "no-corner-cutting"])
@pytest.mark.parametrize("seed", range(30))
def test_d_star_lite_repairs_to_the_cost_of_a_fresh_search(seed: int, rule: str) -> None:
    """Cells toggle (link ends among them) and the start moves: each repair is optimal."""
    problem = random_problem(seed + 4000, with_costs=seed % 2 == 1)
    rng = np.random.default_rng(seed)
    walkable = problem.walkable.copy()
    planner = IncrementalSearch(diagonal=rule)
    for step, start in enumerate(moving_starts(problem, walkable, rng)):
        here = LinkedProblem(walkable.copy(), problem.costs, problem.links, start, problem.goal)
        expected = oracle(here, rule)
        result = planner.plan(
            walkable, start, problem.goal, costs=problem.costs, links=problem.links
        )
        assert result.found == math.isfinite(expected), (step, here)
        if result.found:
            assert result.cost == pytest.approx(expected, abs=1e-9), (step, here)
            assert walked_cost(here, result.cells, rule) == pytest.approx(result.cost, abs=1e-9)
            fresh = IncrementalSearch(diagonal=rule).plan(
                walkable, start, problem.goal, costs=problem.costs, links=problem.links
            )
            assert fresh.cost == pytest.approx(result.cost, abs=1e-9)


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 10**6), rule=st.sampled_from(["never", "no-corner-cutting"]))
def test_the_unreachable_answer_stays_exact_with_one_way_links(seed: int, rule: str) -> None:
    """Regions plus the directed graph of the links say apart exactly when the oracle does."""
    problem = random_problem(seed, with_costs=False)
    regions = RegionMap(problem.walkable)
    graph = LinkGraph.build(problem.links, problem.walkable)
    cells = [(int(r), int(c)) for r, c in np.argwhere(problem.walkable)][:12]
    for start in cells:
        for goal in cells:
            pair = LinkedProblem(problem.walkable, None, problem.links, start, goal)
            reachable = math.isfinite(oracle(pair, rule))
            proven = graph is not None and linked_regions.apart(
                regions, problem.walkable, start, goal, graph
            )
            if graph is not None:
                assert proven == (not reachable), pair


def test_find_path_answers_a_one_way_dead_end_at_once() -> None:
    """From the second query on an array, a goal behind a one-way drop is unreachable at once."""
    walkable = np.ones((6, 20), dtype=bool)
    walkable[:, 10] = False
    drop = [NavLink((2, 9), (2, 11), 1.0, bidirectional=False)]
    first = find_path(walkable, (0, 19), (0, 0), links=drop)
    again = find_path(walkable, (5, 18), (1, 1), links=drop)
    assert (first.reason, again.reason) == (Reason.UNREACHABLE, Reason.UNREACHABLE)
    assert first.expanded > 0
    assert again.expanded == 0
    assert find_path(walkable, (0, 0), (0, 19), links=drop).found


def test_the_no_path_explanation_knows_links_and_names_a_one_way_drop() -> None:
    walkable = np.ones((4, 9), dtype=bool)
    walkable[:, 4] = False
    drop = NavLink((1, 3), (1, 5), 1.0, bidirectional=False)
    down = explain_no_path(walkable, (0, 0), (3, 8), links=[drop])
    assert down.connected
    back = explain_no_path(walkable, (3, 8), (0, 0), links=[drop])
    assert not back.connected
    assert back.one_way_links == (drop,)
    assert len(back.fix_cells) == 1
    assert explain_no_path(walkable, (3, 8), (0, 0)).one_way_links == ()


def test_find_path_with_takes_links_and_theta_refuses_them() -> None:
    walkable = np.ones((1, 12), dtype=bool)
    teleport = [NavLink((0, 0), (0, 11), 0.5, kind="teleport")]
    result = find_path_with(walkable, (0, 0), (0, 11), SearchSettings(), links=teleport)
    assert (result.cells, result.cost) == (((0, 0), (0, 11)), 0.5)
    with pytest.raises(ValueError, match="theta takes no links"):
        find_path(walkable, (0, 0), (0, 11), algorithm="theta", links=teleport)
