"""`sim run --race`: the searches of a race, parsed without Panda3D (a bad value costs no window).

``NAME[:HEURISTIC],NAME[:HEURISTIC][,...]`` names 2 to 4 searches as `--search` names one
(`parse_search`); a lane without a heuristic takes the race's (the planner's).

>>> [(entrant.kind.name, entrant.heuristic) for entrant in parse_race("astar:manhattan,jps")]
[('ASTAR', 'manhattan'), ('JPS', None)]
>>> parse_race("astar")
Traceback (most recent call last):
ValueError: a race takes 2 to 4 searches, got 1
"""

from __future__ import annotations

from sim.app.search_control import parse_search
from sim.search_view.race import Entrant, check_lane_count


def parse_race(text: str) -> tuple[Entrant, ...]:
    """2 to 4 comma-separated searches as entrants (ValueError naming the bad part)."""
    parts = text.split(",")
    check_lane_count(len(parts))
    entrants = tuple(Entrant(*parse_search(part.strip())) for part in parts)
    if len(set(entrants)) < len(entrants):
        raise ValueError(f"{text!r} names a search twice")
    return entrants
