"""Play, pause, step one frame and the simulation speed: the toolbar's and the keys' one owner.

Pausing stops simulated time (`FrameLoop.paused`); a step runs exactly one world step of the
loop's fixed step (or `DEFAULT_STEP_S` when the loop steps by the clock) in the world's own
phase of the next frame, so it sees the frame's input as a running step does. The speed scales
the clock's dt (`FrameLoop.time_scale`) through `SPEEDS`.
"""

from __future__ import annotations

from typing import Final

from direct.task.Task import Task

from sim.engine.loop import FrameLoop, Phase

SPEEDS: Final = (0.25, 0.5, 1.0, 2.0, 4.0)
"""The speeds `-` and `=` step through, as multiples of real time."""
DEFAULT_STEP_S: Final = 1.0 / 60.0
"""A step's length when the loop has no fixed step of its own."""
STEP_TASK: Final = "step-one-frame"


class TimeControls:
    """Pause, step and speed of `loop`'s simulated time; see the module."""

    def __init__(self, loop: FrameLoop) -> None:
        self._loop = loop
        self._pending = 0  # steps asked for, run in the next world phase
        loop.add_task(Phase.WORLD, self._run_steps, STEP_TASK)

    @property
    def paused(self) -> bool:
        """Whether simulated time stands still (Space, the toolbar's pause, a step)."""
        return self._loop.paused

    @property
    def step_s(self) -> float:
        """How far one step advances simulated time, in seconds."""
        return self._loop.fixed_dt or DEFAULT_STEP_S

    @property
    def speed(self) -> float:
        """Simulated seconds per real second."""
        return self._loop.time_scale

    @property
    def time_s(self) -> float:
        """Simulated seconds so far."""
        return self._loop.world.time_s

    def toggle_pause(self) -> None:
        """Stop simulated time, or let it run again."""
        self._loop.paused = not self._loop.paused
        self._pending = 0

    def step(self) -> None:
        """Pause (if running) and advance simulated time by exactly one step next frame."""
        self._loop.paused = True
        self._pending += 1

    def faster(self) -> None:
        """The next speed up `SPEEDS` (4x stays 4x)."""
        self._set_speed(+1)

    def slower(self) -> None:
        """The next speed down `SPEEDS` (0.25x stays 0.25x)."""
        self._set_speed(-1)

    def detach(self) -> None:
        """Stop running asked-for steps."""
        self._loop.remove_task(STEP_TASK)

    def _set_speed(self, direction: int) -> None:
        # From a speed set elsewhere (a test, a script), the nearest one of the list moves.
        now = min(range(len(SPEEDS)), key=lambda index: abs(SPEEDS[index] - self.speed))
        index = min(max(now + direction, 0), len(SPEEDS) - 1)
        self._loop.time_scale = SPEEDS[index]

    def _run_steps(self, task: Task) -> int:
        if self._loop.paused:
            while self._pending > 0:
                self._pending -= 1
                self._loop.world.step(self.step_s)
        return int(task.cont)
