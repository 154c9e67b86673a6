"""What guards a whole `sim` command: Ctrl+C, SIGTERM, a stdout that cannot be written, threads.

Ctrl+C ends the command quietly with status 130 and SIGTERM with 143 (a running scene stops at
the end of its frame and writes its outputs first, `sim.app.composition.SimApp.run`); a second
one while it stops ends the process at once. Output that cannot reach stdout (a full disk, a
closed pipe) is one line on stderr and status 1, never a traceback. The sub-commands
(`sim.commands.dispatch`) are imported inside these guards.

The process itself, once interrupted, ends by the signal it got, so the status a shell shows
is 128 + the signal's number, as above: that is how a shell knows to stop the loop or script
that ran the command (https://www.cons.org/cracauer/sigint.html). CPython does the same after a
KeyboardInterrupt it takes for unhandled, and it takes one raised inside `exec` (a dataclass
being built) for unhandled even once our guard has handled it: one way for every moment.

The interrupt the handlers raise is `sim.errors.Interrupted`, so a scene script that raises
KeyboardInterrupt itself is told apart from the user's. Once the command is done, the process
ends even if a scene script left a thread running (`sim.app.process.exit_leaving_threads`).
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from sim.app.process import die_by, exit_leaving_threads
from sim.errors import Interrupted

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import FrameType

EXIT_OUTPUT_FAILED = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command Ctrl+C stopped
EXIT_TERMINATED = 143  # 128 + SIGTERM
RESEND_S = 0.01  # how soon a signal dropped inside a callback is sent again
_SIGNAL_OF_STATUS = {EXIT_INTERRUPTED: signal.SIGINT, EXIT_TERMINATED: signal.SIGTERM}


def run_guarded(argv: Sequence[str] | None) -> int:
    """Run the `sim` command line inside the guards and return its exit status.

    Args:
        argv: The arguments after `sim`; None reads the process's own, and makes this call the
            owner of the process: once it is done, Ctrl+C and SIGTERM are ignored while the
            interpreter exits (where they could only print a traceback), and a command they
            stopped ends the process by that signal instead of returning. A call with `argv`
            (tests) returns 130 or 143 and puts the previous signal handlers back.
    """
    owner = argv is None
    signals = _Signals()
    stdout = _GuardedStdout(sys.stdout)
    try:
        signals.install()
        _reopen_closed_standard_fds()
        sys.stdout = stdout
        from sim.commands.dispatch import run_command, say

        try:
            status = run_command(argv)
            stdout.flush()
        except OSError as error:
            if error is not stdout.error:
                raise
        if stdout.error is not None:
            say(f"sim: cannot write to standard output: {stdout.failure}")
            status = EXIT_OUTPUT_FAILED
    except KeyboardInterrupt:
        status = signals.status()
    except Exception:
        # An extension module may turn the KeyboardInterrupt into its own error (numpy, when
        # it strikes while numpy imports, raises ImportError): after a signal it is no bug.
        if signals.received is None:
            raise
        status = signals.status()
    finally:
        sys.stdout = stdout.stream
        signals.settle(owner=owner)
    if signals.received is not None:
        status = signals.status()
    if owner and status in _SIGNAL_OF_STATUS:
        die_by(_SIGNAL_OF_STATUS[status])
    if owner:
        exit_leaving_threads(status)
    return status


class _Signals:
    """SIGINT and SIGTERM while a command runs: the first stops it, a second ends the process."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._previous: dict[int, Any] = {}
        self._unraisable = sys.unraisablehook

    def install(self) -> None:
        """Take SIGINT and SIGTERM, unless the parent ignores them (nohup, a background job)."""
        defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
        for number, default in defaults.items():
            if signal.getsignal(number) is default:
                self._previous[number] = signal.signal(number, self._first)
        sys.unraisablehook = self._struck_in_a_callback

    def status(self) -> int:
        """The exit status for the signal received (Ctrl+C's when it came before `install`)."""
        return EXIT_TERMINATED if self.received == signal.SIGTERM else EXIT_INTERRUPTED

    def settle(self, *, owner: bool) -> None:
        """Put the handlers back, or, for the process's own command, ignore both from now on."""
        for number, previous in self._previous.items():
            signal.signal(number, signal.SIG_IGN if owner else previous)
        sys.unraisablehook = self._unraisable

    def _first(self, number: int, _frame: FrameType | None) -> None:
        self.received = number
        for taken in self._previous:
            signal.signal(taken, self._again)
        raise Interrupted

    def _struck_in_a_callback(self, unraisable: Any) -> None:
        """Deliver our KeyboardInterrupt again when it struck where Python cannot raise it.

        A signal that lands while the interpreter runs a callback (an import lock's weakref,
        mid-import) has its KeyboardInterrupt printed as "Exception ignored" and dropped, and
        the command would run on. Sent again a moment later (from a timer thread: sent now, it
        would strike inside this hook), it reaches the command's own code.
        """
        number = self.received
        if not isinstance(unraisable.exc_value, KeyboardInterrupt) or number is None:
            self._unraisable(unraisable)
            return
        for taken in self._previous:
            signal.signal(taken, self._first)
        resend = threading.Timer(RESEND_S, os.kill, (os.getpid(), number))
        resend.daemon = True
        resend.start()

    def _again(self, number: int, _frame: FrameType | None) -> None:
        # Asked twice: the user does not want to wait for the outputs.
        die_by(number)


class _GuardedStdout:
    """`sys.stdout` while a command runs: it fails once, then drops what follows.

    The first write or flush that fails (a full disk, a reader that went away, a closed stdout)
    raises its OSError, kept in `error`, so a command whose output is the point (`sim plan`,
    `sim compare`) stops there; a scene run that only prints notes carries on past it. Later
    output is dropped, and the process's stdout is pointed at the null device, so the
    interpreter's last flush at exit cannot fail again and print "Exception ignored".
    """

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.error: OSError | None = None

    @property
    def failure(self) -> str | None:
        """Why stdout failed, in words, or None while it works."""
        return None if self.error is None else self.error.strerror or str(self.error)

    def write(self, text: str) -> int:
        """Write `text`; raise the first failure, drop everything after it."""
        if self.error is not None:
            return len(text)
        if self.stream is None:
            self._failed(OSError(errno.EBADF, "it is closed"))
        try:
            return self.stream.write(text)
        except OSError as error:
            self._failed(error)

    def flush(self) -> None:
        """Flush; raise the first failure, do nothing after it."""
        if self.error is None and self.stream is not None:
            try:
                self.stream.flush()
            except OSError as error:
                self._failed(error)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

    def _failed(self, error: OSError) -> NoReturn:
        self.error = error
        self._silence()
        raise error

    def _silence(self) -> None:
        if self.stream is None:
            return
        try:
            descriptor = self.stream.fileno()
        except (OSError, ValueError):  # not a file (a test's StringIO)
            return
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, descriptor)
        os.close(null)


def _reopen_closed_standard_fds() -> None:
    """Open the null device on any of fds 0, 1 and 2 the parent closed.

    Otherwise the next file we open (a report's temporary file) would get that number, and
    anything written to stdout or stderr from C (Panda3D's notices) would land in it.
    """
    for descriptor in (0, 1, 2):
        try:
            os.fstat(descriptor)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one
