"""Carving by difference: after any number of moves the grid is what a fresh rasterization gives.

`footprint_diff` against set differences of whole footprints; `Carver` and `GridManager` over
seeded runs of moving, turning, overlapping boxes against `rasterize_boxes` of where the boxes
stand now; the cells a `Carve` reports flipped against the masks before and after.
"""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import NodePath

from sim.components.grid_manager import GridManager
from sim.engine import GameObject, World
from sim.navigation import Box, box_footprint, find_path, rasterize_boxes, transform_box
from sim.navigation.carving import Carver
from sim.navigation.raster import footprint_diff
from sim.navigation.searches.incremental import IncrementalSearch

SHAPE = (24, 30)


def random_box(rng: np.random.Generator) -> Box:
    return Box(
        float(rng.uniform(-2.0, SHAPE[1] + 2.0)),
        float(rng.uniform(-2.0, SHAPE[0] + 2.0)),
        float(rng.uniform(0.0, 6.0)),
        float(rng.uniform(0.0, 6.0)),
        float(rng.choice([0.0, 90.0, float(rng.uniform(0.0, 360.0))])),
    )


def nudged(box: Box, rng: np.random.Generator) -> Box:
    """The box a frame later: slid a fraction of a cell, sometimes turned a little."""
    turn = float(rng.uniform(-4.0, 4.0)) if rng.random() < 0.5 else 0.0
    return Box(
        box.x + float(rng.uniform(-0.4, 0.4)),
        box.y + float(rng.uniform(-0.4, 0.4)),
        box.size_x,
        box.size_y,
        (box.heading_deg + turn) % 360.0,
    )


