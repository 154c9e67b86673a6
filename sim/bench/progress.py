"""A one-line progress bar with an ETA for long benchmarks, on a terminal only.

On a terminal (stderr is a TTY and ``$CI`` is unset) the line is redrawn in place at most ten
times a second and erased at the end, so the tables printed on stdout stay clean; in a pipe, a
log file or CI it prints nothing at all.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

REDRAW_S = 0.1
BAR_WIDTH = 24


class Progress:
    """Progress over `total` units of work, drawn on `stream` when it is a terminal.

    >>> import io
    >>> progress = Progress(4, "maps", stream=io.StringIO())  # not a terminal: silent
    >>> progress.advance(2, "arena")
    >>> progress.done, progress.enabled
    (2, False)
    """

    def __init__(
        self, total: int, label: str, *, stream: TextIO | None = None, enabled: bool | None = None
    ) -> None:
        self._stream = sys.stderr if stream is None else stream
        if enabled is None:
            enabled = _is_terminal(self._stream) and not os.environ.get("CI")
        self.enabled = enabled
        self.total = max(total, 1)
        self.done = 0
        self._label = label
        self._began = time.perf_counter()
        self._drawn_at = -REDRAW_S
        self._width = 0

    def advance(self, units: int = 1, note: str = "") -> None:
        """Count `units` more done; redraw the line (with `note`) if it is time to."""
        self.done = min(self.done + units, self.total)
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._drawn_at < REDRAW_S and self.done < self.total:
            return
        self._drawn_at = now
        self._draw(self._line(now - self._began, note))

    def close(self) -> None:
        """Erase the line, so what is printed next starts on a clean line."""
        if self.enabled and self._width:
            self._draw("")

    def _line(self, elapsed_s: float, note: str) -> str:
        share = self.done / self.total
        filled = round(share * BAR_WIDTH)
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        eta = "ETA --:--"
        if self.done:
            eta = "ETA " + _clock(elapsed_s / self.done * (self.total - self.done))
        return f"{self._label} [{bar}] {share:4.0%} {eta} {note}".rstrip()

    def _draw(self, line: str) -> None:
        padding = " " * max(self._width - len(line), 0)
        try:
            self._stream.write("\r" + line + padding + ("\r" if not line else ""))
            self._stream.flush()
        except OSError:  # a terminal that went away; the benchmark itself goes on
            self.enabled = False
        self._width = len(line)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _clock(seconds: float) -> str:
    """Minutes and seconds, ``m:ss``.

    >>> _clock(125.4)
    '2:05'
    """
    whole = round(seconds)
    return f"{whole // 60}:{whole % 60:02d}"
