"""The navigation tests' oracles (tests/helpers/oracles.py) work: legal paths, costs, corners."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers.oracles import oracle_cost, path_problem, steps_cost

CORNER = np.array([[True, True], [True, False]])


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        pytest.param([(0, 0), (0, 1)], None, id="legal-step"),
        pytest.param([(0, 0), (1, 1)], "blocked", id="enters-wall"),
        pytest.param([(0, 1), (1, 0)], "cuts a corner", id="corner-cut"),
        pytest.param([(0, 0), (0, 0)], "not to a neighbour", id="standing-still"),
        pytest.param([(0, 0), (2, 0)], "outside", id="off-grid"),
    ],
)
def test_path_problem_spots(cells: list[tuple[int, int]], expected: str | None) -> None:
    problem = path_problem(CORNER, cells, diagonal=True)
    if expected is None:
        assert problem is None
    else:
        assert problem is not None
        assert expected in problem


def test_oracle_cost_respects_corners() -> None:
    walkable = np.array([[True, True, True], [True, False, True], [True, True, True]])
    assert oracle_cost(walkable, (0, 0), (2, 2), diagonal=True) == pytest.approx(4.0)


def test_steps_cost_charges_entered_cell() -> None:
    costs = np.array([[1.0, 3.0], [2.0, 5.0]])
    assert steps_cost([(0, 0), (0, 1), (1, 1)], costs) == pytest.approx(8.0)
