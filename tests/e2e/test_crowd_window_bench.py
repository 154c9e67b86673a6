"""The crowd's window bench: a real 800 x 600 window under Xvfb, frames counted both ways.

`sim.bench.crowd_window.window_frames` runs the child process `sim bench --crowd` runs for its
``render fps`` column; its answer splits a frame into drawing and the world's steps.
"""

from __future__ import annotations

import math

import pytest

from sim.bench import crowd_window
from tests.helpers.window import needs_x, xvfb

pytestmark = needs_x


def test_the_window_bench_counts_whole_and_paused_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    with xvfb() as display:
        monkeypatch.setenv("DISPLAY", display)
        frames = crowd_window.window_frames(50, seconds=0.5)
    assert frames is not None, "the child opened no window"
    assert frames.fps > 0.0
    assert frames.paused_fps > 0.0
    assert frames.steps_per_frame > 0.0, "the world stepped while frames were counted"
    assert 0.0 < frames.draw_ms < math.inf
    assert 0.0 <= frames.step_ms < math.inf


def test_the_window_bench_splits_a_frame_by_phase(monkeypatch: pytest.MonkeyPatch) -> None:
    with xvfb() as display:
        monkeypatch.setenv("DISPLAY", display)
        frames = crowd_window.window_frames(50, seconds=0.5)
    assert frames is not None, "the child opened no window"
    whole = dict(zip(crowd_window.PHASES, frames.phases_ms, strict=True))
    drawing = dict(zip(crowd_window.DRAW_PHASES, frames.draw_phases_ms, strict=True))
    assert whole["world"] > 0.0, "whole frames step the world"
    assert min(whole["gizmos"], whole["render"]) > 0.0, whole
    assert min(drawing[name] for name in ("gizmos", "render", "swap")) > 0.0, drawing
    # The phases are parts of a frame: together no longer than the frame itself.
    assert sum(frames.phases_ms) <= 1.05 * 1000.0 / frames.fps
