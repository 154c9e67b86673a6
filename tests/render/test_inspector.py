"""The inspector offscreen: select with a click, type values, nudge, turn with Q/E, undo, save."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
from panda3d.core import KeyboardButton, Point3

from sim.components.terrain import TerrainPatch
from sim.config import AgentMode
from sim.editor.selection import OUTLINE_COLOR
from sim.scene.file import load_scene
from sim.scene.merge import spec_settings
from tests.helpers.inspector import focus, select, type_into
from tests.helpers.paths import DEFAULT_SCENE, SCENES_DIR
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

CONTROL = KeyboardButton.control()
WALL = "long_wall"  # 1 x 8 x 1.5 at (1.5, -2): a heading turns its footprint visibly


def pixel_of(app, x, y, z=0.0):
    pixel = app.screen_of_point(Point3(x, y, z))
    assert pixel is not None, f"({x}, {y}) is not on screen"
    return pixel


def screenshot(app) -> np.ndarray:
    app.step()
    tex = app.base.win.get_screenshot()
    height, width = tex.get_y_size(), tex.get_x_size()
    return np.frombuffer(tex.get_ram_image_as("RGB"), np.uint8).reshape(height, width, 3)[::-1]


def outline_pixels(image: np.ndarray) -> int:
    target = np.array(OUTLINE_COLOR[:3]) * 255
    return int((np.abs(image.astype(int) - target).max(axis=2) < 40).sum())


def test_a_click_selects_and_outlines_the_object_and_ground_deselects(default_scene):
    app, mouse = default_scene
    before = outline_pixels(screenshot(app))
    wall = select(app, mouse, WALL)
    assert wall.xy == (1.5, -2.0), "a click moves nothing"
    assert app.editor.history.undo_depth == 0, "a click is no edit"
    assert outline_pixels(screenshot(app)) > before + 50, "the selection is outlined"
    assert WALL in app.inspector.panel.text
    assert app.report()["editor"]["selected"] == WALL
    mouse.click(pixel_of(app, 7.5, -5.5))
    assert app.editor.selected is None
    assert app.inspector.panel.text == ""


def test_a_drag_moves_and_does_not_select(default_scene):
    app, mouse = default_scene
    end = app.world.find("end")
    mouse.drag(app.screen_of(end), pixel_of(app, 7.5, -5.5, 0.4))
    assert math.dist(end.xy, (7.5, -5.5)) < 0.5
    assert app.editor.selected is None


def test_an_agent_is_selected_by_a_click_and_its_speed_typed(default_scene):
    app, mouse = default_scene
    mouse.key("space")  # paused, so the agent stays under the pointer
    agent = app.agents[0]
    mouse.click(app.screen_of(agent.game_object))
    assert app.editor.selected is agent.game_object
    focus(app, mouse, "agent.speed")
    type_into(mouse, "4.5")
    assert agent.config.speed == 4.5
    focus(app, mouse, "agent.mode")
    type_into(mouse, "patrol")
    assert agent.mode is AgentMode.PATROL
    mouse.key("z", holding=CONTROL)
    assert agent.mode is AgentMode.CHASE
    mouse.key("z", holding=CONTROL)
    assert agent.config.speed == 3.0


def test_typing_a_scale_applies_it_and_the_grid_follows(default_scene):
    app, mouse = default_scene
    wall = select(app, mouse, WALL)
    blocked = app.grid.blocked_cells()
    focus(app, mouse, "scale")
    type_into(mouse, "3 8 1.5")
    assert tuple(wall.node.get_scale()) == pytest.approx((3.0, 8.0, 1.5))
    assert app.grid.blocked_cells() > blocked
    mouse.key("z", holding=CONTROL)
    assert tuple(wall.node.get_scale()) == pytest.approx((1.0, 8.0, 1.5))
    assert app.grid.blocked_cells() == blocked


def test_a_bad_value_is_refused_with_the_scene_files_message(default_scene):
    app, mouse = default_scene
    wall = select(app, mouse, WALL)
    focus(app, mouse, "scale")
    type_into(mouse, "0")
    assert tuple(wall.node.get_scale()) == pytest.approx((1.0, 8.0, 1.5))
    assert app.editor.history.undo_depth == 0
    message = f"{WALL}: scale: must be > 0, got 0"
    assert app.inspector.error == message
    app.step()
    assert app.inspector.panel.error == message
    assert message in "\n".join(app.status_lines())


def test_keys_typed_into_a_field_do_not_fire_the_scene_keys(default_scene):
    app, mouse = default_scene
    select(app, mouse, WALL)
    shown = app.grid.show_grid
    focus(app, mouse, "heading")
    mouse.key("g")  # G toggles the grid lines, but not while a field has the keyboard
    assert app.grid.show_grid == shown
    assert app.inspector.typed == "g"
    mouse.key("escape")  # lets go of the keyboard, and does not quit
    assert app.inspector.focused is None
    mouse.key("g")
    assert app.grid.show_grid != shown


def test_arrows_nudge_the_selection_by_a_cell_and_undo_puts_it_back(default_scene):
    app, mouse = default_scene
    wall = select(app, mouse, WALL)
    cell = app.grid.grid_cell_size
    mouse.key("arrow_right")
    mouse.key("arrow_up")
    assert wall.xy == pytest.approx((1.5 + cell, -2.0 + cell))
    assert app.editor.history.undo_depth == 2
    mouse.key("z", holding=CONTROL)
    mouse.key("z", holding=CONTROL)
    assert wall.xy == pytest.approx((1.5, -2.0))


def test_q_and_e_turn_the_selection_and_its_footprint_in_the_grid(default_scene):
    app, mouse = default_scene
    wall = select(app, mouse, WALL)
    blocked_before = ~app.grid.walkable
    mouse.key("e")
    mouse.key("e")
    assert wall.node.get_h() == pytest.approx(30.0)
    app.step()
    turned = ~app.grid.walkable
    assert not np.array_equal(turned, blocked_before), "the footprint turned with the wall"
    mouse.key("q")
    assert wall.node.get_h() == pytest.approx(15.0)
    mouse.key("z", holding=CONTROL)
    assert wall.node.get_h() == pytest.approx(30.0)
    mouse.key("z", holding=CONTROL)
    mouse.key("z", holding=CONTROL)
    assert wall.node.get_h() == pytest.approx(0.0)
    app.step()
    assert np.array_equal(~app.grid.walkable, blocked_before), "undo puts the footprint back"


def test_a_terrain_cost_is_typed_and_undone(open_app):
    app = open_app(SCENES_DIR / "terrain.toml", size=(800, 600))
    mouse = Mouse(app)
    app.step()
    patch_obj = next(obj for obj in app.objects if obj.get_component(TerrainPatch))
    patch = patch_obj.get_component(TerrainPatch)
    old = patch.cost
    mouse.click(app.screen_of(patch_obj))
    assert app.editor.selected is patch_obj
    focus(app, mouse, "terrain.cost")
    type_into(mouse, "7")
    assert patch.cost == 7.0
    mouse.key("z", holding=CONTROL)
    assert patch.cost == old


def test_saved_turn_scale_and_move_come_back_on_reload(open_app, tmp_path):
    scene = tmp_path / "default.toml"
    shutil.copy(DEFAULT_SCENE, scene)
    saved = tmp_path / "saved.toml"
    app = open_app(scene, save_as=saved)
    mouse = Mouse(app)
    app.step()
    select(app, mouse, WALL)
    mouse.key("e")
    mouse.key("arrow_left")
    focus(app, mouse, "scale")
    type_into(mouse, "2, 8, 1.5")
    mouse.key("escape")
    mouse.key("s", holding=CONTROL)
    [wall] = [obj for obj in load_scene(saved).objects if obj.name == WALL]
    assert wall.heading == pytest.approx(15.0)
    assert wall.scale == pytest.approx((2.0, 8.0, 1.5))
    assert wall.pos == pytest.approx((1.5 - app.grid.grid_cell_size, -2.0, 0.0))


def test_saved_settings_come_back_on_reload_and_an_undone_one_is_not_saved(open_app, tmp_path):
    scene = tmp_path / "terrain.toml"
    shutil.copy(SCENES_DIR / "terrain.toml", scene)
    saved = tmp_path / "saved.toml"
    app = open_app(scene, save_as=saved)
    mouse = Mouse(app)
    app.step()
    mouse.key("space")  # paused, so the agent stays under the pointer
    mud = app.world.find("mud")
    mouse.click(app.screen_of(mud))
    assert app.editor.selected is mud
    focus(app, mouse, "terrain.cost")
    type_into(mouse, "7")
    mouse.key("escape")
    agent = app.agents[0]
    mouse.click(app.screen_of(agent.game_object))
    assert app.editor.selected is agent.game_object
    focus(app, mouse, "agent.speed")
    type_into(mouse, "4.5")
    focus(app, mouse, "agent.radius")
    type_into(mouse, "0.3")
    mouse.key("escape")
    mouse.key("z", holding=CONTROL)  # the radius goes back, and is not saved
    mouse.key("s", holding=CONTROL)
    settings = {obj.name: dict(spec_settings(obj)) for obj in load_scene(saved).objects}
    loaded = {obj.name: dict(spec_settings(obj)) for obj in load_scene(scene).objects}
    assert settings["mud"]["terrain.cost"] == 7.0
    assert settings["agent"]["agent.speed"] == 4.5
    assert settings["agent"]["agent.radius"] == loaded["agent"]["agent.radius"]


def test_ctrl_z_while_typing_undoes_and_types_nothing(default_scene):
    app, mouse = default_scene
    wall = select(app, mouse, WALL)
    mouse.key("e")
    focus(app, mouse, "scale")
    mouse.key("2")
    mouse.key("z", holding=CONTROL)
    assert wall.node.get_h() == pytest.approx(0.0)
    assert app.inspector.typed == "2"


def test_an_object_with_a_rotator_is_not_turned_by_q_or_e(open_app):
    app = open_app(SCENES_DIR / "traffic.toml", size=(640, 480))
    Mouse(app)
    app.step()
    turnstile = app.world.find("turnstile")
    app.editor.selected = turnstile
    app.inspector.rotate(15.0)
    assert app.editor.history.undo_depth == 0
    assert app.inspector.error == "turnstile: heading: it turns by itself ([objects.rotator])"


def test_a_crowd_agents_new_speed_and_radius_reach_the_crowds_step(open_app):
    # A crowd's agents move through the crowd's arrays: an edit goes to the crowd, which owns them.
    app = open_app(SCENES_DIR / "crowd.toml")
    app.step()
    agent = app.agents[7]
    app.inspector.apply(agent.game_object.name, "agent.speed", 4.25)
    app.inspector.apply(agent.game_object.name, "agent.radius", 0.2)
    crowd = app.crowd_sim.crowd
    row = crowd.owners.index(agent)
    assert crowd.settings_of(crowd.indices[row]).speed == 4.25
    assert crowd.radii[row] == 0.2  # the arrays the crowd's step reads
    assert crowd.settings_of(crowd.indices[0]).speed == app.agents[0].config.speed != 4.25


MOTION_EDITS = {  # the agent settings under Unity's names, as typed, and as read back
    "agent.acceleration": ("6", 6.0),
    "agent.angular_speed": ("240", 240.0),
    "agent.stopping_distance": ("0.5", 0.5),
    "agent.auto_braking": ("false", False),
    "agent.avoidance_priority": ("20", 20),
    "agent.areas": ("mud walkable", ("mud", "walkable")),
}


def test_the_agent_motion_settings_are_typed_one_undoable_edit_each_and_saved(open_app, tmp_path):
    scene = tmp_path / "terrain.toml"
    text = (SCENES_DIR / "terrain.toml").read_text(encoding="utf-8")
    scene.write_text(text.replace("cost = 4.0  #", 'area = "mud"\ncost = 4.0  #'), "utf-8")
    saved = tmp_path / "saved.toml"
    app = open_app(scene, save_as=saved)
    mouse = Mouse(app)
    app.step()
    mouse.key("space")  # paused, so the agent stays under the pointer
    agent = app.agents[0]
    mouse.click(app.screen_of(agent.game_object))
    assert app.editor.selected is agent.game_object
    history = app.editor.history
    for key, (typed, value) in MOTION_EDITS.items():
        depth = history.undo_depth
        focus(app, mouse, key)
        type_into(mouse, typed)
        assert app.inspector.error is None, app.inspector.error
        assert history.undo_depth == depth + 1, f"{key}: one edit"
        assert getattr(agent.config, key.removeprefix("agent.")) == value
    focus(app, mouse, "agent.areas")
    type_into(mouse, "lava")  # no patch has it: the file would refuse it, so does the field
    assert app.inspector.error is not None
    assert "no terrain patch has area 'lava'" in app.inspector.error
    assert agent.config.areas == ("mud", "walkable")
    mouse.key("escape")
    mouse.key("z", holding=CONTROL)  # the areas go back to all, and are not saved so
    assert agent.config.areas is None
    mouse.key("s", holding=CONTROL)
    reloaded = load_scene(saved).find("agent")
    assert reloaded is not None
    assert reloaded.agent is not None
    for key, (_typed, value) in MOTION_EDITS.items():
        if key != "agent.areas":
            assert getattr(reloaded.agent, key.removeprefix("agent.")) == value, key
    assert reloaded.agent.areas is None
    assert "areas" not in saved.read_text(encoding="utf-8")
