"""`sim bench --gppc`'s planners side by side in time: rounds of one pass each, map by map.

On a shared machine the load moves in minutes, so planners timed minutes apart are timed under
different loads and their ratio is the load's as much as theirs. Here each map is run in
rounds: round r runs one pass of each of our planners (each in a worker of its own for the
whole map set, `sim.bench.gppc.runs.OursSession`) and one of each of warthog's algorithms, back
to back on the same queries, and every query keeps its fastest time over the rounds, as passes
did. The machine's load (`os.getloadavg`) is read at each round's start and end, so a reader
sees what the ratios were taken under. A map's rounds run before the next map's, so a worker
holds one map at a time and its peak memory stays that of its largest map, as before.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.bench.gppc.runs import (
    OUR_ALGORITHMS,
    WARTHOG_ALGORITHMS,
    MapFigures,
    OursSession,
    WarthogRuns,
    ours_figures,
)


@dataclass(frozen=True, slots=True)
class RoundLoad:
    """The machine's load averages (1, 5 and 15 minutes) at a round's start and end."""

    map: str
    round: int
    start: tuple[float, float, float]
    end: tuple[float, float, float]


def steps(maps: int, *, warthog: bool, rounds: int) -> int:
    """How many passes `run_set` reports to its `on_done` over `maps` maps."""
    planners = len(OUR_ALGORITHMS) + (len(WARTHOG_ALGORITHMS) if warthog else 0)
    return maps * rounds * planners


def run_set(
    members: Sequence[Path],
    *,
    warthog: Path | None,
    sample: int | None,
    seed: int,
    rounds: int,
    on_done: Callable[[int, str], object] | None = None,
) -> tuple[list[MapFigures], list[RoundLoad]]:
    """Every planner on one map set's `members`, in rounds; their figures and the loads read.

    The figures come in the order `sim.bench.gppc.runs.run_ours` and `run_warthog` gave them:
    ours by algorithm, then warthog's, each over the maps in turn.
    """
    lines: dict[str, list[dict[str, Any]]] = {name: [] for name in OUR_ALGORITHMS}
    theirs: dict[str, list[MapFigures]] = {name: [] for name in WARTHOG_ALGORITHMS}
    loads: list[RoundLoad] = []
    with contextlib.ExitStack() as stack:
        sessions = [
            OursSession(algorithm, sample=sample, seed=seed) for algorithm in OUR_ALGORITHMS
        ]
        for session in sessions:
            stack.callback(session.close)
        for member in members:
            name = member.name.removesuffix(".map")
            with contextlib.ExitStack() as runs_of_map:
                peers = [
                    runs_of_map.enter_context(
                        WarthogRuns(binary, algorithm, member, sample=sample, seed=seed)
                    )
                    for binary in ([warthog] if warthog is not None else [])
                    for algorithm in WARTHOG_ALGORITHMS
                ]
                for index in range(rounds):
                    began = os.getloadavg()
                    for session in sessions:
                        session.run_pass(member)
                        _tell(on_done, f"ours {session.algorithm} {name} round {index + 1}")
                    for peer in peers:
                        peer.run_pass()
                        _tell(on_done, f"warthog {peer.algorithm} {name} round {index + 1}")
                    loads.append(RoundLoad(name, index + 1, began, os.getloadavg()))
                for session in sessions:
                    lines[session.algorithm].append(session.end(member))
                for peer in peers:
                    theirs[peer.algorithm].append(peer.figures())
        peaks = {session.algorithm: session.peak for session in sessions}
    # Each worker's peak is its whole life's, as one worker per set reported it before.
    ours = [
        ours_figures(algorithm, line, peaks[algorithm])
        for algorithm in OUR_ALGORITHMS
        for line in lines[algorithm]
    ]
    return ours + [figures for name in WARTHOG_ALGORITHMS for figures in theirs[name]], loads


def load_line(loads: Sequence[RoundLoad]) -> str:
    """One line: the 1-minute load average over the rounds' starts and ends."""
    if not loads:
        return "machine load: no round run"
    ones = [value for load in loads for value in (load.start[0], load.end[0])]
    fives = [value for load in loads for value in (load.start[1], load.end[1])]
    return (
        f"machine load over the {len(loads)} rounds (1-minute average at each round's start "
        f"and end): {min(ones):.2f}-{max(ones):.2f}, mean {sum(ones) / len(ones):.2f} "
        f"(5-minute {min(fives):.2f}-{max(fives):.2f})"
    )


def loads_json(loads: Sequence[RoundLoad]) -> list[dict[str, Any]]:
    """The loads as JSON objects (`RoundLoad`'s fields)."""
    return [dataclasses.asdict(load) for load in loads]


def _tell(on_done: Callable[[int, str], object] | None, note: str) -> None:
    if on_done is not None:
        on_done(1, note)
