"""An animated GIF written frame by frame, for `sim run --record-search` (`search_control`).

Pillow's own ``save(save_all=True)`` holds every frame until the end; a film of 300 frames of a
large window would take gigabytes. `GifStream` writes the same film with Pillow's frame encoder
(`GifImagePlugin.getheader`, `getdata`, the functions Pillow keeps for writers of their own)
and holds two frames at most.
"""

from __future__ import annotations

from typing import IO

import numpy as np
from numpy.typing import NDArray
from PIL import GifImagePlugin, Image


class GifStream:
    """An animated GIF written frame by frame into an open binary file, looping forever.

    Frames are RGB arrays of one size, each stored with its own 255-colour palette, as Pillow
    stores a film (`Image.save(save_all=True)`): only the box that changed since the frame
    before is written, and a frame equal to the one before adds its time to it. Unlike Pillow's
    `save`, which holds every frame until the end, this holds the last frame and the one waiting
    to be written, so memory does not grow with the film.
    """

    def __init__(self, file: IO[bytes]) -> None:
        self._file = file
        self._frames_written = 0
        self._previous: NDArray[np.uint8] | None = None
        # The frame waiting for its time to be final: (image, offset, duration in ms).
        self._pending: tuple[Image.Image, tuple[int, int], int] | None = None

    def add(self, rgb: NDArray[np.uint8], duration_ms: int) -> None:
        """Add a frame (rows top to bottom, ``[row, col, channel]``) shown for `duration_ms`."""
        previous, self._previous = self._previous, np.ascontiguousarray(rgb)
        if previous is None:
            box = (0, 0, rgb.shape[1], rgb.shape[0])
        else:
            changed = np.any(previous != self._previous, axis=2)
            rows, cols = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
            if rows.size == 0:
                assert self._pending is not None  # the first frame is always pending
                image, offset, shown_ms = self._pending
                self._pending = (image, offset, shown_ms + duration_ms)
                return
            box = (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)
        self._flush()
        left, top, right, bottom = box
        part = Image.fromarray(self._previous[top:bottom, left:right]).quantize(colors=255)
        if previous is None:
            header, _ = GifImagePlugin.getheader(part, info={"loop": 0})
            self._file.write(b"".join(header))
        self._pending = (part, (left, top), duration_ms)

    def close(self) -> None:
        """Write the last frame and the GIF's trailer (the file itself stays open)."""
        self._flush()
        self._file.write(b";")

    def _flush(self) -> None:
        if self._pending is None:
            return
        image, offset, duration_ms = self._pending
        # The first frame uses the header's palette; the others carry their own.
        data = GifImagePlugin.getdata(
            image, offset, duration=duration_ms, include_color_table=self._frames_written > 0
        )
        self._file.write(b"".join(data))
        self._frames_written += 1
        self._pending = None
