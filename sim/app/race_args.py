"""`sim run --race`: the searches of a race, parsed without Panda3D (a bad value costs no window).

``NAME[:HEURISTIC],NAME[:HEURISTIC][,...]`` names 2 to 4 searches as `--search` names one
(`parse_search`); a lane without a heuristic takes the race's (the planner's), so
``astar,astar:octile`` names A* octile twice while the race's heuristic is octile.

>>> [(entrant.kind.name, entrant.heuristic) for entrant in parse_race("astar:manhattan,jps")]
[('ASTAR', 'manhattan'), ('JPS', None)]
>>> parse_race("astar")
Traceback (most recent call last):
ValueError: a race takes 2 to 4 searches, got 1
>>> parse_race("astar,astar:octile")  # doctest: +ELLIPSIS
Traceback (most recent call last):
ValueError: 'astar,astar:octile' names a search twice: A* octile (...)
"""

from __future__ import annotations

from sim.app.search_control import parse_search
from sim.navigation.catalogue import PLANNER_HEURISTICS
from sim.search_view.race import Entrant, check_lane_count
from sim.search_view.settings import view_heuristic

RACE_HEURISTIC = view_heuristic(PLANNER_HEURISTICS[0].value)
"""The heuristic of a race `sim run --race` opens: the planner's first, every scene's at start."""


def parse_race(text: str) -> tuple[Entrant, ...]:
    """2 to 4 comma-separated searches as entrants (ValueError naming the bad part).

    Two lanes that would search alike (the same search with the same heuristic, once the
    race's heuristic is filled in) are refused: a race against itself shows nothing.
    """
    parts = text.split(",")
    check_lane_count(len(parts))
    entrants = tuple(Entrant(*parse_search(part.strip())) for part in parts)
    seen: set[tuple[object, str | None]] = set()
    for entrant in entrants:
        heuristic = entrant.heuristic or RACE_HEURISTIC if entrant.kind.takes_heuristic else None
        if (entrant.kind, heuristic) in seen:
            note = ""
            if entrant.heuristic is None or any(
                other.kind is entrant.kind and other.heuristic is None for other in entrants
            ):
                note = f" (a lane without a heuristic takes the race's, {RACE_HEURISTIC})"
            name = Entrant(entrant.kind, heuristic).name(1.0)
            raise ValueError(f"{text!r} names a search twice: {name}{note}")
        seen.add((entrant.kind, heuristic))
    return entrants
