"""The toolbar and its keys offscreen: pause, step exactly one fixed step, the speed, reset."""

from __future__ import annotations

import pytest
from panda3d.core import Point3

from sim.ui.time_controls import SPEEDS
from tests.helpers.inspector import focus, select

pytestmark = pytest.mark.render

STEP_S = 1.0 / 60.0  # the headless app's fixed step


def test_the_toolbar_pauses_and_plays_and_says_so(default_scene):
    app, _mouse = default_scene
    toolbar = app.workspace.toolbar
    assert toolbar.label("play_pause") == "Pause"
    toolbar.press("play_pause")
    app.step()
    assert app.loop.paused
    assert toolbar.label("play_pause") == "Play"
    assert toolbar.clock_text.endswith("paused")
    frozen = app.world.time_s
    app.step()
    assert app.world.time_s == frozen
    toolbar.press("play_pause")
    app.step()
    assert not app.loop.paused
    assert app.world.time_s > frozen


def test_space_still_pauses_and_the_toolbar_follows(default_scene):
    app, mouse = default_scene
    mouse.key("space")
    assert app.loop.paused
    assert app.workspace.toolbar.label("play_pause") == "Play"


@pytest.mark.parametrize("how", ["key", "button"])
def test_a_step_advances_exactly_one_fixed_step_and_stays_paused(default_scene, how):
    app, mouse = default_scene
    mouse.key("space")
    before = app.world.time_s
    agent = app.agents[0].game_object
    where = agent.xy
    if how == "key":
        mouse.key("1")  # two frames: the press's, then the release's
    else:
        app.workspace.toolbar.press("step")
        app.step()
        app.step()
    assert app.world.time_s == pytest.approx(before + STEP_S, abs=1e-12)
    assert app.loop.paused
    assert agent.xy != where, "the world moved by the step"


def test_a_step_while_running_pauses_there(default_scene):
    app, mouse = default_scene
    mouse.key("1")
    assert app.loop.paused
    time_s = app.world.time_s
    app.step()
    assert app.world.time_s == time_s


def test_the_speed_keys_walk_the_speeds_and_stop_at_their_ends(default_scene):
    app, mouse = default_scene
    assert app.loop.time_scale == 1.0
    seen = []
    for _ in range(len(SPEEDS)):
        mouse.key("=")
        seen.append(app.loop.time_scale)
    assert seen == [2.0, 4.0, 4.0, 4.0, 4.0]
    for _ in range(len(SPEEDS)):
        mouse.key("-")
    assert app.loop.time_scale == SPEEDS[0]
    assert "speed 0.25x" in app.workspace.toolbar.clock_text


def test_at_twice_the_speed_a_frame_runs_two_fixed_steps(default_scene):
    app, _mouse = default_scene
    app.workspace.toolbar.press("faster")
    before = app.world.time_s
    for _ in range(6):
        app.step()
    assert app.world.time_s == pytest.approx(before + 12 * STEP_S)


def test_reset_puts_the_agent_back_on_start(default_scene):
    app, _mouse = default_scene
    for _ in range(90):
        app.step()
    agent = app.agents[0].game_object
    start = app.world.find("start")
    assert agent.xy != pytest.approx(start.xy, abs=0.05)
    app.workspace.toolbar.press("reset")
    assert agent.xy == pytest.approx(start.xy, abs=0.05)


def test_one_types_once_into_a_field_and_steps_nothing(default_scene):
    app, mouse = default_scene
    select(app, mouse, "long_wall")
    mouse.key("space")
    time_s = app.world.time_s
    focus(app, mouse, "heading")
    for key in ("1", "-", "2"):
        mouse.key(key)
    assert app.inspector.typed == "1-2"
    assert app.world.time_s == time_s
    assert app.loop.time_scale == 1.0


def test_in_the_race_one_toggles_a_lane_and_steps_nothing(default_scene):
    app, mouse = default_scene
    mouse.key("w")
    lanes = [lane["search"] for lane in app.report()["search_view"]["race"]]
    mouse.key("1")
    assert [lane["search"] for lane in app.report()["search_view"]["race"]] != lanes
    assert not app.loop.paused, "no step: a step would have paused the scene"


def pixel_of_button(app, button) -> tuple[int, int]:
    left, right, bottom, top = button.getBounds()
    middle = app.base.render2d.get_relative_point(
        button, Point3((left + right) / 2, 0.0, (bottom + top) / 2)
    )
    width, height = app.window_size()
    return (round((middle.x + 1) / 2 * width), round((1 - middle.z) / 2 * height))


def test_a_click_on_the_toolbar_presses_its_button_and_never_the_scene_behind(default_scene):
    app, mouse = default_scene
    # The test's own mouse watcher takes the panels' regions, as the window's does.
    watcher = app.base.dataRoot.find("**/test-watcher").node()
    app.base.aspect2d.node().set_mouse_watcher(watcher)
    select(app, mouse, "long_wall")
    mouse.click(pixel_of_button(app, app.workspace.toolbar.buttons["play_pause"]))
    assert app.loop.paused, "the button was pressed"
    assert app.editor.selected is app.world.find("long_wall"), "no click on the ground behind"
    mouse.click(pixel_of_button(app, app.workspace.toolbar.buttons["faster"]))
    assert app.loop.time_scale == 2.0
