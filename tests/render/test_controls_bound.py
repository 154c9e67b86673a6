"""The running app binds every key and button of the controls table, and no other."""

from __future__ import annotations

import pytest
from panda3d.core import ButtonHandle, ButtonRegistry

from sim.app.controls import CONTROLS, Binder
from tests.helpers.paths import DEFAULT_SCENE
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render


def test_the_app_binds_exactly_the_tables_buttons(open_app):
    app = open_app(DEFAULT_SCENE, size=(320, 240))
    Mouse(app)  # binds the mouse as a window's pointer would
    accepted = set(app.base.messenger.getAllAccepting(app.base))
    # A MAPF plan's timeline keys are bound only while one plays (tests/render/test_mapf_playback).
    rows = [c for c in CONTROLS if c.bound_by is not Binder.PLAYBACK]
    wanted = {c.key for c in rows} | {f"{c.key}-repeat" for c in rows if c.repeats}
    assert wanted <= accepted
    buttons = {
        event
        for event in accepted
        if ButtonRegistry.ptr().find_button(event.removesuffix("-up").removesuffix("-repeat"))
        != ButtonHandle.none()
    }
    # Releases end the drags their presses started.
    assert {event.removesuffix("-up") for event in buttons} == wanted
