"""ReplanGate: when work that follows the scene (a plan, a recorded search, a table) is redone.

One rule for every such piece of work: on an interval, on request, when what it depends on
changes, held back while a drag is in progress, and at once on the drop. Ticked with `dt` like
`Every`, so headless runs stay deterministic; it knows nothing of what the work is.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from sim.engine.timers import Every

DRAG_GAP_S = 0.1
"""While a drag is in progress, work that follows the scene is redone at most this often."""

# Six dts of 1/60 sum to a hair under 0.1; without this slack the gap would last a frame longer.
_SLACK_S = 1e-9
_NOTHING_YET = object()  # the key before the first firing, equal to no key


def _never() -> bool:
    return False


class ReplanGate:
    """Decides, tick by tick, when the work it guards is due; see the module docstring.

    The owner calls `tick(dt, key)` once per frame, where `key` changes whenever the work's
    inputs do (for a plan: the grid's version and the cells of the objects it watches), and
    redoes the work when it returns True. That is on the first tick, and then when

    - the interval is up: every `interval_s` of ticked time, on `Every`'s schedule, whatever
      else fired in between (no interval when None);
    - `request()` was called since the last firing;
    - a drag ended (the drop): the previous tick saw `dragging()` True and this one False;
    - `key` differs from the last firing's, unless a drag is in progress and less than
      `drag_gap_s` passed since the last firing (`math.inf`: the drop brings it).

    So a cube dragged across a large grid costs one plan every `drag_gap_s` at most, not one
    every frame, and everything catches up on the frame after the drop.

    >>> held = True
    >>> gate = ReplanGate(dragging=lambda: held)
    >>> [gate.tick(0.04, key) for key in ("a", "b", "c", "d")]  # "d" comes 0.12 s after "a"
    [True, False, False, True]
    >>> held = False
    >>> gate.tick(0.04, "d"), gate.tick(0.04, "d"), gate.tick(0.04, "e")  # the drop; no change
    (True, False, True)

    Args:
        interval_s: Fire every this many seconds whatever changed; None for never.
        dragging: Whether a drag is in progress now; None when nothing is ever dragged.
        drag_gap_s: The least time between change-driven firings while a drag is in progress.

    Raises:
        ValueError: If `interval_s` is not a finite number > 0, or `drag_gap_s` is below 0.
    """

    def __init__(
        self,
        *,
        interval_s: float | None = None,
        dragging: Callable[[], bool] | None = None,
        drag_gap_s: float = DRAG_GAP_S,
    ) -> None:
        if not drag_gap_s >= 0.0:
            raise ValueError(f"drag_gap_s must be a number >= 0, got {drag_gap_s!r}.")
        self._timer = None if interval_s is None else Every(interval_s)
        self._dragging = dragging or _never
        self._drag_gap_s = drag_gap_s
        self._fired_for: object = _NOTHING_YET
        self._since_fire_s = math.inf
        self._requested = False
        self._drag_seen = False

    def request(self) -> None:
        """Make the next tick fire, whatever changed."""
        self._requested = True

    def tick(self, dt: float, key: object) -> bool:
        """Advance by `dt` seconds (>= 0); True when the work is due now (see the class).

        Raises:
            ValueError: If `dt` is negative or not finite.
        """
        if not (math.isfinite(dt) and dt >= 0.0):
            raise ValueError(f"dt must be a finite number >= 0, got {dt!r}.")
        due = self._timer.tick(dt) if self._timer is not None else False
        self._since_fire_s += dt
        dragging = self._dragging()
        dropped, self._drag_seen = self._drag_seen and not dragging, dragging
        held = dragging and self._since_fire_s < self._drag_gap_s - _SLACK_S
        changed = key != self._fired_for and not held
        if not (due or changed or dropped or self._requested):
            return False
        self._fired_for, self._since_fire_s, self._requested = key, 0.0, False
        return True

    def __repr__(self) -> str:
        interval = None if self._timer is None else self._timer.interval_s
        return f"ReplanGate(interval_s={interval!r}, drag_gap_s={self._drag_gap_s!r})"
