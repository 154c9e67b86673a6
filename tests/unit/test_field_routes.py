"""Descent tables and field routes: the same steps, paths and lengths as walking the field."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from sim.crowd.field_routes import NO_CELL, DescentTables, FieldRoute, descent_table
from sim.navigation.field import descend_on_graph, field_on_graph, path_on_graph
from sim.navigation.moves import MoveGraph

CASES = [
    pytest.param(seed, diagonal, with_costs, id=f"seed{seed}-{'8' if diagonal else '4'}-{kind}")
    for seed in range(3)
    for diagonal in (True, False)
    for with_costs, kind in ((False, "flat"), (True, "costs"))
]


def random_graph(seed: int, *, diagonal: bool, with_costs: bool) -> tuple[MoveGraph, int]:
    """A seeded 30 x 40 grid, a quarter blocked, with integer costs (many equal-cost ties)."""
    rng = np.random.default_rng(seed)
    walkable = rng.random((30, 40)) > 0.25
    walkable[15, 20] = True
    costs = rng.integers(1, 4, size=walkable.shape).astype(np.float64) if with_costs else None
    return MoveGraph.build(walkable, diagonal=diagonal, costs=costs), 15 * 40 + 20


@pytest.mark.parametrize(("seed", "diagonal", "with_costs"), CASES)
def test_descent_table_takes_the_step_descend_on_graph_takes(seed, diagonal, with_costs):
    graph, goal = random_graph(seed, diagonal=diagonal, with_costs=with_costs)
    field = field_on_graph(graph, goal)
    table = descent_table(graph, field).tolist()
    expected = [descend_on_graph(graph, field, cell) for cell in range(len(field))]
    assert table == [NO_CELL if step is None else step for step in expected]


@pytest.mark.parametrize(("seed", "diagonal", "with_costs"), CASES)
def test_field_route_is_the_field_path_with_its_length(seed, diagonal, with_costs):
    graph, goal = random_graph(seed, diagonal=diagonal, with_costs=with_costs)
    field = field_on_graph(graph, goal)
    tables = DescentTables(graph, field)
    reachable = [cell for cell in range(len(field)) if field[cell] < math.inf]
    for start in reachable[::7]:
        path = path_on_graph(graph, field, start)
        route = FieldRoute(tables, start, goal)
        cells = [divmod(cell, graph.width) for cell in path]
        assert list(route) == cells
        assert len(route) == len(cells)
        assert (route[0], route[-1], route[len(cells) // 2]) == (
            cells[0],
            cells[-1],
            cells[len(cells) // 2],
        )
        assert route[1:3] == tuple(cells[1:3])
        length = sum(math.dist(a, b) for a, b in itertools.pairwise(cells))
        assert tables.length(start) == pytest.approx(length, rel=1e-12)


def test_route_index_out_of_range_is_an_index_error():
    graph, goal = random_graph(0, diagonal=True, with_costs=False)
    route = FieldRoute(DescentTables(graph, field_on_graph(graph, goal)), goal, goal)
    assert list(route) == [divmod(goal, graph.width)]
    with pytest.raises(IndexError, match="out of range"):
        route[1]
