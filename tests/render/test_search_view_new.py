"""The search view's jps, bidirectional and theta offscreen: their colours, report keys, replay."""

from __future__ import annotations

import numpy as np
import pytest

from sim.app.report import validate_report
from sim.navigation import find_path
from sim.navigation.catalogue import SearchKind
from sim.search_view.view import (
    ARROW_COLOR,
    BACKWARD_CLOSED_COLOR,
    BACKWARD_OPEN_COLOR,
    CLOSED_COLOR,
    MEETING_COLOR,
    OPEN_COLOR,
    PATH_COLOR,
)
from tests.helpers.paths import ODD_SCENES, artifact
from tests.helpers.pixels import near, rgb, scene_pixels, screenshot_rgb

pytestmark = pytest.mark.render


def show(app, kind, steps, name):
    view = app.search_view
    view.open()
    view.set_choice(kind)
    view.replay.seek(steps)
    app.step()
    app.save_screenshot(artifact(name))
    return scene_pixels(app)  # the legend's swatches are the same colours


def count(image, colour):
    return int(near(image, rgb(colour), 6).sum())


def test_bidirectional_paints_both_frontiers_and_the_meeting_cell(default_scene):
    app, _ = default_scene
    image = show(app, SearchKind.BIDIRECTIONAL, 40, "search-view-bidirectional-40.png")
    replay = app.search_view.replay
    assert (replay.side == 1).any()
    assert (replay.side == 2).any()
    assert count(image, OPEN_COLOR) > 200
    assert count(image, BACKWARD_OPEN_COLOR) > 200
    assert count(image, BACKWARD_CLOSED_COLOR) > 200
    app.search_view.to_end()
    app.step()
    assert replay.meeting_cell is not None
    report = app.report()
    entry = report["search_view"]
    assert entry["search"] == "bidirectional"
    assert entry["meeting_cell"] == list(replay.meeting_cell)
    expected = find_path(app.grid.walkable, replay.log.start, replay.log.goal)
    assert entry["cost"] == pytest.approx(expected.cost * app.grid.grid_cell_size)
    assert validate_report(report) == []


def test_the_meeting_cell_stands_out_at_the_end(open_app):
    # No cubes here: on the default scene one hides the meeting cell from the camera.
    app = open_app(ODD_SCENES / "no_obstacles.toml")
    app.step()
    image = show(app, SearchKind.BIDIRECTIONAL, 10_000, "search-view-bidirectional-end.png")
    replay = app.search_view.replay
    assert replay.at_end
    assert replay.meeting_cell is not None
    assert count(image, MEETING_COLOR) > 50
    replay.reset()
    app.step()
    assert count(scene_pixels(app), MEETING_COLOR) < 5


def test_jps_shows_only_jump_points_and_one_arrow_a_jump(default_scene):
    app, _ = default_scene
    image = show(app, SearchKind.JPS, 6, "search-view-jps-6.png")
    replay = app.search_view.replay
    touched = int(np.count_nonzero(replay.parent >= 0))
    arrows = app.search_view._geometry_now()["search-parents"]
    assert len(arrows) == 3 * touched  # a shaft and two head strokes per jump
    assert app.search_view.counts()[1] == 6
    assert count(image, CLOSED_COLOR) > 100
    assert count(image, ARROW_COLOR) > 50
    entry = app.report()["search_view"]
    assert (entry["search"], entry["cost"], entry["meeting_cell"]) == ("jps", None, None)


def test_theta_draws_its_path_as_straight_segments(default_scene):
    app, _ = default_scene
    before = count(show(app, SearchKind.THETA, 0, "search-view-theta-0.png"), PATH_COLOR)
    app.search_view.to_end()
    app.step()
    app.save_screenshot(artifact("search-view-theta-end.png"))
    image = screenshot_rgb(app.base.win)
    replay = app.search_view.replay
    lines = app.search_view._geometry_now()["search-path-lines"]
    assert len(lines) == len(replay.path) - 1
    assert count(image, PATH_COLOR) > before + 300
    entry = app.report()["search_view"]
    assert entry["search"] == "theta"
    assert entry["cost"] == pytest.approx(replay.log.result().cost * app.grid.grid_cell_size)


@pytest.mark.parametrize("kind", [SearchKind.JPS, SearchKind.BIDIRECTIONAL, SearchKind.THETA])
def test_the_view_steps_back_to_the_state_it_left(default_scene, kind):
    app, mouse = default_scene
    app.search_view.open()
    app.search_view.set_choice(kind)
    replay = app.search_view.replay
    replay.forward(2)
    state = replay.snapshot()
    assert replay.log.total_steps() > 6  # the keys below never reach the end
    for _ in range(4):
        mouse.key("arrow_right")
    assert replay.step == 6
    for _ in range(4):
        mouse.key("arrow_left")
    assert replay.snapshot() == state


def test_jps_on_4_connected_moves_says_why_instead_of_searching(default_scene):
    app, _ = default_scene
    view = app.search_view
    view.open()
    view.set_diagonal(False)
    view.set_choice(SearchKind.JPS)
    app.step()
    assert view.replay is None
    assert "JPS cannot search this" in view.status_text()
    view.set_choice(SearchKind.ASTAR)
    app.step()
    assert view.replay is not None
