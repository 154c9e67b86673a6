"""A save that fails leaves the app running and says why on the HUD."""

from __future__ import annotations

import shutil

import pytest

import sim.editor.editor
from sim.scene.writer import SceneSaveError
from tests.helpers.paths import DEFAULT_SCENE

pytestmark = pytest.mark.render


def test_failed_save_keeps_the_app_running_and_shows_why(open_app, monkeypatch, tmp_path):
    scene = tmp_path / "default.toml"
    shutil.copy(DEFAULT_SCENE, scene)
    before = scene.read_bytes()

    def refuse(*args, **kwargs):
        raise SceneSaveError(f"{scene}: No space left on device")

    monkeypatch.setattr(sim.editor.editor, "save_scene", refuse)
    app = open_app(scene, size=(160, 120))
    app.step()
    assert app.editor.save() is None
    for _ in range(30):
        app.step()
    assert f"save failed: {scene}: No space left on device" in app.hud.text()
    assert not app.base.quit_requested
    assert scene.read_bytes() == before
