"""Closing the window quits as Esc does, with the window still open for the screenshot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from panda3d.core import GraphicsWindow

if TYPE_CHECKING:
    from direct.showbase.ShowBase import ShowBase

CLOSE_REQUEST_EVENT = "window-close-request"


def quit_on_close_request(base: ShowBase) -> None:
    """Route the window's close button to `base.userExit`, as Esc is routed.

    Without a close request event Panda3D closes the window itself before the loop ends, so
    there would be no last frame to save.
    """
    window = base.win
    if isinstance(window, GraphicsWindow):
        window.set_close_request_event(CLOSE_REQUEST_EVENT)
        base.accept(CLOSE_REQUEST_EVENT, base.userExit)
