"""The docked layout in a real window: resized, its panels hidden, drops still land on the cell."""

from __future__ import annotations

import math

import pytest

from sim.ui.layout import dock_frame
from tests.helpers.paths import DEFAULT_SCENE, artifact
from tests.helpers.window import RunningApp, drag, needs_x, screenshot, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(240)]


def entry(report, name):
    return next(obj for obj in report["objects"] if obj["name"] == name)


def cell_of(report, name):
    grid, (x, y) = report["grid"], entry(report, name)["pos"][:2]
    size = grid["cell_size"]
    return [math.floor((y - grid["origin"][1]) / size), math.floor((x - grid["origin"][0]) / size)]


def drop_end_on_the_path(running: RunningApp, at: float) -> None:
    """Drag End onto the path cell a fraction `at` along it; wait until End lies in that cell.

    The agent goes back to Start first (R): one that has reached End stands in front of it,
    and the press would pick the agent.
    """
    running.xdotool("key", "r")
    report = running.wait_for_next_report()
    path = report["path"]
    index = round((len(path["cells"]) - 1) * at)
    target = path["cells"][index]
    drag(running, entry(report, "end")["screen"], path["screen"][index])

    def landed() -> bool:
        return cell_of(running.report(), "end") == target

    wait_until(landed, 20, lambda: f"End in {cell_of(running.report(), 'end')}, not {target}")


def test_a_resized_window_keeps_the_viewport_and_drops_land_on_their_cell(tmp_path):
    with xvfb("1400x900x24") as display:
        running = RunningApp(display, DEFAULT_SCENE, tmp_path, "--size", "1280x720")
        try:
            window = running.wait_for_window()
            wait_until(lambda: running.report()["path"]["found"], 20)
            drop_end_on_the_path(running, 0.7)
            running.xdotool("windowsize", window, "800", "600")
            wait_until(lambda: running.report()["window"]["size"] == [800, 600], 20)
            report = running.wait_for_next_report()
            viewport = dock_frame((800, 600)).viewport
            assert viewport.contains(*entry(report, "end")["screen"]), "End is not in the viewport"
            assert all(viewport.contains(*pixel) for pixel in report["path"]["screen"])
            screenshot(display, artifact("layout-resized-800x600.png"))
            # Not beside the tall wall: End dropped behind it would be hidden from the camera.
            drop_end_on_the_path(running, 0.3)
            # H: the viewport takes the whole window, and a drop still lands on its cell.
            before = entry(running.wait_for_next_report(), "end")["screen"]
            running.xdotool("key", "h")
            wait_until(lambda: entry(running.report(), "end")["screen"] != before, 20)
            drop_end_on_the_path(running, 0.5)
            screenshot(display, artifact("layout-panels-hidden.png"))
        finally:
            running.stop()
