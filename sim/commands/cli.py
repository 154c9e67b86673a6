"""The `sim` entry point (`[project.scripts]` and `python -m sim`).

This module imports nothing at its top, so that from `main`'s first line on every moment is
guarded: Ctrl+C ends the command quietly with status 130, whether it comes while the
sub-commands import or while they run (`sim.commands.guards` holds the guards, and SIGTERM's).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing before the guard
if TYPE_CHECKING:
    from collections.abc import Sequence

EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `sim` command line and return its exit status (see `guards.run_guarded`)."""
    try:
        from sim.commands.guards import run_guarded

        return run_guarded(argv)
    except KeyboardInterrupt:  # before the guards were up, or after they came down
        if argv is None:  # the process's own command ends by the signal, as the guards do
            import os
            import signal

            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        return EXIT_INTERRUPTED
