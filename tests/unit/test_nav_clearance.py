"""Clearance for agents with a size: the map against brute force and sampled discs, swept discs.

Oracles: the exact distance from each cell centre to every blocked square and the border in
integers (half cells), a disc sampled densely around each centre, and the distance from a
segment to each square minimized numerically along the segment.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sim.navigation import find_path, segment_is_clear, smooth_path
from sim.navigation.clearance import clearance, disc_segment_is_clear, usable_mask
from sim.navigation.searches.kernel import KERNEL_AVAILABLE, clearance_flat
from tests.helpers.grids import ascii_grid, grid

CLEARANCE_SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
needs_kernel = pytest.mark.skipif(
    not KERNEL_AVAILABLE, reason="sim.navigation.searches._kernel not built"
)
IMPLEMENTATIONS = ("c", "python") if KERNEL_AVAILABLE else ("python",)


@dataclass(frozen=True)
class Walls:
    walkable: NDArray[np.bool_]

    def __repr__(self) -> str:
        return f"Walls {self.walkable.shape}\n{ascii_grid(self.walkable)}"


@st.composite
def walls(
    draw: st.DrawFn, *, max_side: int = 24, densities: tuple[int, ...] = (0, 1, 2, 4)
) -> Walls:
    height = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    walls_in_ten = draw(st.sampled_from(densities))
    elements = st.sampled_from((True,) * (10 - walls_in_ten) + (False,) * walls_in_ten)
    return Walls(draw(hnp.arrays(np.bool_, (height, width), elements=elements)))


def exact_doubled_sq(walkable: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Squared distance, in half cells, from each centre to every blocked square and border."""
    height, width = walkable.shape
    rows = np.arange(height)[:, None]
    cols = np.arange(width)[None, :]
    border = np.minimum(
        np.minimum(2 * cols + 1, 2 * width - 2 * cols - 1),
        np.minimum(2 * rows + 1, 2 * height - 2 * rows - 1),
    )
    best = (border * border).astype(np.int64)
    for r, c in np.argwhere(~walkable):
        gap_x = np.maximum(2 * np.abs(cols - c) - 1, 0)
        gap_y = np.maximum(2 * np.abs(rows - r) - 1, 0)
        best = np.minimum(best, gap_x * gap_x + gap_y * gap_y)
    return best


def point_wall_distance(walkable: NDArray[np.bool_], x: float, y: float) -> float:
    """Distance from a point to the nearest blocked square or the border (floats)."""
    height, width = walkable.shape
    best = min(x, y, width - x, height - y)
    for r, c in np.argwhere(~walkable):
        gap_x = max(c - x, x - c - 1, 0.0)
        gap_y = max(r - y, y - r - 1, 0.0)
        best = min(best, math.hypot(gap_x, gap_y))
    return best


def segment_wall_distance(
    walkable: NDArray[np.bool_], start: tuple[float, float], end: tuple[float, float]
) -> float:
    """Least distance from the segment to a wall: sampled, then refined by golden section."""
    (ax, ay), (bx, by) = start, end

    def at(t: float) -> float:
        return point_wall_distance(walkable, ax + t * (bx - ax), ay + t * (by - ay))

    samples = 64
    values = [at(i / samples) for i in range(samples + 1)]
    best_index = min(range(samples + 1), key=values.__getitem__)
    best = values[best_index]
    # The distance to a union of convex sets is not convex, but it is within a sample step of
    # its minimum near the best sample; refine on both neighbouring intervals.
    for lo, hi in ((best_index - 1, best_index), (best_index, best_index + 1)):
        if lo < 0 or hi > samples:
            continue
        a, b = lo / samples, hi / samples
        for _ in range(60):
            m1, m2 = a + (b - a) * 0.382, a + (b - a) * 0.618
            if at(m1) < at(m2):
                b = m2
            else:
                a = m1
        best = min(best, at((a + b) / 2))
    return best


# ---- The map ----


@CLEARANCE_SETTINGS
@given(case=walls())
def test_clearance_is_the_exact_distance_to_the_nearest_wall(case: Walls) -> None:
    expected = np.sqrt(exact_doubled_sq(case.walkable).astype(np.float64)) / 2.0
    for implementation in IMPLEMENTATIONS:
        got = clearance(case.walkable, implementation=implementation)
        assert got.dtype == np.float64
        assert got.tobytes() == expected.tobytes(), implementation
    assert (expected[~case.walkable] == 0.0).all()
    assert (expected[case.walkable] >= 0.5).all()


