"""Mouse editing offscreen: a VirtualMouse drags, adds and removes cubes through real events."""

from __future__ import annotations

import math

import pytest
from panda3d.core import KeyboardButton, MouseButton, Point3

from sim.components.agent_controller import AgentState
from sim.navigation import Box, box_footprint
from sim.scene.file import load_scene
from tests.helpers.paths import DEFAULT_SCENE
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

FREE_SPOT = (7.5, -5.5)  # an open cell of the default scene, far from End


def find(app, name):
    return app.world.find(name)


def xy(obj) -> tuple[float, float]:
    return (obj.node.get_x(), obj.node.get_y())


def pixel_of(app, x, y, z=0.0):
    pixel = app.screen_of_point(Point3(x, y, z))
    assert pixel is not None, f"({x}, {y}) is not on screen"
    return pixel


def test_dragging_end_moves_it_and_the_path_and_agent_follow(default_scene):
    app, mouse = default_scene
    end = find(app, "end")
    assert app.grid.walkable[app.grid.world_to_cell(*FREE_SPOT)]
    mouse.drag(app.screen_of(end), pixel_of(app, *FREE_SPOT, 0.4))
    assert math.dist(xy(end), FREE_SPOT) < 0.5, "End lands under the cursor"
    end_cell = app.grid.world_to_cell(*xy(end))
    assert end_cell != app.grid.world_to_cell(7.5, 7.5)
    app.step()
    assert app.path.outcome.cells[-1] == end_cell, "the path replans at once on drop"
    agent = app.agents[0]
    for _ in range(60 * 20):
        app.step()
        if agent.state is AgentState.ARRIVED:
            break
    assert agent.state is AgentState.ARRIVED
    assert math.dist(agent.position, xy(end)) <= agent.config.arrival_radius
    assert agent.blocked_cell_frames == 0


def test_snap_puts_a_dropped_cube_on_a_cell_centre(default_scene):
    app, mouse = default_scene
    end = find(app, "end")
    mouse.key("v")
    assert app.editor.drag.snap
    mouse.drag(app.screen_of(end), pixel_of(app, FREE_SPOT[0] + 0.3, FREE_SPOT[1] - 0.2, 0.4))
    cell = app.grid.world_to_cell(*xy(end))
    assert xy(end) == pytest.approx(app.grid.cell_to_world(cell), abs=1e-5)


def test_hovering_highlights_the_cube_under_the_cursor(default_scene):
    app, mouse = default_scene
    end = find(app, "end")
    mouse.move(app.screen_of(end))
    assert app.editor.drag.hovered is end
    assert end.node.has_color_scale()
    mouse.move(pixel_of(app, *FREE_SPOT))
    assert app.editor.drag.hovered is None
    assert not end.node.has_color_scale()


def test_the_hover_casts_only_when_the_pointer_or_the_camera_moved(default_scene, monkeypatch):
    app, mouse = default_scene
    end = find(app, "end")
    mouse.move(app.screen_of(end))
    picks = []
    pick = app.editor.picker.pick

    def counted(at):
        picks.append(at)
        return pick(at)

    monkeypatch.setattr(app.editor.picker, "pick", counted)
    for _ in range(5):
        app.step()
    assert picks == [], "a still pointer over a still scene needs no new ray"
    assert app.editor.drag.hovered is end
    app.camera.zoom(1)
    app.step()
    assert len(picks) == 1, "the camera moved: what lies under the pointer may have changed"
    mouse.move(pixel_of(app, *FREE_SPOT))
    assert app.editor.drag.hovered is None


