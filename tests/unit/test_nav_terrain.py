"""Terrain patches rasterized into cell costs: exact cover, highest cost wins, updates in place.

The oracle is independent of `box_footprint`: the area a (rotated) patch shares with each cell,
by polygon clipping, and a supersampling of the cell.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import Box, box_footprint, find_path
from sim.navigation.terrain import (
    TerrainLayer,
    TerrainSummary,
    check_terrain_cost,
    rasterize_terrain,
    terrain_summary,
)

TERRAIN_SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
)
SAMPLES = 16  # per cell side
COSTS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 100.0)

Patch = tuple[Box, float]


def clipped_area(box: Box, x0: float, y0: float, x1: float, y1: float) -> float:
    """Area of box ∩ [x0, x1] x [y0, y1] (Sutherland-Hodgman against each side in turn)."""
    polygon = list(box.corners())
    for axis, bound, above in ((0, x0, True), (0, x1, False), (1, y0, True), (1, y1, False)):

        def inside(
            point: tuple[float, float], axis: int = axis, bound: float = bound, above: bool = above
        ) -> bool:
            return point[axis] >= bound if above else point[axis] <= bound

        def cut(
            a: tuple[float, float], b: tuple[float, float], axis: int = axis, bound: float = bound
        ) -> tuple[float, float]:
            t = (bound - a[axis]) / (b[axis] - a[axis])
            return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)

        clipped: list[tuple[float, float]] = []
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


def sampled_inside(
    box: Box, shape: tuple[int, int], origin: tuple[float, float], cell_size: float
) -> NDArray[np.bool_]:
    """[row, col] True where a sub-cell centre lies strictly inside the box."""
    rows, cols = shape
    fractions = (np.arange(SAMPLES) + 0.5) / SAMPLES
    x = origin[0] + (np.arange(cols)[None, :, None, None] + fractions[None, None, None, :]) * (
        cell_size
    )
    y = origin[1] + (np.arange(rows)[:, None, None, None] + fractions[None, None, :, None]) * (
        cell_size
    )
    x, y = np.broadcast_arrays(x, y)
    angle = math.radians(box.heading_deg)
    dx, dy = x - box.x, y - box.y
    u = dx * math.cos(angle) + dy * math.sin(angle)
    v = -dx * math.sin(angle) + dy * math.cos(angle)
    inside = (np.abs(u) < box.size_x / 2) & (np.abs(v) < box.size_y / 2)
    return np.asarray(inside.any(axis=(2, 3)), dtype=np.bool_)


headings = st.one_of(st.sampled_from((0.0, 90.0, 45.0, 30.0, -60.0)), st.floats(-360.0, 360.0))


@st.composite
def patch_scenes(
    draw: st.DrawFn,
) -> tuple[list[Patch], tuple[int, int], tuple[float, float], float]:
    rows, cols = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    cell_size = draw(st.sampled_from((0.5, 1.0, 1.3)))
    origin = (draw(st.sampled_from((0.0, -3.0))), draw(st.sampled_from((0.0, 4.2))))
    patches = []
    for _ in range(draw(st.integers(0, 5))):
        x = origin[0] + draw(st.floats(-1.0, cols + 1.0)) * cell_size
        y = origin[1] + draw(st.floats(-1.0, rows + 1.0)) * cell_size
        size_x = draw(st.floats(0.05, 6.0)) * cell_size
        size_y = draw(st.floats(0.05, 6.0)) * cell_size
        box = Box(x, y, size_x, size_y, draw(headings))
        patches.append((box, draw(st.sampled_from(COSTS))))
    return patches, (rows, cols), origin, cell_size


@TERRAIN_SETTINGS
@given(scene=patch_scenes())
def test_cell_costs_match_the_area_and_sampling_oracle(
    scene: tuple[list[Patch], tuple[int, int], tuple[float, float], float],
) -> None:
    patches, shape, origin, cell_size = scene
    costs = rasterize_terrain(patches, shape, origin=origin, cell_size=cell_size)
    sampled = [sampled_inside(box, shape, origin, cell_size) for box, _ in patches]
    for (row, col), cost in np.ndenumerate(costs):
        x0, y0 = origin[0] + col * cell_size, origin[1] + row * cell_size
        areas = [clipped_area(box, x0, y0, x0 + cell_size, y0 + cell_size) for box, _ in patches]
        context = f"cell {(row, col)}: areas {areas}, costs {[c for _, c in patches]}"
        # A sample strictly inside proves a positive overlap (a sliver may escape the samples).
        surely = [c for (_, c), s in zip(patches, sampled, strict=True) if s[row, col]]
        if surely:
            assert cost >= max(surely), context
        # An area above the clipping's rounding proves it too; a zero area rules a patch out.
        clearly = [c for (_, c), area in zip(patches, areas, strict=True) if area > 1e-9]
        possible = [c for (_, c), area in zip(patches, areas, strict=True) if area > 0.0]
        if clearly:
            assert cost >= max(clearly), context
            assert cost in possible, context
        else:
            assert cost == 1.0 or cost in possible, context


def test_overlapping_patches_take_the_highest_cost_and_uncovered_cells_cost_one() -> None:
    road = (Box(3.0, 0.5, 6.0, 1.0), 0.5)  # the bottom row
    mud = (Box(1.0, 1.0, 2.0, 2.0), 4.0)  # columns 0-1, rows 0-1
    water = (Box(1.5, 0.5, 1.0, 1.0), 3.0)  # cell (0, 1), under the mud
    costs = rasterize_terrain([road, mud, water], (3, 6))
    assert costs.tolist() == [
        [4.0, 4.0, 0.5, 0.5, 0.5, 0.5],
        [4.0, 4.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    ]
    assert rasterize_terrain([mud, road, water], (3, 6)).tolist() == costs.tolist()


def test_a_rotated_patch_covers_what_it_overlaps_and_not_what_it_touches() -> None:
    # A square of side sqrt(2) turned 45 degrees around (1, 1): its corners lie on the
    # midpoints of the 2x2 block's outer edges, so it overlaps those four cells and only
    # touches their neighbours.
    diamond = (Box(1.0, 1.0, math.sqrt(2), math.sqrt(2), 45.0), 2.0)
    costs = rasterize_terrain([diamond], (3, 3))
    assert np.argwhere(costs == 2.0).tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert (costs[costs != 2.0] == 1.0).all()


def test_patches_touching_a_cell_edge_leave_it_alone() -> None:
    costs = rasterize_terrain([(Box(1.0, 1.0, 2.0, 2.0), 5.0)], (3, 3))
    assert np.argwhere(costs == 5.0).tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]


def test_blocked_beats_terrain() -> None:
    # Mud under a wall: the path goes round the wall, and the wall's cells count as no terrain.
    walkable = np.ones((3, 5), dtype=bool)
    walkable[0:2, 2] = False
    costs = rasterize_terrain([(Box(2.5, 1.0, 1.0, 2.0), 10.0)], (3, 5))
    assert costs[0:2, 2].tolist() == [10.0, 10.0]
    assert terrain_summary(costs, walkable) == TerrainSummary(0, 1.0, 1.0)
    result = find_path(walkable, (0, 0), (0, 4), costs=costs)
    assert result.found
    assert (2, 2) in result.cells
    assert not any(costs[cell] != 1.0 for cell in result.cells)


def test_terrain_summary_counts_walkable_terrain_and_its_range() -> None:
    costs = np.array([[0.5, 4.0, 1.0], [2.0, 1.0, 100.0]])
    walkable = np.array([[True, True, True], [True, True, False]])
    assert terrain_summary(costs, walkable) == TerrainSummary(3, 0.5, 4.0)
    assert terrain_summary(costs, np.zeros((2, 3), dtype=bool)) == TerrainSummary(0, 1.0, 1.0)


@pytest.mark.parametrize(
    "cost", [0.0, 0.2, -1.0, 100.5, math.nan, math.inf, True, "4", None], ids=repr
)
def test_bad_terrain_costs_are_refused(cost: object) -> None:
    with pytest.raises(ValueError, match="terrain cost must be a"):
        check_terrain_cost(cost)
    with pytest.raises(ValueError, match="terrain cost must be a"):
        rasterize_terrain([(Box(0.5, 0.5, 1.0, 1.0), cost)], (2, 2))  # type: ignore[list-item]


# ---- TerrainLayer: incremental updates equal a fresh rasterization ----

operations = st.lists(
    st.tuples(
        st.sampled_from(("put", "put", "put", "remove")),
        st.integers(0, 3),  # which patch
        st.floats(-1.0, 11.0),
        st.floats(-1.0, 9.0),
        st.floats(0.1, 5.0),
        st.floats(0.1, 5.0),
        headings,
        st.sampled_from(COSTS),
    ),
    max_size=12,
)


@TERRAIN_SETTINGS
@given(steps=operations)
def test_layer_updates_equal_a_fresh_rasterization(
    steps: list[tuple[str, int, float, float, float, float, float, float]],
) -> None:
    shape = (8, 10)
    layer = TerrainLayer(shape)
    held: dict[str, Patch] = {}
    for action, which, x, y, size_x, size_y, heading, cost in steps:
        key = f"patch-{which}"
        before = layer.costs.copy()
        version = layer.version
        if action == "remove":
            if key not in held:
                with pytest.raises(KeyError):
                    layer.remove(key)
                continue
            del held[key]
            window = layer.remove(key)
        else:
            box = Box(x, y, size_x, size_y, heading)
            held[key] = (box, cost)
            window = layer.put(key, box_footprint(box, shape), cost)
        expected = rasterize_terrain(held.values(), shape)
        assert layer.costs.tolist() == expected.tolist()
        outside = np.ones(shape, dtype=bool)
        outside[window] = False
        assert (layer.costs[outside] == before[outside]).all()  # only the window changed
        assert (layer.version > version) == (not np.array_equal(before, layer.costs))
        assert len(layer) == len(held)
        assert all(layer.cost_of(k) == c for k, (_, c) in held.items())


def test_layer_costs_are_read_only_and_a_bad_cost_changes_nothing() -> None:
    layer = TerrainLayer((2, 2))
    with pytest.raises(ValueError, match="read-only"):
        layer.costs[0, 0] = 5.0
    footprint = box_footprint(Box(1.0, 1.0, 2.0, 2.0), (2, 2))
    with pytest.raises(ValueError, match="terrain cost must be"):
        layer.put("mud", footprint, 0.1)
    assert "mud" not in layer
    assert (layer.costs == 1.0).all()


def test_layer_refuses_a_footprint_of_another_grid() -> None:
    layer = TerrainLayer((2, 2))
    with pytest.raises(ValueError, match="reach outside the 2x2 grid"):
        layer.put("mud", box_footprint(Box(2.0, 2.0, 4.0, 4.0), (4, 4)), 2.0)
