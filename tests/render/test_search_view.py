"""The search view offscreen: keys and buttons step the replay, pixels show it, drags restart it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import MouseButton, Point3

from sim.navigation import find_path
from sim.navigation.catalogue import SearchKind as Choice
from sim.navigation.replay.log import CellStatus
from sim.search_view.panel import BUTTON_COLOR, CHOSEN_COLOR
from sim.search_view.view import CLOSED_COLOR, CURRENT_COLOR, OPEN_COLOR, PATH_COLOR
from tests.helpers.paths import ODD_SCENES, artifact
from tests.helpers.pixels import near, rgb, scene_pixels, screenshot_rgb

pytestmark = pytest.mark.render

FREE_SPOT = (7.5, -5.5)  # an open cell of the default scene, far from End


def drawn(app) -> set[str]:
    """The gizmo keys on screen after the last frame."""
    return set(app.gizmos.keys())


def open_view(app, mouse):
    mouse.key("t")
    assert app.search_view.opened
    assert app.search_view.replay is not None


def steps(mouse, count):
    for _ in range(count):
        mouse.key("arrow_right")


def colour_pixels(app, name):
    image = scene_pixels(app)
    app.save_screenshot(artifact(name))
    return {
        "open": int(near(image, rgb(OPEN_COLOR), 6).sum()),
        "closed": int(near(image, rgb(CLOSED_COLOR), 6).sum()),
        "path": int(near(image, rgb(PATH_COLOR), 6).sum()),
        "current": int(near(image, rgb(CURRENT_COLOR), 6).sum()),
    }


def test_steps_paint_open_and_closed_cells_and_reset_clears_them(default_scene):
    app, mouse = default_scene
    before = colour_pixels(app, "search-view-closed.png")
    open_view(app, mouse)
    steps(mouse, 25)
    assert app.search_view.replay.step == 25
    after = colour_pixels(app, "search-view-step-25.png")
    assert after["open"] > 10 * before["open"] + 500, after
    assert after["closed"] > 10 * before["closed"] + 500, after
    # One cell: some 36 pixels in the docked viewport of an 800x600 window.
    assert after["current"] > 20, "the cell expanded last stands out"
    mouse.key("home")
    assert app.search_view.replay.step == 0
    reset = colour_pixels(app, "search-view-reset.png")
    assert reset["open"] <= before["open"] + 5, reset
    assert reset["closed"] <= before["closed"] + 5, reset


def test_the_end_of_the_search_shows_the_path_the_planner_finds(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    mouse.key("end")
    replay = app.search_view.replay
    assert replay.at_end
    planned = find_path(app.grid.walkable, replay.log.start, replay.log.goal)
    assert replay.path == planned.cells
    pixels = colour_pixels(app, "search-view-end.png")
    assert pixels["path"] > 500, pixels
    assert "path cost" in app.search_view.status_text()


def test_the_planner_path_line_hides_while_the_view_is_open(default_scene):
    app, mouse = default_scene
    app.step()
    assert "start-end-path" in drawn(app)
    open_view(app, mouse)
    assert "start-end-path" not in drawn(app)
    mouse.key("t")
    assert not app.search_view.opened
    assert "start-end-path" in drawn(app)
    assert not {key for key in drawn(app) if key.startswith("search-")}


def test_k_steps_forward_then_back_show_the_same_state_again(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    steps(mouse, 3)
    replay = app.search_view.replay
    state = replay.snapshot()
    steps(mouse, 9)
    assert replay.step == 12
    for _ in range(9):
        mouse.key("arrow_left")
    assert replay.snapshot() == state
    arrows_then = app.search_view._geometry_now()["search-parents"].copy()
    steps(mouse, 9)
    for _ in range(9):
        mouse.key("arrow_left")
    assert np.array_equal(app.search_view._geometry_now()["search-parents"], arrows_then)


def test_play_runs_on_frame_time_even_while_the_simulation_is_paused(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    mouse.key("space")
    assert app.loop.paused
    mouse.key("enter")
    assert app.search_view.playing
    for _ in range(60):
        app.step()
    speed = app.search_view.speed
    assert speed - 2 <= app.search_view.replay.step <= speed + 2, "one second of frames"
    mouse.key("arrow_up")
    assert app.search_view.speed > speed


def test_dragging_end_while_the_view_is_open_restarts_it_on_the_new_grid(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    mouse.key("end")
    restarts = app.search_view.restarts
    end = app.world.find("end")
    target = app.screen_of_point(Point3(*FREE_SPOT, 0.4))
    mouse.drag(app.screen_of(end), target)
    new_goal = app.grid.world_to_cell(end.node.get_x(), end.node.get_y())
    assert new_goal == app.grid.world_to_cell(*FREE_SPOT)
    view = app.search_view
    assert view.restarts > restarts
    assert view.replay.log.goal == new_goal
    assert view.playing, "a view that had played to the end plays the new search"
    for _ in range(600):
        app.step()
        if view.replay.at_end:
            break
    assert view.replay.at_end
    assert view.replay.path[-1] == new_goal


def test_dragging_an_obstacle_restarts_the_view_on_the_changed_grid(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    restarts = app.search_view.restarts
    wall = app.world.find("low_wall")
    mouse.drag(app.screen_of(wall), app.screen_of_point(Point3(*FREE_SPOT, 0.3)))
    view = app.search_view
    assert view.restarts > restarts
    blocked = app.grid.world_to_cell(*FREE_SPOT)
    assert not app.grid.walkable[blocked]
    assert view.problem_for_comparison().walkable[blocked] == np.False_


def wheel(mouse, notches):
    button = MouseButton.wheel_up() if notches > 0 else MouseButton.wheel_down()
    for _ in range(abs(notches)):
        mouse.virtual.press_button(button)
        mouse.app.step()
        mouse.virtual.release_button(button)
        mouse.app.step()


def test_numbers_show_when_the_camera_is_close_and_hide_when_far(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    mouse.key("end")
    mouse.move((400, 300))
    assert app.report()["search_view"]["numbers_shown"] == 0, "unreadable from the default view"
    wheel(mouse, 12)
    labels = app.search_view._labels
    assert labels.shown > 0
    replay = app.search_view.replay
    shown = [
        (row, col)
        for row, col in zip(*np.nonzero(replay.status != CellStatus.UNSEEN), strict=True)
        if labels.text_of(int(row) * replay.log.width + int(col)) is not None
    ]
    assert len(shown) == labels.shown
    row, col = shown[0]
    text = labels.text_of(int(row) * replay.log.width + int(col))
    assert text == f"g {replay.g[row, col]:.1f}\nf {replay.f[row, col]:.1f}"
    app.save_screenshot(artifact("search-view-numbers.png"))
    mouse.key("l")
    assert labels.shown == 0, "L hides the numbers"
    mouse.key("l")
    assert labels.shown > 0
    wheel(mouse, -12)
    assert labels.shown == 0, "too far to read again"


def test_parent_arrows_point_from_each_touched_cell_to_its_parent(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    steps(mouse, 10)
    replay = app.search_view.replay
    arrows = app.search_view._geometry_now()["search-parents"]
    touched = int(np.count_nonzero(replay.parent >= 0))
    assert len(arrows) == 3 * touched, "a shaft and two head strokes each"
    shaft = arrows[0]
    cells = np.flatnonzero(replay.parent.ravel() >= 0)
    parent = replay.parent.ravel()[cells[0]]
    here = app.grid.cell_to_world(divmod(int(cells[0]), replay.log.width))
    there = app.grid.cell_to_world(divmod(int(parent), replay.log.width))
    direction = np.subtract(there, here)
    shaft_vector = shaft[1, :2] - shaft[0, :2]
    assert math.isclose(
        float(np.dot(direction, shaft_vector)),
        float(np.linalg.norm(direction) * np.linalg.norm(shaft_vector)),
        rel_tol=1e-5,
    ), "the shaft points at the parent"
    mouse.key("a")
    app.step()
    assert "search-parents" not in drawn(app)


def press(app, key):
    app.search_panel.buttons[key].commandFunc(None)
    app.step()


def test_buttons_drive_the_view(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    view = app.search_view
    for _ in range(4):
        press(app, "step")
    assert view.replay.step == 4
    press(app, "back")
    assert view.replay.step == 3
    press(app, "play")
    assert view.playing
    assert app.search_panel.buttons["play"]["text"] == "Pause"
    press(app, "play")
    press(app, "reset")
    assert view.replay.step == 0
    restarts = view.restarts
    press(app, "algo:BFS")
    assert view.settings.choice is Choice.BFS
    assert view.restarts == restarts + 1
    assert view.replay.step == 0
    press(app, "algo:WEIGHTED")
    press(app, "heavier")
    assert view.settings.weight == pytest.approx(1.75)
    press(app, "heur:manhattan")
    assert view.replay.log.heuristic == "manhattan"
    press(app, "moves")
    assert not view.settings.diagonal
    assert not view.replay.log.diagonal
    press(app, "parents")
    assert not view.show_parents
    press(app, "close")
    assert not view.opened


def test_status_counts_match_the_replay(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    steps(mouse, 7)
    replay = app.search_view.replay
    frontier, expanded = app.search_view.counts()
    assert expanded == 7 == int(np.count_nonzero(replay.status == CellStatus.CLOSED))
    assert frontier == int(np.count_nonzero(replay.status == CellStatus.OPEN))
    report = app.report()["search_view"]
    assert report["step"] == 7
    assert report["expanded_cells"] == 7
    assert set(report["buttons"]) >= {"step", "back", "play", "reset"}


def test_compare_table_marks_the_searches_that_are_not_shortest(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    mouse.key("f")
    app.step()
    rows = app.search_panel.rows
    assert len(rows) == 15
    optimal = next(row for row in rows if row.label == "Dijkstra").cost
    for row in rows:
        if row.guaranteed:
            assert row.cost == pytest.approx(optimal, rel=1e-9), row.label
    dfs = next(row for row in rows if row.label == "DFS")
    assert not dfs.optimal
    search_column = app.search_panel._table_columns[0].text
    assert "\1not-shortest\1DFS" in search_column
    assert "\1not-shortest\1Dijkstra" not in search_column
    app.save_screenshot(artifact("search-view-compare.png"))
    entry = app.report()["search_view"]
    assert entry["compare_open"]
    assert len(entry["compare"]) == 15


def test_a_scene_without_end_says_so_instead_of_searching(open_app):
    app = open_app(ODD_SCENES / "only_start.toml")
    app.search_view.open()
    app.step()
    assert app.search_view.replay is None
    assert "needs a Start and an End" in app.search_view.status_text()
    app.search_view.step_forward()
    app.step()


def test_reported_button_pixels_land_on_the_buttons(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    app.step()
    image = screenshot_rgb(app.base.win)
    buttons = app.report()["search_view"]["buttons"]
    chosen = rgb(CHOSEN_COLOR)
    plain = rgb(BUTTON_COLOR)
    for key, chosen_now in (("algo:ASTAR", True), ("heur:octile", True), ("step", False)):
        x, y = buttons[key]
        patch = image[y - 4 : y + 5, x - 12 : x + 13]
        colour = chosen if chosen_now else plain
        assert near(patch, colour, 10).sum() > 20, f"{key} at {(x, y)}"


def test_compare_table_follows_a_dropped_end_once_it_settles(default_scene):
    app, mouse = default_scene
    open_view(app, mouse)
    mouse.key("f")
    end = app.world.find("end")
    mouse.drag(app.screen_of(end), app.screen_of_point(Point3(*FREE_SPOT, 0.4)))
    for _ in range(30):  # half a simulated second: longer than the table waits to settle
        app.step()
    replay = app.search_view.replay
    dijkstra = next(row for row in app.search_panel.rows if row.label == "Dijkstra")
    expected = find_path(app.grid.walkable, replay.log.start, replay.log.goal, algorithm="dijkstra")
    assert replay.log.goal == app.grid.world_to_cell(*FREE_SPOT)
    assert dijkstra.cost == pytest.approx(expected.cost * app.grid.grid_cell_size)


ODD_SCENE_FILES = sorted(ODD_SCENES.glob("*.toml"))


@pytest.mark.parametrize("path", ODD_SCENE_FILES, ids=lambda path: path.stem)
def test_the_view_copes_with_every_odd_scene(open_app, path):
    app = open_app(path, size=(320, 240))
    app.step()
    view = app.search_view
    view.open()
    for action in (view.to_end, view.step_back, view.play_pause, view.reset, view.step_forward):
        action()
        app.step()
    text = view.status_text()
    has_ends = app.world.find_with_tag("Start") and app.world.find_with_tag("End")
    if not has_ends:
        assert view.replay is None
        assert "needs a Start and an End" in text
        return
    view.to_end()
    app.step()
    result = view.replay.log.result()
    if path.stem == "end_walled_in":
        assert not result.found
        assert "no path: remove this cell (yellow)" in view.status_text()
    if path.stem == "start_equals_end":
        assert view.replay.path == (view.replay.log.start,)
    if path.stem in {"start_inside_obstacle", "end_inside_obstacle"}:
        assert "inside an obstacle" in view.message
