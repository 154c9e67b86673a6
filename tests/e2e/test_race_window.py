"""The race in a real window: keys from xdotool, standings from the report, pixels from X.

(The generator menu's real-window test, driven by xdotool too, is test_generator_window.py.)
"""

from __future__ import annotations

from typing import Any

import pytest

from sim.search_view.race_view import LANE_COLORS
from tests.e2e.test_search_window import read_png
from tests.helpers.paths import artifact
from tests.helpers.pixels import near, rgb
from tests.helpers.window import needs_x, screenshot, wait_until

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(180)]


def press(app, *keys: str) -> None:
    """Type `keys` into the window one by one, as a hand would."""
    app.xdotool("key", "--window", app.window, "--delay", "150", *keys, timeout_s=30)


def race(app) -> Any:  # a list of lanes, or None
    return app.report()["search_view"]["race"]


def lane_pixels(app, name: str) -> list[int]:
    """How many pixels of each lane's colours a screenshot of the whole X screen shows."""
    path = artifact(name)
    screenshot(app.display, path)
    image = read_png(path)
    return [
        sum(int(near(image, rgb(colour), 8).sum()) for colour in colours) for colours in LANE_COLORS
    ]


def test_a_race_runs_to_its_finish_in_a_real_window(window_app):
    press(window_app, "w")
    wait_until(lambda: race(window_app) is not None, 20, lambda: "no race")
    lanes = race(window_app)
    assert [lane["search"] for lane in lanes] == ["astar", "jps", "bidirectional", "dijkstra"]
    assert all(lane["expanded"] == 0 for lane in lanes)

    press(window_app, "Right", "Right", "Right")
    wait_until(
        lambda: [lane["expanded"] for lane in race(window_app)] == [3, 3, 3, 3],
        20,
        lambda: f"{race(window_app)}",
    )
    press(window_app, "Up", "Up", "Return")  # 200 ticks a second, then play
    wait_until(
        lambda: all(lane["finished"] for lane in race(window_app)),
        40,
        lambda: f"{race(window_app)}",
    )
    lanes = race(window_app)
    by_place = sorted(lanes, key=lambda lane: lane["place"])
    assert [lane["search"] for lane in by_place] == ["jps", "astar", "bidirectional", "dijkstra"]
    assert [lane["expanded"] for lane in by_place] == sorted(lane["expanded"] for lane in lanes)
    costs = {round(lane["cost"], 4) for lane in lanes}
    assert len(costs) == 1, "every lane here finds a shortest path"
    seen = lane_pixels(window_app, "race-window-finished.png")
    assert all(count > 200 for count in seen), seen

    press(window_app, "w")  # W closes the race again
    wait_until(lambda: race(window_app) is None, 20, lambda: "the race stayed open")
    assert all(count < 50 for count in lane_pixels(window_app, "race-window-closed.png"))
    press(window_app, "Escape")
    assert window_app.wait_exit() == 0
