"""Input at event time without a window: event names with modifiers, and the trail's walk.

The trails are what Panda3D 1.10.16's X11 window logged for xdotool commands sent inside one
slow frame (tests/e2e/test_input_window.py drives the same in a real window).
"""

from __future__ import annotations

import pytest

from sim.engine.pointer import (
    TrailWalk,
    event_name,
    is_mouse_button,
    trail_entries,
    with_any_modifiers,
)

A, B, C = (True, 50, 50), (True, 100, 100), (True, 200, 200)


def walk(trail, events, at=None):
    """Where the pointer was at each mouse event of `events` ((button, down) pairs)."""
    walker = TrailWalk(trail, at=at)
    found = [(name, down, walker.event(trail_entries(name, down=down))) for name, down in events]
    return [(name, down, at) for name, down, at in found if is_mouse_button(name)]


CASES = {
    # mousedown 1, mousemove B, mouseup 1, mousemove C: the drop is at B, not C.
    "release-then-move-on": (
        [A, B, B, C],
        [("mouse1", True), ("mouse1", False)],
        A,
        [("mouse1", True, A), ("mouse1", False, B)],
    ),
    # keydown shift, mousedown 1, keyup shift, mouseup 1, all at A.
    "shift-click": (
        [A] * 5,
        [
            ("shift", True),
            ("lshift", True),
            ("mouse1", True),
            ("shift", False),
            ("lshift", False),
            ("mouse1", False),
        ],
        A,
        [("mouse1", True, A), ("mouse1", False, A)],
    ),
    # mouseup at A, move to B, press again there, move to C: two drags in one frame.
    "release-move-press": (
        [A, B, B, C],
        [("mouse1", False), ("mouse1", True)],
        A,
        [("mouse1", False, A), ("mouse1", True, B)],
    ),
    # A key typed between: its press logs two entries, its release one.
    "key-between": (
        [A, A, A, A, B, B],
        [("mouse3", True), ("g", True), ("g", False), ("mouse3", False)],
        A,
        [("mouse3", True, A), ("mouse3", False, B)],
    ),
    # The trail lost an entry (a key Panda3D has no button for): the last event gets none.
    "ran-out": (
        [A, B],
        [("mouse1", True), ("mouse1", False)],
        A,
        [("mouse1", True, A), ("mouse1", False, None)],
    ),
}


@pytest.mark.parametrize(("trail", "events", "at", "expected"), CASES.values(), ids=CASES.keys())
def test_each_mouse_event_gets_the_pointer_of_its_moment(trail, events, at, expected):
    assert walk(trail, events, at) == expected


def test_a_walk_starts_where_the_last_frame_left_the_pointer():
    first = TrailWalk([A, B])
    second = TrailWalk([B], at=first.end)
    assert second.event(trail_entries("mouse1", down=True)) == B


def test_modifiers_join_the_event_name_in_pandas_order():
    assert event_name("s", "control") == "control-s"
    assert event_name("z", "control+shift") == "shift-control-z"
    assert event_name("i", "shift") == "shift-i"


def test_an_unknown_modifier_is_refused():
    with pytest.raises(ValueError, match="unknown modifier 'alt' of 'x'"):
        event_name("x", "alt")


def test_a_release_is_heard_whatever_is_held():
    assert set(with_any_modifiers("mouse3-up")) == {
        "mouse3-up",
        "shift-mouse3-up",
        "control-mouse3-up",
        "shift-control-mouse3-up",
    }