@CLEARANCE_SETTINGS
@given(case=walls(max_side=12), radius=st.floats(0.05, 4.0))
def test_usable_cells_are_those_whose_sampled_disc_meets_no_wall(
    case: Walls, radius: float
) -> None:
    walkable = case.walkable
    height, width = walkable.shape
    usable = usable_mask(clearance(walkable), radius)
    rings, spokes = 24, 96
    radii = radius * np.arange(1, rings + 1) / rings * (1.0 - 1e-12)  # inside the open disc
    angles = 2.0 * np.pi * np.arange(spokes) / spokes
    offset_x = (radii[:, None] * np.cos(angles)[None, :]).ravel()
    offset_y = (radii[:, None] * np.sin(angles)[None, :]).ravel()
    resolution = radius * (2.0 * np.pi / spokes + 1.0 / rings)
    exact = np.sqrt(exact_doubled_sq(walkable).astype(np.float64)) / 2.0
    for (row, col), ok in np.ndenumerate(usable):
        x, y = col + 0.5 + offset_x, row + 0.5 + offset_y
        outside = (x <= 0.0) | (y <= 0.0) | (x >= width) | (y >= height)
        inside_x, inside_y = np.floor(x).astype(int), np.floor(y).astype(int)
        strictly = (x != inside_x) & (y != inside_y)  # not on a grid line
        in_grid = ~outside
        hits_wall = np.zeros_like(outside)
        hits_wall[in_grid] = ~walkable[inside_y[in_grid], inside_x[in_grid]] & strictly[in_grid]
        violated = bool((outside | hits_wall).any()) or not walkable[row, col]
        context = f"cell {(row, col)}, radius {radius}, clearance {exact[row, col]}"
        if ok:
            assert not violated, context
        elif walkable[row, col] and exact[row, col] < radius - resolution:
            assert violated, context


def test_a_disc_that_only_touches_a_wall_is_usable() -> None:
    walkable = np.ones((7, 7), dtype=bool)
    walkable[3, 3] = False
    field = clearance(walkable)
    # (1, 3): 1.5 from the wall below and from the border above; (2, 2): the wall's corner.
    assert (field[1, 3], field[2, 3], field[3, 3]) == (1.5, 0.5, 0.0)
    assert field[2, 2] == math.sqrt(2) / 2
    assert usable_mask(field, 1.5)[1, 3]
    assert not usable_mask(field, 1.5 + 2**-40)[1, 3]
    assert usable_mask(field, math.sqrt(2) / 2)[2, 2]
    assert usable_mask(field, 0.5).tolist() == walkable.tolist()


@pytest.mark.parametrize("radius", [0.0, 0.25, 0.5])
def test_small_radii_plan_on_the_walkable_mask(radius: float) -> None:
    walkable = grid(
        """
        .#...
        ...#.
        #....
        """
    )
    assert usable_mask(clearance(walkable), radius).tolist() == walkable.tolist()


def test_a_radius_wider_than_the_grid_leaves_no_cell() -> None:
    field = clearance(np.ones((5, 9), dtype=bool))
    assert np.argwhere(usable_mask(field, 2.5)).tolist() == [[2, c] for c in range(2, 7)]
    assert not usable_mask(field, 2.5 + 2**-40).any()


