"""Input at event time: where the pointer was when a button went down or came up, and modifiers.

Panda3D reads the window's input once a frame. At 10 fps a person (or xdotool) can release the
button and move on inside one frame; the MouseWatcher then reports only where the pointer is at
the end of the frame, and ShowBase's `is_button_down` only what is held then. Two things keep what
happened inside the frame:

- **Modifiers**: the button thrower, given `MODIFIER_BUTTONS`, names each event with the
  modifiers held at that event ("control-s", "shift-mouse1"), so a Ctrl+S pressed and released
  within one frame still arrives as "control-s". `event_name` spells those names.
- **Positions**: with pointer events on, the window logs every pointer position it hears of, in
  order, in the MouseWatcher's trail (`PointerEventList`). Their times are all the frame's time
  (checked, 1.10.16), so they cannot be matched to button events by time; but Panda3D's X11
  window records the pointer once with every mouse button event, twice with a key press (the
  keystroke, then the key) and once with a key release, and X sends a motion only when the
  pointer moved. `PointerTrail` hears every button event of the frame in order (its own button
  thrower, traversed before ShowBase's) and walks the trail alongside: an entry that moved the
  pointer is a motion, one that did not belongs to the next button event. A mouse button's entry
  is where the pointer was when it went down or came up.

Where the trail has no entry for an event (no window, a VirtualMouse, a count that does not
match), the position is the pointer's at the end of the frame, as before.
"""

from __future__ import annotations

from collections import defaultdict, deque
from itertools import combinations
from typing import TYPE_CHECKING, Final

from direct.task.Task import Task
from panda3d.core import (
    ButtonRegistry,
    ButtonThrower,
    GraphicsOutput,
    GraphicsWindow,
    ModifierButtons,
    MouseWatcher,
    NodePath,
)

from sim.engine.loop import FrameLoop, Phase

if TYPE_CHECKING:
    from sim.engine.events import EventSource

MODIFIER_BUTTONS: Final = ("shift", "control")
"""The modifiers event names carry, in the order Panda3D writes them: "shift-control-z"."""
GENERIC_MODIFIERS: Final = frozenset({"shift", "control", "alt", "meta"})
"""Buttons Panda3D adds beside the key itself (lshift comes with shift): no pointer entry."""
TRAIL_LOG_S: Final = 1.0  # the watcher keeps this much trail; it is read and cleared each frame

Point = tuple[float, float]


def event_name(key: str, modifier: str | None = None) -> str:
    """Panda3D's event name for `key` pressed with `modifier` held ("control+shift" or one).

    >>> event_name("z", "control+shift")
    'shift-control-z'
    >>> event_name("mouse1")
    'mouse1'
    """
    held = set() if modifier is None else set(modifier.split("+"))
    unknown = held - set(MODIFIER_BUTTONS)
    if unknown:
        raise ValueError(f"unknown modifier {'+'.join(sorted(unknown))!r} of {key!r}.")
    return "".join(f"{name}-" for name in MODIFIER_BUTTONS if name in held) + key


def with_any_modifiers(event: str) -> list[str]:
    """`event` with every combination of modifiers held: a release must be heard whatever is.

    >>> with_any_modifiers("mouse1-up")
    ['mouse1-up', 'shift-mouse1-up', 'control-mouse1-up', 'shift-control-mouse1-up']
    """
    held = [
        combo
        for size in range(len(MODIFIER_BUTTONS) + 1)
        for combo in combinations(MODIFIER_BUTTONS, size)
    ]
    return ["".join(f"{name}-" for name in combo) + event for combo in held]


def modifier_buttons() -> ModifierButtons:
    """A ModifierButtons of `MODIFIER_BUTTONS`, for a button thrower to name events with."""
    buttons = ModifierButtons()
    registry = ButtonRegistry.ptr()
    for name in MODIFIER_BUTTONS:
        buttons.add_button(registry.find_button(name))
    return buttons


def is_mouse_button(name: str) -> bool:
    """Whether `name` is a mouse button or wheel (one pointer entry per event on X11)."""
    return name.startswith(("mouse", "wheel_"))


def trail_entries(name: str, *, down: bool) -> int:
    """How many pointer entries Panda3D's X11 window logs with button `name` going down or up."""
    if name in GENERIC_MODIFIERS:
        return 0
    if is_mouse_button(name):
        return 1
    return 2 if down else 1  # a press is a keystroke and a key, each with the pointer


Entry = tuple[bool, int, int]
"""A trail entry: whether the pointer is in the window, and its pixel (x right, y down)."""


