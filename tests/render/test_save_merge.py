"""Ctrl+S in the running app while a text editor changes the scene file too."""

from __future__ import annotations

import math
import shutil

import pytest
from panda3d.core import KeyboardButton, Point3

from sim.scene.file import load_scene
from tests.helpers.paths import DEFAULT_SCENE
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

END_POS = 'name = "end"\ntag = "End"\nmodel = "cube"\npos = [7.5, 7.5, 0.0]'
BARREL_TEXT = """
[[objects]]
name = "barrel"  # added in a text editor while the app ran
tag = "Obstacle"
model = "cube"
pos = [-8.5, 0.5, 0.0]
"""
FREE_SPOT = (7.5, -2.5)  # an open cell of the default scene


@pytest.fixture
def scene(open_app, tmp_path):
    path = tmp_path / "default.toml"
    shutil.copy(DEFAULT_SCENE, path)
    app = open_app(path, size=(800, 600))
    for _ in range(3):
        app.step()
    return app, Mouse(app), path


def edit_on_disk(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


def drag_to(app, mouse, name, spot: tuple[float, float]):
    obj = app.world.find(name)
    pixel = app.screen_of_point(Point3(*spot, 0.4))
    assert pixel is not None
    mouse.drag(app.screen_of(obj), pixel)
    app.step()
    return (obj.node.get_x(), obj.node.get_y())


def test_ctrl_s_keeps_what_another_program_wrote(scene):
    app, mouse, path = scene
    edit_on_disk(path, END_POS, END_POS.replace("[7.5, 7.5, 0.0]", "[3.5, 8.5, 0.0]"))
    path.write_text(path.read_text(encoding="utf-8") + BARREL_TEXT, encoding="utf-8")

    dropped = drag_to(app, mouse, "pillar", FREE_SPOT)
    mouse.key("s", holding=KeyboardButton.control())

    saved = load_scene(path)
    pillar, end, barrel = saved.find("pillar"), saved.find("end"), saved.find("barrel")
    assert pillar is not None
    assert math.dist(pillar.pos[:2], dropped) < 1e-3, "the app's drag is saved"
    assert end is not None
    assert end.pos == (3.5, 8.5, 0.0), "End as the text editor left it"
    assert barrel is not None, "the obstacle added in the text editor stays"
    assert "# added in a text editor while the app ran" in path.read_text(encoding="utf-8")
    assert f"saved {path}" in app.hud.text()


def test_ctrl_s_refuses_when_both_moved_end(scene):
    app, mouse, path = scene
    edit_on_disk(path, END_POS, END_POS.replace("[7.5, 7.5, 0.0]", "[3.5, 8.5, 0.0]"))
    edited = path.read_bytes()

    drag_to(app, mouse, "end", FREE_SPOT)
    assert app.editor.save() is None
    for _ in range(30):
        app.step()

    assert path.read_bytes() == edited
    hud = app.hud.text()
    assert "save failed:" in hud
    assert "'end'" in hud
    assert "--save-as" in hud
    assert not app.base.quit_requested
