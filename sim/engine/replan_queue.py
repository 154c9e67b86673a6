"""ReplanQueue: plans asked for wait their turn, and each frame serves only what its budget allows.

When a thousand agents want a new path on the same frame (a door opened, the goal moved), doing
every search at once stalls that frame for hundreds of milliseconds. Unity bounds the work with
``NavMesh.pathfindingIterationsPerFrame`` and Detour with its request queue (``dtPathQueue``);
this queue bounds it in time: each frame `serve` starts searches until `budget_ms` of its clock
has gone, and the rest wait for the next frames. Whoever waits keeps its last route, or stands.

Order: the lowest `priority` first, ties in the order asked. Owners give the straight-line
distance to the goal, so the nearest are served first: their searches are the shortest, the
most agents are moving soonest, and a far agent waits a few frames more while it walks its old
route. A search is started only while the time gone plus the mean of the searches so far (a
moving average, `SMOOTHING`) fits the budget, so a frame overruns it only when one search runs
longer than usual. At least one request is served every frame, so the queue always drains,
whatever the budget.

The clock is handed in (`time.perf_counter` by default), so a test can count expansions or
searches instead of milliseconds and check the bound without timing anything.

Two ways to use it. An owner that plans for others calls `serve(work)` once a frame (the
bench). Agents that plan in their own updates, one after another, use `open_frame()` once
before them and `claim(key, priority)` each when its plan is due: True means plan now, False
means the request is queued (keep the route, or stand) and is admitted on a later frame's
`open_frame`, the waiting nearest first, before anyone new. There the clock should be a work
clock, one that runs only while plans are made (the grid's planning time so far): the time
between two claims is then what the plan granted by the first cost.

>>> ticks = iter(range(100))
>>> queue = ReplanQueue(2.0, clock=lambda: next(ticks) / 1000.0)  # one ms a clock reading
>>> for name, distance in (("far", 9.0), ("near", 1.0), ("mid", 4.0)):
...     queue.ask(name, distance)
>>> queue.serve(lambda key: None), queue.serve(lambda key: None), len(queue)
(['near', 'mid'], ['far'], 0)
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

SMOOTHING = 0.2
"""Weight of the newest search in the moving average of a search's time."""


