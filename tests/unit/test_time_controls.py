"""Play, pause, step and speed on a bare FrameLoop (no window): what the toolbar and keys drive."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from direct.task.Task import TaskManager
from panda3d.core import AsyncTaskManager, ClockObject, NodePath

from sim.engine import FrameLoop, World
from sim.ui.time_controls import DEFAULT_STEP_S, SPEEDS, TimeControls
from sim.ui.toolbar import time_text


@pytest.fixture
def loop_parts() -> Iterator[tuple[TaskManager, FrameLoop]]:
    manager = TaskManager()
    manager.mgr = AsyncTaskManager("time-controls-tests")
    clock = ClockObject(ClockObject.M_non_real_time)
    clock.set_frame_rate(30)  # two fixed steps of 1/60 s a frame
    manager.setClock(clock)
    manager.setupTaskChain("default", tickClock=True)
    loop = FrameLoop(World(NodePath("root")), clock, fixed_dt=1 / 60)
    loop.attach(manager)
    yield manager, loop
    loop.detach()
    manager.destroy()


def test_a_step_is_one_fixed_step_however_slow_the_frames(loop_parts):
    manager, loop = loop_parts
    time = TimeControls(loop)
    manager.step()
    assert loop.world.time_s == pytest.approx(2 / 60)
    time.step()
    manager.step()
    assert loop.paused
    assert loop.world.time_s == pytest.approx(3 / 60)
    manager.step()
    assert loop.world.time_s == pytest.approx(3 / 60), "paused after the step"
    time.step()
    time.step()
    manager.step()
    assert loop.world.time_s == pytest.approx(5 / 60), "two steps asked, two run"


def test_pausing_drops_steps_not_yet_run(loop_parts):
    manager, loop = loop_parts
    time = TimeControls(loop)
    time.step()
    time.toggle_pause()
    manager.step()
    assert loop.world.time_s == pytest.approx(2 / 60), "a frame's worth, no extra step"


def test_without_a_fixed_step_a_step_is_a_sixtieth():
    manager = TaskManager()
    manager.mgr = AsyncTaskManager("time-controls-variable")
    loop = FrameLoop(World(NodePath("root")), ClockObject(ClockObject.M_non_real_time))
    loop.attach(manager)
    try:
        assert TimeControls(loop).step_s == DEFAULT_STEP_S
    finally:
        loop.detach()
        manager.destroy()


def test_the_speed_walks_the_list_and_stops_at_its_ends(loop_parts):
    _manager, loop = loop_parts
    time = TimeControls(loop)
    for expected in (*SPEEDS[3:], SPEEDS[-1]):
        time.faster()
        assert time.speed == expected
    for _ in SPEEDS:
        time.slower()
    assert time.speed == SPEEDS[0]
    loop.time_scale = 3.0  # set elsewhere: the nearest speed of the list moves on
    time.slower()
    assert time.speed == 1.0, "from 2x, the nearer of 2x and 4x (the first on a tie)"


def test_the_clock_text():
    assert time_text(0.0, 4.0, paused=False) == "t 0.00 s   speed 4x"
