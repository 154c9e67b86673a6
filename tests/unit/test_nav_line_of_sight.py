"""Line of sight: cells_on_segment, segment_is_clear and smooth_path against independent oracles.

The exact oracle clips the segment against each cell's closed square in rational arithmetic
(Liang-Barsky over `Fraction`s); the sampled oracle walks 20,000 points along the segment.
Hypothesis runs derandomized (the same examples every run) and keeps no database.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sim.navigation import find_path
from sim.navigation.line_of_sight import (
    cells_on_segment,
    path_length,
    segment_is_clear,
    smooth_path,
)
from tests.helpers.grids import ascii_grid
from tests.helpers.oracles import assert_legal_path

Cell = tuple[int, int]
Point = tuple[float, float]

PROPERTY_SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=300,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)
SAMPLES = 20_000


def grid(text: str) -> NDArray[np.bool_]:
    """'.' is open, '#' a wall; one row a line, row 0 first."""
    rows = [line.strip() for line in text.strip().splitlines()]
    return np.array([[char == "." for char in row] for row in rows], dtype=bool)


# --- Oracles --------------------------------------------------------------------------------


def clip(start: Point, end: Point, cell: Cell) -> tuple[Fraction, Fraction] | None:
    """The exact t in [0, 1] where start + t (end - start) lies in the cell's closed square."""
    row, col = cell
    t_low, t_high = Fraction(0), Fraction(1)
    for origin, target, low in ((start[0], end[0], col), (start[1], end[1], row)):
        p, d = Fraction(origin), Fraction(target) - Fraction(origin)
        if d == 0:
            if not low <= p <= low + 1:
                return None
            continue
        t1, t2 = sorted(((low - p) / d, (low + 1 - p) / d))
        t_low, t_high = max(t_low, t1), min(t_high, t2)
    return (t_low, t_high) if t_low <= t_high else None


def nearby_cells(start: Point, end: Point) -> list[Cell]:
    """Every cell whose square could touch the segment: its bounding box, one cell wider."""
    cols = range(math.floor(min(start[0], end[0])) - 1, math.floor(max(start[0], end[0])) + 2)
    rows = range(math.floor(min(start[1], end[1])) - 1, math.floor(max(start[1], end[1])) + 2)
    return [(row, col) for row in rows for col in cols]


def oracle_cells(start: Point, end: Point) -> set[Cell]:
    """The contract of cells_on_segment, straight from its definition."""
    if start == end:
        return {(math.floor(start[1]), math.floor(start[0]))}
    found = set()
    for cell in nearby_cells(start, end):
        span = clip(start, end, cell)
        if span is not None and span[0] < span[1]:
            found.add(cell)
    return found


def oracle_touched(start: Point, end: Point) -> set[Cell]:
    """Every cell whose closed square the closed segment touches, even at one point."""
    return {cell for cell in nearby_cells(start, end) if clip(start, end, cell) is not None}


def sampled_cells(start: Point, end: Point) -> set[Cell]:
    """The cells of SAMPLES points along the segment, leaving out points on grid lines.

    Points within 1e-9 of a grid line count as on it: the float sampling itself errs by about
    1e-15, which must not put a point on the wrong side of a line.
    """
    t = np.linspace(0.0, 1.0, SAMPLES)
    xs = start[0] + t * (end[0] - start[0])
    ys = start[1] + t * (end[1] - start[1])
    off_lines = (np.abs(xs - np.round(xs)) > 1e-9) & (np.abs(ys - np.round(ys)) > 1e-9)
    rows = np.floor(ys[off_lines]).astype(int)
    cols = np.floor(xs[off_lines]).astype(int)
    return {(int(r), int(c)) for r, c in zip(rows, cols, strict=True)}


