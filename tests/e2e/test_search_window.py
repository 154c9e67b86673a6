"""The search view in a real window: keys and button clicks from xdotool, pixels from X."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from panda3d.core import Filename, PNMImage, Texture

from sim.search_view.view import CLOSED_COLOR, OPEN_COLOR
from sim.ui.layout import dock_frame
from tests.helpers.paths import artifact
from tests.helpers.pixels import near, rgb
from tests.helpers.window import drag, needs_x, screenshot, wait_until

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


def viewport_of(app, image: np.ndarray) -> np.ndarray:
    """The part of a screenshot of the whole X screen that shows the app's 3D view.

    The legends' swatches, in the left dock, are the very colours counted: they stay out.
    """
    geometry = app.xdotool("getwindowgeometry", app.window)
    position = next(line for line in geometry.splitlines() if "Position:" in line)
    left, top = (int(n) for n in position.split()[1].split(","))
    view = dock_frame(tuple(app.report()["window"]["size"])).viewport
    return image[top + view.top : top + view.bottom, left + view.left : left + view.right]


def colours(app, name: str) -> dict[str, int]:
    """Count the search view's colours in the 3D view, from a screenshot of the X screen."""
    path = artifact(name)
    screenshot(app.display, path)
    image = viewport_of(app, read_png(path))
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


def entry(report, name):
    return next(obj for obj in report["objects"] if obj["name"] == name)


def test_step_back_reset_and_drag_in_a_real_window(window_app):
    before = colours(window_app, "search-window-before.png")
    window_app.xdotool("key", "--window", window_app.window, "t")
    wait_until(
        lambda: search(window_app)["open"] and search(window_app)["step"] == 0,
        20,
        lambda: "no view",
    )

    click(window_app, "step", times=6)
    wait_until(
        lambda: search(window_app)["step"] == 6, 20, lambda: f"step {search(window_app)['step']}"
    )
    stepped = colours(window_app, "search-window-step-6.png")
    # Six cells expanded: in the docked 3D view of an 800x600 window a cell shows some 20 pixels.
    assert stepped["open"] > before["open"] + 300, (before, stepped)
    assert stepped["closed"] > before["closed"] + 60, (before, stepped)

    click(window_app, "back", times=2)
    wait_until(
        lambda: search(window_app)["step"] == 4, 20, lambda: f"step {search(window_app)['step']}"
    )
    assert search(window_app)["expanded_cells"] == 4

    click(window_app, "reset")
    wait_until(
        lambda: search(window_app)["step"] == 0, 20, lambda: f"step {search(window_app)['step']}"
    )
    reset = colours(window_app, "search-window-reset.png")
    assert reset["open"] <= before["open"] + 30, (before, reset)
    assert reset["closed"] <= before["closed"] + 30, (before, reset)

    # Dropping End on the planner's path restarts the view on the new goal.
    report = window_app.report()
    restarts, goal = search(window_app)["restarts"], search(window_app)["goal"]
    target = report["path"]["screen"][len(report["path"]["cells"]) // 3]
    drag(window_app, entry(report, "end")["screen"], target)

    def end_cell(report) -> list[int]:
        end, grid = entry(report, "end")["pos"], report["grid"]
        size, origin = grid["cell_size"], grid["origin"]
        return [math.floor((end[1] - origin[1]) / size), math.floor((end[0] - origin[0]) / size)]

    def restarted_on_the_dropped_end() -> bool:
        report = window_app.report()  # one report, so End and the view are from the same moment
        view = report["search_view"]
        return view["restarts"] > restarts and view["goal"] == end_cell(report) != goal

    wait_until(restarted_on_the_dropped_end, 20, lambda: str(search(window_app)))
    dropped = end_cell(window_app.report())
    window_app.xdotool("key", "--window", window_app.window, "End")
    wait_until(lambda: search(window_app)["at_end"], 20, lambda: str(search(window_app)))
    assert search(window_app)["path"][-1] == dropped
    colours(window_app, "search-window-after-drag.png")
    window_app.xdotool("key", "--window", window_app.window, "Escape")
    assert window_app.wait_exit() == 0
