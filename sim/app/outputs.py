"""What a run writes (the report, the screenshot) and what failed to be written.

A failure is recorded, never raised: the file stays as it was, the reason is listed once in
the report's `errors` and in `failed_outputs`, for which `sim run` exits 1.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from panda3d.core import PNMImage, StringStream

from sim.files import write_bytes_atomic, write_json_atomic

if TYPE_CHECKING:
    from panda3d.core import GraphicsOutput

    from sim.app.report import Report
    from sim.app.trace import TraceWriter


class RunOutputs:
    """Writes the report and screenshots atomically; keeps the run's errors.

    Attributes:
        errors: The run's errors, as the report lists them (a failed output's, a script's).
        failed_outputs: Each output that failed to be written, with the first reason.
        reports_written: How many times the report was written.
    """

    def __init__(self, *, window: GraphicsOutput, report: Callable[[], Report]) -> None:
        self._window, self._report = window, report
        self.errors: list[str] = []
        self.failed_outputs: dict[Path, str] = {}
        self.reports_written = 0

    def write_report(self, path: Path) -> None:
        """Rewrite the report at `path` atomically; a failed write is recorded, not raised.

        A failure leaves the file as it was, is listed in the report's `errors` (once per
        reason) and in `failed_outputs`; each success counts in `reports_written`.
        """
        try:
            write_json_atomic(path, self._report())
        except OSError as error:
            self.failed(path, error.strerror or str(error), kind="report")
        else:
            self.reports_written += 1

    def save_screenshot(self, path: Path) -> bool:
        """Save the last rendered frame at `path`, in the format its extension names.

        The image is encoded in memory and written atomically (`write_bytes_atomic`), so a
        failure (a full disk, an extension Panda3D cannot write) leaves any file at `path` as it
        was and puts no Panda3D error on the terminal; it is recorded as `write_report` records
        one.

        Returns:
            Whether the image was written.
        """
        image = PNMImage()
        stream = StringStream()
        # Panda3D picks the image format from the name's extension.
        if not (self._window.get_screenshot(image) and image.write(stream, path.name)):
            self.failed(path, f"Panda3D could not make a {path.suffix} image of the frame")
            return False
        try:
            write_bytes_atomic(path, bytes(stream.get_data()))
        except OSError as error:
            self.failed(path, error.strerror or str(error))
            return False
        return True

    def failed(self, path: Path, reason: str, *, kind: str = "screenshot") -> None:
        """Record that the `kind` output at `path` was not written, and why."""
        self.failed_outputs.setdefault(path, reason)
        message = f"{kind} {path}: {reason}"
        if message not in self.errors:
            self.errors.append(message)

    def write_final(
        self, *, screenshot: Path | None, report: Path | None, trace: TraceWriter | None
    ) -> None:
        """At the run's end: the screenshot (of the last frame), the final report, the trace."""
        if screenshot is not None:
            if self._window is not None and self._window.is_valid():
                self.save_screenshot(screenshot)
            else:
                self.failed(screenshot, "the window closed before its last frame was saved")
        if report is not None:
            self.write_report(report)
        if trace is not None:
            trace.close()
