"""The search view in a real window: keys and button clicks from xdotool, pixels from X."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from panda3d.core import Filename, PNMImage, Texture

from sim.search_view.view import CLOSED_COLOR, OPEN_COLOR
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.harness import drag, needs_x, screenshot, wait_until
from tests.pixels import near

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(180)]


def search(app) -> dict:
    return app.report()["search_view"]


def click(app, button: str, times: int = 1) -> None:
    """Click a toolbar button where the app says it is, as a hand would."""
    x, y = search(app)["buttons"][button]
    args = ["mousemove", "--window", app.window, str(x), str(y), "sleep", "0.15"]
    for _ in range(times):
        args += ["click", "1", "sleep", "0.12"]
    app.xdotool(*args, timeout_s=30)


def colours(app, name: str) -> dict[str, int]:
    """Count the search view's colours in a screenshot of the whole X screen."""
    path = ARTIFACTS / name
    screenshot(app.display, path)
    image = read_png(path)
    return {
        "open": int(near(image, rgb(OPEN_COLOR), 8).sum()),
        "closed": int(near(image, rgb(CLOSED_COLOR), 8).sum()),
    }


def read_png(path: Path) -> np.ndarray:
    picture = PNMImage()
    assert picture.read(Filename.from_os_specific(str(path))), f"cannot read {path}"
    texture = Texture()
    texture.load(picture)
    flat = np.frombuffer(bytes(texture.get_ram_image_as("RGB")), np.uint8)
    return flat.reshape(texture.get_y_size(), texture.get_x_size(), 3)[::-1]


def rgb(color) -> tuple[int, int, int]:
    return tuple(round(channel * 255) for channel in color[:3])


def entry(report, name):
    return next(obj for obj in report["objects"] if obj["name"] == name)


def test_step_back_reset_and_drag_in_a_real_window(app):
    before = colours(app, "search-window-before.png")
    app.xdotool("key", "--window", app.window, "t")
    wait_until(lambda: search(app)["open"] and search(app)["step"] == 0, 20, lambda: "no view")

    click(app, "step", times=6)
    wait_until(lambda: search(app)["step"] == 6, 20, lambda: f"step {search(app)['step']}")
    stepped = colours(app, "search-window-step-6.png")
    assert stepped["open"] > before["open"] + 300, (before, stepped)
    assert stepped["closed"] > before["closed"] + 300, (before, stepped)

    click(app, "back", times=2)
    wait_until(lambda: search(app)["step"] == 4, 20, lambda: f"step {search(app)['step']}")
    assert search(app)["expanded_cells"] == 4

    click(app, "reset")
    wait_until(lambda: search(app)["step"] == 0, 20, lambda: f"step {search(app)['step']}")
    reset = colours(app, "search-window-reset.png")
    assert reset["open"] <= before["open"] + 30, (before, reset)
    assert reset["closed"] <= before["closed"] + 30, (before, reset)

    # Dropping End on the planner's path restarts the view on the new goal.
    report = app.report()
    restarts, goal = search(app)["restarts"], search(app)["goal"]
    target = report["path"]["screen"][len(report["path"]["cells"]) // 3]
    drag(app, entry(report, "end")["screen"], target)

    def end_cell(report) -> list[int]:
        end, grid = entry(report, "end")["pos"], report["grid"]
        size, origin = grid["cell_size"], grid["origin"]
        return [math.floor((end[1] - origin[1]) / size), math.floor((end[0] - origin[0]) / size)]

    def restarted_on_the_dropped_end() -> bool:
        report = app.report()  # one report, so End and the view are from the same moment
        view = report["search_view"]
        return view["restarts"] > restarts and view["goal"] == end_cell(report) != goal

    wait_until(restarted_on_the_dropped_end, 20, lambda: str(search(app)))
    dropped = end_cell(app.report())
    app.xdotool("key", "--window", app.window, "End")
    wait_until(lambda: search(app)["at_end"], 20, lambda: str(search(app)))
    assert search(app)["path"][-1] == dropped
    colours(app, "search-window-after-drag.png")
    app.xdotool("key", "--window", app.window, "Escape")
    assert app.wait_exit() == 0
