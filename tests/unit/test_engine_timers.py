"""Every: drift-free firing schedule, catch-up, trigger and reset."""

from __future__ import annotations

import doctest

import pytest

from sim.engine import Every, timers

DT_60 = 1 / 60


def fire_frames(timer: Every, frames: int, dt: float = DT_60) -> list[int]:
    return [frame for frame in range(1, frames + 1) if timer.tick(dt)]


def test_one_second_at_60_fps_fires_on_every_60th_frame_without_drift() -> None:
    # 1000 frames = 16.67 s: fires at t = 1 .. 16 s, i.e. frames 60, 120, ..., 960.
    assert fire_frames(Every(1.0), 1000) == [60 * k for k in range(1, 17)]


def test_fire_at_start_fires_on_the_first_tick_then_keeps_the_schedule() -> None:
    assert fire_frames(Every(1.0, fire_at_start=True), 200) == [1, 60, 120, 180]


def test_tick_spanning_several_intervals_fires_once_and_keeps_phase() -> None:
    timer = Every(1.0)
    assert timer.tick(2.5) is True
    assert timer.remaining_s == pytest.approx(0.5)
    assert timer.tick(0.25) is False
    assert timer.tick(0.25) is True


def test_trigger_fires_next_tick_and_restarts_the_schedule() -> None:
    timer = Every(1.0)
    assert fire_frames(timer, 30) == []
    timer.trigger()
    assert timer.remaining_s == 0.0
    # Frame 1 of this run fires; the next firing is 1 s of ticks after it, at frame 61.
    assert fire_frames(timer, 130) == [1, 61, 121]


def test_reset_restarts_from_zero() -> None:
    timer = Every(1.0)
    fire_frames(timer, 45)
    timer.reset()
    assert timer.remaining_s == 1.0
    assert fire_frames(timer, 60) == [60]


def test_zero_dt_never_fires_a_plain_timer() -> None:
    assert fire_frames(Every(0.5), 100, dt=0.0) == []


@pytest.mark.parametrize(
    "interval_s", [0.0, -1.0, float("nan"), float("inf")], ids=["zero", "negative", "nan", "inf"]
)
def test_interval_must_be_positive_and_finite(interval_s: float) -> None:
    with pytest.raises(ValueError, match=r"interval_s must be a finite number > 0, got"):
        Every(interval_s)


def test_negative_dt_is_rejected() -> None:
    timer = Every(1.0)
    with pytest.raises(ValueError, match="dt must be"):
        timer.tick(-0.1)


def test_docstring_examples_run() -> None:
    result = doctest.testmod(timers)
    assert (result.attempted, result.failed) == (2, 0)
