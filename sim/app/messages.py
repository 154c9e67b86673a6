"""The HUD's message line and the short history the report keeps of it.

The HUD shows one message at a time, for `MESSAGE_S` of simulated time. A notice that comes
meanwhile (the look dropping its shadows on a slow machine) takes the line at once, so whoever
reads the run (a test, a script watching the report) reads the history instead: the last
`MESSAGE_HISTORY` messages, oldest first, none replaced before it could be read.
"""

from __future__ import annotations

from collections import deque

MESSAGE_S = 4.0  # how long an edit or save message stays on the HUD
MESSAGE_HISTORY = 8


class Messages:
    """The message on the HUD now, and the ones before it.

    >>> messages = Messages()
    >>> messages.add("undo: move end", now_s=1.0)
    >>> messages.add("look: plain at 12 fps", now_s=1.5)
    >>> messages.showing(now_s=2.0), messages.history()
    ('look: plain at 12 fps', ['undo: move end', 'look: plain at 12 fps'])
    >>> messages.showing(now_s=9.0) is None
    True
    """

    def __init__(self) -> None:
        self._showing: tuple[str, float] | None = None
        self._history: deque[str] = deque(maxlen=MESSAGE_HISTORY)

    def add(self, message: str, *, now_s: float) -> None:
        """Show `message` from simulated time `now_s` on, and keep it in the history."""
        self._showing = (message, now_s + MESSAGE_S)
        self._history.append(message)

    def showing(self, *, now_s: float) -> str | None:
        """The message the HUD shows at `now_s`, if one has not expired."""
        if self._showing is None or now_s > self._showing[1]:
            return None
        return self._showing[0]

    def history(self) -> list[str]:
        """The last messages, oldest first (the report's `messages`)."""
        return list(self._history)