@pytest.mark.parametrize(
    ("radius", "message"),
    [
        (-0.5, "radius must be a finite number >= 0"),
        (math.nan, "radius must be a finite number >= 0"),
        (math.inf, "radius must be a finite number >= 0"),
        ("1", "radius must be a number"),
        (True, "radius must be a number"),
    ],
    ids=repr,
)
def test_bad_radius_is_refused(radius: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        usable_mask(np.ones((2, 2), dtype=np.float64), radius)


def test_empty_and_bad_masks() -> None:
    assert clearance(np.ones((0, 3), dtype=bool)).shape == (0, 3)
    with pytest.raises(ValueError, match="walkable must have dtype bool"):
        clearance(np.ones((2, 2)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="implementation must be auto, c or python"):
        clearance(np.ones((2, 2), dtype=bool), implementation="fortran")


@needs_kernel
@pytest.mark.parametrize("shape", [(1, 1), (1, 40), (40, 1), (3, 70), (70, 3), (64, 64)])
def test_kernel_clearance_matches_numpy_on_thin_and_square_grids(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(sum(shape))
    for density in (0.0, 0.1, 0.5, 1.0):
        walkable = rng.random(shape) >= density
        c = clearance_flat(np.ascontiguousarray(walkable))
        assert c.tolist() == exact_doubled_sq(walkable).tolist()
        assert np.array_equal(
            clearance(walkable, implementation="c"), clearance(walkable, implementation="python")
        )


@needs_kernel
@pytest.mark.parametrize(
    ("walkable", "message"),
    [
        (np.ones((3, 3), dtype=np.uint8), "walkable must be a 2-D numpy bool"),
        (np.ones((3, 6), dtype=bool)[:, ::2], "walkable must be C-contiguous"),
        (np.ones((0, 3), dtype=bool), "1 to 2..31 - 1 cells"),
    ],
    ids=("uint8", "strided", "empty"),
)
def test_clearance_flat_checks_its_input(walkable: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        clearance_flat(walkable)


# ---- Swept discs ----


@CLEARANCE_SETTINGS
@given(
    case=walls(max_side=10, densities=(0, 0, 1, 2)),
    radius=st.one_of(st.sampled_from((0.25, 0.5, 1.0)), st.floats(0.01, 1.5)),
    data=st.data(),
)
def test_swept_disc_matches_the_distance_along_the_segment(
    case: Walls, radius: float, data: st.DataObject
) -> None:
    walkable = case.walkable
    height, width = walkable.shape
    xs, ys = st.floats(-0.2, width + 0.2), st.floats(-0.2, height + 0.2)
    start = (data.draw(xs, label="x0"), data.draw(ys, label="y0"))
    # Short moves as often as long ones: most long ones hit something.
    step = st.floats(-2.0, 2.0)
    end = (
        data.draw(xs | st.builds(lambda d: start[0] + d, step), label="x1"),
        data.draw(ys | st.builds(lambda d: start[1] + d, step), label="y1"),
    )
    distance = segment_wall_distance(walkable, start, end)
    clear = disc_segment_is_clear(walkable, start, end, radius)
    if abs(distance - radius) > 1e-9:
        assert clear == (distance > radius), f"{start} -> {end}: distance {distance}"
    if clear:  # sound whatever the oracle's precision: the oracle only overestimates
        assert distance >= radius - 1e-12
    assert clear == disc_segment_is_clear(walkable, end, start, radius)


@pytest.mark.parametrize(
    ("start", "end", "radius", "expected"),
    [
        pytest.param((0.5, 1.5), (5.5, 1.5), 0.5, True, id="touching-the-wall-below"),
        pytest.param((0.5, 1.5), (5.5, 1.5), 0.5 + 2**-40, False, id="a-hair-more"),
        pytest.param((1.0, 1.0), (1.0, 1.0), 1.0, True, id="point-touching-border"),
        pytest.param((1.0, 1.0), (1.0, 1.0), 1.0 + 2**-40, False, id="point-past-border"),
        pytest.param((0.5, 2.5), (5.5, 2.5), 0.5, True, id="along-the-bottom"),
        pytest.param((2.4, 2.4), (3.4, 1.4), 0.55, True, id="diagonal-0.566-from-corner"),
        pytest.param((2.4, 2.4), (3.4, 1.4), 0.6, False, id="diagonal-nearer-than-0.6"),
        pytest.param((1.5, 1.5), (4.5, 1.5), 0.5, True, id="past-the-corner-at-0.5"),
    ],
)
def test_swept_disc_cases(
    start: tuple[float, float], end: tuple[float, float], radius: float, expected: bool
) -> None:
    walkable = grid(
        """
        ..#...
        ......
        ......
        """
    )
    assert disc_segment_is_clear(walkable, start, end, radius) is expected
    assert segment_is_clear(walkable, start, end, radius=radius) is expected


def test_segment_is_clear_with_a_radius_still_reads_costs() -> None:
    walkable = np.ones((5, 5), dtype=bool)
    costs = np.ones((5, 5))
    costs[2, 2] = 3.0
    assert segment_is_clear(walkable, (1.5, 2.5), (3.5, 2.5), radius=1.0) is True
    assert segment_is_clear(walkable, (1.5, 2.5), (3.5, 2.5), radius=1.0, costs=costs) is False


@CLEARANCE_SETTINGS
@given(case=walls(max_side=14), radius=st.sampled_from((0.3, 0.6, 0.8, 1.0, 1.3)), data=st.data())
def test_paths_for_a_radius_keep_the_disc_clear_before_and_after_smoothing(
    case: Walls, radius: float, data: st.DataObject
) -> None:
    walkable = case.walkable
    usable = usable_mask(clearance(walkable), radius)
    cells = np.argwhere(usable)
    if len(cells) == 0:
        return
    start = tuple(int(v) for v in cells[data.draw(st.integers(0, len(cells) - 1))])
    goal = tuple(int(v) for v in cells[data.draw(st.integers(0, len(cells) - 1))])
    result = find_path(usable, start, goal)  # type: ignore[arg-type]
    if not result.found:
        return
    smoothed = smooth_path(walkable, result.cells, radius=radius)
    for path in (list(result.cells), smoothed):
        for (r0, c0), (r1, c1) in itertools.pairwise(path):
            a, b = (c0 + 0.5, r0 + 0.5), (c1 + 0.5, r1 + 0.5)
            assert disc_segment_is_clear(walkable, a, b, radius), (a, b)
            assert segment_wall_distance(walkable, a, b) >= radius - 1e-9, (a, b)
    assert smoothed[0] == result.cells[0]
    assert smoothed[-1] == result.cells[-1]


def test_smoothing_with_a_radius_keeps_away_from_a_corner_it_would_cut() -> None:
    walkable = grid(
        """
        ......
        ......
        ..#...
        ......
        ......
        """
    )
    path = [(0, 0), (1, 1), (2, 1), (3, 1), (4, 2), (4, 3)]
    # The centre line to (4, 2) passes 0.22 from the wall's corner (2, 3); the one to (3, 1)
    # passes 0.63 from it.
    assert smooth_path(walkable, path) == [(0, 0), (4, 2), (4, 3)]
    assert smooth_path(walkable, path, radius=0.5) == [(0, 0), (3, 1), (4, 3)]
    assert smooth_path(walkable, path, radius=0.7) == path