def distance_to_cell(start: Point, end: Point, cell: Cell) -> float:
    """Float distance between the segment and the cell's closed square."""
    row, col = cell
    (x0, y0), (x1, y1) = start, end
    t_low, t_high = 0.0, 1.0
    for p, d, low in ((x0, x1 - x0, col), (y0, y1 - y0, row)):
        if d == 0.0:
            if not low <= p <= low + 1:
                t_low, t_high = 1.0, 0.0
            continue
        t1, t2 = sorted(((low - p) / d, (low + 1 - p) / d))
        t_low, t_high = max(t_low, t1), min(t_high, t2)
    if t_low <= t_high:
        return 0.0

    def point_to_square(x: float, y: float) -> float:
        return math.hypot(max(col - x, 0.0, x - col - 1), max(row - y, 0.0, y - row - 1))

    def point_to_segment(x: float, y: float) -> float:
        dx, dy = x1 - x0, y1 - y0
        length_sq = dx * dx + dy * dy
        t = (
            0.0
            if length_sq == 0
            else min(1.0, max(0.0, ((x - x0) * dx + (y - y0) * dy) / length_sq))
        )
        return math.hypot(x - (x0 + t * dx), y - (y0 + t * dy))

    corners = [(col + i, row + j) for i in (0, 1) for j in (0, 1)]
    return min(
        point_to_square(x0, y0),
        point_to_square(x1, y1),
        *(point_to_segment(x, y) for x, y in corners),
    )


def oracle_clear(
    walkable: NDArray[np.bool_], start: Point, end: Point, costs: NDArray[np.float64] | None
) -> bool:
    height, width = walkable.shape
    for row, col in oracle_touched(start, end):
        if not (0 <= row < height and 0 <= col < width and walkable[row, col]):
            return False
        if costs is not None and costs[row, col] != 1.0:
            return False
    return True


def centre(cell: Cell) -> Point:
    return (cell[1] + 0.5, cell[0] + 0.5)


def test_oracles_agree_on_a_corner_pass() -> None:
    start, end = (0.5, 0.5), (1.5, 1.5)
    assert oracle_cells(start, end) == {(0, 0), (1, 1)}
    assert oracle_touched(start, end) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert distance_to_cell(start, end, (1, 2)) == pytest.approx(0.5)


# --- Strategies -----------------------------------------------------------------------------

# Free floats, and integers and quarters, which land on grid lines, corners and centres.
coordinates = st.one_of(
    st.floats(-6.0, 6.0, allow_nan=False, allow_infinity=False),
    st.integers(-6, 6).map(float),
    st.integers(-24, 24).map(lambda k: k / 4),
)
points = st.tuples(coordinates, coordinates)


@st.composite
def segments(draw: st.DrawFn) -> tuple[Point, Point]:
    """Free segments, axis-parallel ones, exact diagonals and tiny ones."""
    start = draw(points, label="start")
    kind = draw(st.sampled_from(("free", "axis", "diagonal", "tiny")), label="kind")
    if kind == "free":
        end = draw(points, label="end")
    elif kind == "axis":
        other = draw(coordinates, label="other")
        end = (start[0], other) if draw(st.booleans(), label="vertical") else (other, start[1])
    elif kind == "diagonal":
        run = float(draw(st.integers(-6, 6), label="run"))
        sign = draw(st.sampled_from((-1.0, 1.0)), label="sign")
        end = (start[0] + run, start[1] + sign * run)
    else:
        offset = st.floats(-1e-6, 1e-6, allow_nan=False)
        end = (start[0] + draw(offset, label="dx"), start[1] + draw(offset, label="dy"))
    return start, end


# --- cells_on_segment -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        pytest.param((0.2, 0.3), (0.7, 0.9), [(0, 0)], id="inside-one-cell"),
        pytest.param((1.0, 1.0), (1.0, 1.0), [(1, 1)], id="zero-length-on-a-corner"),
        pytest.param((2.5, 0.5), (0.5, 0.5), [(0, 2), (0, 1), (0, 0)], id="row-leftwards"),
        pytest.param(
            (0.5, 1.0), (2.0, 1.0), [(0, 0), (1, 0), (0, 1), (1, 1)], id="along-a-row-line"
        ),
        pytest.param(
            (1.0, 2.0), (1.0, 0.5), [(1, 0), (1, 1), (0, 0), (0, 1)], id="along-a-column-line-up"
        ),
        pytest.param(
            (0.5, 0.5), (2.5, 2.5), [(0, 0), (1, 1), (2, 2)], id="diagonal-through-corners"
        ),
        pytest.param((2.5, 0.5), (0.5, 2.5), [(0, 2), (1, 1), (2, 0)], id="anti-diagonal"),
        pytest.param((1.0, 1.0), (3.0, 3.0), [(1, 1), (2, 2)], id="corner-to-corner"),
        pytest.param((0.5, 0.5), (1.0, 0.5), [(0, 0)], id="ends-on-an-edge"),
        pytest.param((1.0, 0.5), (0.5, 0.5), [(0, 0)], id="starts-on-an-edge-going-back"),
        pytest.param((0.5, 0.5), (2.5, 1.5), [(0, 0), (0, 1), (1, 1), (1, 2)], id="shallow"),
        pytest.param(
            (-0.5, -1.5), (0.5, 0.5), [(-2, -1), (-1, -1), (-1, 0), (0, 0)], id="negative"
        ),
        pytest.param(
            (0.0, 0.0), (2.0, 1.0), [(0, 0), (0, 1)], id="corner-to-corner-through-an-edge-middle"
        ),
    ],
)
def test_cells_on_segment_examples(start: Point, end: Point, expected: list[Cell]) -> None:
    assert cells_on_segment(start, end) == expected


