"""The top-down view (7), the grid's fade and the Start and End labels, offscreen."""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import MouseButton, Point3

from sim.components.ground_view import EndLabels, GridLines, fade_alpha
from sim.engine.camera import TOP_DOWN_PITCH_DEG
from tests.helpers.pixels import near, screenshot_rgb

pytestmark = pytest.mark.render

RIGHT = MouseButton.three()


def part(app, kind):
    [found] = [c for obj in app.world.objects for c in obj.components if isinstance(c, kind)]
    return found


def lens(app):
    return app.base.cam.node().get_lens()


def cell_pixel(app, cell):
    x, y = app.grid.cell_to_world(cell)
    pixel = app.screen_of_point(Point3(x, y, 0.0))
    assert pixel is not None
    return pixel


def test_seven_looks_straight_down_through_an_orthographic_lens_and_back(default_scene):
    app, mouse = default_scene
    orbit = app.camera.pose
    mouse.key("7")
    assert lens(app).is_orthographic()
    assert app.camera.pose.pitch_deg == TOP_DOWN_PITCH_DEG
    # The whole grid is on screen: its four corner cells all project inside the window.
    last_row, last_col = app.grid.num_of_rows - 1, app.grid.num_of_columns - 1
    for cell in [(0, 0), (0, last_col), (last_row, 0), (last_row, last_col)]:
        cell_pixel(app, cell)
    mouse.key("7")
    assert not lens(app).is_orthographic()
    assert app.camera.pose == orbit


def test_in_the_top_down_view_a_click_paints_the_cell_under_the_pointer(default_scene):
    app, mouse = default_scene
    mouse.key("7")
    mouse.key("i")
    for cell in [(1, 4), (18, 2), (10, 17)]:
        assert app.grid.walkable[cell]
        mouse.click(cell_pixel(app, cell))
        assert not app.grid.walkable[cell], f"{cell} was not painted"


def test_in_the_top_down_view_end_drops_on_the_cell_under_the_pointer(default_scene):
    app, mouse = default_scene
    mouse.key("7")
    end = next(obj for obj in app.objects if obj.name == "end")
    mouse.drag(app.screen_of(end), cell_pixel(app, (3, 16)))
    assert app.grid.world_to_cell(*end.xy) == (3, 16)


def test_the_top_down_view_does_not_orbit_but_zooms(default_scene):
    app, mouse = default_scene
    mouse.key("7")
    pose = app.camera.pose
    mouse.drag((400, 300), (600, 200), button=RIGHT)
    assert app.camera.pose == pose
    height = lens(app).get_film_size()[1]
    app.camera.zoom(2)
    assert lens(app).get_film_size()[1] < height


def test_grid_line_alpha_falls_with_the_pixels_a_cell_spans(default_scene):
    app, _mouse = default_scene
    fade = part(app, GridLines)
    seen = []
    for _ in range(16):
        app.camera.zoom(-1)
        app.step()
        seen.append((fade.cell_px(), fade.alpha))
    pixels = [px for px, _alpha in seen]
    alphas = [alpha for _px, alpha in seen]
    assert pixels == sorted(pixels, reverse=True), "zooming out shrinks the cells"
    assert alphas == sorted(alphas, reverse=True), "and never brings the lines back"
    assert alphas[0] == 1.0
    assert alphas[-1] == 0.0
    shown = app.gizmos.keys()
    assert "grid" not in shown, "faded out lines are not drawn at all"
    app.camera.reset()
    app.step()
    assert fade.alpha == 1.0
    shown = app.gizmos.keys()
    assert "grid" in shown


def test_the_fade_measures_a_cell_in_the_viewports_pixels(default_scene):
    app, mouse = default_scene
    mouse.key("7")  # straight down: every cell spans the same pixels
    app.step()
    row, col = app.grid.num_of_rows // 2, app.grid.num_of_columns // 2
    (x0, y0), (x1, y1) = cell_pixel(app, (row, col)), cell_pixel(app, (row, col + 1))
    seen = float(np.hypot(x1 - x0, y1 - y0))
    assert part(app, GridLines).cell_px() == pytest.approx(seen, rel=0.01)


def test_g_still_hides_the_grid_when_the_lines_are_fully_drawn(default_scene):
    app, mouse = default_scene
    mouse.key("g")
    shown = app.gizmos.keys()
    assert "grid" not in shown


@pytest.mark.parametrize(("cell_px", "alpha"), [(40.0, 1.0), (10.0, 1.0), (3.0, 0.0), (1.0, 0.0)])
def test_fade_alpha_ends(cell_px, alpha):
    assert fade_alpha(cell_px) == alpha


def label_text_rows(app, labels: EndLabels, index: int) -> int:
    """How many pixel rows the white text of label `index` spans in the last frame."""
    pivot = app.screen_of_point(Point3(*list(labels.node.get_children())[index].get_pos()))
    assert pivot is not None
    x, y = pivot
    window = screenshot_rgb(app.base.win)[max(0, y - 60) : y + 5, max(0, x - 50) : x + 50]
    rows = np.flatnonzero(near(window, (255, 255, 255), 40).any(axis=1))
    assert rows.size, "no label text above the cube"
    return int(rows[-1] - rows[0] + 1)


def test_start_and_end_carry_labels_of_one_on_screen_size_at_any_zoom(default_scene):
    app, mouse = default_scene
    labels = part(app, EndLabels)
    assert labels.texts() == ["Start", "End"]
    near_rows = label_text_rows(app, labels, 1)
    assert 8 <= near_rows <= 20, "a label reads as HUD-sized text"
    for _ in range(6):
        app.camera.zoom(-1)
    app.step()
    assert label_text_rows(app, labels, 1) == pytest.approx(near_rows, abs=2)
    mouse.key("7")
    assert label_text_rows(app, labels, 1) == pytest.approx(near_rows, abs=2)
