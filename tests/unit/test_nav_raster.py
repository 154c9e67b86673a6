"""Rasterizing boxes: exact overlap checked against brute-force supersampling on random boxes."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import (
    Box,
    box_footprint,
    rasterize_box_into,
    rasterize_boxes,
    transform_box,
)

RASTER_SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow],
)
SAMPLES = 24  # per cell side


def local_coordinates(
    box: Box, x: NDArray[np.float64], y: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Coordinates of world points along the box's own axes, from its centre."""
    angle = math.radians(box.heading_deg)
    dx, dy = x - box.x, y - box.y
    return dx * math.cos(angle) + dy * math.sin(angle), -dx * math.sin(angle) + dy * math.cos(angle)


def distance_to_box(
    box: Box, x: NDArray[np.float64], y: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Distance from world points to the (closed) box; 0 inside."""
    u, v = local_coordinates(box, x, y)
    return np.hypot(
        np.maximum(np.abs(u) - box.size_x / 2, 0.0), np.maximum(np.abs(v) - box.size_y / 2, 0.0)
    )


def cell_points(
    shape: tuple[int, int], origin: tuple[float, float], cell_size: float, *, boundary: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """World points in every cell, shaped [row, col, i, j].

    Without `boundary`, SAMPLES x SAMPLES sub-cell centres (strictly inside the cell); with it, a
    (SAMPLES + 1)^2 lattice that includes the cell's edges and corners.
    """
    rows, cols = shape
    if boundary:
        fractions = np.linspace(0.0, 1.0, SAMPLES + 1)
    else:
        fractions = (np.arange(SAMPLES) + 0.5) / SAMPLES
    x = (
        origin[0]
        + (np.arange(cols)[None, :, None, None] + fractions[None, None, None, :]) * cell_size
    )
    y = (
        origin[1]
        + (np.arange(rows)[:, None, None, None] + fractions[None, None, :, None]) * cell_size
    )
    return np.broadcast_arrays(x, y)  # type: ignore[return-value]


def clipped_area(box: Box, x0: float, y0: float, x1: float, y1: float) -> float:
    """Area of box ∩ [x0, x1] x [y0, y1] by Sutherland-Hodgman clipping."""
    polygon = list(box.corners())
    for inside, cut in (
        (
            lambda p: p[0] >= x0,
            lambda a, b: (x0, a[1] + (b[1] - a[1]) * (x0 - a[0]) / (b[0] - a[0])),
        ),
        (
            lambda p: p[0] <= x1,
            lambda a, b: (x1, a[1] + (b[1] - a[1]) * (x1 - a[0]) / (b[0] - a[0])),
        ),
        (
            lambda p: p[1] >= y0,
            lambda a, b: (a[0] + (b[0] - a[0]) * (y0 - a[1]) / (b[1] - a[1]), y0),
        ),
        (
            lambda p: p[1] <= y1,
            lambda a, b: (a[0] + (b[0] - a[0]) * (y1 - a[1]) / (b[1] - a[1]), y1),
        ),
    ):
        clipped = []
        for index, point in enumerate(polygon):
            previous = polygon[index - 1]
            if inside(point):
                if not inside(previous):
                    clipped.append(cut(previous, point))
                clipped.append(point)
            elif inside(previous):
                clipped.append(cut(previous, point))
        polygon = clipped
        if not polygon:
            return 0.0
    twice = sum(
        a[0] * b[1] - b[0] * a[1] for a, b in zip(polygon, polygon[1:] + polygon[:1], strict=True)
    )
    return abs(twice) / 2


def full_mask(
    box: Box, shape: tuple[int, int], origin: tuple[float, float], cell_size: float, inflate: float
) -> NDArray[np.bool_]:
    mask = np.zeros(shape, dtype=bool)
    rasterize_box_into(mask, box, origin=origin, cell_size=cell_size, inflate=inflate)
    return mask


headings = st.one_of(
    st.sampled_from((0.0, 90.0, 180.0, 270.0, -90.0, 45.0, 30.0, 360.0)),
    st.floats(-720.0, 720.0),
)


@st.composite
def scenes(draw: st.DrawFn) -> tuple[Box, tuple[int, int], tuple[float, float], float]:
    rows, cols = draw(st.integers(1, 14)), draw(st.integers(1, 14))
    cell_size = draw(st.sampled_from((0.5, 1.0, 1.3)))
    origin = (draw(st.sampled_from((0.0, -3.0, 2.7))), draw(st.sampled_from((0.0, -1.5, 4.2))))
    x = origin[0] + draw(st.floats(-2.0, cols + 2.0)) * cell_size
    y = origin[1] + draw(st.floats(-2.0, rows + 2.0)) * cell_size
    # Real obstacles: no sizes down in the denormals, where the oracles' own rounding rules.
    sizes = st.one_of(st.just(0.0), st.floats(0.01, 6.0))
    size_x = draw(sizes) * cell_size
    size_y = draw(sizes) * cell_size
    return Box(x, y, size_x, size_y, draw(headings)), (rows, cols), origin, cell_size


@RASTER_SETTINGS
@given(scene=scenes())
def test_box_cells_match_supersampling(
    scene: tuple[Box, tuple[int, int], tuple[float, float], float],
) -> None:
    box, shape, origin, cell_size = scene
    exact = full_mask(box, shape, origin, cell_size, 0.0)
    u, v = local_coordinates(box, *cell_points(shape, origin, cell_size, boundary=False))
    inside = (np.abs(u) < box.size_x / 2) & (np.abs(v) < box.size_y / 2)
    sampled = np.asarray(inside.any(axis=(2, 3)), dtype=np.bool_)
    # A sample strictly inside both proves a positive overlap: exact must have every such cell.
    assert not (sampled & ~exact).any()
    cell_area = cell_size * cell_size
    for (row, col), covered in np.ndenumerate(exact):
        x0, y0 = origin[0] + col * cell_size, origin[1] + row * cell_size
        area = clipped_area(box, x0, y0, x0 + cell_size, y0 + cell_size)
        if covered:
            assert area > 0.0
            if not sampled[row, col]:  # only a sliver thinner than the sample spacing
                assert area < 3.0 * cell_area / SAMPLES
        else:
            assert area < 1e-9 * cell_area  # touching, up to rounding


@RASTER_SETTINGS
@given(scene=scenes(), inflate_cells=st.floats(0.05, 1.5))
def test_inflated_box_cells_match_supersampling(
    scene: tuple[Box, tuple[int, int], tuple[float, float], float], inflate_cells: float
) -> None:
    box, shape, origin, cell_size = scene
    inflate = inflate_cells * cell_size
    exact = full_mask(box, shape, origin, cell_size, inflate)
    inner = distance_to_box(box, *cell_points(shape, origin, cell_size, boundary=False))
    sampled = (inner < inflate).any(axis=(2, 3))
    assert not (sampled & ~exact).any()
    # Distance from each closed cell to the box, from above, within one lattice step.
    lattice = distance_to_box(box, *cell_points(shape, origin, cell_size, boundary=True))
    nearest = lattice.min(axis=(2, 3))
    step = cell_size / SAMPLES
    assert (nearest[exact] < inflate + step).all()
    assert (nearest[~exact] >= inflate - 1e-9).all()


@pytest.mark.parametrize(
    "heading", [0.0, 90.0, 180.0, 270.0, -90.0, 450.0, -180.0], ids=lambda h: f"h{h:g}"
)
def test_grid_aligned_box_touching_edges_covers_only_its_cells(heading: float) -> None:
    # 2 x 2 box spanning x in [1, 3] and y in [0, 2]: the neighbours it touches stay free.
    mask = rasterize_boxes([Box(2.0, 1.0, 2.0, 2.0, heading)], (4, 4))
    assert np.argwhere(mask).tolist() == [[0, 1], [0, 2], [1, 1], [1, 2]]


@RASTER_SETTINGS
@given(
    centre=st.tuples(st.floats(-3.0, 9.0), st.floats(-3.0, 9.0)),
    size=st.tuples(st.floats(0.0, 7.0), st.floats(0.0, 7.0)),
    heading=st.sampled_from([0.0, 90.0, 180.0, 270.0]),
    cell_size=st.sampled_from([1.0, 0.5, 0.3, 1.7]),
    snapped=st.booleans(),
)
def test_an_aligned_box_covers_the_cells_its_corners_overlap(
    centre: tuple[float, float],
    size: tuple[float, float],
    heading: float,
    cell_size: float,
    snapped: bool,
) -> None:
    # Snapped boxes sit on cell edges, where "touching does not cover" is decided.
    x, y = (round(value) * cell_size / 2 for value in centre) if snapped else centre
    size_x, size_y = (round(value) * cell_size for value in size) if snapped else size
    box = Box(x, y, size_x, size_y, heading)
    shape, origin = (6, 7), (-0.5, 0.25)
    xs, ys = zip(*box.corners(), strict=True)
    expected = np.zeros(shape, dtype=bool)
    for row, col in np.ndindex(shape):
        x0, y0 = origin[0] + col * cell_size, origin[1] + row * cell_size
        x1, y1 = origin[0] + (col + 1) * cell_size, origin[1] + (row + 1) * cell_size
        across = min(x1, max(xs)) - max(x0, min(xs))
        along = min(y1, max(ys)) - max(y0, min(ys))
        expected[row, col] = across > 0.0 and along > 0.0
    got = np.zeros(shape, dtype=bool)
    rasterize_box_into(got, box, origin=origin, cell_size=cell_size)
    assert (got == expected).all()


def test_box_lying_along_its_heading() -> None:
    # 3 long on its own x axis, turned 90 degrees: 3 cells high, 1 wide.
    mask = rasterize_boxes([Box(1.5, 1.5, 3.0, 1.0, 90.0)], (3, 3))
    assert np.argwhere(mask).tolist() == [[0, 1], [1, 1], [2, 1]]


@pytest.mark.parametrize(
    ("box", "expected"),
    [
        pytest.param(Box(1.5, 1.5, 0.1, 0.1), [[1, 1]], id="tiny-inside-one-cell"),
        pytest.param(Box(1.0, 1.0, 0.1, 0.1), [[0, 0], [0, 1], [1, 0], [1, 1]], id="on-vertex"),
        pytest.param(
            Box(1.0, 1.0, math.sqrt(2), math.sqrt(2), 45.0),
            [[0, 0], [0, 1], [1, 0], [1, 1]],
            id="diamond",
        ),
        pytest.param(Box(1.5, 1.5, 0.0, 2.0), [], id="zero-width-has-no-area"),
        pytest.param(Box(-5.0, 1.0, 2.0, 2.0), [], id="outside-grid"),
        pytest.param(Box(0.0, 0.0, 3.0, 1.0), [[0, 0], [0, 1]], id="partly-outside"),
    ],
)
def test_small_cases(box: Box, expected: list[list[int]]) -> None:
    assert np.argwhere(rasterize_boxes([box], (3, 3))).tolist() == expected


def test_inflated_point_is_a_disc_that_touches_but_does_not_cover_neighbours() -> None:
    mask = rasterize_boxes([Box(1.5, 1.5, 0.0, 0.0)], (3, 3), inflate=0.5)
    assert np.argwhere(mask).tolist() == [[1, 1]]


def test_inflation_rounds_the_corners() -> None:
    # Box x, y in [1, 3]; inflated by 1.2 the cell diagonal to its corner (distance sqrt 2)
    # stays free while the cell beside it (distance 1) is covered.
    mask = rasterize_boxes([Box(2.0, 2.0, 2.0, 2.0)], (7, 7), origin=(-2.0, -2.0), inflate=1.2)
    assert not mask[1, 1]
    assert mask[1, 2]
    assert mask[2, 1]


def test_footprint_window_and_flat_cells() -> None:
    footprint = box_footprint(Box(3.0, 2.0, 2.0, 2.0, 45.0), (5, 6))
    assert (footprint.rows, footprint.cols) == (slice(0, 4), slice(1, 5))
    counts = np.zeros((5, 6), dtype=np.int32)
    counts[footprint.rows, footprint.cols] += footprint.mask
    assert np.flatnonzero(counts).tolist() == footprint.flat_cells(6).tolist()


def test_footprint_respects_origin_and_cell_size() -> None:
    footprint = box_footprint(
        Box(10.75, 20.25, 0.5, 0.5), (10, 10), origin=(10.0, 20.0), cell_size=0.5
    )
    assert footprint.flat_cells(10).tolist() == [1]


def test_rasterize_box_into_reports_touched_window() -> None:
    mask = np.zeros((4, 4), dtype=bool)
    mask[3, 3] = True
    footprint = rasterize_box_into(mask, Box(1.0, 1.0, 2.0, 2.0))
    assert (footprint.rows, footprint.cols) == (slice(0, 2), slice(0, 2))
    assert mask.sum() == 5


def test_empty_footprint_is_empty() -> None:
    footprint = box_footprint(Box(50.0, 50.0, 1.0, 1.0), (3, 3))
    assert footprint.mask.shape == (0, 0)
    assert footprint.flat_cells(3).tolist() == []


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(lambda: Box(0.0, 0.0, -1.0, 1.0), r"box sizes must be >= 0", id="neg-size"),
        pytest.param(lambda: Box(math.nan, 0.0, 1.0, 1.0), "box x must be finite", id="nan-x"),
        pytest.param(
            lambda: Box(0.0, 0.0, 1.0, 1.0, math.inf), "box heading_deg must be finite", id="inf-h"
        ),
        pytest.param(
            lambda: box_footprint(Box(0.0, 0.0, 1.0, 1.0), (2, 2), inflate=-0.1),
            r"inflate must be finite and >= 0, got -0.1",
            id="neg-inflate",
        ),
        pytest.param(
            lambda: box_footprint(Box(0.0, 0.0, 1.0, 1.0), (2, 2), cell_size=0.0),
            "cell_size must be finite and > 0, got 0.0",
            id="zero-cell",
        ),
    ],
)
def test_bad_raster_arguments_raise(make: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_transform_box_ignores_float32_noise_and_mirroring() -> None:
    noisy = transform_box(2.0000003, -1.9999997, -2.0, 1.0, 450.0000001)
    assert noisy == transform_box(2.0, -2.0, 2.0, 1.0, 90.0)
    assert noisy == Box(2.0, -2.0, 2.0, 1.0, 90.0)
