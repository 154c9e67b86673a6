"""The HUD: a status block and the hint ("F1 help") under it, in a strip of the window (a dock)."""

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
TEXT_SCALE = 0.036  # DejaVu Sans runs wider than Panda3D's built-in font
HELP_SCALE = 0.03
MARGIN_X = 0.03  # the strip's units between its edges and the text
TOP_Y = -0.06  # the status block's first baseline below the strip's top
HELP_GAP = 0.04  # between the status block's last line and the help
HELP_COLOR = (0.75, 0.78, 0.83, 1.0)
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
        width: float,
        help_text: str,
        status: Callable[[], list[str]],
    ) -> None:
        """Hang the texts from `top_left`, wrapped to `width` (both in `top_left`'s units)."""
        super().__init__()
        self._status_lines = status
        self._status = _text(top_left, pos=(MARGIN_X, TOP_Y), scale=TEXT_SCALE)
        self._help = _text(top_left, pos=(MARGIN_X, TOP_Y), scale=HELP_SCALE, fg=HELP_COLOR)
        self._help.text = help_text
        self.fit(width)
        self._refreshed_s = 0.0  # real time, as the eye reads it
        self._drawn = 0
        self._visible = True

    def fit(self, width: float) -> None:
        """Wrap the texts to a strip `width` wide (a dock calls this when it is resized)."""
        room = width - 2 * MARGIN_X
        if room > 0:
            self._status.textNode.set_wordwrap(room / TEXT_SCALE)
            self._help.textNode.set_wordwrap(room / HELP_SCALE)
        self._place_help()

    def _place_help(self) -> None:
        """Put the help a gap under the status block's last line, however many lines it has."""
        lines = self._status.textNode.get_num_rows() if self._status.text else 0
        line_height = self._status.textNode.get_line_height() * TEXT_SCALE
        self._help.text_pos = (MARGIN_X, TOP_Y - lines * line_height - HELP_GAP)

    @property
    def height(self) -> float:
        """How far down from its top the HUD reaches now, its parent's units (0 while hidden)."""
        if not self._visible:
            return 0.0
        help_rows = self._help.textNode.get_num_rows() if self._help.text else 0
        help_line = self._help.textNode.get_line_height() * HELP_SCALE
        return -self._help.text_pos[1] + max(help_rows - 1, 0) * help_line + HELP_GAP / 2

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
        """Rewrite the status text now, and move the hint under its last line."""
        self._refreshed_s = time.monotonic()
        node = self._status.textNode
        room = node.get_wordwrap()

        def fits(part: str) -> bool:
            return room <= 0 or node.calc_width(part) <= room

        text = "\n".join(whole_parts(line, fits=fits) for line in self._status_lines())
        if self._status.text != text:
            self._status.text = text
            self._place_help()

    def on_destroy(self) -> None:
        """Remove the text nodes from the 2-D scene."""
        self._status.destroy()
        self._help.destroy()


SEPARATOR = " \u00b7 "  # between the parts of one line ("Path 23.6 long · 8 cells searched")
NO_BREAK = "\u00a0"


def whole_parts(line: str, *, fits: Callable[[str], bool] = lambda _part: True) -> str:
    """`line` as drawn: wrapped only after a `SEPARATOR`, never inside one of its parts.

    Spaces inside each part and before each dot become no-break spaces, so a long status line
    breaks as "... 0.15 ms ·" / "replanned 18 times", not before a lone "times". A part that
    does not `fits` on a line of its own keeps its spaces: it wraps between its words rather
    than inside one ("scene: empty-32-32.ma" / "p" in a narrow dock).

    >>> whole_parts("Path 2 long \u00b7 replanned 3 times") == (
    ...     "Path\u00a02\u00a0long\u00a0\u00b7 replanned\u00a03\u00a0times")
    True
    >>> whole_parts("a \u00b7 long part", fits=lambda part: len(part) < 5)
    'a\u00a0\u00b7 long part'
    >>> whole_parts("no parts here")
    'no parts here'
    """
    if SEPARATOR not in line:
        return line
    parts = [part.replace(" ", NO_BREAK) if fits(part) else part for part in line.split(SEPARATOR)]
    return (NO_BREAK + "\u00b7 ").join(parts)


def _text(
    parent: NodePath,
    *,
    pos: tuple[float, float],
    scale: float,
    fg: tuple[float, float, float, float] = TEXT_COLOR,
) -> OnscreenText:
    return OnscreenText(
        parent=parent,
        pos=pos,
        scale=scale,
        fg=fg,
        shadow=SHADOW_COLOR,
        align=TextNode.A_left,
        mayChange=True,
    )
