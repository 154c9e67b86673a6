"""The HUD: a status block in the top-left corner and a one-line hint ("F1 help") at the bottom."""

from __future__ import annotations

import time
from collections.abc import Callable

from direct.gui.OnscreenText import OnscreenText
from panda3d.core import NodePath, TextNode

from sim.engine import Component, Gizmos

REFRESH_S = 0.25  # rewriting text every frame costs more than it tells anybody
# The first frames refresh every time: the frame rate is unknown on the first one and known on
# the second, and a film rendered frame after frame (`--record-search`) starts right there.
WARMUP_FRAMES = 30
TEXT_SCALE = 0.04  # DejaVu Sans runs wider than Panda3D's built-in font
HELP_SCALE = 0.04
HELP_Y = 0.04  # the hint's baseline above the window's bottom edge, aspect2d units
MARGIN_X = 0.05  # aspect2d units between the window's left edge and the text
CENTRE_GAP = 0.04  # aspect2d units the status text keeps clear of the window's middle
TEXT_COLOR = (1.0, 1.0, 1.0, 1.0)
SHADOW_COLOR = (0.0, 0.0, 0.0, 0.8)


class Hud(Component):
    """On-screen text: `status()` is asked for its lines a few times a second.

    The status callable is handed in by whoever composes the scene, so the HUD knows nothing
    about paths or agents.
    """

    def __init__(
        self,
        *,
        top_left: NodePath,
        bottom_left: NodePath,
        help_text: str,
        status: Callable[[], list[str]],
    ) -> None:
        super().__init__()
        self._status_lines = status
        self._status = _text(top_left, pos=(MARGIN_X, -0.09), scale=TEXT_SCALE)
        # The window's right half is the panels' (the search view's, the inspector's): long
        # status lines wrap before the middle instead of running under them.
        half = abs(top_left.get_x()) - MARGIN_X - CENTRE_GAP
        if half > 0:
            self._status.textNode.set_wordwrap(half / TEXT_SCALE)
        self._help = _text(bottom_left, pos=(MARGIN_X, HELP_Y), scale=HELP_SCALE)
        self._help.text = help_text
        # The corner sits at the window's left edge, as far left of the centre as the edge
        # on the right: a help line wider than that room is scaled down to fit, not cut off.
        room = 2 * abs(bottom_left.get_x()) - 2 * MARGIN_X
        width = self._help.textNode.get_width() * HELP_SCALE
        if room > 0 and width > room:
            fitted = HELP_SCALE * room / width
            self._help.scale = (fitted, fitted)
        self._refreshed_s = 0.0  # real time, as the eye reads it
        self._drawn = 0
        self._visible = True

    @property
    def visible(self) -> bool:
        """Whether the HUD is shown."""
        return self._visible

    @visible.setter
    def visible(self, shown: bool) -> None:
        self._visible = shown
        for node in (self._status, self._help):
            if shown:
                node.show()
            else:
                node.hide()

    def text(self) -> str:
        """The status block as it reads now."""
        return "\n".join(self._status_lines())

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Refresh the status text a few times a second, also while simulated time is paused.

        Paused frames draw too (a film of the search view is rendered paused): the HUD must
        say what is, not what was when time stopped.
        """
        self._drawn += 1
        if self._drawn <= WARMUP_FRAMES or time.monotonic() - self._refreshed_s >= REFRESH_S:
            self.refresh()

    def refresh(self) -> None:
        """Rewrite the status text now."""
        self._refreshed_s = time.monotonic()
        self._status.text = "\n".join(whole_parts(line) for line in self._status_lines())

    def on_destroy(self) -> None:
        """Remove the text nodes from the 2-D scene."""
        self._status.destroy()
        self._help.destroy()


SEPARATOR = " \u00b7 "  # between the parts of one line ("Path 23.6 long · 8 cells searched")
NO_BREAK = "\u00a0"


def whole_parts(line: str) -> str:
    """`line` as drawn: wrapped only after a `SEPARATOR`, never inside one of its parts.

    Spaces inside each part and before each dot become no-break spaces, so a long status line
    breaks as "... 0.15 ms ·" / "replanned 18 times", not before a lone "times".

    >>> whole_parts("Path 2 long \u00b7 replanned 3 times") == (
    ...     "Path\u00a02\u00a0long\u00a0\u00b7 replanned\u00a03\u00a0times")
    True
    >>> whole_parts("no parts here")
    'no parts here'
    """
    if SEPARATOR not in line:
        return line
    parts = [part.replace(" ", NO_BREAK) for part in line.split(SEPARATOR)]
    return (NO_BREAK + "\u00b7 ").join(parts)


def _text(parent: NodePath, *, pos: tuple[float, float], scale: float) -> OnscreenText:
    return OnscreenText(
        parent=parent,
        pos=pos,
        scale=scale,
        fg=TEXT_COLOR,
        shadow=SHADOW_COLOR,
        align=TextNode.A_left,
        mayChange=True,
    )
