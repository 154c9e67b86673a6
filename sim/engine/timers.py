"""Timers ticked with a component's `dt`: no wall clock, so headless runs stay deterministic."""

from __future__ import annotations

import math

# Summing dt = 1/60 sixty times lands a hair off 1.0; without this slack the timer would fire a
# frame late about half the time. 1 ns is far below any dt and far above float error over hours.
_SLACK_S = 1e-9


class Every:
    """Fire once every `interval_s` seconds of ticked time, without drift.

    Schedule: with `t` the sum of the dts ticked since construction or `reset()`, `tick` returns
    True on the first tick at which `t` reaches `k * interval_s` for k = 1, 2, 3, ... (and k = 0,
    i.e. the very first tick, when `fire_at_start`). The remainder carries over, so at 60 fps a
    1 s timer fires on frames 60, 120, 180, ... exactly. A tick whose dt spans several intervals
    fires once and skips the missed ones (the schedule keeps its phase): a "replan" that fell
    behind should run once, not in a burst.

    >>> timer = Every(1.0)
    >>> [frame for frame in range(1, 200) if timer.tick(1 / 60)]
    [60, 120, 180]

    Args:
        interval_s: Seconds between firings; must be finite and > 0.
        fire_at_start: Also fire on the first tick (k = 0).

    Raises:
        ValueError: If `interval_s` is not a finite number > 0.
    """

    def __init__(self, interval_s: float, *, fire_at_start: bool = False) -> None:
        if not (math.isfinite(interval_s) and interval_s > 0.0):
            raise ValueError(f"interval_s must be a finite number > 0, got {interval_s!r}.")
        self._interval_s = float(interval_s)
        self._fire_at_start = fire_at_start
        self._remaining_s = 0.0
        self._triggered = False
        self.reset()

    @property
    def interval_s(self) -> float:
        """Seconds between firings."""
        return self._interval_s

    @property
    def remaining_s(self) -> float:
        """Ticked seconds until the next firing (0.0 when the next tick fires anyway)."""
        if self._triggered:
            return 0.0
        return max(0.0, self._remaining_s)

    def tick(self, dt: float) -> bool:
        """Advance by `dt` seconds (>= 0); return True if the timer fires on this tick.

        Raises:
            ValueError: If `dt` is negative or not finite.
        """
        if not (math.isfinite(dt) and dt >= 0.0):
            raise ValueError(f"dt must be a finite number >= 0, got {dt!r}.")
        if self._triggered:
            self._triggered = False
            self._remaining_s = self._interval_s
            return True
        self._remaining_s -= dt
        if self._remaining_s > _SLACK_S:
            return False
        self._remaining_s += self._interval_s
        if self._remaining_s <= _SLACK_S:
            # dt covered more than one interval: fire once, keep the phase, skip the rest.
            self._remaining_s %= self._interval_s
            if self._remaining_s <= _SLACK_S:
                self._remaining_s += self._interval_s
        return True

    def reset(self) -> None:
        """Start over as if newly constructed (the schedule restarts at t = 0; triggers clear)."""
        self._triggered = False
        self._remaining_s = 0.0 if self._fire_at_start else self._interval_s

    def trigger(self) -> None:
        """Make the next tick fire whatever its dt, and restart the schedule from that tick.

        After the forced firing the next one comes `interval_s` of ticked time later ("replan
        now, then every interval again").
        """
        self._triggered = True

    def __repr__(self) -> str:
        return f"Every({self._interval_s!r}, remaining_s={self.remaining_s:.4f})"
