"""The one exception type that means "the user gave us bad input"."""

from __future__ import annotations


class SimError(Exception):
    """Bad input from the user: printed by the CLI as one line `sim: <message>`, exit status 2.

    The message already names what is wrong (file, key, value); no traceback is shown.
    """


class Interrupted(KeyboardInterrupt):
    """The user's own Ctrl+C or SIGTERM, as the command's signal handlers raise it.

    A scene script that raises KeyboardInterrupt itself is switched off like any failing
    script; only this one ends the run (`sim.scripting.runner`).
    """
