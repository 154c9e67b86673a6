"""The docked layout's geometry: the docks, the status bar and the viewport tile the window."""

from __future__ import annotations

import pytest

from sim.ui.dock import Rect
from sim.ui.layout import MIN_VIEWPORT_PX, dock_frame

SIZES = [(800, 600), (1024, 768), (1280, 720), (1920, 1080), (640, 480), (400, 300)]


def _pixels(rect: Rect) -> set[tuple[int, int]]:
    return {(x, y) for x in range(rect.left, rect.right) for y in range(rect.top, rect.bottom)}


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_parts_tile_the_window_without_overlapping(size):
    frame = dock_frame(size, toolbar_px=30)
    parts = [frame.viewport, frame.left, frame.right, frame.status, frame.toolbar]
    area = sum(part.width * part.height for part in parts)
    assert area == size[0] * size[1], "the parts leave a gap or overlap"
    covered: set[tuple[int, int]] = set()
    for part in parts:
        # Every tenth pixel is enough to catch an overlap and keeps the test fast.
        sampled = {(x, y) for x, y in _pixels(part) if x % 10 == 0 and y % 10 == 0}
        assert not covered & sampled, f"{part} overlaps another part"
        covered |= sampled


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_viewport_keeps_its_room_as_the_docks_give_way(size):
    frame = dock_frame(size)
    assert frame.viewport.width >= min(MIN_VIEWPORT_PX, size[0])
    assert frame.left.width > 0
    assert frame.right.width > 0


def test_docks_keep_their_width_in_wide_windows_and_narrow_in_small_ones():
    wide, small = dock_frame((1920, 1080)), dock_frame((800, 600))
    assert wide.right.width > small.right.width
    assert wide.viewport.width / 1920 > small.viewport.width / 800


def test_without_panels_the_viewport_is_the_whole_window():
    frame = dock_frame((800, 600), panels=False, toolbar_px=30)
    assert frame.viewport == Rect(0, 0, 800, 600)
    assert frame.left.width == frame.right.width == frame.status.height == 0


def test_a_toolbar_takes_a_strip_off_the_viewport_top():
    plain, with_bar = dock_frame((1280, 720)), dock_frame((1280, 720), toolbar_px=30)
    assert with_bar.toolbar == Rect(plain.viewport.left, 0, plain.viewport.width, 30)
    assert with_bar.viewport.top == 30
    assert with_bar.viewport.height == plain.viewport.height - 30
