"""The record of a crowd's joint plans: each hand-off and hand-back, in order, numbered.

`Jams` adds an event when agents go under a joint plan (`HANDOFF`: a new plan's members, or
newcomers a plan under way took in) and when a plan is over (`HANDBACK`: its members go back
to their fields or owners). Readers keep the number of the next event they want (`since`), so
any number of them read the same record; it keeps the last `keep` events, so a long run
nobody reads costs no more memory than a short one.

>>> log = JamLog(keep=2)
>>> for agents in ((1, 2), (3,), (1, 2)):
...     log.add(JamEventKind.HANDOFF, agents, time_s=0.5)
>>> [event.agents for event in log.since(0)], log.count
([(3,), (1, 2)], 3)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

KEEP = 4096
"""Events kept by default: far more than any frame makes."""


class JamEventKind(StrEnum):
    """What happened to a joint plan's agents."""

    HANDOFF = "handoff"
    HANDBACK = "handback"


@dataclass(frozen=True, slots=True)
class JamEvent:
    """Agents (crowd indices, ascending) handed to a joint plan or back, at `time_s`."""

    number: int
    kind: JamEventKind
    agents: tuple[int, ...]
    time_s: float


class JamLog:
    """The last `keep` hand-offs and hand-backs, numbered from 0 in the order they happened."""

    def __init__(self, keep: int = KEEP) -> None:
        if keep < 1:
            raise ValueError(f"keep must be >= 1, got {keep!r}")
        self._events: deque[JamEvent] = deque(maxlen=keep)
        self.count = 0
        """How many events were ever added (the next one's number)."""

    def add(self, kind: JamEventKind, agents: Iterable[int], *, time_s: float) -> None:
        """Note that `agents` were handed off or back at `time_s` (no event for no agents)."""
        members = tuple(sorted(int(agent) for agent in agents))
        if members:
            self._events.append(JamEvent(self.count, kind, members, time_s))
            self.count += 1

    def since(self, number: int) -> tuple[JamEvent, ...]:
        """The events numbered `number` and after that are still kept, in order."""
        return tuple(event for event in self._events if event.number >= number)
