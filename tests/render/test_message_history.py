"""The report's message history: a notice on the HUD does not hide the edit message before it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from panda3d.core import KeyboardButton

from sim.engine.lighting import LookFallback
from tests.helpers.paths import DEFAULT_SCENE

pytestmark = pytest.mark.render

CONTROL, SHIFT = KeyboardButton.control(), KeyboardButton.shift()


def test_an_edit_message_stays_in_the_report_after_the_look_notice_takes_the_hud(
    default_scene,
):
    app, mouse = default_scene
    end = next(obj for obj in app.objects if obj.name == "end")
    home = app.screen_of(end)
    mouse.drag(home, (home[0] - 60, home[1] + 40))
    mouse.key("z", holding=CONTROL)
    assert "undo: move end" in app.hud.text()
    # A machine too slow for the look (a real fallback, judging every frame slow).
    app.look_fallback = LookFallback(floor_fps=1e9, window_s=0.0, windows=1)
    for _ in range(4):
        app.step()
    messages = app.report()["messages"]
    assert "look: plain" in app.hud.text()
    assert "undo: move end" not in app.hud.text()
    assert messages[-2:][0] == "undo: move end"
    assert messages[-1].startswith("look: plain")


def test_a_scene_name_with_bytes_not_utf8_keeps_the_report_valid_utf8(tmp_path):
    scene = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.toml")
    shutil.copy(DEFAULT_SCENE, scene)
    report = tmp_path / "r.json"
    command = [sys.executable, "-m", "sim", "run", scene, "--headless", "--frames", "2"]
    command += ["--report", str(report), "--size", "160x120"]
    done = subprocess.run(command, capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_bytes().decode("utf-8"))
    assert data["scene"].endswith("caf\\xe9.toml")
    data["scene"].encode("utf-8")  # no lone surrogate: strict UTF-8 readers take it
    json.dumps(data, ensure_ascii=False).encode("utf-8")
