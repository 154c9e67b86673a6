"""Undo and redo of every kind of edit, offscreen, through real key and mouse events."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
from panda3d.core import KeyboardButton, Point3

from sim.components.terrain import TerrainPatch, terrain_color
from sim.config import Tag
from sim.scene.file import load_scene
from tests.helpers.paths import DEFAULT_SCENE, SCENES_DIR
from tests.helpers.virtual_mouse import LEFT, Mouse

pytestmark = pytest.mark.render

FREE_SPOT = (7.5, -5.5)  # an open cell of the default scene, far from End
CONTROL, SHIFT = KeyboardButton.control(), KeyboardButton.shift()


def xy(obj) -> tuple[float, float]:
    return (float(obj.node.get_x()), float(obj.node.get_y()))


def pixel_of(app, x, y, z=0.0):
    pixel = app.screen_of_point(Point3(x, y, z))
    assert pixel is not None, f"({x}, {y}) is not on screen"
    return pixel


def undo(mouse) -> None:
    mouse.key("z", holding=CONTROL)


def redo(mouse, key: str = "shift+z") -> None:
    if key == "y":
        mouse.key("y", holding=CONTROL)
        return
    mouse.virtual.press_button(CONTROL)
    mouse.app.step()
    mouse.key("z", holding=SHIFT)
    mouse.virtual.release_button(CONTROL)
    mouse.app.step()


def live(app, name):
    found = [obj for obj in app.objects if obj.alive and obj.name == name]
    assert len(found) <= 1
    return found[0] if found else None


def obstacle_names(app) -> set[str]:
    return {obj.name for obj in app.objects if obj.alive and obj.tag == Tag.OBSTACLE}


def depths(app) -> tuple[int, int]:
    entry = app.report()["editor"]
    return entry["undo_depth"], entry["redo_depth"]


def end_cell(app):
    return app.grid.world_to_cell(*xy(live(app, "end")))


@pytest.fixture
def copied_default(open_app, tmp_path):
    """A copy of the default scene (Ctrl+S writes to it), headless, one frame in."""
    path = tmp_path / "default.toml"
    shutil.copy(DEFAULT_SCENE, path)
    app = open_app(path, size=(800, 600))
    mouse = Mouse(app)
    app.step()
    return app, mouse, path


@pytest.mark.parametrize("redo_key", ["shift+z", "y"], ids=["ctrl-shift-z", "ctrl-y"])
def test_undo_puts_a_dragged_end_back_and_redo_moves_it_again(default_scene, redo_key):
    app, mouse = default_scene
    end = live(app, "end")
    home, home_cell = xy(end), end_cell(app)
    home_path = list(app.path.outcome.cells)
    mouse.drag(app.screen_of(end), pixel_of(app, *FREE_SPOT, 0.4))
    dropped, dropped_cell = xy(end), end_cell(app)
    assert dropped_cell != home_cell
    app.step()
    assert app.path.outcome.cells[-1] == dropped_cell
    assert depths(app) == (1, 0)

    undo(mouse)
    assert xy(end) == home
    assert "undo: move end" in app.hud.text()
    assert depths(app) == (0, 1)
    app.step()
    assert list(app.path.outcome.cells) == home_path, "the path is the one before the drag"
    agent = app.agents[0]
    assert app.grid.world_to_cell(*agent.waypoints[-1]) == home_cell, "the agent heads back"

    redo(mouse, redo_key)
    assert xy(end) == dropped
    assert "redo: move end" in app.hud.text()
    assert depths(app) == (1, 0)
    app.step()
    assert app.path.outcome.cells[-1] == dropped_cell


def test_nothing_to_undo_or_redo_says_so(default_scene):
    app, mouse = default_scene
    undo(mouse)
    assert "nothing to undo" in app.hud.text()
    redo(mouse)
    assert "nothing to redo" in app.hud.text()


def test_an_added_obstacle_goes_and_comes_back_pickable(default_scene):
    app, mouse = default_scene
    blocked = app.grid.walkable.copy()
    mouse.click(pixel_of(app, *FREE_SPOT), holding=SHIFT)
    added = live(app, "obstacle-1")
    assert added is not None
    with_it = app.grid.walkable.copy()
    assert not with_it[app.grid.world_to_cell(*FREE_SPOT)]

    undo(mouse)
    assert live(app, "obstacle-1") is None
    np.testing.assert_array_equal(app.grid.walkable, blocked)
    assert "undo: add obstacle-1" in app.hud.text()

    redo(mouse)
    back = live(app, "obstacle-1")
    assert back is not None
    assert back.tag == Tag.OBSTACLE
    assert xy(back) == pytest.approx(FREE_SPOT)
    np.testing.assert_array_equal(app.grid.walkable, with_it)
    # It can be dragged again, and then removed with X.
    target = (FREE_SPOT[0] - 3.0, FREE_SPOT[1])
    mouse.drag(app.screen_of(back), pixel_of(app, *target, 0.5))
    assert math.dist(xy(back), target) < 0.5
    mouse.move(app.screen_of(back))
    mouse.key("x")
    assert live(app, "obstacle-1") is None


def test_a_removed_obstacle_comes_back_with_its_name_model_and_footprint(copied_default):
    app, mouse, _ = copied_default
    slanted = live(app, "slanted_wall")
    pose = (xy(slanted), slanted.node.get_scale(), slanted.node.get_h())
    color = slanted.node.get_color()
    blocked = app.grid.walkable.copy()
    order = [obj.name for obj in app.objects if obj.alive]
    mouse.move(app.screen_of(slanted))
    mouse.key("x")
    assert live(app, "slanted_wall") is None
    without = app.grid.walkable.copy()
    assert not np.array_equal(without, blocked)
    mouse.move(pixel_of(app, *FREE_SPOT))  # away, so nothing highlights it when it is back

    undo(mouse)
    back = live(app, "slanted_wall")
    assert back is not None
    assert back is not slanted
    assert (xy(back), back.node.get_scale(), back.node.get_h()) == pose
    assert back.node.get_color() == color
    assert not back.node.has_color_scale(), "no hover highlight carried over"
    assert back.node.find("**/+GeomNode").node().get_num_geoms() > 0, "the model came back"
    np.testing.assert_array_equal(app.grid.walkable, blocked)
    assert [obj.name for obj in app.objects if obj.alive] == order, "in its place in the list"
    [state] = [state for state in app.editor.object_states() if state.name == "slanted_wall"]
    authored = load_scene(DEFAULT_SCENE).find("slanted_wall")
    assert authored is not None
    assert state.model == authored.model

    # The hover picks the new object, and a drag moves it.
    mouse.move(app.screen_of(back))
    assert app.editor.drag.hovered is back
    redo(mouse)
    assert live(app, "slanted_wall") is None
    np.testing.assert_array_equal(app.grid.walkable, without)
    undo(mouse)
    again = live(app, "slanted_wall")
    start = xy(again)
    mouse.drag(app.screen_of(again), pixel_of(app, *FREE_SPOT, 0.5))
    assert xy(again) != start


def test_terrain_cost_undo_and_redo(open_app):
    app = open_app(SCENES_DIR / "terrain.toml", size=(800, 600))
    mouse = Mouse(app)
    app.step()
    mud = live(app, "mud")
    patch = mud.get_component(TerrainPatch)
    before_cost, before_costs = patch.cost, app.grid.costs.copy()
    mouse.move(pixel_of(app, 0.0, 2.5))  # on the mud, clear of the path's line
    assert app.editor.drag.hovered is mud
    mouse.key("u")
    after_cost, after_costs = patch.cost, app.grid.costs.copy()
    assert after_cost != before_cost

    undo(mouse)
    assert patch.cost == before_cost
    np.testing.assert_array_equal(app.grid.costs, before_costs)
    mud.node.clear_color_scale()  # the hover highlight brightens it
    assert tuple(mud.node.get_color()) == pytest.approx(terrain_color(before_cost), abs=1e-3)
    redo(mouse)
    assert patch.cost == after_cost
    np.testing.assert_array_equal(app.grid.costs, after_costs)
    app.step()
    assert app.agents[0].replans_by_cause["interval"] >= 2, "the agent replanned on each step"


def test_a_generated_layout_is_one_undo(copied_default):
    app, mouse, _ = copied_default
    before = (obstacle_names(app), app.grid.walkable.copy(), xy(live(app, "start")))
    end_before = xy(live(app, "end"))
    mouse.key("o")
    mouse.key("enter")  # maze
    layout = (obstacle_names(app), app.grid.walkable.copy(), xy(live(app, "start")))
    assert layout[0]
    assert not layout[0] & before[0]
    assert depths(app) == (1, 0)

    undo(mouse)
    assert "undo: generate maze" in app.hud.text()
    assert obstacle_names(app) == before[0]
    np.testing.assert_array_equal(app.grid.walkable, before[1])
    assert xy(live(app, "start")) == before[2]
    assert xy(live(app, "end")) == end_before

    redo(mouse)
    assert obstacle_names(app) == layout[0]
    np.testing.assert_array_equal(app.grid.walkable, layout[1])
    assert xy(live(app, "start")) == layout[2]
    for _ in range(5):
        app.step()
    assert app.path.outcome.found
    assert all(app.grid.walkable[cell] for cell in app.path.outcome.cells)


def test_an_edit_after_an_undo_clears_redo(default_scene):
    app, mouse = default_scene
    end = live(app, "end")
    mouse.drag(app.screen_of(end), pixel_of(app, *FREE_SPOT, 0.4))
    undo(mouse)
    assert depths(app) == (0, 1)
    mouse.click(pixel_of(app, *FREE_SPOT), holding=SHIFT)
    assert depths(app) == (1, 0)
    home = xy(end)
    redo(mouse)
    assert "nothing to redo" in app.hud.text()
    assert xy(end) == home


def test_undo_during_a_drag_drops_it_first_then_takes_it_back(default_scene):
    app, mouse = default_scene
    end = live(app, "end")
    home = xy(end)
    mouse.move(app.screen_of(end))
    mouse.virtual.press_button(KeyboardButton.control())  # held from before the press
    mouse.virtual.press_button(LEFT)
    app.step()
    mouse.move(pixel_of(app, *FREE_SPOT, 0.4))
    assert app.editor.drag.dragged is end
    mouse.key("z")  # Ctrl is still held
    assert app.editor.drag.dragged is None, "the drag is over"
    assert xy(end) == home
    mouse.move(pixel_of(app, 0.0, -8.0))
    assert xy(end) == home, "moving the still-held button drags nothing"
    mouse.virtual.release_button(LEFT)
    mouse.virtual.release_button(KeyboardButton.control())
    app.step()
    assert xy(end) == home
    assert depths(app) == (0, 1)


def test_saving_after_undo_writes_the_undone_state(copied_default):
    app, mouse, path = copied_default
    original = load_scene(path)
    mouse.click(pixel_of(app, *FREE_SPOT), holding=SHIFT)
    end = live(app, "end")
    mouse.drag(app.screen_of(end), pixel_of(app, 0.5, -8.5, 0.4))
    mouse.move(app.screen_of(live(app, "pillar")))
    mouse.key("x")
    undo(mouse)  # the pillar is back
    undo(mouse)  # End is back
    mouse.key("s", holding=CONTROL)
    saved = load_scene(path)
    added = saved.find("obstacle-1")
    assert added is not None
    assert added.pos[:2] == pytest.approx(FREE_SPOT)
    assert [o for o in saved.objects if o.name != "obstacle-1"] == list(original.objects)

    undo(mouse)  # the added obstacle goes too
    mouse.key("s", holding=CONTROL)
    assert load_scene(path).objects == original.objects


def test_the_report_names_the_selection(default_scene):
    app, _ = default_scene
    editor = app.report()["editor"]
    # The handles and the hierarchy report their own keys (their tests read them).
    assert set(editor) == {"undo_depth", "redo_depth", "selected", "handles", "hierarchy"}
    assert (editor["undo_depth"], editor["redo_depth"], editor["selected"]) == (0, 0, None)
    app.editor.selected = live(app, "pillar")
    assert app.report()["editor"]["selected"] == "pillar"


@pytest.mark.parametrize("name", ["slider_west", "turnstile", "door"])
def test_a_removed_moving_obstacle_moves_again_after_undo(open_app, name):
    app = open_app(SCENES_DIR / "traffic.toml", size=(320, 240))
    app.step()
    authored = app.editor.object_states()
    app.editor.remove(live(app, name))
    app.step()
    app.editor.undo()
    back = live(app, name)
    assert back is not None
    assert app.editor.object_states() == authored, "saved where its motion is anchored"
    poses = set()
    for _ in range(90):
        app.step()
        poses.add((*xy(back), round(back.node.get_h(), 3), round(back.node.get_z(), 3)))
    assert len(poses) > 10, "it moves by itself again"
    if name != "door":
        assert back in app.motion.movers
