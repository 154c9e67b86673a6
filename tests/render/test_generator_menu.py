"""The generator menu (O) through real key events: a generated layout replaces the obstacles."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from panda3d.core import KeyboardButton

from sim.config import Tag
from sim.navigation.maps.generators import generate_layout
from sim.scene.file import load_scene
from sim.scene.grid import scene_grid
from tests.helpers.paths import DEFAULT_SCENE
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render


@pytest.fixture
def scene(open_app, tmp_path):
    """A copy of the default scene (Ctrl+S writes to it), headless, a few frames in."""
    path = tmp_path / "default.toml"
    shutil.copy(DEFAULT_SCENE, path)
    app = open_app(path, size=(320, 240))
    mouse = Mouse(app)
    for _ in range(3):
        app.step()
    return app, mouse, path


def obstacle_names(app) -> set[str]:
    return {obj.name for obj in app.world.objects if obj.alive and obj.tag == Tag.OBSTACLE}


def test_maze_replaces_the_obstacles_and_the_path_follows(scene):
    app, mouse, _ = scene
    before = obstacle_names(app)
    mouse.key("o")
    menu = app.generator_menu
    assert menu.opened
    mouse.key("enter")  # the first line: maze
    assert not menu.opened
    rows, columns = app.grid.num_of_rows, app.grid.num_of_columns
    expected = generate_layout("maze", rows, columns, seed=0, room=8)
    np.testing.assert_array_equal(menu.layout, expected)
    # Map row 0 is the grid's north edge (its last row), as `sim generate --scene` lays it out.
    np.testing.assert_array_equal(app.grid.walkable, expected[::-1])
    assert not before & obstacle_names(app), "every old obstacle is gone"
    for _ in range(5):
        app.step()
    outcome = app.path.outcome
    assert outcome.found
    assert all(app.grid.walkable[cell] for cell in outcome.cells)
    agent = app.agents[0]
    assert app.grid.world_to_cell(*agent.position) is not None
    assert app.grid.walkable[app.grid.world_to_cell(*agent.position)]


def test_arrows_and_digits_pick_the_layout(scene):
    app, mouse, _ = scene
    mouse.key("o")
    mouse.key("arrow_down")
    mouse.key("arrow_down")
    assert app.generator_menu.selected == 2
    mouse.key("arrow_up")
    mouse.key("enter")  # rooms, seed 0
    rows, columns = app.grid.num_of_rows, app.grid.num_of_columns
    rooms = generate_layout("rooms", rows, columns, seed=0, room=8)
    np.testing.assert_array_equal(app.grid.walkable, rooms[::-1])
    mouse.key("o")
    mouse.key("3")  # random, the next seed
    random = generate_layout("random", rows, columns, seed=1)
    np.testing.assert_array_equal(app.grid.walkable, random[::-1])
    assert not app.generator_menu.opened


def test_esc_closes_the_menu_without_a_change_and_does_not_quit(scene):
    app, mouse, _ = scene
    walkable = app.grid.walkable.copy()
    names = obstacle_names(app)
    mouse.key("o")
    mouse.key("arrow_down")
    mouse.key("escape")
    assert not app.generator_menu.opened
    mouse.key("1")  # the digits act only while the menu is open
    mouse.key("enter")
    np.testing.assert_array_equal(app.grid.walkable, walkable)
    assert obstacle_names(app) == names
    assert app.frames > 0  # still running: Esc closed the menu, not the app


def test_keys_of_the_table_wait_while_the_menu_is_open(scene):
    app, mouse, _ = scene
    mouse.key("o")
    mouse.key("g")  # would hide the grid lines
    assert app.grid.show_grid
    mouse.key("o")  # O closes it again
    assert not app.generator_menu.opened


def test_the_menu_stays_shut_while_the_search_view_is_open(scene):
    app, mouse, _ = scene
    mouse.key("t")
    mouse.key("o")
    assert not app.generator_menu.opened
    assert "close the search view" in app.hud.text()


def test_saving_a_generated_layout_reloads_as_the_same_grid(scene):
    app, mouse, path = scene
    mouse.key("o")
    mouse.key("1")
    mouse.key("s", holding=KeyboardButton.control())
    saved = load_scene(path)
    grid = scene_grid(saved)
    np.testing.assert_array_equal(grid.walkable, app.grid.walkable)
    start = saved.objects_with_tag(Tag.START)[0]
    assert app.world.find_with_tag(Tag.START).node.get_x() == pytest.approx(start.pos[0])
    assert {spec.name for spec in saved.objects_with_tag(Tag.AGENT)} == {
        agent.game_object.name for agent in app.agents
    }
