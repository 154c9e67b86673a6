"""ReplanGate: when work that follows the scene (a plan, a recorded search, a table) is redone.

One rule for every such piece of work: on an interval, on request, when what it depends on
changes, held back while a drag is in progress, and at once on the drop. Ticked with `dt` like
`Every`, so headless runs stay deterministic; it knows nothing of what the work is. It says why
it fired (`ReplanGate.cause`), so an owner can count its work by cause.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from sim.engine.timers import Every

DRAG_GAP_S = 0.1
"""While a drag is in progress, work that follows the scene is redone at most this often."""

REQUESTED = "requested"
"""`ReplanGate.cause` after a `request()` that named no cause."""
CHANGED = "changed"
"""`ReplanGate.cause` when the key changed (the first tick included: nothing was fired for yet)."""
DROPPED = "dropped"
"""`ReplanGate.cause` when a drag ended."""
INTERVAL = "interval"
"""`ReplanGate.cause` when only the interval was up."""

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

    After a firing, `cause` says why, the first of: the pending request's cause (the first one
    asked for since the last firing), `CHANGED`, `DROPPED`, `INTERVAL`. A request made with
    `held=True` counts as a changed key rather than a request: a drag holds it back the same way.

    >>> held = True
    >>> gate = ReplanGate(dragging=lambda: held)
    >>> [gate.tick(0.04, key) for key in ("a", "b", "c", "d")]  # "d" comes 0.12 s after "a"
    [True, False, False, True]
    >>> held = False
    >>> gate.tick(0.04, "d"), gate.tick(0.04, "d"), gate.tick(0.04, "e")  # the drop; no change
    (True, False, True)
    >>> gate.cause
    'changed'

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
        self._requested: str | None = None
        self._held_request = False
        self._drag_seen = False
        self.cause: str | None = None
        """Why the last firing fired (see the class); None before the first."""

    def request(self, cause: str = REQUESTED, *, held: bool = False) -> None:
        """Make the next tick fire, whatever changed, with `cause` as its `cause`.

        With `held`, the request waits out a drag's gap as a changed key does. A cause asked
        for earlier and not fired yet stays the cause.
        """
        if self._requested is None:
            self._requested, self._held_request = cause, held
        elif not held:
            self._held_request = False

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
        requested = self._requested is not None and not (self._held_request and held)
        if not (due or changed or dropped or requested):
            return False
        if self._requested is not None:  # a held request rides along with any other firing
            self.cause = self._requested
        elif changed:
            self.cause = CHANGED
        else:
            self.cause = DROPPED if dropped else INTERVAL
        self._fired_for, self._since_fire_s, self._requested = key, 0.0, None
        return True

    def __repr__(self) -> str:
        interval = None if self._timer is None else self._timer.interval_s
        return f"ReplanGate(interval_s={interval!r}, drag_gap_s={self._drag_gap_s!r})"
