"""The running app's ties to its process: stdout that may fail, signals, threads left behind.

Light on purpose (no Panda3D): `sim.commands.guards` uses it for every command.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NoReturn

from sim.errors import Interrupted

if TYPE_CHECKING:
    from types import FrameType


def tell(line: str) -> None:
    """Print `line` for whoever watches stdout; a stdout that fails must not stop the scene.

    (`sim.commands.guards` remembers the failure and reports it once the run is over.)
    """
    with contextlib.suppress(OSError):
        print(line, flush=True)


class RunSignals:
    """Ctrl+C and SIGTERM while a scene runs: the first stops the run, a second the process.

    The first only raises a flag, so `SimApp.run` ends at a frame boundary and writes its
    outputs, as Esc does, instead of the process dying mid-frame; inside a scene script's hook,
    which a script in an endless loop never leaves by itself, it also raises
    `sim.errors.Interrupted` there (the runner stops running scripts for the frame). A second
    one, while the first has not ended the run (a script that swallows the interrupt and loops
    on) or while the outputs are being written, writes what it can (unless that is under way)
    and ends the process by that signal.

    Args:
        write_outputs: Writes the run's outputs (the screenshot, the report, the trace).
        in_script: Whether a scene script's hook is running now.
    """

    def __init__(self, write_outputs: Callable[[], None], in_script: Callable[[], bool]) -> None:
        self._write_outputs = write_outputs
        self._in_script = in_script
        self.received: int | None = None
        self._writing = False

    def status(self) -> int | None:
        """The exit status the signal received asks (130 or 143), or None before one came."""
        return None if self.received is None else 128 + self.received

    def write_outputs(self) -> None:
        """Write the outputs, once: at the run's end, or on a second signal if not yet."""
        if self._writing:
            return
        self._writing = True
        self._write_outputs()

    def first(self, number: int, _frame: FrameType | None) -> None:
        """The first signal: remember it, and interrupt a script's hook."""
        if self.received is not None:  # Panda3D's task manager put this handler back
            self.again(number, _frame)
        self.received = number
        for taken in (signal.SIGINT, signal.SIGTERM):
            signal.signal(taken, self.again)
        if self._in_script():
            raise Interrupted

    def again(self, number: int, _frame: FrameType | None) -> None:
        """Asked twice: the user does not want to wait; write what can be written, then go."""
        if not self._writing:
            with contextlib.suppress(BaseException):  # mid-frame, anything may be half-done
                self.write_outputs()
        die_by(number)


def warn(line: str) -> None:
    """Print `line` on stderr; if stderr fails too, there is no one left to tell."""
    with contextlib.suppress(OSError):
        print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def run_signals(
    write_outputs: Callable[[], None], in_script: Callable[[], bool], task_manager: object
) -> Iterator[RunSignals]:
    """Handle Ctrl+C and SIGTERM as `RunSignals` says while inside, then put back the handlers.

    Signals belong to the main thread; elsewhere nothing is installed and no signal is seen.
    A signal the parent ignores (nohup, a background job) stays ignored. Panda3D's
    `task_manager` takes Ctrl+C for itself during each frame (it counts presses and gives in at
    the third); inside, it hands them to `RunSignals` too.
    """
    signals = RunSignals(write_outputs, in_script)
    if threading.current_thread() is not threading.main_thread():
        yield signals
        return
    previous = {}
    for number in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(number) is not signal.SIG_IGN:
            previous[number] = signal.signal(number, signals.first)
    if signal.SIGINT in previous:
        # An instance attribute: `TaskManager.step` installs self.keyboardInterruptHandler.
        setattr(task_manager, "keyboardInterruptHandler", signals.first)  # noqa: B010
    try:
        yield signals
    finally:
        vars(task_manager).pop("keyboardInterruptHandler", None)
        for number, handler in previous.items():
            # None: a handler installed from C, which Python cannot restore; the default is
            # closest.
            signal.signal(number, signal.SIG_DFL if handler is None else handler)


def die_by(number: int) -> NoReturn:
    """End the process by signal `number`, as if it had not been caught, after a last flush."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
    os._exit(128 + number)  # only if the signal is blocked in this thread


def exit_leaving_threads(status: int) -> None:
    """End the process now with `status` when a thread that is no daemon would hold it open.

    The interpreter waits for every such thread at exit, and a scene script may have started
    one that never ends; the command's outputs are written by now, so nothing is lost.
    """
    main = threading.main_thread()
    if any(t is not main and t.is_alive() and not t.daemon for t in threading.enumerate()):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                stream.flush()
        os._exit(status)