@PROPERTY_SETTINGS
@given(segment=segments())
def test_cells_on_segment_matches_exact_oracle(segment: tuple[Point, Point]) -> None:
    start, end = segment
    cells = cells_on_segment(start, end)
    assert len(cells) == len(set(cells))
    assert set(cells) == oracle_cells(start, end)
    if start != end:
        entries = []
        for cell in cells:
            span = clip(start, end, cell)
            assert span is not None
            entries.append(span[0])
        assert entries == sorted(entries), "cells out of order along the segment"


@PROPERTY_SETTINGS
@given(segment=segments())
def test_cells_on_segment_covers_dense_samples_and_only_touching_cells(
    segment: tuple[Point, Point],
) -> None:
    start, end = segment
    cells = cells_on_segment(start, end)
    assert sampled_cells(start, end) <= set(cells)
    for cell in cells:
        assert distance_to_cell(start, end, cell) <= 1e-9, cell


@PROPERTY_SETTINGS
@given(segment=segments())
def test_cells_on_segment_is_the_same_backwards(segment: tuple[Point, Point]) -> None:
    start, end = segment
    assume(start != end)
    assert set(cells_on_segment(end, start)) == set(cells_on_segment(start, end))


def test_cells_on_segment_is_exact_far_from_the_origin() -> None:
    # 1e6 + 0.1 is not representable: the decisions must use the floats' exact values anyway.
    start, end = (1e6 + 0.1, 2e6 + 0.3), (1e6 + 3.1, 2e6 + 5.3)
    assert set(cells_on_segment(start, end)) == oracle_cells(start, end)


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        pytest.param((math.nan, 0.0), (1.0, 1.0), "start must be finite", id="nan"),
        pytest.param((0.0, 0.0), (math.inf, 1.0), "end must be finite", id="inf"),
        pytest.param((0.0, 0.0, 0.0), (1.0, 1.0), r"start must be an \(x, y\) pair", id="triple"),
        pytest.param((0.0, 0.0), ("a", 1.0), r"end must be an \(x, y\) pair", id="text"),
    ],
)
def test_cells_on_segment_rejects_bad_points(start: Point, end: Point, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cells_on_segment(start, end)


# --- segment_is_clear -----------------------------------------------------------------------

OPEN = grid(
    """
    ....
    ....
    ....
    """
)
WALL = grid(
    """
    ..#..
    ..#..
    .....
    """
)
SQUEEZE = grid(
    """
    .#.
    #..
    ...
    """
)
ONE_BLOCK = grid(
    """
    .#.
    ...
    ...
    """
)
MUD = np.array([[1.0, 1.0, 1.0], [1.0, 3.0, 1.0], [1.0, 1.0, 1.0]])


@pytest.mark.parametrize(
    ("walkable", "start", "end", "costs", "expected"),
    [
        pytest.param(OPEN, (0.5, 0.5), (3.5, 2.5), None, True, id="open-grid"),
        pytest.param(WALL, (0.5, 0.5), (4.5, 0.5), None, False, id="wall-in-the-middle"),
        pytest.param(WALL, (0.5, 0.5), (4.5, 2.5), None, False, id="clips-the-wall-end"),
        pytest.param(WALL, (0.5, 2.5), (4.5, 2.5), None, True, id="below-the-wall"),
        pytest.param(SQUEEZE, (0.5, 0.5), (1.5, 1.5), None, False, id="squeezes-between-walls"),
        pytest.param(ONE_BLOCK, (0.5, 0.5), (1.5, 1.5), None, False, id="vertex-next-to-a-wall"),
        pytest.param(ONE_BLOCK, (0.5, 1.5), (2.5, 1.5), None, True, id="row-below-the-wall"),
        pytest.param(ONE_BLOCK, (0.5, 1.0), (0.9, 1.0), None, True, id="along-a-line-open-sides"),
        pytest.param(ONE_BLOCK, (1.2, 1.0), (1.8, 1.0), None, False, id="along-the-wall-edge"),
        pytest.param(ONE_BLOCK, (1.5, 1.5), (1.5, 1.0), None, False, id="ends-on-the-wall-edge"),
        pytest.param(ONE_BLOCK, (2.0, 0.0), (2.5, 0.5), None, False, id="starts-on-the-border"),
        pytest.param(ONE_BLOCK, (2.5, 1.5), (0.5, 0.9), None, True, id="passes-by-a-wall-corner"),
        pytest.param(OPEN, (3.5, 2.5), (4.5, 2.5), None, False, id="leaves-the-grid"),
        pytest.param(OPEN, (-0.5, 0.5), (0.5, 0.5), None, False, id="starts-outside"),
        pytest.param(OPEN[:, :3], (0.5, 0.5), (2.5, 2.5), MUD, False, id="mud-on-the-way"),
        pytest.param(OPEN[:, :3], (0.5, 0.5), (2.5, 0.5), MUD, True, id="mud-beside-the-way"),
        pytest.param(OPEN[:, :3], (1.0, 0.5), (1.0, 1.5), MUD, False, id="mud-along-its-edge"),
        pytest.param(ONE_BLOCK, (0.3, 0.6), (0.3000001, 0.6000001), None, True, id="tiny-move"),
        pytest.param(ONE_BLOCK, (1.5, 0.5), (1.5, 0.5), None, False, id="standing-in-a-wall"),
    ],
)
def test_segment_is_clear_examples(
    walkable: NDArray[np.bool_],
    start: Point,
    end: Point,
    costs: NDArray[np.float64] | None,
    expected: bool,
) -> None:
    assert segment_is_clear(walkable, start, end, costs=costs) is expected
    assert segment_is_clear(walkable, end, start, costs=costs) is expected


@dataclass(frozen=True)
class ClearProblem:
    walkable: NDArray[np.bool_]
    costs: NDArray[np.float64] | None
    start: Point
    end: Point

    def __repr__(self) -> str:
        with_costs = "" if self.costs is None else f", costs=\n{self.costs}"
        return f"ClearProblem({self.start} -> {self.end}{with_costs})\n{ascii_grid(self.walkable)}"


def coordinates_within(size: int) -> st.SearchStrategy[float]:
    """Mostly inside (0, size), sometimes out; inner grid lines, corners and centres often."""
    inside = st.floats(0.0, size, allow_nan=False, exclude_min=True, exclude_max=True)
    return st.one_of(
        inside,
        st.integers(1, 4 * size - 1).map(lambda k: k / 4),
        st.integers(1, size - 1).map(float) if size > 1 else inside,
        st.floats(-0.25, size + 0.25, allow_nan=False),
    )


@st.composite
def clear_problems(draw: st.DrawFn) -> ClearProblem:
    """A grid up to 8x8 with a few walls and maybe a little mud, and a segment on it."""
    height, width = draw(st.integers(1, 8), label="height"), draw(st.integers(1, 8), label="width")
    walls_in_twelve = draw(st.sampled_from((0, 1, 2, 4)), label="walls in twelve")
    elements = st.sampled_from((True,) * (12 - walls_in_twelve) + (False,) * walls_in_twelve)
    walkable = draw(hnp.arrays(np.bool_, (height, width), elements=elements), label="walkable")
    costs = None
    if draw(st.booleans(), label="with costs"):
        levels = st.sampled_from((1.0,) * 9 + (2.0,))
        costs = draw(hnp.arrays(np.float64, (height, width), elements=levels), label="costs")
    if draw(st.booleans(), label="between centres"):
        # Like smooth_path's checks; these often pass exactly through grid corners.
        rows, cols = st.integers(0, height - 1), st.integers(0, width - 1)
        start = centre((draw(rows, label="row0"), draw(cols, label="col0")))
        end = centre((draw(rows, label="row1"), draw(cols, label="col1")))
    else:
        xs, ys = coordinates_within(width), coordinates_within(height)
        start = (draw(xs, label="x0"), draw(ys, label="y0"))
        end = (draw(xs, label="x1"), draw(ys, label="y1"))
    return ClearProblem(walkable, costs, start, end)


@PROPERTY_SETTINGS
@given(problem=clear_problems())
def test_segment_is_clear_matches_exact_oracle(problem: ClearProblem) -> None:
    p = problem
    expected = oracle_clear(p.walkable, p.start, p.end, p.costs)
    event("clear" if expected else "not clear")
    assert segment_is_clear(p.walkable, p.start, p.end, costs=p.costs) is expected
    assert segment_is_clear(p.walkable, p.end, p.start, costs=p.costs) is expected


@pytest.mark.parametrize(
    ("walkable", "costs", "message"),
    [
        pytest.param(np.ones((2, 2)), None, "walkable must have dtype bool", id="float-mask"),
        pytest.param(np.ones(4, dtype=bool), None, "walkable must be 2-D", id="flat-mask"),
        pytest.param(OPEN, np.ones((2, 2)), "costs must have the shape", id="costs-shape"),
        pytest.param(OPEN, [[1.0] * 4] * 3, "costs must be a numpy array", id="costs-list"),
        pytest.param(OPEN, np.ones((3, 4), dtype=bool), "real number dtype", id="costs-bool"),
        pytest.param(OPEN, np.ones((3, 4), dtype=complex), "real number dtype", id="costs-complex"),
    ],
)
def test_segment_is_clear_rejects_bad_grids(
    walkable: NDArray[np.bool_], costs: NDArray[np.float64] | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        segment_is_clear(walkable, (0.5, 0.5), (1.5, 0.5), costs=costs)


def test_segment_is_clear_counts_nan_cost_as_not_clear() -> None:
    costs = np.ones((3, 4))
    costs[0, 1] = math.nan
    assert not segment_is_clear(OPEN, (0.5, 0.5), (2.5, 0.5), costs=costs)


# --- smooth_path ----------------------------------------------------------------------------


def is_subsequence(short: Sequence[Cell], long: Sequence[Cell]) -> bool:
    remaining = iter(long)
    return all(cell in remaining for cell in short)


def assert_smoothing_contract(
    walkable: NDArray[np.bool_],
    cells: Sequence[Cell],
    smoothed: Sequence[Cell],
    costs: NDArray[np.float64] | None = None,
) -> None:
    drawing = ascii_grid(walkable, smoothed)
    assert is_subsequence(smoothed, cells), drawing
    assert smoothed[0] == cells[0], drawing
    assert smoothed[-1] == cells[-1], drawing
    position = {cell: index for index, cell in enumerate(cells)}
    for here, there in itertools.pairwise(smoothed):
        adjacent_in_path = position[there] == position[here] + 1
        clear = segment_is_clear(walkable, centre(here), centre(there), costs=costs)
        assert clear or (costs is not None and adjacent_in_path), f"{here} -> {there}\n{drawing}"
    grid_length = path_length([centre(cell) for cell in cells])
    assert path_length([centre(cell) for cell in smoothed]) <= grid_length + 1e-9, drawing


@pytest.mark.parametrize(
    "cells",
    [
        pytest.param([], id="empty"),
        pytest.param([(1, 1)], id="one-cell"),
        pytest.param([(0, 0), (1, 1)], id="two-cells"),
    ],
)
def test_short_paths_come_back_as_a_copy(cells: list[Cell]) -> None:
    smoothed = smooth_path(OPEN, cells)
    assert smoothed == cells
    assert smoothed is not cells


@pytest.mark.parametrize(
    ("walkable", "start", "goal", "expected"),
    [
        pytest.param(np.ones((6, 6), dtype=bool), (0, 0), (5, 5), [(0, 0), (5, 5)], id="diagonal"),
        pytest.param(np.ones((6, 6), dtype=bool), (5, 0), (0, 5), [(5, 0), (0, 5)], id="anti-diag"),
        pytest.param(np.ones((4, 9), dtype=bool), (0, 0), (3, 8), [(0, 0), (3, 8)], id="shallow"),
        pytest.param(
            grid(
                """
                ...
                ##.
                ...
                """
            ),
            (0, 0),
            (2, 0),
            [(0, 0), (0, 2), (2, 2), (2, 0)],
            id="u-turn-keeps-the-corners",
        ),
        pytest.param(
            grid(
                """
                .....
                .....
                ..#..
                .....
                """
            ),
            (1, 0),
            (3, 4),
            [(1, 0), (1, 3), (3, 4)],
            id="round-a-pillar",
        ),
    ],
)
def test_smooth_path_examples(
    walkable: NDArray[np.bool_], start: Cell, goal: Cell, expected: list[Cell]
) -> None:
    result = find_path(walkable, start, goal)
    assert_legal_path(walkable, result.cells, start, goal, diagonal=True)
    smoothed = smooth_path(walkable, result.cells)
    assert smoothed == expected, ascii_grid(walkable, smoothed)
    assert_smoothing_contract(walkable, result.cells, smoothed)


def test_smooth_path_never_cuts_through_mud() -> None:
    # A 3x3 mud block; the path runs round it along the top and right edges (find_path's path).
    walkable = np.ones((5, 5), dtype=bool)
    costs = np.ones((5, 5))
    costs[1:4, 1:4] = 5.0
    cells = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4), (4, 4)]
    # Any shortcut from (0, 0) past (0, 3), or from (0, 3) on, would clip the mud; the diagonal
    # step (0, 3) -> (1, 4) grazes the corner of (1, 3) but is kept as the planner's own move.
    assert smooth_path(walkable, cells, costs=costs) == [(0, 0), (0, 3), (1, 4), (4, 4)]
    assert smooth_path(walkable, cells) == [(0, 0), (4, 4)]


