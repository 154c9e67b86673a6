"""Two windows save one scene at once: each moved another object, and the file keeps both.

Each app runs in its own Xvfb display, so a drag in one cannot land in the other. End is
dragged in one and Start in the other; then Ctrl+S is typed into both at the same moment (two
xdotool processes started together, the Ctrl keys already down). Both must say "saved", and the
file must hold both moves: the second save merges onto what the first wrote.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from contextlib import ExitStack
from functools import partial
from pathlib import Path

import pytest

from sim.scene.file import load_scene
from tests.helpers.paths import DEFAULT_SCENE, artifact
from tests.helpers.window import RunningApp, drag, needs_x, screenshot, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(240)]


def object_of(report: dict, name: str) -> dict:
    return next(obj for obj in report["objects"] if obj["name"] == name)


def found_a_path(app: RunningApp) -> bool:
    return bool(app.report()["path"]["found"])


def said_save(app: RunningApp) -> bool:
    """Whether the HUD says "saved ..." or "save failed: ..."."""
    return "save" in app.report()["hud"]


def move(app: RunningApp, name: str) -> list[float]:
    """Drag `name` a third of the way along the path; return where it stands then."""
    before = app.report()
    home = object_of(before, name)["pos"]
    path = before["path"]["screen"]
    drag(app, object_of(before, name)["screen"], path[len(path) // 3])
    wait_until(lambda: object_of(app.report(), name)["pos"] != home, 20)
    return object_of(app.wait_for_next_report(), name)["pos"]


def test_two_windows_saving_one_scene_at_once_keep_both_edits(tmp_path: Path) -> None:
    scene = tmp_path / "scene.toml"
    shutil.copyfile(DEFAULT_SCENE, scene)
    with ExitStack() as stack:
        apps = []
        for name in ("one", "two"):
            display = stack.enter_context(xvfb())
            (tmp_path / name).mkdir()
            app = RunningApp(display, scene, tmp_path / name)
            stack.callback(app.stop)
            apps.append(app)
        for app in apps:
            app.wait_for_window(timeout_s=60)
            wait_until(partial(found_a_path, app), 30)
        end = move(apps[0], "end")
        start = move(apps[1], "start")
        # Ctrl+S as a hand types it, Ctrl down first (see test_undo_window.press), in both at
        # once: each chord is one xdotool process, which carries Ctrl's state to the S press.
        typing = [
            subprocess.Popen(
                [
                    *("xdotool", "keydown", "--window", app.window, "ctrl", "sleep", "0.15"),
                    *("key", "--window", app.window, "s", "sleep", "0.15"),
                    *("keyup", "--window", app.window, "ctrl"),
                ],
                env=app.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for app in apps
        ]
        assert [process.wait(timeout=30) for process in typing] == [0, 0]
        for app in apps:
            wait_until(partial(said_save, app), 20, app._why)
        huds = [app.report()["hud"] for app in apps]
        screenshot(apps[0].display, artifact("two-windows-saved-one.png"))
        screenshot(apps[1].display, artifact("two-windows-saved-two.png"))
        assert all("save failed" not in hud for hud in huds), huds
        assert all(app.process.poll() is None for app in apps)
    saved = {obj.name: obj.pos for obj in load_scene(scene).objects}
    assert math.dist(saved["end"], end) < 1e-3
    assert math.dist(saved["start"], start) < 1e-3
