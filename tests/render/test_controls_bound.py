"""The running app binds every key and button of the controls table, and no other."""

from __future__ import annotations

import pytest
from panda3d.core import ButtonHandle, ButtonRegistry

from sim.app.controls import CONTROLS, Binder
from sim.engine.pointer import event_name
from tests.helpers.paths import DEFAULT_SCENE
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render


def test_the_app_binds_exactly_the_tables_buttons(open_app):
    app = open_app(DEFAULT_SCENE, size=(320, 240))
    Mouse(app)  # binds the mouse as a window's pointer would
    accepted = set(app.base.messenger.getAllAccepting(app.base))
    # A MAPF plan's timeline keys are bound only while one plays (tests/render/test_mapf_playback);
    # ? is the help overlay's own listener's, Shift and / (tests/render/test_help_overlay).
    rows = [c for c in CONTROLS if c.bound_by not in (Binder.PLAYBACK, Binder.HELP)]
    # Events carry the modifiers held with them: Ctrl+S is "control-s".
    named = {event_name(c.key, c.modifier) for c in rows}
    wanted = named | {f"{event_name(c.key, c.modifier)}-repeat" for c in rows if c.repeats}
    assert wanted <= accepted

    def button(event: str) -> str:
        plain = event.removesuffix("-up").removesuffix("-repeat")
        return plain.removeprefix("shift-").removeprefix("control-")

    buttons = {
        event
        for event in accepted
        if ButtonRegistry.ptr().find_button(button(event)) != ButtonHandle.none()
    }
    # Releases end the drags their presses started, whatever is held.
    assert {button(event) for event in buttons} == {c.key for c in rows}
