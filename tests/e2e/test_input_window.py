"""Input at event time in a real window rendering 5 frames a second (plain XTEST xdotool).

At 5 fps a frame lasts 200 ms; each xdotool command below sends its events back to back, in well
under a millisecond, so they land in one frame. The app must still drop the cube where the button
came up (not where the pointer went on to) and save on a Ctrl+S whose keys are up again before
the frame runs.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest

from sim.engine.loop import WINDOW_STEP_S
from tests.helpers.paths import DEFAULT_SCENE, artifact
from tests.helpers.window import RunningApp, needs_x, screenshot, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(240)]

SLOW_FPS = "5"


def entry(report, name):
    return next(obj for obj in report["objects"] if obj["name"] == name)


def world_of_cell(report, cell) -> tuple[float, float]:
    grid = report["grid"]
    size = grid["cell_size"]
    return (grid["origin"][0] + (cell[1] + 0.5) * size, grid["origin"][1] + (cell[0] + 0.5) * size)


class SlowApp:
    """`sim run` at 5 fps in a window, driven with plain XTEST events in screen pixels."""

    def __init__(self, app: RunningApp) -> None:
        self.app = app
        self.app.wait_for_window()
        geometry = dict(
            line.split("=", 1)
            for line in app.xdotool("getwindowgeometry", "--shell", app.window).split()
        )
        self.origin = (int(geometry["X"]), int(geometry["Y"]))
        app.xdotool("windowfocus", "--sync", app.window)

    def at(self, pixel) -> list[str]:
        """An xdotool `mousemove` to window `pixel`, in screen coordinates (plain XTEST)."""
        return ["mousemove", str(self.origin[0] + pixel[0]), str(self.origin[1] + pixel[1])]

    def wait_frames(self, frames: int = 3) -> None:
        """Let the app run `frames` frames (the report counts them)."""
        seen = self.app.report()["frames"]
        wait_until(lambda: self.app.report()["frames"] >= seen + frames, 30, self.app._why)


@pytest.fixture
def slow(tmp_path: Path):
    shot = artifact("input-window-slow.png")
    with xvfb() as display:
        running = RunningApp(
            display,
            DEFAULT_SCENE,
            tmp_path,
            *("--max-fps", SLOW_FPS, "--save-as", str(tmp_path / "saved.toml")),
            *("--trace", str(tmp_path / "trace.jsonl"), "--screenshot", str(shot)),
        )
        try:
            app = SlowApp(running)
            wait_until(lambda: running.report()["path"]["found"], 30)
            yield app, tmp_path
        finally:
            running.stop()


def test_a_drop_lands_where_the_button_came_up_not_where_the_hand_went_on(slow):
    app, _ = slow
    before = app.app.report()
    path = before["path"]
    third = len(path["cells"]) // 3
    target_cell, target_pixel = path["cells"][third], path["screen"][third]
    away_pixel = path["screen"][0]  # Start's cell, across the map from End
    end_pixel = entry(before, "end")["screen"]
    app.app.xdotool(*app.at(end_pixel), "sleep", "0.5", "mousedown", "1", "sleep", "0.5")
    steps = 6
    for i in range(1, steps + 1):
        x = round(end_pixel[0] + (target_pixel[0] - end_pixel[0]) * i / steps)
        y = round(end_pixel[1] + (target_pixel[1] - end_pixel[1]) * i / steps)
        app.app.xdotool(*app.at((x, y)), "sleep", "0.3")
    held = app.app.wait_for_next_report()
    assert entry(held, "end")["pos"] != entry(before, "end")["pos"], "End follows the pointer"
    assert held["editor"]["undo_depth"] == before["editor"]["undo_depth"], "not dropped yet"
    # One command, no pauses: the release and the move on arrive inside one frame.
    app.app.xdotool(*app.at(target_pixel), "mouseup", "1", *app.at(away_pixel))

    def dropped() -> bool:
        return app.app.report()["editor"]["undo_depth"] == before["editor"]["undo_depth"] + 1

    wait_until(dropped, 30, lambda: str(app.app.report()["editor"]))
    app.wait_frames()
    end = entry(app.app.report(), "end")["pos"]
    target = world_of_cell(before, target_cell)
    screenshot(app.app.display, artifact("input-window-drop.png"))
    assert math.dist(end[:2], target) < 0.9, f"End at {end[:2]}, dropped at {target}"


def test_ctrl_s_pressed_and_released_inside_one_frame_saves(slow):
    app, folder = slow
    saved = folder / "saved.toml"
    app.wait_frames()
    app.app.xdotool("keydown", "ctrl", "keydown", "s", "keyup", "s", "keyup", "ctrl")
    wait_until(saved.exists, 30, lambda: f"no {saved}; {app.app._why()}")
    assert "[[objects]]" in saved.read_text()


def test_the_window_steps_the_world_one_sixtieth_at_a_time(slow):
    app, folder = slow
    app.wait_frames()
    header = json.loads((folder / "trace.jsonl").read_text().splitlines()[0])
    assert header["dt"] == pytest.approx(WINDOW_STEP_S)
    lines = [json.loads(line) for line in (folder / "trace.jsonl").read_text().splitlines()[1:]]
    # At 5 fps each frame runs several whole steps: simulated time advances in 1/60 s steps.
    steps = [(b["t"] - a["t"]) / WINDOW_STEP_S for a, b in itertools.pairwise(lines)]
    assert all(abs(step - round(step)) < 1e-3 for step in steps), steps[:10]


def test_shift_click_adds_an_obstacle_even_if_shift_is_up_before_the_frame(slow):
    app, _ = slow
    before = app.app.report()
    obstacles = sum(obj["tag"] == "Obstacle" for obj in before["objects"])
    free = before["path"]["screen"][len(before["path"]["cells"]) // 2]
    app.app.xdotool(*app.at(free), "sleep", "0.5")
    app.app.xdotool("keydown", "shift", "mousedown", "1", "keyup", "shift", "mouseup", "1")

    def added() -> bool:
        report = app.app.report()
        return sum(obj["tag"] == "Obstacle" for obj in report["objects"]) == obstacles + 1

    wait_until(added, 30, lambda: str(len(app.app.report()["objects"])))