class TrailWalk:
    """One frame's pointer trail, walked alongside the frame's button events, in order.

    Args:
        entries: The frame's trail entries, oldest first.
        at: Where the pointer was before them (the previous frame's last entry), if known.

    >>> trail = [(True, 50, 50), (True, 100, 100), (True, 100, 100), (True, 200, 200)]
    >>> walk = TrailWalk(trail, at=(True, 50, 50))
    >>> walk.event(trail_entries("mouse1", down=True))  # pressed where it stood
    (True, 50, 50)
    >>> walk.event(trail_entries("mouse1", down=False))  # moved, released, moved on
    (True, 100, 100)
    """

    def __init__(self, entries: list[Entry], *, at: Entry | None = None) -> None:
        self._entries = entries
        self._cursor = 0
        self._at = at
        self.end = entries[-1] if entries else at
        """Where the pointer is after the whole trail: the next frame's `at`."""

    def event(self, count: int) -> Entry | None:
        """The next event, with `count` entries of its own: where the pointer was at it.

        Entries that moved the pointer before each of its own are motions, passed over. None
        when the event has no entry (a modifier) or the trail ran out (a count that does not
        match: the caller falls back to the pointer now).
        """
        entries = self._entries
        for _ in range(count):
            while self._cursor < len(entries) and entries[self._cursor] != self._at:
                self._at = entries[self._cursor]
                self._cursor += 1
            if self._cursor >= len(entries):
                return None
            self._cursor += 1
        return self._at if count else None


class PointerTrail:
    """Where the pointer was at each mouse button event of the frame (see the module).

    Args:
        watcher: The MouseWatcher whose pointer the app reads; its trail log is switched on.
        events: Where the thrower's events arrive (ShowBase's messenger).
        loop: The frame loop; the trail is read in `Phase.INPUT`, before the events are handled.
        window: The window whose input feeds `watcher`; None (a VirtualMouse, no window): no
            trail, every position is the pointer's now.
    """

    TASK_NAME = "pointer-trail"

    def __init__(
        self,
        watcher: MouseWatcher,
        *,
        events: EventSource,
        loop: FrameLoop,
        window: GraphicsOutput | None = None,
    ) -> None:
        self._watcher = watcher
        self._window = window if isinstance(window, GraphicsWindow) else None
        self._loop = loop
        self._walk = TrailWalk([])
        self._heard: defaultdict[str, deque[Point | None]] = defaultdict(deque)
        if self._window is not None and watcher.get_num_parents() > 0:
            self._window.enable_pointer_events(0)
            watcher.set_trail_log_duration(TRAIL_LOG_S)
            prefix = f"pointer-trail-{id(self)}"
            thrower = ButtonThrower(prefix)
            thrower.set_specific_flag(False)
            thrower.set_button_down_event(f"{prefix}-down")
            thrower.set_button_up_event(f"{prefix}-up")
            # First among the watcher's siblings, so its events come before ShowBase's.
            source = NodePath(watcher.get_parent(0))
            source.attach_new_node(thrower, -1)
            events.accept(f"{prefix}-down", self._on_button, [True])
            events.accept(f"{prefix}-up", self._on_button, [False])
        loop.add_task(Phase.INPUT, self._read_trail, self.TASK_NAME)

    def position(self, event: str) -> Point | None:
        """Where the pointer was at mouse `event` ("mouse1", "mouse1-up") of this frame.

        The pointer now when the trail holds no entry for it; None when the window does not
        have the pointer (outside it, or outside the watcher's display region).
        """
        up = event.endswith("-up")
        button = (event[: -len("-up")] if up else event).rsplit("-", 1)[-1]
        heard = self._heard.get(f"{button}-up" if up else button)
        if heard:
            return heard.popleft()
        return self.now()

    def now(self) -> Point | None:
        """The pointer at the end of the frame, or None when the window does not have it."""
        if not self._watcher.has_mouse():
            return None
        return (self._watcher.get_mouse_x(), self._watcher.get_mouse_y())

    def over_region(self) -> bool:
        """Whether the pointer is over one of the watcher's regions (a panel, a button)."""
        return self._watcher.get_over_region() is not None

    def is_down(self, button: str) -> bool:
        """Whether `button` ("control", "shift", "mouse1") is held at the end of the frame."""
        handle = ButtonRegistry.ptr().find_button(button)
        return bool(self._watcher.is_button_down(handle))

    def _read_trail(self, task: Task) -> int:
        self._heard.clear()
        log = self._watcher.get_trail_log()
        entries = [
            (bool(log.get_in_window(i)), log.get_xpos(i), log.get_ypos(i))
            for i in range(log.get_num_events())
        ]
        self._walk = TrailWalk(entries, at=self._walk.end)
        if entries:
            self._watcher.clear_trail_log()
        return int(task.cont)

    def _on_button(self, down: bool, name: str) -> None:
        at = self._walk.event(trail_entries(name, down=down))
        if is_mouse_button(name):
            self._heard[name if down else f"{name}-up"].append(
                self.now() if at is None else self._normalised(at)
            )

    def _normalised(self, entry: Entry) -> Point | None:
        """A trail entry in the watcher's coordinates (-1..1, +y up), as `get_mouse` gives."""
        in_window, x_px, y_px = entry
        window = self._window
        if not in_window or window is None:
            return None
        width, height = window.get_x_size(), window.get_y_size()
        if width <= 0 or height <= 0:
            return None
        x, y = x_px / width, 1.0 - y_px / height
        left, right, bottom, top = 0.0, 1.0, 0.0, 1.0
        if self._watcher.has_display_region():
            region = self._watcher.get_display_region()
            left, right, bottom, top = region.get_dimensions()
        if not (left <= x <= right and bottom <= y <= top) or right <= left or top <= bottom:
            return None
        return (2.0 * (x - left) / (right - left) - 1.0, 2.0 * (y - bottom) / (top - bottom) - 1.0)
