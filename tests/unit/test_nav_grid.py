"""GridMap: world <-> cell conversions, clamping, nearest walkable cell, argument checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sim.navigation import GridMap

GRID_SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

origins = st.tuples(st.floats(-1e4, 1e4), st.floats(-1e4, 1e4))
cell_sizes = st.one_of(st.sampled_from((0.1, 0.25, 0.5, 1.0, 2.0, 3.0)), st.floats(0.01, 100.0))


@GRID_SETTINGS
@given(
    rows=st.integers(1, 300),
    cols=st.integers(1, 300),
    origin=origins,
    cell_size=cell_sizes,
    data=st.data(),
)
def test_cell_centre_round_trip_is_exact(
    rows: int, cols: int, origin: tuple[float, float], cell_size: float, data: st.DataObject
) -> None:
    grid = GridMap.open(rows, cols, origin=origin, cell_size=cell_size)
    row = data.draw(st.integers(0, rows - 1), label="row")
    col = data.draw(st.integers(0, cols - 1), label="col")
    assert grid.world_to_cell(*grid.cell_to_world(row, col)) == (row, col)


@GRID_SETTINGS
@given(
    rows=st.integers(1, 50),
    cols=st.integers(1, 50),
    origin=origins,
    cell_size=cell_sizes,
    fx=st.floats(-0.5, 1.5),
    fy=st.floats(-0.5, 1.5),
)
def test_world_point_lands_in_the_cell_that_contains_it(
    rows: int,
    cols: int,
    origin: tuple[float, float],
    cell_size: float,
    fx: float,
    fy: float,
) -> None:
    grid = GridMap.open(rows, cols, origin=origin, cell_size=cell_size)
    x = origin[0] + fx * cols * cell_size
    y = origin[1] + fy * rows * cell_size
    slack = 1e-9 * (1 + abs(x) + abs(y))
    cell = grid.world_to_cell(x, y)
    clamped = grid.world_to_cell(x, y, clamp=True)
    assert clamped is not None
    assert grid.contains(*clamped)
    if cell is None:
        inside_x = origin[0] + slack < x < origin[0] + cols * cell_size - slack
        inside_y = origin[1] + slack < y < origin[1] + rows * cell_size - slack
        assert not (inside_x and inside_y)
    else:
        assert clamped == cell
        centre_x, centre_y = grid.cell_to_world(*cell)
        assert abs(x - centre_x) <= cell_size / 2 + slack
        assert abs(y - centre_y) <= cell_size / 2 + slack


@pytest.mark.parametrize(
    ("point", "expected"),
    [
        pytest.param((10.0, 20.0), (0, 0), id="origin-corner-is-inside"),
        pytest.param((11.999, 20.0), (0, 0), id="just-before-edge"),
        pytest.param((12.0, 20.0), (0, 1), id="edge-belongs-to-next-cell"),
        pytest.param((17.999, 25.999), (2, 3), id="last-cell"),
        pytest.param((18.0, 21.0), None, id="right-edge-is-outside"),
        pytest.param((11.0, 26.0), None, id="top-edge-is-outside"),
        pytest.param((9.999, 21.0), None, id="left-of-grid"),
        pytest.param((11.0, 19.0), None, id="below-grid"),
    ],
)
def test_cells_are_half_open(point: tuple[float, float], expected: tuple[int, int] | None) -> None:
    grid = GridMap.open(3, 4, origin=(10.0, 20.0), cell_size=2.0)
    assert grid.world_to_cell(*point) == expected


@pytest.mark.parametrize(
    ("point", "expected"),
    [
        pytest.param((-100.0, -100.0), (0, 0), id="below-left"),
        pytest.param((100.0, -100.0), (0, 3), id="below-right"),
        pytest.param((100.0, 100.0), (2, 3), id="above-right"),
        pytest.param((13.0, 100.0), (2, 1), id="above-column-1"),
        pytest.param((18.0, 21.0), (0, 3), id="on-right-edge"),
        pytest.param((13.0, 21.0), (0, 1), id="inside-unchanged"),
    ],
)
def test_clamp_gives_the_nearest_border_cell(
    point: tuple[float, float], expected: tuple[int, int]
) -> None:
    grid = GridMap.open(3, 4, origin=(10.0, 20.0), cell_size=2.0)
    assert grid.world_to_cell(*point, clamp=True) == expected


def test_rows_follow_world_y_and_columns_world_x() -> None:
    grid = GridMap.open(2, 3, cell_size=1.0)
    assert grid.world_to_cell(2.5, 0.5) == (0, 2)
    assert grid.world_to_cell(0.5, 1.5) == (1, 0)


def nearest_oracle(walkable: NDArray[np.bool_], cell: tuple[int, int]) -> tuple[int, int] | None:
    candidates = [
        ((r - cell[0]) ** 2 + (c - cell[1]) ** 2, r, c) for r, c in np.argwhere(walkable).tolist()
    ]
    if not candidates:
        return None
    _, row, col = min(candidates)
    return row, col


@GRID_SETTINGS
@given(
    walkable=hnp.array_shapes(min_dims=2, max_dims=2, max_side=30).flatmap(
        lambda shape: hnp.arrays(
            np.bool_, shape, elements=st.sampled_from((False, False, False, False, True))
        )
    ),
    data=st.data(),
)
def test_nearest_walkable_matches_brute_force(
    walkable: NDArray[np.bool_], data: st.DataObject
) -> None:
    rows, cols = walkable.shape
    cell = (data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1)))
    assert GridMap(walkable).nearest_walkable(cell) == nearest_oracle(walkable, cell)


def test_nearest_walkable_looks_past_the_first_ring_that_has_a_cell() -> None:
    # The window grows 1, 2, 4: at radius 4 it meets the corner (2, 2), distance sqrt(32);
    # (6, 11) lies 5 rings out but only 5 away, so it is the nearest.
    walkable = np.zeros((13, 13), dtype=bool)
    walkable[2, 2] = walkable[6, 11] = True
    assert GridMap(walkable).nearest_walkable((6, 6)) == (6, 11)


def test_nearest_walkable_widens_past_the_first_window() -> None:
    walkable = np.zeros((1, 40), dtype=bool)
    walkable[0, 39] = True
    assert GridMap(walkable).nearest_walkable((0, 0)) == (0, 39)


def test_nearest_walkable_ties_go_to_smaller_row_then_column() -> None:
    walkable = np.zeros((3, 3), dtype=bool)
    walkable[1, 0] = walkable[1, 2] = walkable[2, 1] = True
    assert GridMap(walkable).nearest_walkable((1, 1)) == (1, 0)


def test_nearest_walkable_of_a_walkable_cell_is_itself() -> None:
    assert GridMap.open(2, 2).nearest_walkable((1, 0)) == (1, 0)


def test_nearest_walkable_on_a_full_wall_is_none() -> None:
    assert GridMap(np.zeros((4, 5), dtype=bool)).nearest_walkable((2, 2)) is None


def test_nearest_walkable_outside_the_grid_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"cell \(2, 0\) lies outside the 2x2 grid"):
        GridMap.open(2, 2).nearest_walkable((2, 0))


def test_costs_are_kept_as_float() -> None:
    grid = GridMap(np.ones((1, 2), dtype=bool), costs=np.array([[1, 4]]))
    assert grid.costs is not None
    assert grid.costs.dtype == np.float64


def test_grid_compares_by_identity() -> None:
    walkable = np.ones((2, 2), dtype=bool)
    assert GridMap(walkable) != GridMap(walkable)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"walkable": [[True]]}, "walkable must be a numpy array, got list", id="list"),
        pytest.param(
            {"walkable": np.ones((2, 2, 2), dtype=bool)}, "walkable must be 2-D", id="3-d"
        ),
        pytest.param(
            {"walkable": np.ones((2, 2))}, "walkable must have dtype bool, got float64", id="float"
        ),
        pytest.param({"cell_size": 0.0}, "cell_size must be finite and > 0, got 0.0", id="size-0"),
        pytest.param({"cell_size": -1.0}, "cell_size must be finite and > 0, got -1.0", id="neg"),
        pytest.param(
            {"cell_size": math.inf}, "cell_size must be finite and > 0, got inf", id="inf"
        ),
        pytest.param({"origin": (0.0, math.nan)}, r"origin must be two finite .* nan", id="nan"),
        pytest.param({"origin": (1.0,)}, r"origin must be two finite numbers .* \(1.0,\)", id="1d"),
        pytest.param(
            {"costs": np.zeros((2, 2))}, r"costs\[0, 0\] = 0.0 on a walkable cell", id="costs"
        ),
    ],
)
def test_bad_grid_arguments_raise(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"walkable": np.ones((2, 2), dtype=bool)}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        GridMap(**arguments)  # type: ignore[arg-type]


def test_world_point_must_be_finite() -> None:
    with pytest.raises(ValueError, match=r"world point \(nan, 0.0\) must be finite"):
        GridMap.open(2, 2).world_to_cell(math.nan, 0.0)


def test_endpoints_clamp_points_off_the_grid_to_the_border() -> None:
    ends = GridMap.open(3, 4).endpoints((-9.0, 1.5), (99.0, 99.0))
    assert (ends.start, ends.goal) == ((1, 0), (2, 3))
    assert not ends.start_moved
    assert not ends.goal_moved


def test_endpoints_move_blocked_points_to_the_nearest_free_cell() -> None:
    walkable = np.ones((3, 3), dtype=bool)
    walkable[1, 1] = walkable[0, 0] = False
    ends = GridMap(walkable).endpoints((0.5, 0.5), (1.5, 1.5))
    assert (ends.start, ends.start_moved) == ((0, 1), True)
    assert (ends.goal, ends.goal_moved) == ((0, 1), True)


def test_endpoints_on_a_grid_with_no_free_cell_are_none() -> None:
    ends = GridMap(np.zeros((2, 2), dtype=bool)).endpoints((0.5, 0.5), (1.5, 1.5))
    assert ends.start is None
    assert ends.goal is None
