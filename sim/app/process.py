"""The running app's ties to its process: stdout, SIGTERM, the window's close button."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from panda3d.core import GraphicsWindow

if TYPE_CHECKING:
    from direct.showbase.ShowBase import ShowBase

CLOSE_REQUEST_EVENT = "window-close-request"


def tell(line: str) -> None:
    """Print `line` for whoever watches stdout; a stdout that fails must not stop the scene.

    (`sim.commands.guards` remembers the failure and reports it once the run is over.)
    """
    with contextlib.suppress(OSError):
        print(line, flush=True)


@contextlib.contextmanager
def sigterm_stops_the_loop() -> Iterator[Callable[[], bool]]:
    """While inside, SIGTERM only raises a flag (the yielded function reads it).

    So `SimApp.run` ends at a frame boundary and writes its outputs, as Esc does, instead of the
    process dying mid-frame. Signals belong to the main thread; elsewhere the flag stays down.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    previous = signal.signal(signal.SIGTERM, lambda signum, _frame: received.append(signum))
    try:
        yield lambda: bool(received)
    finally:
        # None: a handler installed from C, which Python cannot restore; the default is closest.
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def quit_on_close_request(base: ShowBase) -> None:
    """Closing the window quits as Esc does, with the window still open for the screenshot.

    Without a close request event Panda3D closes the window itself before the loop ends, so
    there would be no last frame to save.
    """
    window = base.win
    if isinstance(window, GraphicsWindow):
        window.set_close_request_event(CLOSE_REQUEST_EVENT)
        base.accept(CLOSE_REQUEST_EVENT, base.userExit)