def test_a_drag_is_clamped_to_the_grid(default_scene):
    app, mouse = default_scene
    end = find(app, "end")
    width, height = app.window_size()
    mouse.drag(app.screen_of(end), (width - 5, height // 2))
    x, y = xy(end)
    assert -10.0 < x < 10.0
    assert -10.0 < y < 10.0
    assert app.grid.world_to_cell(x, y) is not None


def test_right_drag_on_a_cube_orbits_and_never_moves_it(default_scene):
    app, mouse = default_scene
    end = find(app, "end")
    before, heading = xy(end), app.camera.pose.heading_deg
    mouse.drag(app.screen_of(end), (600, 300), button=MouseButton.three())
    assert xy(end) == before
    assert app.camera.pose.heading_deg != heading


def test_a_drag_from_empty_ground_moves_nothing(default_scene):
    app, mouse = default_scene
    before = {obj.name: xy(obj) for obj in app.objects if obj.tag != "Agent"}
    mouse.drag(pixel_of(app, *FREE_SPOT), pixel_of(app, 0.0, -8.0))
    after = {obj.name: xy(obj) for obj in app.objects if obj.tag != "Agent"}
    assert after == before


def test_shift_click_adds_an_obstacle_and_x_removes_it(default_scene):
    app, mouse = default_scene
    blocked = app.grid.blocked_cells()
    mouse.click(pixel_of(app, *FREE_SPOT), holding=KeyboardButton.shift())
    added = [obj for obj in app.objects if obj.name.startswith("obstacle-")]
    assert len(added) == 1
    assert added[0].tag == "Obstacle"
    assert xy(added[0]) == pytest.approx(FREE_SPOT)
    app.step()
    assert app.grid.blocked_cells() == blocked + 1
    assert not app.grid.walkable[app.grid.world_to_cell(*FREE_SPOT)]
    mouse.move(app.screen_of(added[0]))
    mouse.key("x")
    app.step()
    assert not added[0].alive
    assert app.grid.blocked_cells() == blocked


def test_x_never_removes_start_or_end(default_scene):
    app, mouse = default_scene
    end = find(app, "end")
    mouse.move(app.screen_of(end))
    mouse.key("x")
    assert end.alive


def test_dragging_an_obstacle_onto_the_path_reroutes_it(default_scene):
    app, mouse = default_scene
    path = app.path.outcome.cells
    middle = path[len(path) // 2]
    wall = find(app, "low_wall")
    target_x, target_y = app.grid.cell_to_world(middle)
    mouse.drag(app.screen_of(wall), pixel_of(app, target_x, target_y, 0.5))
    app.step()
    x, y = xy(wall)
    box = Box(x, y, wall.node.get_sx(), wall.node.get_sy(), wall.node.get_h())
    covered = box_footprint(box, (20, 20), origin=(-10.0, -10.0))
    blocked = {
        (covered.row_start + r, covered.col_start + c)
        for r, c in zip(*covered.mask.nonzero(), strict=True)
    }
    assert blocked, "the wall covers cells"
    rerouted = set(app.path.outcome.cells)
    assert app.path.outcome.found
    assert not (rerouted & blocked), "the new path avoids the dropped wall"
    assert set(path) & blocked, "the wall was dropped on the old path"


def test_ctrl_s_saves_the_edited_scene(open_app, tmp_path):
    target = tmp_path / "edited.toml"
    app = open_app(DEFAULT_SCENE, size=(800, 600), save_as=target)
    mouse = Mouse(app)
    app.step()
    mouse.click(pixel_of(app, *FREE_SPOT), holding=KeyboardButton.shift())
    mouse.key("s", holding=KeyboardButton.control())
    saved = load_scene(target)
    original = load_scene(DEFAULT_SCENE)
    added = saved.find("obstacle-1")
    assert added is not None
    assert added.pos[:2] == pytest.approx(FREE_SPOT)
    assert [o for o in saved.objects if o.name != "obstacle-1"] == list(original.objects)
    assert (saved.grid, saved.camera, saved.name) == (original.grid, original.camera, original.name)
    assert "saved" in app.hud.text()


def test_the_path_follows_end_while_it_is_still_held(default_scene):
    app, mouse = default_scene
    end = find(app, "end")
    mouse.move(app.screen_of(end))
    mouse.virtual.press_button(MouseButton.one())
    app.step()
    mouse.move(pixel_of(app, *FREE_SPOT, 0.4))
    for _ in range(12):  # a little over the 0.1 s between live replans
        app.step()
    assert app.editor.drag.dragged is end, "still held"
    assert app.path.outcome.cells[-1] == app.grid.world_to_cell(*xy(end))
    mouse.virtual.release_button(MouseButton.one())
    app.step()
    assert app.editor.drag.dragged is None


def test_a_release_without_the_pointer_drops_the_cube_where_it_was(default_scene):
    app, mouse = default_scene
    end = find(app, "end")
    mouse.move(app.screen_of(end))
    mouse.virtual.press_button(MouseButton.one())
    app.step()
    mouse.move(pixel_of(app, *FREE_SPOT, 0.4))
    held_at = xy(end)
    mouse.virtual.set_mouse_on(False)  # the window loses the pointer
    app.step()
    mouse.virtual.release_button(MouseButton.one())
    app.step()
    assert app.editor.drag.dragged is None
    assert xy(end) == pytest.approx(held_at)
