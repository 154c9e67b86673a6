"""The status bar: one line of plain words along the bottom of the window."""

from __future__ import annotations

from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode

from sim.ui.dock import Dock

TEXT_SCALE = 0.036
TEXT_COLOR = (0.92, 0.93, 0.95, 1.0)
MARGIN = 0.03  # aspect2d units from the bar's left end
ELLIPSIS = "..."


class StatusBar:
    """One line of text in `dock`, cut short with "..." where the bar ends.

    Args:
        dock: The status bar's dock (`DockedLayout.status`).
    """

    def __init__(self, dock: Dock) -> None:
        self._dock = dock
        self._full = ""
        self._text = OnscreenText(
            parent=dock.top_left,
            scale=TEXT_SCALE,
            fg=TEXT_COLOR,
            align=TextNode.A_left,
            mayChange=True,
        )
        dock.on_resize(self._fit)

    @property
    def text(self) -> str:
        """The line as drawn now (cut short if the bar is too narrow for all of it)."""
        return str(self._text.text)

    def set_text(self, text: str) -> None:
        """Show `text` (its first line only: the bar is one line tall)."""
        line = text.split("\n", 1)[0]
        if line != self._full:
            self._full = line
            self._fit(self._dock.width, self._dock.height)

    def _fit(self, width: float, height: float) -> None:
        # The baseline sits a third of a text height below the middle, so the line looks centred.
        self._text.text_pos = (MARGIN, -height / 2 - TEXT_SCALE / 3)
        room = (width - 2 * MARGIN) / TEXT_SCALE
        node = self._text.textNode
        shown = self._full
        if room > 0 and node.calc_width(shown) > room:
            while shown and node.calc_width(shown + ELLIPSIS) > room:
                shown = shown[:-1]
            shown = shown.rstrip() + ELLIPSIS
        if self._text.text != shown:
            self._text.text = shown

    def destroy(self) -> None:
        """Remove the text."""
        self._text.destroy()
