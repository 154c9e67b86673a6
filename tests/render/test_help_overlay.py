"""The help overlay offscreen: F1 or ? opens it, F1, ? or Esc closes it (Esc does not quit), it
lists the keys of the mode the app is in, and its text stands on a dark card."""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import KeyboardButton

from sim.ui.help_overlay import CARD_COLOR, TEXT_SCALE
from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.pixels import screenshot_rgb
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

SHIFT = KeyboardButton.shift()


def test_f1_opens_the_help_and_esc_closes_it_without_quitting(default_scene):
    app, mouse = default_scene
    mouse.key("f1")
    assert app.help_overlay.opened
    text = app.help_overlay.text()
    for entry in ("Ctrl+S save", "G grid", "F1/? help", "right-drag orbit"):
        assert entry in text
    assert "plan play" not in text, "the MAPF timeline keys show only while a plan plays"
    assert "allow scripts" not in text, "the default scene has no scripts waiting"
    mouse.key("escape")
    assert not app.help_overlay.opened
    assert not app.base.quit_requested
    mouse.key("f1")
    mouse.key("f1")
    assert not app.help_overlay.opened


def test_question_mark_is_shift_and_slash(default_scene):
    app, mouse = default_scene
    mouse.key("/")
    assert not app.help_overlay.opened, "a plain / is the MAPF timeline's key"
    mouse.key("/", holding=SHIFT)
    assert app.help_overlay.opened
    mouse.key("/", holding=SHIFT)
    assert not app.help_overlay.opened


def test_the_search_view_s_keys_come_first_while_it_is_open(default_scene):
    app, mouse = default_scene
    mouse.key("t")
    mouse.key("f1")
    text = app.help_overlay.text()
    assert "Search view" in text
    assert text.index("Home reset") < text.index("Ctrl+S save")


def test_scripts_waiting_add_their_key(open_app):
    app = open_app(SCENES_DIR / "scripted.toml", trust_scripts=False)
    mouse = Mouse(app)
    app.step()
    mouse.key("f1")
    assert "A allow scripts" in app.help_overlay.text()


def test_the_help_stands_on_a_dark_card_inside_the_window(default_scene):
    app, mouse = default_scene
    mouse.key("f1")
    app.step()
    image = screenshot_rgb(app.base.win)
    app.save_screenshot(artifact("help-overlay.png"))
    height, width = image.shape[:2]
    middle = image[height // 3 : 2 * height // 3, width // 4 : 3 * width // 4].astype(int)
    card = np.array(CARD_COLOR[:3]) * 255
    dark = (np.abs(middle - card).max(axis=2) < 30).mean()
    bright = (middle.min(axis=2) > 200).mean()
    assert dark > 0.5, "the card does not cover the middle of the window"
    assert bright > 0.01, "no text on the card"
    low, high = app.help_overlay.root.get_tight_bounds(app.base.aspect2d)
    assert -app.base.a2dRight <= low.x
    assert high.x <= app.base.a2dRight
    assert low.z >= -1.0
    assert high.z <= 1.0
    assert app.help_overlay.scale <= TEXT_SCALE
