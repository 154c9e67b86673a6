"""The inspector in a real window: xdotool clicks an obstacle, E turns it, Ctrl+S, reload."""

from __future__ import annotations

import pytest

from sim.scene.file import load_scene
from tests.e2e.test_undo_window import press
from tests.helpers.paths import DEFAULT_SCENE, artifact
from tests.helpers.window import RunningApp, needs_x, screenshot, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(180)]

WALL = "long_wall"


def wall_of(report) -> dict:
    return next(obj for obj in report["objects"] if obj["name"] == WALL)


def test_select_an_obstacle_rotate_it_with_e_save_and_reload_it_rotated(tmp_path):
    saved = tmp_path / "saved.toml"
    with xvfb() as display:
        app = RunningApp(display, DEFAULT_SCENE, tmp_path, "--save-as", str(saved))
        try:
            app.wait_for_window()
            wait_until(lambda: app.report()["path"]["found"], 20)
            before = app.report()
            heading = wall_of(before)["heading"]
            x, y = wall_of(before)["screen"]
            window = app.window
            app.xdotool(
                *("mousemove", "--window", window, str(x), str(y), "sleep", "0.2"),
                *("click", "1", "sleep", "0.2"),
            )
            wait_until(lambda: app.report()["editor"]["selected"] == WALL, 20)
            press(app, "e")
            wait_until(lambda: abs(wall_of(app.report())["heading"] - heading - 15) < 1e-3, 20)
            report = app.wait_for_next_report()
            assert report["editor"]["undo_depth"] == 1
            screenshot(display, artifact("inspector-rotated.png"))
            press(app, "ctrl+s")
            wait_until(saved.exists, 20)
            assert app.process.poll() is None
        finally:
            app.stop()
    [wall] = [obj for obj in load_scene(saved).objects if obj.name == WALL]
    assert wall.heading == pytest.approx(heading + 15.0)
    assert wall.pos == pytest.approx(tuple(wall_of(before)["pos"]))
