"""The race: two to four searches in lock-step on one grid, and who finishes first.

Every lane searches the same grid between the same Start and End with the same moves; one
clock drives them all: at tick ``t`` each lane shows its search after ``min(t, total)``
expansions, so each tick every unfinished search expands one more node (a jump point for JPS,
a cell of either half for bidirectional). A lane finishes on the tick of its last expansion,
so the finish order is the order of the expansions each search needs; lanes that need as
many share a place (1, 1, 3), listed in lane order. A lane whose search refuses the grid (JPS
on 4-connected moves) shows why and takes no part.

The lanes are the search view's replays (`sim.navigation.replay.recorder.Replay`), recorded
lazily as far as the clock has gone, so stepping back is exact and a long race costs only what
it shows.
This module is pure (no Panda3D): `sim.search_view.race_view` draws it.

>>> import numpy as np
>>> walkable = np.ones((3, 5), dtype=bool)
>>> race = Race.on_grid(
...     [SearchKind.ASTAR, SearchKind.DIJKSTRA], walkable, (1, 0), (1, 4), diagonal=True
... )
>>> race.forward(5); [(s.search, s.expanded, s.finished, s.place) for s in race.standings()]
[('A*', 5, True, 1), ('Dijkstra', 5, False, None)]
>>> race.to_end(); race.finish_line()
'1. A* 5 expanded, cost 4  2. Dijkstra 13 expanded, cost 4'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.catalogue import SearchKind
from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.replay.log import CellStatus
from sim.navigation.replay.recorder import Replay
from sim.navigation.replay.recorder import record as record_replay
from sim.search_view.budget import check_recording_budget

__all__ = [
    "DEFAULT_LINEUP",
    "MAX_LANES",
    "MIN_LANES",
    "Entrant",
    "Race",
    "RaceLane",
    "Replay",
    "Standing",
    "check_lane_count",
    "describe_finish",
    "record",
]

MIN_LANES = 2
MAX_LANES = 4


@dataclass(frozen=True, slots=True)
class Entrant:
    """A search entered in a race, with its own heuristic or None for the race's.

    >>> Entrant(SearchKind.ASTAR, "manhattan").name(1.5), Entrant(SearchKind.JPS).name(1.5)
    ('A* manhattan', 'JPS')
    """

    kind: SearchKind
    heuristic: str | None = None

    def name(self, weight: float) -> str:
        """How the lane is named: the search, and its own heuristic if it has one."""
        name = self.kind.titled(weight)
        return f"{name} {self.heuristic}" if self.heuristic else name


DEFAULT_LINEUP = tuple(
    Entrant(kind)
    for kind in (SearchKind.ASTAR, SearchKind.JPS, SearchKind.BIDIRECTIONAL, SearchKind.DIJKSTRA)
)
"""The lanes a race opens with: A* against the searches that beat or explain it."""


@dataclass(frozen=True, slots=True)
class Standing:
    """Where one lane stands at the race's tick.

    Attributes:
        search: The lane's name as people read it ("A*", "JPS", "weighted A* x1.5").
        expanded: Expansions so far (jump points for JPS): ``min(tick, total)``.
        open: Cells (jump points) on its frontier now.
        finished: Whether its search has ended (with or without a path).
        cost: The path's cost in grid cells once finished with a path, else None.
        place: 1 for the first to finish (lanes finishing on the same tick share it), None
            before it finishes.
        refusal: Why the lane does not run ("" when it does).
    """

    search: str
    expanded: int
    open: int
    finished: bool
    cost: float | None
    place: int | None
    refusal: str = ""


@dataclass(slots=True)
class RaceLane:
    """One search of the race: its kind, its name and its replay (None when it refused)."""

    entrant: Entrant
    name: str
    replay: Replay | None
    refusal: str = ""


def record(
    kind: SearchKind,
    walkable: NDArray[np.bool_],
    start: tuple[int, int],
    goal: tuple[int, int],
    *,
    diagonal: bool | str,
    heuristic: str = "octile",
    weight: float = 1.5,
    costs: NDArray[np.float64] | None = None,
) -> Replay:
    """A replay of `kind` on the grid, recorded lazily (ValueError when the search refuses).

    Args:
        kind: The search.
        walkable: ``[row, col]`` mask; not copied, so hand in a snapshot.
        start: Start cell.
        goal: Goal cell.
        diagonal: True, False or a diagonal rule's name (`sim.navigation.diagonal`).
        heuristic: For the searches that take one; the others search with zero.
        weight: Weighted A*'s weight (the others use 1).
        costs: The cells' cost multipliers, or None.
    """
    return record_replay(
        kind,
        walkable,
        start,
        goal,
        rule=parse_diagonal(diagonal),
        heuristic=heuristic,
        weight=weight,
        costs=costs,
    )


class Race:
    """Two to four lanes on one step clock; see the module docstring.

    Args:
        lanes: The lanes, in the order they are shown (and ties are listed).

    Raises:
        ValueError: For fewer than `MIN_LANES` or more than `MAX_LANES` lanes.
    """

    def __init__(self, lanes: Sequence[RaceLane]) -> None:
        check_lane_count(len(lanes))
        self.lanes = list(lanes)
        self.tick = 0

    @classmethod
    def on_grid(
        cls,
        entrants: Sequence[Entrant | SearchKind],
        walkable: NDArray[np.bool_],
        start: tuple[int, int],
        goal: tuple[int, int],
        *,
        heuristic: str = "octile",
        **options: Any,
    ) -> Race:
        """A race of `entrants` on one grid; `heuristic` is the race's, `options` go to `record`.

        A search that refuses the grid, or whose recording would not fit its share of the
        budget (`check_recording_budget`), gets a lane that says why and takes no part.
        """
        lanes = []
        for entrant in entrants:
            if isinstance(entrant, SearchKind):
                entrant = Entrant(entrant)
            kind, name = entrant.kind, entrant.name(options.get("weight", 1.5))
            own = entrant.heuristic or heuristic
            try:
                check_recording_budget(
                    kind,
                    walkable,
                    recordings=len(entrants),
                    ends=(start, goal),
                    rule=options.get("rule", DiagonalRule.NO_CORNER_CUTTING),
                    heuristic=own,
                    costs=options.get("costs"),
                )
                replay = record(kind, walkable, start, goal, heuristic=own, **options)
            except ValueError as error:
                lanes.append(RaceLane(entrant, name, None, f"cannot search this: {error}"))
            else:
                lanes.append(RaceLane(entrant, name, replay))
        return cls(lanes)

    @property
    def running(self) -> list[Replay]:
        """The replays of the lanes that take part."""
        return [lane.replay for lane in self.lanes if lane.replay is not None]

    @property
    def at_end(self) -> bool:
        """Whether every lane that takes part has finished."""
        return all(replay.at_end for replay in self.running)

    def seek(self, tick: int) -> None:
        """Put the clock at `tick` (clamped to 0 .. the last lane's finish)."""
        tick = max(int(tick), 0)
        for replay in self.running:
            replay.seek(tick)
        # Past the last finish the clock stops: stepping back then moves at once.
        self.tick = min(tick, max((replay.step for replay in self.running), default=0))

    def forward(self, count: int = 1) -> None:
        """`count` ticks on: each unfinished lane expands `count` more nodes (or finishes)."""
        self.seek(self.tick + count)

    def back(self, count: int = 1) -> None:
        """`count` ticks back, exactly as they were."""
        self.seek(self.tick - count)

    def reset(self) -> None:
        """Back to tick 0: every lane has only its start on the frontier."""
        self.seek(0)

    def to_end(self) -> None:
        """Run every lane to its finish (records each search to its end)."""
        self.seek(max((replay.log.total_steps() for replay in self.running), default=0))

    def standings(self) -> list[Standing]:
        """Each lane's counts and place now, in lane order."""
        finishes = {
            index: lane.replay.step
            for index, lane in enumerate(self.lanes)
            if lane.replay is not None and lane.replay.at_end
        }
        rows = []
        for index, lane in enumerate(self.lanes):
            replay = lane.replay
            if replay is None:
                rows.append(Standing(lane.name, 0, 0, False, None, None, lane.refusal))
                continue
            finished = index in finishes
            cost = None
            if finished:
                result = replay.log.result()
                cost = result.cost if result.found else None
            place = (
                1 + sum(1 for step in finishes.values() if step < finishes[index])
                if finished
                else None
            )
            rows.append(
                Standing(
                    lane.name,
                    replay.step,
                    int(np.count_nonzero(replay.status == CellStatus.OPEN)),
                    finished,
                    cost,
                    place,
                )
            )
        return rows

    def finish_order(self) -> list[Standing]:
        """The finished lanes by place (ties in lane order)."""
        done = [row for row in self.standings() if row.place is not None]
        return sorted(done, key=lambda row: row.place or 0)

    def finish_line(self, cell_size: float = 1.0) -> str:
        """The finish order in one line: "1. JPS 212 expanded, cost 41.3  2. A* 1,804 ..."."""
        return "  ".join(describe_finish(row, cell_size) for row in self.finish_order())


def describe_finish(row: Standing, cell_size: float = 1.0) -> str:
    """One finished lane: "1. JPS 212 expanded, cost 41.3" (or "no path")."""
    cost = "no path" if row.cost is None else f"cost {row.cost * cell_size:.4g}"
    return f"{row.place}. {row.search} {row.expanded:,} expanded, {cost}"


def check_lane_count(count: int) -> None:
    """ValueError unless a race of `count` lanes can run (2 to 4)."""
    if not MIN_LANES <= count <= MAX_LANES:
        raise ValueError(f"a race takes {MIN_LANES} to {MAX_LANES} searches, got {count}")
