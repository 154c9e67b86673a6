"""FrameLoop: the frame's phases, in one table, and the task that steps the World.

Every per-frame task of the sim names its `Phase` (`loop.add_task(Phase.INPUT, fn, name)`), so
the order of a frame is read here, not gathered from sort numbers spread over the code. Panda3D
runs a frame's tasks by sort, and tasks of one sort in the order they were added:

    -50  Panda3D's input (data graph, button events)
    -10  INPUT   the pointer, read once per frame: camera drags, then cube drags and hovering
      0  WORLD   simulated time: fixed steps of `World.step`, as many as the frame's time holds
                 (variable steps only when asked); stops while paused
      1  UI      frame time: replay controls and on-screen panels, which keep going while
                 simulated time is paused
     49  GIZMOS  `World.draw_gizmos`, then the gizmo flush, also while paused
     50  Panda3D's render

Headless, deterministic runs: put the clock in non-real-time mode at a fixed rate,

    clock.set_mode(ClockObject.M_non_real_time)
    clock.set_frame_rate(60)            # clock.get_dt() == 1 / 60 exactly (checked, 1.10.16)
    loop = FrameLoop(world, clock, fixed_dt=1 / 60)
    loop.attach(task_mgr)
    for _ in range(n):
        task_mgr.step()                 # exactly one world.step(1 / 60) per frame

and every run of the same scenario gives bit-identical results.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import IntEnum
from typing import TYPE_CHECKING

from direct.task.Task import Task, TaskManager
from panda3d.core import ClockObject, PythonTask

if TYPE_CHECKING:
    from sim.engine.gizmos import Gizmos
    from sim.engine.world import World


class Phase(IntEnum):
    """The phases of a frame, in the order they run; each value is its Panda3D task sort."""

    INPUT = -10  # after Panda3D's input (-50), so the pointer read is this frame's
    WORLD = 0  # simulated time; before collisions (30) and render (50)
    UI = 1  # frame time, after the world step, so it shows this frame's world
    GIZMOS = 49  # after every update, right before the render


SIM_TASK = "sim-loop"
"""Task name of the world step (`Phase.WORLD`)."""
GIZMO_TASK = "sim-gizmos"
"""Task name of the gizmo flush (`Phase.GIZMOS`)."""

TaskBody = Callable[[Task], int]
"""A task function: takes Panda3D's task, returns `task.cont` (or `task.done`)."""

WINDOW_STEP_S = 1.0 / 60.0
"""The window's fixed step: the world advances by it whatever the rendered frame rate."""
MAX_STEPS_PER_FRAME = 6
"""The app's cap on fixed steps a frame: 10 rendered fps still keep real time (6 x 1/60 s).

Below 10 fps the world runs slower than the wall clock (at 5 fps, half speed) instead of each
frame taking longer than the last; the time given up is counted in `FrameLoop.dropped_s`.
"""

# Float sums of frame dts (e.g. 3 x 1/180) can land a hair under one fixed step; without this
# slack that step would slip to the next frame.
_SLACK_S = 1e-9