class ReplanQueue(Generic[K]):
    """Requests to plan, served nearest first under a per-frame time budget (see the module).

    Args:
        budget_ms: Milliseconds of `clock` each `serve` may spend starting searches; `math.inf`
            serves everything at once (no slicing).
        clock: Seconds, increasing; `time.perf_counter` unless a test counts work instead.

    Raises:
        ValueError: If `budget_ms` is not a number > 0.

    Attributes:
        served_total: Requests served so far.
        last_served: Requests the last `serve` served.
        last_spent_ms: Milliseconds of `clock` the last `serve` took.
    """

    def __init__(self, budget_ms: float, *, clock: Callable[[], float] = time.perf_counter) -> None:
        if not budget_ms > 0.0:
            raise ValueError(f"budget_ms must be a number > 0, got {budget_ms!r}")
        self.budget_ms = budget_ms
        self._clock = clock
        # A heap of (priority, order asked, key); a key asked again at a lower priority leaves
        # its old entry behind, skipped when popped (`_queued` holds each key's live priority).
        self._heap: list[tuple[float, int, K]] = []
        self._queued: dict[K, float] = {}
        self._order = itertools.count()
        self.served_total = 0
        self.last_served = 0
        self.last_spent_ms = 0.0
        self._mean_s: float | None = None  # moving average of one plan, in clock seconds
        # Claim-style: the keys admitted this frame, when the frame opened, the last grant.
        self._admitted: set[K] = set()
        self._frame_began = 0.0
        self._granted_at: float | None = None
        self._granted_this_frame = 0

    def __len__(self) -> int:
        return len(self._queued)

    def __contains__(self, key: object) -> bool:
        return key in self._queued

    def ask(self, key: K, priority: float = 0.0) -> None:
        """Queue a plan for `key`; asked again while queued, it keeps the lower priority.

        Raises:
            ValueError: If `priority` is NaN.
        """
        if math.isnan(priority):
            raise ValueError("priority must be a number, got nan")
        kept = self._queued.get(key)
        if kept is not None and kept <= priority:
            return
        self._queued[key] = priority
        heapq.heappush(self._heap, (priority, next(self._order), key))

    def cancel(self, key: K) -> None:
        """Forget `key`'s request or turn, if it has one (the agent was removed)."""
        self._queued.pop(key, None)
        self._admitted.discard(key)

    def open_frame(self) -> None:
        """Begin a frame of `claim`s: admit the waiting, nearest first, as the budget allows.

        As many are admitted as the mean plan so far says fit in `budget_ms`, at least one;
        an admitted key that does not claim this frame (it no longer needs a plan) loses its
        turn.
        """
        self._learn()
        self._admitted.clear()
        self._frame_began = self._clock()
        self._granted_this_frame = 0
        budget_s = self.budget_ms / 1000.0
        while self._heap and (
            not self._admitted or (len(self._admitted) + 1) * self.mean_ms / 1000.0 <= budget_s
        ):
            priority, _, key = heapq.heappop(self._heap)
            if self._queued.get(key) == priority:
                del self._queued[key]
                self._admitted.add(key)

    def claim(self, key: K, priority: float = 0.0) -> bool:
        """Whether `key` may plan now; if not, it is queued at `priority` (see the module).

        Admitted keys may; others only while nobody waits and the frame's clock time so far
        plus a mean plan fits in `budget_ms` (the first of a frame always may).
        """
        self._learn()
        if key in self._admitted:
            self._admitted.discard(key)
            return self._grant()
        spent = self._clock() - self._frame_began
        fits = (
            not self._granted_this_frame or spent + self.mean_ms / 1000.0 <= self.budget_ms / 1000.0
        )
        if not self._queued and not self._admitted and fits:
            return self._grant()
        self.ask(key, priority)
        return False

    def _grant(self) -> bool:
        self._granted_at = self._clock()
        self._granted_this_frame += 1
        self.served_total += 1
        return True

    def _learn(self) -> None:
        """Fold the last granted plan's clock time into the mean (a work clock ran for it)."""
        if self._granted_at is not None:
            self._fold(self._clock() - self._granted_at)
            self._granted_at = None

    def _fold(self, elapsed_s: float) -> None:
        mean = self._mean_s
        self._mean_s = elapsed_s if mean is None else mean + SMOOTHING * (elapsed_s - mean)

    @property
    def mean_ms(self) -> float:
        """The moving average of one plan's clock time in ms (0 before the first)."""
        return 0.0 if self._mean_s is None else self._mean_s * 1000.0

    def serve(self, work: Callable[[K], object]) -> list[K]:
        """Call `work(key)` for queued keys in order while the frame's budget lasts.

        The first key is always served; each next one only while the time gone since the call
        began plus the mean time of a call so far fits within `budget_ms`. Returns the keys
        served, in order. A key `work` asks for again is queued for a later frame, not served
        twice in one.
        """
        began = self._clock()
        budget_s = self.budget_ms / 1000.0
        served: list[K] = []
        done: set[K] = set()
        due: list[tuple[float, int, K]] = []
        now = began
        while self._heap:
            if served and now - began + self.mean_ms / 1000.0 > budget_s:
                break
            entry = heapq.heappop(self._heap)
            priority, _, key = entry
            if self._queued.get(key) != priority:
                continue  # cancelled, or asked again nearer: the newer entry stands
            if key in done:
                due.append(entry)  # asked again while served: next frame's
                continue
            del self._queued[key]
            work(key)
            served.append(key)
            done.add(key)
            before, now = now, self._clock()
            self._fold(now - before)
        for entry in due:
            heapq.heappush(self._heap, entry)
        self.last_served = len(served)
        self.served_total += len(served)
        self.last_spent_ms = (now - began) * 1000.0
        return served