def test_smooth_path_keeps_steps_through_mud() -> None:
    walkable = np.ones((1, 5), dtype=bool)
    costs = np.array([[1.0, 1.0, 4.0, 1.0, 1.0]])
    cells = [(0, col) for col in range(5)]
    assert smooth_path(walkable, cells, costs=costs) == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]


def test_smooth_path_rejects_a_cell_that_is_not_two_integers() -> None:
    with pytest.raises(ValueError, match=r"cells\[1\] must be a \(row, col\) pair of integers"):
        smooth_path(OPEN, [(0, 0), (0.5, 1), (1, 1)])  # type: ignore[list-item]


@st.composite
def planned_paths(
    draw: st.DrawFn, *, with_costs: bool
) -> tuple[NDArray[np.bool_], NDArray[np.float64] | None, tuple[Cell, ...]]:
    """A grid up to 30x30 with random walls (optionally mud) and find_path's path on it."""
    height, width = (
        draw(st.integers(1, 30), label="height"),
        draw(st.integers(1, 30), label="width"),
    )
    walls_in_six = draw(st.sampled_from((0, 1, 2)), label="walls in six")
    elements = st.sampled_from((True,) * (6 - walls_in_six) + (False,) * walls_in_six)
    walkable = draw(hnp.arrays(np.bool_, (height, width), elements=elements), label="walkable")
    costs = None
    if with_costs:
        levels = st.sampled_from((1.0, 1.0, 1.0, 1.0, 1.5, 3.0))
        costs = draw(hnp.arrays(np.float64, (height, width), elements=levels), label="costs")
    start = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    goal = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    walkable[start] = walkable[goal] = True
    result = find_path(walkable, start, goal, costs=costs)
    assume(result.found)
    return walkable, costs, result.cells


@PROPERTY_SETTINGS
@given(problem=planned_paths(with_costs=False))
def test_smooth_path_contract_on_random_grids(
    problem: tuple[NDArray[np.bool_], None, tuple[Cell, ...]],
) -> None:
    walkable, _, cells = problem
    smoothed = smooth_path(walkable, cells)
    event("shortened" if len(smoothed) < len(cells) else "kept every cell")
    assert_smoothing_contract(walkable, cells, smoothed)


@PROPERTY_SETTINGS
@given(problem=planned_paths(with_costs=True))
def test_smooth_path_contract_with_mud(
    problem: tuple[NDArray[np.bool_], NDArray[np.float64], tuple[Cell, ...]],
) -> None:
    walkable, costs, cells = problem
    smoothed = smooth_path(walkable, cells, costs=costs)
    event("shortened" if len(smoothed) < len(cells) else "kept every cell")
    assert_smoothing_contract(walkable, cells, smoothed, costs)


def test_path_length_of_nothing_is_zero() -> None:
    assert path_length([]) == path_length([(3.0, 4.0)]) == 0.0
