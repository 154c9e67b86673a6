"""The generator menu in a real window: keys from xdotool, the grid read back from the report."""

from __future__ import annotations

import pytest

from sim.config import Tag
from sim.navigation.maps.generators import generate_layout
from tests.helpers.paths import artifact
from tests.helpers.window import needs_x, screenshot, wait_until

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(180)]

ROWS = COLUMNS = 20  # scenes/default.toml's grid


def press(app, *keys: str) -> None:
    """Type `keys` into the window one by one, as a hand would."""
    args = ["key", "--window", app.window, "--delay", "150"]
    app.xdotool(*args, *keys, timeout_s=30)


def blocked(app) -> int:
    return app.wait_for_next_report()["grid"]["blocked_cells"]


def test_the_menu_generates_a_maze_and_esc_closes_it_first(window_app):
    before = blocked(window_app)
    press(window_app, "o", "Down", "Escape")
    assert blocked(window_app) == before
    assert window_app.process.poll() is None, "Esc closed the menu, not the app"

    press(window_app, "o")
    screenshot(window_app.display, artifact("generator-menu-open.png"))
    press(window_app, "Up", "Return")  # the menu kept rooms picked; one up is maze
    maze = generate_layout("maze", ROWS, COLUMNS, seed=0, room=8)
    expected = int((~maze).sum())
    wait_until(lambda: blocked(window_app) == expected, 20, lambda: f"{blocked(window_app)}")
    report = window_app.wait_for_next_report()
    assert report["path"]["found"]
    obstacles = [obj for obj in report["objects"] if obj["tag"] == Tag.OBSTACLE]
    assert obstacles
    assert all(obj["name"].startswith("obstacle-") for obj in obstacles)
    screenshot(window_app.display, artifact("generator-maze.png"))

    press(window_app, "Escape")  # the menu is closed: Esc quits again
    assert window_app.wait_exit() == 0
