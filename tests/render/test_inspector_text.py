"""The inspector's words: Tab shows a field's value, a refused value's message goes when it is
stale (Esc, undo, redo), and an agent's replans and searches are told there, not on the HUD."""

from __future__ import annotations

import pytest
from panda3d.core import KeyboardButton

from tests.helpers.inspector import focus, select, type_into
from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

CONTROL = KeyboardButton.control()
WALL = "long_wall"  # 1 x 8 x 1.5 at (1.5, -2)


def refuse_a_scale(app, mouse) -> str:
    """Type a bad scale into the wall's field; return the message it shows."""
    select(app, mouse, WALL)
    focus(app, mouse, "scale")
    type_into(mouse, "0")
    app.step()
    assert app.inspector.panel.error, "the bad value shows no message"
    return app.inspector.panel.error


def test_tab_shows_the_field_s_value_and_typing_replaces_it(default_scene):
    app, mouse = default_scene
    select(app, mouse, WALL)
    focus(app, mouse, "scale")
    assert app.inspector.typed == "1, 8, 1.5"
    app.step()
    assert "> scale    1, 8, 1.5_" in app.inspector.panel.text
    mouse.key("2")
    assert app.inspector.typed == "2", "the first key typed replaces the value shown"
    mouse.key("backspace")
    mouse.key("3")
    assert app.inspector.typed == "3"


def test_enter_on_the_value_shown_changes_nothing(default_scene):
    app, mouse = default_scene
    select(app, mouse, WALL)
    focus(app, mouse, "heading")
    mouse.key("enter")
    assert app.editor.history.undo_depth == 0
    assert app.inspector.error is None


def test_backspace_edits_the_value_shown(default_scene):
    app, mouse = default_scene
    wall = select(app, mouse, WALL)
    focus(app, mouse, "scale")
    mouse.key("backspace")  # "1, 8, 1."
    mouse.key("backspace")  # "1, 8, 1"
    type_into(mouse, "")
    assert tuple(wall.node.get_scale()) == pytest.approx((1.0, 8.0, 1.0))


def test_esc_clears_a_refused_value_s_message(default_scene):
    app, mouse = default_scene
    refuse_a_scale(app, mouse)
    mouse.key("escape")
    app.step()
    assert app.inspector.error is None
    assert app.inspector.panel.error == ""


@pytest.mark.parametrize("chord", ["undo", "redo"])
def test_an_undo_or_redo_clears_a_refused_value_s_message(default_scene, chord):
    app, mouse = default_scene
    select(app, mouse, WALL)
    mouse.key("e")  # an edit to take back
    if chord == "redo":
        mouse.key("z", holding=CONTROL)
    refuse_a_scale(app, mouse)
    mouse.key("escape")  # lets go of the field; the message is gone with it
    refuse_a_scale(app, mouse)
    mouse.key("y" if chord == "redo" else "z", holding=CONTROL)
    app.step()
    assert app.inspector.error is None
    assert app.inspector.panel.error == ""


def test_a_refused_value_s_message_stays_until_something_changes(default_scene):
    app, mouse = default_scene
    message = refuse_a_scale(app, mouse)
    for _ in range(5):
        app.step()
    assert app.inspector.panel.error == message


def test_an_agent_s_replans_are_in_its_inspector_not_on_the_hud(open_app):
    app = open_app(SCENES_DIR / "default.toml", size=(640, 480))
    Mouse(app)
    for _ in range(90):
        app.step()
    agent = app.agents[0]
    assert app.panels.right.hinting, "the right dock says what a click does"
    app.editor.selected = agent.game_object  # as a click on it does
    app.step()
    assert not app.panels.right.hinting, "the hint is gone the frame the inspector shows"
    app.save_screenshot(artifact("inspector-agent.png"))
    details = "\n".join(app.inspector.details())
    assert f"replans {agent.replans} (" in details
    assert "interval" in app.inspector.panel.text
    # The panel wraps them inside the window.
    _, high = app.inspector.panel.bounds(app.base.aspect2d)
    assert high.x <= app.base.a2dRight
    hud = app.hud.text()
    assert "interval" not in hud
    assert "agent: walking to End" in hud or "agent: arrived" in hud
