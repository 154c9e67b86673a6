"""The selection's handles offscreen: shown as the selection allows, hovered, dragged, undone."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import KeyboardButton

from sim.editor.handles import COLORS, Handle
from tests.helpers.inspector import select
from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.pixels import screenshot_rgb

pytestmark = pytest.mark.render

CONTROL = KeyboardButton.control()


def grab(app, handle: Handle) -> tuple[int, int]:
    app.step()  # the handles follow the selection once a frame
    point = app.workspace.handles.grab_points()[handle]
    pixel = app.screen_of_point(point)
    assert pixel is not None, f"the {handle.value} handle is off screen"
    return pixel


def colour_pixels(image: np.ndarray, colour) -> int:
    target = np.array(colour[:3]) * 255
    return int((np.abs(image.astype(int) - target).max(axis=2) < 30).sum())


def test_the_selection_shows_arrows_and_a_ring_over_everything(default_scene):
    app, mouse = default_scene
    select(app, mouse, "end")
    mouse.key("f")  # in the middle of the view, clear of the panels
    app.workspace.handles.node.hide()  # the same view without them, until the next frame
    app.base.graphicsEngine.render_frame()
    before = screenshot_rgb(app.base.win)
    app.step()
    assert app.workspace.handles.shown == {Handle.X, Handle.Y, Handle.RING}
    image = screenshot_rgb(app.base.win)
    app.save_screenshot(artifact("handles.png"))
    for handle in Handle:
        colour = COLORS[handle.value]
        assert colour_pixels(image, colour) > colour_pixels(before, colour) + 30, handle


def test_an_agent_has_no_handles_and_a_turning_object_no_ring(open_app):
    app = open_app(SCENES_DIR / "traffic.toml")
    app.step()
    handles = app.workspace.handles
    app.editor.select(app.world.find("agent"))
    app.step()
    assert handles.shown == frozenset()
    assert handles.node.is_hidden()
    app.editor.select(app.world.find("turnstile"))
    app.step()
    assert handles.shown == {Handle.X, Handle.Y}


def test_the_handle_under_the_pointer_is_highlighted(default_scene):
    app, mouse = default_scene
    select(app, mouse, "end")
    mouse.move(grab(app, Handle.X))
    mouse.move(grab(app, Handle.X))
    assert app.workspace.handles.hovered is Handle.X
    mouse.move(grab(app, Handle.RING))
    assert app.workspace.handles.hovered is Handle.RING


@pytest.mark.parametrize(("handle", "axis"), [(Handle.X, 0), (Handle.Y, 1)])
def test_dragging_an_arrow_moves_along_its_axis_only_in_one_undoable_edit(
    default_scene, handle, axis
):
    app, mouse = default_scene
    mouse.key("space")  # nothing else moves meanwhile
    end = select(app, mouse, "end")
    before = end.xy
    start = grab(app, handle)
    other = grab(app, Handle.Y if handle is Handle.X else Handle.X)
    # Away from the other arrow, so the drag runs along this one whatever the view.
    away = (2 * start[0] - other[0], 2 * start[1] - other[1])
    mouse.drag(start, away)
    after = end.xy
    assert abs(after[axis] - before[axis]) > 0.5, "it moved along its own axis"
    assert after[1 - axis] == pytest.approx(before[1 - axis], abs=1e-6), "and only along it"
    assert app.editor.history.undo_depth == 1, "one drag, one edit"
    assert app.editor.selected is end, "the drag keeps the selection"
    mouse.key("z", holding=CONTROL)
    assert end.xy == pytest.approx(before, abs=1e-6)
    assert app.editor.history.undo_depth == 0


def test_dragging_the_ring_turns_the_selection_in_one_undoable_edit(default_scene):
    app, mouse = default_scene
    mouse.key("space")
    wall = select(app, mouse, "long_wall")
    heading = wall.node.get_h()
    where = wall.xy
    start = grab(app, Handle.RING)
    centre = app.screen_of_point(app.workspace.handles.node.get_pos(app.world.root))
    # A quarter turn about the ring's centre, on screen.
    turned = (centre[0] - (start[1] - centre[1]), centre[1] + (start[0] - centre[0]))
    mouse.drag(start, turned)
    assert not math.isclose(wall.node.get_h(), heading, abs_tol=20.0)
    assert wall.xy == pytest.approx(where, abs=1e-6), "a turn does not move it"
    assert app.editor.history.undo_depth == 1
    mouse.key("z", holding=CONTROL)
    assert wall.node.get_h() == pytest.approx(heading)


def test_a_press_off_the_handles_still_drags_and_selects_cubes(default_scene):
    app, mouse = default_scene
    select(app, mouse, "end")
    wall = app.world.find("long_wall")
    mouse.click(app.screen_of(wall))
    assert app.editor.selected is wall


def test_the_report_says_where_to_grab_each_handle(default_scene):
    app, mouse = default_scene
    assert app.report()["editor"]["handles"] == {}
    select(app, mouse, "end")
    app.step()
    handles = app.report()["editor"]["handles"]
    assert set(handles) == {"x", "y", "ring"}
    assert tuple(handles["x"]) == grab(app, Handle.X)


def test_with_snapping_on_an_arrow_drops_on_a_cell_centre_and_the_ring_turns_in_steps(
    default_scene,
):
    app, mouse = default_scene
    mouse.key("space")
    mouse.key("v")
    wall = select(app, mouse, "long_wall")
    start, other = grab(app, Handle.X), grab(app, Handle.Y)
    mouse.drag(
        start, (start[0] + 1.7 * (start[0] - other[0]), start[1] + 1.7 * (start[1] - other[1]))
    )
    x, y = wall.xy
    assert x != 1.5, "it moved"
    assert (x - 0.5) % 1.0 == pytest.approx(0.0, abs=1e-6), "onto a cell centre"
    assert y == -2.0
    start = grab(app, Handle.RING)
    centre = app.screen_of_point(app.workspace.handles.node.get_pos(app.world.root))
    mouse.drag(start, (centre[0] - (start[1] - centre[1]), centre[1] + (start[0] - centre[0])))
    heading = wall.node.get_h()
    assert heading != 0.0
    assert heading % 15.0 == pytest.approx(0.0, abs=1e-6) or heading % 15.0 == pytest.approx(15.0)
