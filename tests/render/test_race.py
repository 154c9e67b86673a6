"""The race offscreen: each lane in its own region and colours, keys, `--race` and the report."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sim.app.report import validate_report
from sim.commands.cli import main
from sim.config import SCENES_DIR
from sim.search_view.race import DEFAULT_LINEUP
from sim.search_view.race_view import LANE_COLORS
from tests.helpers.paths import artifact
from tests.helpers.pixels import near, rgb, screenshot_rgb

pytestmark = pytest.mark.render

BASE = ["run", "--headless", "--frames", "2", "--size", "400x300"]


def region(image, bounds):
    """The pixels of a lane's region (left, right, bottom, top as fractions, y up)."""
    height, width = image.shape[:2]
    left, right, bottom, top = bounds
    rows = slice(round((1 - top) * height), round((1 - bottom) * height))
    return image[rows, round(left * width) : round(right * width)]


def lane_pixels(image, index):
    return sum(int(near(image, rgb(colour), 6).sum()) for colour in LANE_COLORS[index])


def test_each_lane_draws_in_its_own_region_in_its_own_colours(default_scene):
    app, _ = default_scene
    race = app.race.view
    race.open(DEFAULT_LINEUP)
    race.race.seek(40)
    app.step()
    app.save_screenshot(artifact("race-4-lanes-tick-40.png"))
    image = screenshot_rgb(app.base.win)
    bounds = race.bounds
    assert len(bounds) == 4
    for index in range(4):
        for other in range(4):
            count = lane_pixels(region(image, bounds[other]), index)
            if other == index:
                assert count > 40, f"lane {index} is drawn in its region"
            else:
                assert count < 10, f"lane {index} is not drawn in lane {other}'s region"
    assert not app.path.show_path or app.path.suppressed, "the planner's path gives nothing away"


def test_two_lanes_split_the_viewport_in_halves(default_scene):
    app, _ = default_scene
    race = app.race.view
    race.open(DEFAULT_LINEUP[:1] + DEFAULT_LINEUP[3:])  # A* and Dijkstra
    race.to_end()
    app.step()
    app.save_screenshot(artifact("race-2-lanes-end.png"))
    image = screenshot_rgb(app.base.win)
    left, right = race.bounds
    # The viewport's halves: the docks beside it stay as they are.
    viewport_left, viewport_right, bottom, top = app.layout.viewport_fractions()
    middle = (viewport_left + viewport_right) / 2
    assert left == pytest.approx((viewport_left, middle, bottom, top), abs=1e-6)
    assert right == pytest.approx((middle, viewport_right, bottom, top), abs=1e-6)
    assert lane_pixels(region(image, left), 0) > 100
    assert lane_pixels(region(image, right), 1) > 100
    assert lane_pixels(region(image, left), 1) < 10


def test_closing_the_race_gives_the_window_back_to_the_scene(default_scene):
    app, _ = default_scene
    app.step()
    before = screenshot_rgb(app.base.win)
    app.race.view.open()
    app.race.view.to_end()
    app.step()
    app.race.view.close()
    app.step()
    after = screenshot_rgb(app.base.win)
    assert all(lane_pixels(after, index) < 10 for index in range(4))
    assert app.hud.visible
    # The scene looks as it did (the agent may have moved a little).
    assert np.mean(np.abs(after.astype(int) - before.astype(int)) > 30) < 0.02


def test_the_keys_run_a_race_to_its_finish(default_scene):
    app, mouse = default_scene
    mouse.key("t")  # from the search view: the race takes its place
    mouse.key("w")
    race = app.race.view
    assert race.opened
    assert not app.search_view.opened
    assert not app.hud.visible, "the race's panel takes the HUD's place"
    mouse.key("arrow_right")
    mouse.key("arrow_right")
    assert race.race.tick == 2
    mouse.key("arrow_left")
    assert race.race.tick == 1
    mouse.key("6")  # DFS joins: five would be too many
    assert len(race.lineup) == 4
    assert "at most 4" in race.message
    mouse.key("2")  # Dijkstra leaves
    assert [entrant.kind.label for entrant in race.lineup] == ["A*", "JPS", "bidirectional"]
    mouse.key("end")
    app.step()
    lanes = app.report()["search_view"]["race"]
    assert [lane["place"] for lane in lanes] == [2, 1, 3]
    assert all(lane["finished"] and lane["cost"] is not None for lane in lanes)
    assert "1. JPS" in app.race.panel.panel_text
    mouse.key("home")
    app.step()
    assert all(lane["place"] is None for lane in app.report()["search_view"]["race"])
    mouse.key("enter")
    for _ in range(30):
        app.step()
    assert race.race.tick > 0
    mouse.key("t")  # T closes the race as it closes the view
    assert not race.opened
    assert app.report()["search_view"]["race"] is None
    assert app.hud.visible


def test_the_generator_menu_waits_for_the_race_to_close(default_scene):
    app, mouse = default_scene
    mouse.key("w")
    mouse.key("o")
    assert not app.generator_menu.opened


def test_race_flag_opens_the_race_at_a_tick(tmp_path):
    report, shot = tmp_path / "r.json", tmp_path / "s.png"
    argv = [*BASE, "--race", "astar:manhattan,jps,dijkstra", "--search-step", "5"]
    assert main([*argv, "--report", str(report), "--screenshot", str(shot)]) == 0
    data = json.loads(report.read_text())
    assert validate_report(data) == []
    lanes = data["search_view"]["race"]
    assert [(lane["search"], lane["label"]) for lane in lanes] == [
        ("astar", "A* manhattan"),
        ("jps", "JPS"),
        ("dijkstra", "Dijkstra"),
    ]
    assert [lane["expanded"] for lane in lanes] == [5, 5, 5]
    assert shot.stat().st_size > 0


def test_race_flag_at_the_end_reports_the_finish_order(tmp_path):
    report = tmp_path / "r.json"
    assert main([*BASE, "--race", "dijkstra,astar", "--report", str(report)]) == 0
    data = json.loads(report.read_text())
    dijkstra, astar = data["search_view"]["race"]
    assert (astar["place"], dijkstra["place"]) == (1, 2)
    assert astar["expanded"] < dijkstra["expanded"]
    assert astar["cost"] == pytest.approx(data["path"]["cost"], rel=1e-6)
    assert dijkstra["cost"] == pytest.approx(astar["cost"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--race", "astar"], "a race takes 2 to 4 searches, got 1"),
        (["--race", "astar,jps,bfs,dfs,theta"], "a race takes 2 to 4 searches, got 5"),
        (["--race", "astar,nope"], "unknown search 'nope'"),
        (["--race", "astar,jps", "--search", "jps"], "not both"),
        (["--race", "astar,jps", "--search-step", "soon"], "expected a step >= 0 or 'end'"),
        ([str(SCENES_DIR / "terrain.toml"), "--race", "astar,jps"], "--race: JPS cannot search"),
    ],
    ids=["one", "five", "name", "with-search", "word-step", "refused"],
)
def test_bad_races_are_one_line_and_exit_2(capsys, extra, message):
    assert main([*BASE, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_the_race_follows_the_grid_s_diagonal_rule(default_scene):
    app, mouse = default_scene
    mouse.key("w")
    race = app.race.view
    restarts = race.restarts
    assert race.rule.value == "no-corner-cutting"
    mouse.key("j")  # the next rule: one-obstacle
    app.step()
    assert race.rule.value == "one-obstacle"
    assert race.restarts == restarts + 1
    jps = race.standings()[1]
    assert "no-corner-cutting rule only" in jps.refusal
    assert "8-connected (one-obstacle)" in app.race.panel.panel_text
