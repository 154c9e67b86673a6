"""Every shipped scene renders headless: ground, grid, obstacles, Start and End are on screen."""

from __future__ import annotations

import numpy as np
import pytest

from sim.components.ground_view import GRID_COLOR
from sim.config import Tag
from sim.scene.file import list_scenes
from tests.helpers.pixels import dominant, near, rgb, screenshot_rgb

pytestmark = pytest.mark.render

SCENES = list_scenes()
DEFAULT = next(path for path in SCENES if path.stem == "default")
GRID_RGB = rgb(GRID_COLOR)
RED, GREEN = 0, 1


def pixels_of_grid(image) -> int:
    return int(near(image, GRID_RGB, 10).sum())


@pytest.mark.parametrize("scene", SCENES, ids=[path.stem for path in SCENES])
def test_scene_shows_ground_grid_obstacles_start_and_end(open_app, scene, tmp_path):
    app = open_app(scene)
    for _ in range(3):
        app.step()
    app.save_screenshot(tmp_path / f"{scene.stem}.png")
    image = screenshot_rgb(app.base.win)
    assert dominant(image, GREEN).sum() > 20, "the green Start cube is not on screen"
    assert dominant(image, RED).sum() > 20, "the red End cube is not on screen"
    assert pixels_of_grid(image) > 500, "grid lines are missing"
    ground_share = near(image, _most_common(image), 12).mean()
    assert ground_share > 0.2, "the ground does not fill a good part of the view"
    tagged = app.base.render.find_all_matches("**/=tag=Obstacle")
    assert tagged.get_num_paths() == len(app.options.scene.objects_with_tag(Tag.OBSTACLE))
    tagged.hide()
    app.step()
    without_obstacles = screenshot_rgb(app.base.win)
    changed = np.abs(image.astype(int) - without_obstacles.astype(int)).max(axis=2) > 30
    assert changed.sum() > 200, "obstacles do not show on screen"


def test_grid_toggle_hides_grid_lines(open_app):
    app = open_app(DEFAULT)
    app.toggle_hud()  # the text's dark shadow would count as grid colour
    app.step()
    before = pixels_of_grid(screenshot_rgb(app.base.win))
    app.toggle_grid()
    app.step()
    after = pixels_of_grid(screenshot_rgb(app.base.win))
    assert before > 500
    assert after < before / 20


def test_hud_toggle_hides_text(open_app):
    app = open_app(DEFAULT)
    app.step()
    white_before = near(screenshot_rgb(app.base.win), (255, 255, 255), 30).sum()
    app.toggle_hud()
    app.step()
    white_after = near(screenshot_rgb(app.base.win), (255, 255, 255), 30).sum()
    assert white_before > 50
    assert white_after < white_before / 5


def _most_common(image) -> tuple[int, int, int]:
    colors, counts = np.unique(image.reshape(-1, 3), axis=0, return_counts=True)
    red, green, blue = (int(c) for c in colors[counts.argmax()])
    return red, green, blue
