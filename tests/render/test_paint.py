"""Wall painting, offscreen, through real mouse and key events: strokes, erasing, undo, saving."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from panda3d.core import KeyboardButton, MouseButton, Point3

from sim.config import Tag
from sim.navigation import box_footprint, transform_box
from sim.scene.file import load_scene
from tests.helpers.paths import DEFAULT_SCENE
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

CONTROL, SHIFT = KeyboardButton.control(), KeyboardButton.shift()
RIGHT = MouseButton.three()
ROW = 1  # the default scene's second row is free from one side to the other
FIRST, LAST = 4, 12  # the stroke's first and last columns


def cell_pixel(app, row: int, col: int) -> tuple[int, int]:
    x, y = app.grid.cell_to_world((row, col))
    pixel = app.screen_of_point(Point3(x, y, 0.0))
    assert pixel is not None, f"cell {(row, col)} is not on screen"
    return pixel


def blocked(app, row: int, cols) -> list[bool]:
    return [not bool(app.grid.walkable[row, col]) for col in cols]


def walls(app) -> list[str]:
    return sorted(
        obj.name
        for obj in app.objects
        if obj.alive and obj.tag == Tag.OBSTACLE and obj.name.startswith("wall-")
    )


def paint(mouse, app, row, first, last, *, button=None, holding=None) -> None:
    """One fast stroke: pressed on the first cell, one move to the last, released."""
    start, end = cell_pixel(app, row, first), cell_pixel(app, row, last)
    if holding is not None:
        mouse.virtual.press_button(holding)
        app.step()
    if button is None:
        mouse.drag(start, end, steps=1)
    else:
        mouse.drag(start, end, steps=1, button=button)
    if holding is not None:
        mouse.virtual.release_button(holding)
        app.step()


@pytest.fixture
def painting(default_scene):
    app, mouse = default_scene
    mouse.key("i")
    assert app.paint.active
    return app, mouse


def test_a_fast_stroke_blocks_every_cell_between_its_samples_as_one_box(painting):
    app, mouse = painting
    before = app.grid.walkable.copy()
    paint(mouse, app, ROW, FIRST, LAST)
    assert blocked(app, ROW, range(FIRST, LAST + 1)) == [True] * (LAST - FIRST + 1)
    changed = np.argwhere(before != app.grid.walkable).tolist()
    assert changed == [[ROW, col] for col in range(FIRST, LAST + 1)], "only the stroke's cells"
    assert len(walls(app)) == 1, "one run of cells is one box"
    assert "paint 9 cells" in app.hud.text()


def test_a_painting_drag_moves_no_cube_and_orbits_no_camera(painting):
    app, mouse = painting
    end = next(obj for obj in app.objects if obj.name == "end")
    where, pose = end.xy, app.camera.pose
    mouse.drag(app.screen_of(end), cell_pixel(app, ROW, FIRST), steps=2)
    mouse.drag(cell_pixel(app, ROW, FIRST), cell_pixel(app, ROW + 3, LAST), steps=2, button=RIGHT)
    assert end.xy == where
    assert app.camera.pose == pose


def test_one_undo_takes_a_whole_stroke_back_and_redo_paints_it_again(painting):
    app, mouse = painting
    before = app.grid.walkable.copy()
    paint(mouse, app, ROW, FIRST, LAST)
    after = app.grid.walkable.copy()
    mouse.key("z", holding=CONTROL)
    np.testing.assert_array_equal(app.grid.walkable, before)
    assert walls(app) == []
    assert "undo: paint 9 cells" in app.hud.text()
    mouse.virtual.press_button(CONTROL)
    app.step()
    mouse.key("y")
    mouse.virtual.release_button(CONTROL)
    app.step()
    np.testing.assert_array_equal(app.grid.walkable, after)


@pytest.mark.parametrize("how", ["right-drag", "shift+left-drag"])
def test_erasing_clears_the_cells_a_stroke_passes_and_splits_the_box(painting, how):
    app, mouse = painting
    paint(mouse, app, ROW, FIRST, LAST)
    if how == "right-drag":
        paint(mouse, app, ROW, 7, 9, button=RIGHT)
    else:
        paint(mouse, app, ROW, 7, 9, holding=SHIFT)
    expected = [col not in (7, 8, 9) for col in range(FIRST, LAST + 1)]
    assert blocked(app, ROW, range(FIRST, LAST + 1)) == expected
    assert len(walls(app)) == 2, "what is left of the run is two boxes"
    assert "erase 3 cells" in app.hud.text()
    mouse.key("z", holding=CONTROL)
    assert blocked(app, ROW, range(FIRST, LAST + 1)) == [True] * (LAST - FIRST + 1)


def test_erasing_a_placed_obstacle_splits_it_and_undo_puts_it_back_whole(painting):
    app, mouse = painting
    # long_wall: one box over column 11, rows 5 to 12.
    assert blocked(app, 8, [11]) == [True]
    paint(mouse, app, 8, 9, 13, button=RIGHT)
    assert blocked(app, 8, [11]) == [False]
    assert blocked(app, 7, [11]) == [True]
    assert blocked(app, 9, [11]) == [True]
    assert not any(obj.alive and obj.name == "long_wall" for obj in app.objects)
    mouse.key("z", holding=CONTROL)
    assert blocked(app, 8, [11]) == [True]
    assert any(obj.alive and obj.name == "long_wall" for obj in app.objects)
    assert walls(app) == []


def test_start_and_end_cells_are_never_painted(painting):
    app, mouse = painting
    start_cell = app.grid.world_to_cell(-7.5, -7.5)
    paint(mouse, app, start_cell[0], 0, 6)
    assert blocked(app, start_cell[0], range(7)) == [True, True, False, True, True, True, True]


def test_shift_i_clears_the_painted_walls_in_one_undoable_edit(painting):
    app, mouse = painting
    paint(mouse, app, ROW, FIRST, LAST)
    paint(mouse, app, ROW - 1, FIRST, LAST)
    mouse.key("i", holding=SHIFT)
    assert app.paint.active, "Shift+I clears; it does not leave paint mode"
    assert walls(app) == []
    assert blocked(app, ROW, range(FIRST, LAST + 1)) == [False] * (LAST - FIRST + 1)
    mouse.key("z", holding=CONTROL)
    assert blocked(app, ROW - 1, range(FIRST, LAST + 1)) == [True] * (LAST - FIRST + 1)
    assert blocked(app, ROW, range(FIRST, LAST + 1)) == [True] * (LAST - FIRST + 1)


def test_painting_replans_the_path_at_once(painting):
    app, mouse = painting
    app.step()
    assert app.path.outcome.found
    # A wall across the whole width, row 10 of 20 (the long wall's column is blocked already).
    paint(mouse, app, 10, 0, 19)
    app.step()
    assert not app.path.outcome.found, "a wall right across leaves no way through"


def test_leaving_paint_mode_gives_the_left_button_back(painting):
    app, mouse = painting
    mouse.key("i")
    assert not app.paint.active
    paint(mouse, app, ROW, FIRST, LAST)
    assert walls(app) == []


def test_painted_walls_save_as_merged_boxes_and_reload_to_the_same_cells(open_app, tmp_path):
    path = tmp_path / "default.toml"
    shutil.copy(DEFAULT_SCENE, path)
    app = open_app(path)
    mouse = Mouse(app)
    app.step()
    mouse.key("i")
    for row in (0, 1, 2):  # a 3-row band, minus Start's cell: few boxes, not 26 cubes
        paint(mouse, app, row, 5, 13)
    paint(mouse, app, 3, 0, 1)
    painted = app.grid.walkable.copy()
    mouse.key("s", holding=CONTROL)
    saved = load_scene(path)
    saved_walls = [spec for spec in saved.objects if spec.name.startswith("wall-")]
    assert 1 <= len(saved_walls) <= 3, [spec.name for spec in saved_walls]
    np.testing.assert_array_equal(rasterized(saved), painted)


def rasterized(scene) -> np.ndarray:
    """The walkable mask of `scene`'s obstacles, rasterized as the grid does (one ShowBase only)."""
    grid = scene.grid
    walkable = np.ones((grid.rows, grid.columns), dtype=bool)
    for spec in scene.objects:
        if spec.tag != Tag.OBSTACLE:
            continue
        box = transform_box(spec.pos[0], spec.pos[1], spec.scale[0], spec.scale[1], spec.heading)
        footprint = box_footprint(box, walkable.shape, origin=grid.origin, cell_size=grid.cell_size)
        walkable[footprint.rows, footprint.cols] &= ~footprint.mask
    return walkable
