"""compare_searches and format_table: 15 variants on one grid, measured against Dijkstra."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.navigation import Algorithm, ComparisonRow, Heuristic, compare_searches, format_table
from sim.navigation.replay.compare import FOOTNOTE
from tests.helpers.grids import grid
from tests.helpers.oracles import oracle_cost
from tests.helpers.problems import PROPERTY_SETTINGS, Problem, problems

FOUR = [Heuristic.MANHATTAN, Heuristic.OCTILE, Heuristic.EUCLIDEAN, Heuristic.CHEBYSHEV]

# Greedy takes the top row (its h looks better there) and pays for it; DFS dives down-right.
LURE = grid(
    """
    ....#
    .##..
    .....
    ..#.#
    """
)  # start (1, 0), goal (1, 4)
LURE_ENDS = ((1, 0), (1, 4))


def table_row(lines: list[str], label: str, heuristic: str) -> str:
    """The table line of `label` with `heuristic` ('-' for none)."""
    found = [line for line in lines if line.startswith(label + " ") and f" {heuristic} " in line]
    assert len(found) == 1, (label, heuristic, lines)
    return found[0]


def test_rows_come_in_the_documented_order() -> None:
    rows = compare_searches(np.ones((4, 4), dtype=bool), (0, 0), (3, 3), weight=2.0, repeat=1)
    assert [(row.algorithm, row.heuristic, row.weight, row.label) for row in rows] == [
        *[(Algorithm.ASTAR, h, 1.0, "A*") for h in FOUR],
        *[(Algorithm.ASTAR, h, 2.0, "weighted A* x2") for h in FOUR],
        *[(Algorithm.GREEDY, h, 1.0, "greedy") for h in FOUR],
        (Algorithm.DIJKSTRA, None, 1.0, "Dijkstra"),
        (Algorithm.BFS, None, 1.0, "BFS"),
        (Algorithm.DFS, None, 1.0, "DFS"),
    ]
    assert all(row.ms >= 0.0 and row.found for row in rows)


@PROPERTY_SETTINGS
@given(problem=problems(), diagonal=st.booleans(), weight=st.sampled_from((1.0, 1.5, 4.0)))
def test_guaranteed_rows_cost_what_dijkstra_costs(
    problem: Problem, diagonal: bool, weight: float
) -> None:
    p = problem
    rows = compare_searches(
        p.walkable, p.start, p.goal, diagonal=diagonal, weight=weight, costs=p.costs, repeat=1
    )
    optimum = oracle_cost(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    dijkstra = rows[12]
    assert dijkstra.guaranteed
    assert dijkstra.optimal or not dijkstra.found
    for row in rows:
        assert row.found is math.isfinite(optimum), (row, p)
        if not row.found:
            assert (row.gap, row.optimal, row.cost) == (None, False, math.inf)
            continue
        assert row.cost >= optimum - 1e-9 * max(optimum, 1.0), (row, p)
        if row.guaranteed:
            assert row.optimal, (row, p)
            assert row.cost == pytest.approx(dijkstra.cost, rel=1e-9, abs=0.0), (row, p)
        assert (row.gap == 0.0) is row.optimal, (row, p)
        if row.gap:
            assert row.gap == pytest.approx(row.cost - dijkstra.cost)


@pytest.mark.parametrize(
    ("diagonal", "costs", "expected"),
    [
        pytest.param(False, None, {"A*": 4, "Dijkstra": 1, "BFS": 1}, id="4conn"),
        pytest.param(True, None, {"A*": 3, "Dijkstra": 1}, id="8conn-manhattan-out"),
        pytest.param(False, "mud", {"A*": 4, "Dijkstra": 1}, id="4conn-costs-bfs-out"),
        pytest.param(False, "flat", {"A*": 4, "Dijkstra": 1, "BFS": 1}, id="4conn-uniform-costs"),
    ],
)
def test_guaranteed_follows_the_rules(
    diagonal: bool, costs: str | None, expected: dict[str, int]
) -> None:
    walkable = np.ones((3, 3), dtype=bool)
    cost_array = None
    if costs is not None:
        cost_array = np.full((3, 3), 2.0)
        if costs == "mud":
            cost_array[1, 1] = 5.0
    rows = compare_searches(walkable, (0, 0), (2, 2), diagonal=diagonal, costs=cost_array, repeat=1)
    guaranteed: dict[str, int] = {}
    for row in rows:
        if row.guaranteed:
            guaranteed[row.label] = guaranteed.get(row.label, 0) + 1
    assert guaranteed == expected


def test_dfs_and_greedy_miss_the_optimum_and_are_marked() -> None:
    rows = compare_searches(LURE, *LURE_ENDS, repeat=1, cost_scale=2.0)
    by_label = {(row.label, row.heuristic): row for row in rows}
    dijkstra = by_label["Dijkstra", None]
    dfs = by_label["DFS", None]
    greedy = by_label["greedy", Heuristic.OCTILE]
    optimum = oracle_cost(LURE, *LURE_ENDS, diagonal=True)
    assert dijkstra.optimal
    assert dijkstra.cost == pytest.approx(2.0 * optimum)
    for row in (dfs, greedy):
        assert row.found
        assert not row.optimal
        assert not row.guaranteed
        assert row.gap is not None
        assert row.gap == pytest.approx(row.cost - dijkstra.cost)
        assert row.gap > 0
    assert dfs.note == "baseline, not shortest"

    lines = format_table(rows, cost_unit="m")
    assert lines[0].split() == [
        "algorithm",
        "heuristic",
        "expanded",
        "ms",
        "cost",
        "(m)",
        "gap",
        "mark",
        "note",
    ]
    assert len(lines) == 1 + 15 + 1
    assert lines[-1] == f"* {FOOTNOTE}"
    dfs_line = table_row(lines, "DFS", "-")
    assert dfs.gap is not None
    percent = dfs.gap / dijkstra.cost * 100.0
    assert f"+{dfs.gap:.2f} (+{percent:.0f}%)  *" in dfs_line
    assert "*" in table_row(lines, "greedy", "octile").split()
    assert "*" not in table_row(lines, "Dijkstra", "-").split()
    assert "*" not in table_row(lines, "A*", "octile").split()


def test_every_unoptimal_row_is_marked() -> None:
    rows = compare_searches(LURE, *LURE_ENDS, repeat=1)
    lines = format_table(rows)[1:-1]
    for row, line in zip(rows, lines, strict=True):
        assert ("*" in line.split()) is (not row.optimal), line


def test_no_path_gives_rows_not_an_exception() -> None:
    walkable = grid(
        """
        ..#..
        ..#..
        """
    )
    rows = compare_searches(walkable, (0, 0), (1, 4), repeat=1)
    assert len(rows) == 15
    assert all(not row.found and row.gap is None and not row.optimal for row in rows)
    assert all(row.note == "no path (unreachable)" for row in rows)
    lines = format_table(rows)
    assert len(lines) == 16  # no footnote: nothing is marked
    assert all("no path" in line for line in lines[1:])


def test_blocked_goal_gives_rows_not_an_exception() -> None:
    walkable = np.ones((2, 2), dtype=bool)
    walkable[1, 1] = False
    rows = compare_searches(walkable, (0, 0), (1, 1), repeat=2)
    assert {row.note for row in rows} == {"no path (goal blocked)"}


def test_start_is_goal_costs_nothing_everywhere() -> None:
    rows = compare_searches(np.ones((2, 2), dtype=bool), (1, 1), (1, 1), repeat=1)
    assert all(row.optimal and row.cost == 0.0 and row.gap == 0.0 for row in rows)


def test_cost_scale_scales_costs_and_gaps() -> None:
    plain = compare_searches(LURE, *LURE_ENDS, repeat=1)
    scaled = compare_searches(LURE, *LURE_ENDS, repeat=1, cost_scale=0.5)
    for one, half in zip(plain, scaled, strict=True):
        assert half.cost == pytest.approx(0.5 * one.cost)
        assert (half.gap is None) is (one.gap is None)
        assert half.gap == pytest.approx(0.5 * one.gap if one.gap is not None else None)
        assert half.optimal is one.optimal


def test_format_table_aligns_columns() -> None:
    rows = [replace(row, ms=12.345) for row in compare_searches(LURE, *LURE_ENDS, repeat=1)]
    lines = format_table(rows)
    header = lines[0]
    ms_end = header.index("ms") + len("ms")
    cost_end = header.index("cost") + len("cost")
    for line in lines[1:-1]:
        assert line[ms_end - 5 : ms_end] == "12.35"
        assert line[cost_end - 1].isdigit()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"repeat": 0}, "repeat must be an integer >= 1, got 0", id="repeat"),
        pytest.param({"cost_scale": 0.0}, "cost_scale must be finite and > 0, got 0.0", id="scale"),
        pytest.param({"cost_scale": math.nan}, "cost_scale must be finite", id="scale-nan"),
        pytest.param({"weight": 0.5}, "weight must be a finite number >= 1, got 0.5", id="weight"),
        pytest.param({"start": (5, 0)}, r"start \(5, 0\) lies outside", id="start"),
        pytest.param({"costs": np.ones((2, 2))}, "costs must have the shape", id="costs"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"walkable": LURE, "start": (1, 0), "goal": (1, 4)}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        compare_searches(**arguments)  # type: ignore[arg-type]


def test_rows_are_frozen_values() -> None:
    row = compare_searches(LURE, *LURE_ENDS, repeat=1)[0]
    assert isinstance(row, ComparisonRow)
    with pytest.raises(AttributeError):
        row.cost = 0.0  # type: ignore[misc]
