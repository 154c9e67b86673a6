"""The HUD: a status block in the top-left corner and a key-help line along the bottom."""

from __future__ import annotations

from collections.abc import Callable

from direct.gui.OnscreenText import OnscreenText
from panda3d.core import NodePath, TextNode

from sim.engine import Component, Every

REFRESH_S = 0.25  # rewriting text every frame costs more than it tells anybody
TEXT_SCALE = 0.04  # DejaVu Sans runs wider than Panda3D's built-in font
HELP_SCALE = 0.04
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
        self._help = _text(bottom_left, pos=(MARGIN_X, 0.13), scale=HELP_SCALE)
        self._help.text = help_text
        # The corner sits at the window's left edge, as far left of the centre as the edge
        # on the right: a help line wider than that room is scaled down to fit, not cut off.
        room = 2 * abs(bottom_left.get_x()) - 2 * MARGIN_X
        width = self._help.textNode.get_width() * HELP_SCALE
        if room > 0 and width > room:
            fitted = HELP_SCALE * room / width
            self._help.scale = (fitted, fitted)
        self._refresh = Every(REFRESH_S, fire_at_start=True)
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

    def update(self, dt: float) -> None:
        """Refresh the status text a few times a second."""
        if self._refresh.tick(dt):
            self._status.text = self.text()

    def on_destroy(self) -> None:
        """Remove the text nodes from the 2-D scene."""
        self._status.destroy()
        self._help.destroy()


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
