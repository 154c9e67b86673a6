"""`sim run --record-search OUT.gif`: written through a temporary file, frame by frame.

A disk that fills up while the film is written leaves an old GIF at OUT.gif whole, and the
film never holds more than two frames, whatever the window's size.
"""

from __future__ import annotations

import errno
import io
import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from sim.commands.cli import main
from sim.search_view.gif import GifStream

pytestmark = pytest.mark.render

BASE = ["run", "--headless", "--frames", "2", "--size", "320x240", "--search", "jps"]


def gif_frames(data: bytes) -> list[tuple[np.ndarray, int]]:
    with Image.open(io.BytesIO(data)) as gif:
        frames = []
        for index in range(getattr(gif, "n_frames", 1)):
            gif.seek(index)
            frames.append((np.asarray(gif.convert("RGB")).copy(), gif.info["duration"]))
        return frames


def test_a_full_disk_leaves_the_old_gif_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    film = tmp_path / "search.gif"
    assert main([*BASE, "--record-search", str(film)]) == 0
    old = film.read_bytes()
    capsys.readouterr()

    def full_disk(_: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full_disk)
    assert main([*BASE, "--search-step", "3", "--record-search", str(film)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line == f"sim: --record-search {film}: not written: No space left on device"
    assert film.read_bytes() == old
    assert [path.name for path in tmp_path.iterdir()] == [film.name]  # no temporary file left


def test_a_film_is_the_frames_given_with_equal_frames_joined() -> None:
    canvas = np.zeros((30, 40, 3), np.uint8)
    frames = []
    for grown in range(5):
        frame = canvas.copy()
        frame[5 : 10 + grown * 3, 2 : 12 + grown * 4] = (200, 40 * grown, 60)
        frames.append(frame)
    frames.insert(3, frames[2])  # shown twice as long, as one frame
    buffer = io.BytesIO()
    film = GifStream(buffer)
    for frame in frames:
        film.add(frame, 60)
    film.close()
    decoded = gif_frames(buffer.getvalue())
    assert [duration for _, duration in decoded] == [60, 60, 120, 60, 60]
    expected = frames[:3] + frames[4:]
    assert all((image == want).all() for (image, _), want in zip(decoded, expected, strict=True))


def test_a_film_holds_two_frames_at_most() -> None:
    size = (512, 512, 3)
    frame_bytes = size[0] * size[1] * size[2]
    film = GifStream(io.BytesIO())
    tracemalloc.start()
    try:
        for step in range(40):
            frame = np.zeros(size, np.uint8)
            frame[: step * 12 + 1, :, 0] = 255  # each frame differs from the one before
            film.add(frame, 60)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * frame_bytes  # 40 frames kept would be ten times that
