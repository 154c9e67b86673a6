"""The steps `--record-search` films: every k-th, the last one too, never over 300 frames.

Checked against the definition (the smallest stride k that keeps the film within 300 frames),
not against the function's own arithmetic, for searches short and long.
"""

from __future__ import annotations

import pytest

from sim.app.search_control import MAX_GIF_FRAMES, gif_steps


def frames_at(total: int, stride: int) -> int:
    """Frames of a film of `total` steps at `stride`: 0, k, 2k, ... below total, then total."""
    return len(range(0, total, stride)) + 1


@pytest.mark.parametrize("total", [1, 2, 298, 299, 300, 301, 598, 599, 1000, 12_345, 262_144])
def test_every_kth_step_then_the_last_within_the_frame_limit(total: int) -> None:
    steps = gif_steps(total)
    stride = steps[1]
    assert steps[:-1] == list(range(0, total, stride))
    assert steps[-1] == total
    assert len(steps) == frames_at(total, stride) <= MAX_GIF_FRAMES
    # The smallest stride: one less would need more frames than allowed.
    assert stride == 1 or frames_at(total, stride - 1) > MAX_GIF_FRAMES


def test_a_short_search_films_every_step() -> None:
    assert gif_steps(0) == [0]
    assert gif_steps(5) == [0, 1, 2, 3, 4, 5]
    assert len(gif_steps(MAX_GIF_FRAMES - 1)) == MAX_GIF_FRAMES
    assert len(gif_steps(MAX_GIF_FRAMES)) < MAX_GIF_FRAMES  # stride 2 from here
