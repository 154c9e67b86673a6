"""A link's end dragged with real mouse events, undone with Ctrl+Z and saved with Ctrl+S."""

from __future__ import annotations

import itertools
import math
import shutil

import pytest
from panda3d.core import KeyboardButton, Point3

from sim.scene.file import load_scene
from tests.helpers.paths import SCENES_DIR
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

CONTROL = KeyboardButton.control()
LADDER_WEST_FOOT = (-1.5, 4.5)
DROPPED_AT = (-4.4, 2.6)


def pixel_of(app, x, y):
    pixel = app.screen_of_point(Point3(x, y, 0.0))
    assert pixel is not None, f"({x}, {y}) is not on screen"
    return pixel


def test_a_dragged_link_end_is_undone_and_saved(open_app, tmp_path):
    source = tmp_path / "links.toml"
    shutil.copy(SCENES_DIR / "links.toml", source)
    app = open_app(source, size=(800, 600))
    mouse = Mouse(app)
    app.step()
    mouse.drag(pixel_of(app, *LADDER_WEST_FOOT), pixel_of(app, *DROPPED_AT))
    moved = app.grid.links[0].start
    assert math.dist(app.grid.cell_to_world(moved), DROPPED_AT) < 1.0  # under the cursor
    mouse.key("z", holding=CONTROL)
    assert app.grid.links[0].start == (11, 10)  # back on the ladder's foot
    mouse.key("y", holding=CONTROL)
    assert app.grid.links[0].start == moved
    mouse.key("s", holding=CONTROL)
    saved = load_scene(source).links[0]
    assert math.dist(saved.start, app.grid.cell_to_world(moved)) < 1e-6
    assert saved.end == (1.5, 4.5)


def test_the_agents_a_dragged_link_matters_to_replan_on_the_next_frame(open_app):
    app = open_app(SCENES_DIR / "links.toml", size=(800, 600))
    mouse = Mouse(app)
    app.step()
    climber = next(agent for agent in app.agents if agent.game_object.name == "climber")
    climber.update_settings(replan_interval_s=1000.0)  # no interval comes due in this test
    mouse.key("space")  # paused while editing: no frame sees the drag, so none sees the drop
    before = dict(climber.replans_by_cause)
    ladder_step = ((11, 13), (11, 10))  # the climber goes west over the ladder
    assert ladder_step in itertools.pairwise(climber.outcome.cells)
    mouse.drag(pixel_of(app, *LADDER_WEST_FOOT), pixel_of(app, *DROPPED_AT))
    mouse.key("space")
    app.step()
    after = climber.replans_by_cause
    assert sum(after.values()) > sum(before.values()), "replanned at once, not on its interval"
    new_start = app.grid.links[0].start
    assert new_start != (11, 10)
    assert (new_start[0], new_start[1]) in climber.outcome.cells, "its plan takes the moved ladder"
