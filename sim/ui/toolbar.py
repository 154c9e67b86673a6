"""The toolbar: play / pause, step one frame, reset, the simulation speed and the time.

Buttons are DirectGUI buttons, so the window's mouse watcher gives them the clicks over them and
keeps those clicks from the scene behind. What each button does is handed in; `show` tells the
bar what to display (the caller reads `TimeControls` once a frame).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from direct.gui import DirectGuiGlobals
from direct.gui.DirectButton import DirectButton
from direct.gui.DirectFrame import DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import NodePath, TextNode

BAR_COLOR: Final = (0.08, 0.1, 0.14, 0.92)
BUTTON_COLOR: Final = (0.2, 0.24, 0.32, 1.0)
TEXT_COLOR: Final = (0.92, 0.94, 0.97, 1.0)
TEXT_SCALE: Final = 0.042
GAP: Final = 0.012
"""Space between buttons and around them, in the parent's units."""
BUTTONS: Final = (
    ("play_pause", "Pause", 0.16),
    ("step", "Step", 0.13),
    ("reset", "Reset", 0.14),
    ("slower", "-", 0.06),
    ("faster", "+", 0.06),
)
"""Each button's name, its first label and its width in the parent's units, left to right."""


def time_text(time_s: float, speed: float, *, paused: bool) -> str:
    """The bar's clock: simulated time, the speed, and whether it stands still.

    >>> time_text(12.345, 0.25, paused=True)
    't 12.35 s   speed 0.25x   paused'
    >>> time_text(3.0, 1.0, paused=False)
    't 3.00 s   speed 1x'
    """
    text = f"t {time_s:.2f} s   speed {speed:g}x"
    return f"{text}   paused" if paused else text


class Toolbar:
    """A bar of buttons and the clock, anchored at its top-left corner on `parent`.

    Args:
        parent: The node the bar hangs under (a dock, or the window's top edge).
        size: Width and height in `parent`'s units; the bar spans x 0..width, y -height..0.
        actions: What each button of `BUTTONS` does, by name: all of them, no others.

    Raises:
        ValueError: If `actions` does not name exactly the buttons of `BUTTONS`.
    """

    def __init__(
        self,
        parent: NodePath,
        size: tuple[float, float],
        actions: Mapping[str, Callable[[], None]],
    ) -> None:
        names = {name for name, _label, _width in BUTTONS}
        if set(actions) != names:
            raise ValueError(f"toolbar actions must be {sorted(names)}, got {sorted(actions)}.")
        width, height = size
        self._frame = DirectFrame(
            parent=parent,
            frameSize=(0.0, width, -height, 0.0),
            frameColor=BAR_COLOR,
            state=DirectGuiGlobals.NORMAL,  # clicks between the buttons stay off the scene too
        )
        self._actions = actions
        self.buttons: dict[str, DirectButton] = {}
        x = GAP
        text_z = -height / 2 - TEXT_SCALE * 0.35
        for name, label, button_width in BUTTONS:
            self.buttons[name] = DirectButton(
                parent=self._frame,
                text=label,
                text_scale=TEXT_SCALE,
                text_fg=TEXT_COLOR,
                text_pos=(button_width / 2, text_z),
                frameSize=(0.0, button_width, -height + GAP, -GAP),
                frameColor=BUTTON_COLOR,
                relief=DirectGuiGlobals.FLAT,
                pressEffect=True,
                command=self.press,
                extraArgs=[name],
            )
            self.buttons[name].set_x(x)
            x += button_width + GAP
        self._clock = OnscreenText(
            parent=self._frame,
            pos=(x + GAP, text_z),
            scale=TEXT_SCALE,
            fg=TEXT_COLOR,
            align=TextNode.A_left,
            mayChange=True,
        )
        self._shown: tuple[float, float, bool] | None = None

    @property
    def node(self) -> NodePath:
        """The bar's own node, for hiding it or reading its place."""
        return self._frame

    @property
    def clock_text(self) -> str:
        """The clock as drawn now."""
        return str(self._clock.text)

    def label(self, name: str) -> str:
        """The label button `name` shows now."""
        return str(self.buttons[name]["text"])

    def press(self, name: str) -> None:
        """Do what button `name` does, as a click on it does."""
        self._actions[name]()

    def show(self, time_s: float, speed: float, *, paused: bool) -> None:
        """Show the clock and the play / pause button's label for this state."""
        # Rounded as drawn: the text is rebuilt only when what it says changes.
        state = (round(time_s, 2), speed, paused)
        if state == self._shown:
            return
        self._shown = state
        self._clock.text = time_text(time_s, speed, paused=paused)
        label = "Play" if paused else "Pause"
        if self.label("play_pause") != label:
            self.buttons["play_pause"]["text"] = label

    def destroy(self) -> None:
        """Remove the bar."""
        self._frame.destroy()