@pytest.mark.parametrize("seed", range(8), ids=lambda seed: f"seed{seed}")
def test_footprint_diff_is_the_set_difference_of_the_footprints(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(40):
        old_box = random_box(rng)
        new_box = nudged(old_box, rng) if rng.random() < 0.7 else random_box(rng)
        old, new = box_footprint(old_box, SHAPE), box_footprint(new_box, SHAPE)
        before, after = set(old.flat_cells(SHAPE[1])), set(new.flat_cells(SHAPE[1]))
        left, entered = footprint_diff(old, new, SHAPE[1])
        assert left.tolist() == sorted(before - after)
        assert entered.tolist() == sorted(after - before)


@pytest.mark.parametrize("seed", range(6), ids=lambda seed: f"seed{seed}")
def test_carver_after_many_moves_equals_a_fresh_rasterization(seed: int) -> None:
    rng = np.random.default_rng(seed)
    walls = rng.random(SHAPE) < 0.1
    carver = Carver(~walls)
    boxes = [random_box(rng) for _ in range(12)]
    footprints = [box_footprint(box, SHAPE) for box in boxes]
    for footprint in footprints:
        carver.add(footprint)
    for _frame in range(60):
        for index, box in enumerate(boxes):
            before = carver.walkable.copy()
            boxes[index] = nudged(box, rng)
            footprint = box_footprint(boxes[index], SHAPE)
            carve = carver.move(footprints[index], footprint)
            footprints[index] = footprint
            flipped = np.flatnonzero(before != carver.walkable)
            assert sorted([*carve.blocked.tolist(), *carve.freed.tolist()]) == flipped.tolist()
            assert not carver.walkable.reshape(-1)[carve.blocked].any()
    expected = ~walls & ~rasterize_boxes(boxes, SHAPE)
    np.testing.assert_array_equal(carver.walkable, expected)
    for footprint in footprints:
        carver.remove(footprint)
    np.testing.assert_array_equal(carver.walkable, ~walls)


@pytest.mark.parametrize("seed", range(6), ids=lambda seed: f"seed{seed}")
def test_adding_all_at_once_carves_as_adding_one_by_one(seed: int) -> None:
    rng = np.random.default_rng(seed)
    walls = rng.random(SHAPE) < 0.1
    footprints = [box_footprint(random_box(rng), SHAPE) for _ in range(30)]
    one_by_one, at_once = Carver(~walls), Carver(~walls)
    blocked = [int(cell) for fp in footprints for cell in one_by_one.add(fp).blocked]
    carve = at_once.add_all(footprints)
    assert carve.blocked.tolist() == sorted(blocked)
    assert carve.freed.size == 0
    assert (at_once.walkable == one_by_one.walkable).all()
    assert (at_once.cover == one_by_one.cover).all()
    assert at_once.cells_touched == one_by_one.cells_touched == carve.touched
    # The counts hold: taking each footprint away again frees exactly the cells walls leave.
    for fp in footprints:
        at_once.remove(fp)
    assert (at_once.walkable == ~walls).all()


def test_a_small_slide_touches_only_the_edges() -> None:
    carver = Carver(np.ones((40, 40), dtype=bool))
    wall = box_footprint(Box(20.0, 20.0, 30.0, 4.0), (40, 40))
    carver.add(wall)
    touched = carver.cells_touched
    carve = carver.move(wall, box_footprint(Box(21.0, 20.0, 30.0, 4.0), (40, 40)))
    assert carve.touched == 8  # a column of 4 left behind, a column of 4 entered
    assert carver.cells_touched == touched + 8


def test_carver_refuses_a_mask_it_cannot_edit_in_place() -> None:
    with pytest.raises(ValueError, match="C-contiguous 2-D bool"):
        Carver(np.ones((4, 4), dtype=bool)[:, ::2])


@pytest.mark.parametrize("seed", range(3), ids=lambda seed: f"seed{seed}")
def test_grid_manager_after_frames_of_moving_obstacles_equals_a_fresh_rasterization(
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    world = World(NodePath("root"))
    grid = world.spawn("grid").add_component(
        GridManager(
            origin=(0.0, 0.0), num_of_rows=SHAPE[0], num_of_columns=SHAPE[1], grid_cell_size=1.0
        )
    )
    movers = []
    for index in range(10):
        box = random_box(rng)
        node = world.root.attach_new_node(f"mover{index}")
        node.set_pos(box.x, box.y, 0.0)
        node.set_scale(max(box.size_x, 0.1), max(box.size_y, 0.1), 1.0)
        node.set_h(box.heading_deg)
        movers.append(world.add(GameObject(node, tag="Obstacle")))
    world.step(1 / 60)
    for _frame in range(90):
        for mover in movers:
            node = mover.node
            node.set_pos(
                node.get_x() + rng.uniform(-0.4, 0.4), node.get_y() + rng.uniform(-0.4, 0.4), 0.0
            )
            node.set_h(node.get_h() + rng.uniform(-3.0, 3.0))
        world.step(1 / 60)
    boxes = [
        transform_box(n.get_x(), n.get_y(), n.get_sx(), n.get_sy(), n.get_h())
        for n in (mover.node for mover in movers)
    ]
    np.testing.assert_array_equal(grid.walkable, ~rasterize_boxes(boxes, SHAPE))


@pytest.mark.parametrize("seed", range(4), ids=lambda seed: f"seed{seed}")
def test_repairs_under_moving_obstacles_cost_what_fresh_searches_cost(seed: int) -> None:
    rng = np.random.default_rng(seed)
    walkable = np.ones(SHAPE, dtype=bool)
    carver = Carver(walkable)
    boxes = [random_box(rng) for _ in range(8)]
    footprints = [box_footprint(box, SHAPE) for box in boxes]
    for footprint in footprints:
        carver.add(footprint)
    search = IncrementalSearch()
    goal = (SHAPE[0] - 1, SHAPE[1] - 1)
    starts = [(0, 0), (0, SHAPE[1] - 1), (SHAPE[0] - 1, 0)]
    repaired = 0
    for _frame in range(40):
        for index, box in enumerate(boxes):
            boxes[index] = nudged(box, rng)
            footprint = box_footprint(boxes[index], SHAPE)
            carver.move(footprints[index], footprint)
            footprints[index] = footprint
        for start in starts:  # agents sharing a destination share its search
            got = search.plan(walkable, start, goal)
            fresh = find_path(walkable.copy(), start, goal)
            assert got.found == fresh.found
            if fresh.found:
                assert got.cost == pytest.approx(fresh.cost, abs=1e-9)
            repaired += search.last_repaired
    assert repaired > 0