class FrameLoop:
    """Step a World once per frame, by the clock's dt or by fixed steps with a catch-up cap.

    Variable step (`fixed_dt=None`): one `world.step(clock.get_dt() * time_scale)` per frame.
    Fixed step: each frame adds `clock.get_dt() * time_scale` to an accumulator and runs
    `world.step(fixed_dt)` while it holds a whole step, at most `max_steps_per_frame` times;
    time beyond the cap is dropped (counted in `dropped_s`) so one slow frame cannot make the
    next one slower.

    Args:
        world: The world to step.
        clock: Source of frame dt (the app's global clock, or a test's own ClockObject).
        gizmos: If given, flushed every frame after `world.draw_gizmos`, even when paused.
        fixed_dt: Seconds per fixed step (> 0), or None for variable steps.
        max_steps_per_frame: Cap on fixed steps per frame (>= 1).

    Raises:
        ValueError: If `fixed_dt` or `max_steps_per_frame` is out of range.
    """

    def __init__(
        self,
        world: World,
        clock: ClockObject,
        *,
        gizmos: Gizmos | None = None,
        fixed_dt: float | None = None,
        max_steps_per_frame: int = MAX_STEPS_PER_FRAME,
    ) -> None:
        if fixed_dt is not None and not (math.isfinite(fixed_dt) and fixed_dt > 0.0):
            raise ValueError(f"fixed_dt must be a finite number > 0 or None, got {fixed_dt!r}.")
        if max_steps_per_frame < 1:
            raise ValueError(f"max_steps_per_frame must be >= 1, got {max_steps_per_frame!r}.")
        self._world = world
        self._clock = clock
        self._gizmos = gizmos
        self._fixed_dt = fixed_dt
        self._max_steps = max_steps_per_frame
        self._time_scale = 1.0
        self._paused = False
        self._accumulator_s = 0.0
        self._dropped_s = 0.0
        self._task_mgr: TaskManager | None = None
        self._tasks: list[PythonTask] = []

    @property
    def world(self) -> World:
        """The world this loop steps."""
        return self._world

    @property
    def fixed_dt(self) -> float | None:
        """Seconds per fixed step, or None for variable steps."""
        return self._fixed_dt

    @property
    def paused(self) -> bool:
        """While True the world does not step (destroys still complete; gizmos still flush)."""
        return self._paused

    @paused.setter
    def paused(self, value: bool) -> None:
        self._paused = value

    @property
    def time_scale(self) -> float:
        """Multiplier on the clock's dt (1.0 real speed, 0.5 slow motion); must be >= 0."""
        return self._time_scale

    @time_scale.setter
    def time_scale(self, value: float) -> None:
        if not (math.isfinite(value) and value >= 0.0):
            raise ValueError(f"time_scale must be a finite number >= 0, got {value!r}.")
        self._time_scale = value

    @property
    def dropped_s(self) -> float:
        """Total scaled seconds discarded by the fixed-step cap (0.0 for variable steps)."""
        return self._dropped_s

    @property
    def attached(self) -> bool:
        """True between `attach` and `detach`."""
        return self._task_mgr is not None

    def attach(self, task_mgr: TaskManager) -> None:
        """Add the tasks "sim-loop" (`Phase.WORLD`) and, with gizmos, "sim-gizmos" (`GIZMOS`).

        Tests then call `task_mgr.step()` once per frame.

        Raises:
            RuntimeError: If already attached.
        """
        if self._task_mgr is not None:
            raise RuntimeError("FrameLoop is already attached; call detach() first.")
        self._task_mgr = task_mgr
        self._tasks = []
        self.add_task(Phase.WORLD, self.on_frame, SIM_TASK)
        if self._gizmos is not None:
            self.add_task(Phase.GIZMOS, self.on_gizmos, GIZMO_TASK)

    def add_task(self, phase: Phase, body: TaskBody, name: str) -> PythonTask:
        """Run `body` once per frame in `phase`, after the tasks already added to that phase.

        The task stays until `remove_task(name)` or `detach()`.

        Raises:
            RuntimeError: If the loop is not attached to a task manager.
        """
        if self._task_mgr is None:
            raise RuntimeError(f"FrameLoop is not attached; attach() before adding {name!r}.")
        task = self._task_mgr.add(body, name, sort=int(phase))
        self._tasks.append(task)
        return task

    def remove_task(self, name: str) -> None:
        """Remove the tasks named `name` that were added through this loop. Idempotent."""
        if self._task_mgr is None:
            return
        for task in [task for task in self._tasks if task.name == name]:
            self._task_mgr.remove(task)
            self._tasks.remove(task)

    def detach(self) -> None:
        """Remove every task of this loop, its own and those of `add_task`. Idempotent.

        The world and the accumulator keep their state.
        """
        if self._task_mgr is None:
            return
        for task in self._tasks:
            self._task_mgr.remove(task)
        self._tasks = []
        self._task_mgr = None

    def on_frame(self, task: Task) -> int:
        """Task body: step the world for this frame as described on the class; returns cont."""
        if self._paused:
            self._world.flush_destroyed()
            return int(task.cont)
        frame_dt = self._clock.get_dt() * self._time_scale
        if self._fixed_dt is None:
            self._world.step(frame_dt)
        else:
            self._run_fixed_steps(frame_dt, self._fixed_dt)
        return int(task.cont)

    def on_gizmos(self, task: Task) -> int:
        """Task body: `world.draw_gizmos(gizmos)` then `gizmos.flush()`; returns cont."""
        if self._gizmos is not None:
            self._world.draw_gizmos(self._gizmos)
            self._gizmos.flush()
        return int(task.cont)

    def _run_fixed_steps(self, frame_dt: float, fixed_dt: float) -> None:
        self._accumulator_s += frame_dt
        steps = 0
        while self._accumulator_s >= fixed_dt - _SLACK_S and steps < self._max_steps:
            self._world.step(fixed_dt)
            self._accumulator_s -= fixed_dt
            steps += 1
        if self._accumulator_s >= fixed_dt - _SLACK_S:
            # Over the cap: keep only the part of a step, so the next frame starts fresh.
            kept_s = self._accumulator_s % fixed_dt
            if kept_s >= fixed_dt - _SLACK_S:
                kept_s = 0.0
            self._dropped_s += self._accumulator_s - kept_s
            self._accumulator_s = kept_s
        self._accumulator_s = max(self._accumulator_s, 0.0)
