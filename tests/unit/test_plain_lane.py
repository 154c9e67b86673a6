"""Plain lanes (``_plain_lane.h``): the default call's counting done in C, deciding as Python does.

On an open map the default call answers with the plain search while counting, for the
landmark fields' next decision and for the offline index's rent. A lane counts in C and hands
the counts back (`call_cache.settle`). These tests run the same queries through `find_path`
(lanes) and through `landmarks.search` itself (the Python path) on two equal arrays and ask
for the same answers, the same notes after every query, and the offline index's build started
at the same query; and they check that lanes really answer (Python's search is not called) and
go when the notes they count for are forgotten.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from sim.navigation import find_path, label_regions
from sim.navigation.searches import call_cache, jump_cache, landmarks

pytestmark = pytest.mark.skipif(not call_cache.COMPILED, reason="needs the C searches")

SIDE = 256


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    landmarks.forget()
    jump_cache.forget()
    yield
    jump_cache.wait_for_builds()
    landmarks.forget()
    jump_cache.forget()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many queries the C call hands to `landmarks.search` (the Python path's counting)."""
    from sim.navigation.searches import _jps, _kernel

    calls: list[int] = []

    def search(*args: Any) -> landmarks.Found:
        calls.append(1)
        return landmarks.search(*args)

    def setup(search_function: Any) -> None:
        _kernel.call_setup(
            _jps.plain,
            landmarks.MIN_CELLS,
            landmarks.MAX_CELLS,
            landmarks.NEAR_CELLS,
            search_function,
            call_cache.missed,
        )

    setup(search)
    yield calls
    setup(landmarks.search)


def open_map(seed: int) -> NDArray[np.bool_]:
    rng = np.random.default_rng(seed)
    walkable = rng.random((SIDE, SIDE)) >= 0.04
    walkable[:, 128] = True  # one region, whatever the draw
    walkable[128, :] = True
    return walkable


def far_pairs(walkable: NDArray[np.bool_], count: int, seed: int) -> list[tuple[int, int]]:
    """Flat pairs of walkable cells more than `landmarks.NEAR_CELLS` apart, in one region."""
    rng = np.random.default_rng(seed)
    cells = np.flatnonzero(reachable(walkable))
    out: list[tuple[int, int]] = []
    while len(out) < count:
        start, goal = (int(c) for c in rng.choice(cells, size=2))
        if abs(start // SIDE - goal // SIDE) > 2 or abs(start % SIDE - goal % SIDE) > 2:
            out.append((start, goal))
    return out


def reachable(walkable: NDArray[np.bool_]) -> NDArray[np.bool_]:
    labels, _ = label_regions(walkable)
    return np.asarray(labels == labels[128, 128])


def notes(walkable: NDArray[np.bool_]) -> tuple[object, ...]:
    """What landmarks and jump_cache keep on `walkable`: their counts and decisions."""
    with landmarks._lock:
        marks = landmarks._entries.get(walkable)
        probes = (marks.probes, list(marks.expanded), marks.open_map) if marks else None
    with jump_cache._lock:
        rent = jump_cache._entries.get(walkable)
        paid = (rent.queries, rent.rent_ns, rent.building is not None) if rent else None
    return probes, paid


def decisions(walkable: NDArray[np.bool_]) -> tuple[object, ...]:
    """What landmarks and jump_cache have decided on `walkable`: probing, fields, a build."""
    probes, paid = notes(walkable)
    assert probes is None or isinstance(probes, tuple)
    assert paid is None or isinstance(paid, tuple)
    return (None if probes is None else (probes[0], probes[2]), paid is not None and paid[2])


def test_lanes_count_and_decide_as_the_python_path(
    monkeypatch: pytest.MonkeyPatch, counted: list[int]
) -> None:
    monkeypatch.setattr(jump_cache, "SWITCH_AFTER_QUERIES", 10_000)  # kept building, not taken
    lane, python = open_map(1), open_map(1)
    pairs = far_pairs(lane, 260, seed=2)
    # Priced so that the rent is paid some 200 queries in: after several probing decisions.
    monkeypatch.setattr(jump_cache, "BUILD_NS_PER_CELL", 200 * 60_000.0 / lane.size)
    built_at: dict[str, int] = {}
    settled: list[int] = []
    handed = 0
    for index, (start, goal) in enumerate(pairs):
        ends = divmod(start, SIDE), divmod(goal, SIDE)
        result = find_path(lane, *ends)
        found = landmarks.search(python, SIDE, SIDE, start, goal)
        assert (result.found, result.cost, result.expanded) == (found[0], found[2], found[3])
        # Decisions on the same query; the counts behind them whenever the lane settled.
        assert decisions(lane) == decisions(python), index
        if notes(lane)[1] == notes(python)[1]:
            settled.append(index)
        for name, array in (("lane", lane), ("python", python)):
            if decisions(array)[1] and name not in built_at:
                built_at[name] = index
                handed = len(counted)
    assert built_at["lane"] == built_at["python"]
    assert 20 < built_at["lane"] < 250
    assert built_at["lane"] in settled
    assert len(settled) > 3  # at each probing decision too
    # Until the build, most queries were answered in C: the Python search ran where a lane
    # was closed (then the index builds, and jump_cache answers again).
    assert 0 < handed < built_at["lane"] / 4


def test_lanes_go_with_the_notes_they_count_for(counted: list[int]) -> None:
    walkable = open_map(3)
    pairs = far_pairs(walkable, 40, seed=4)
    for start, goal in pairs[:20]:
        find_path(walkable, divmod(start, SIDE), divmod(goal, SIDE))
    before = len(counted)
    find_path(walkable, divmod(pairs[20][0], SIDE), divmod(pairs[20][1], SIDE))
    assert len(counted) == before  # a lane answered
    landmarks.forget()
    find_path(walkable, divmod(pairs[21][0], SIDE), divmod(pairs[21][1], SIDE))
    assert len(counted) == before + 1  # the lane went with the notes: Python counts afresh
    probes, paid = notes(walkable)
    assert isinstance(probes, tuple)
    assert (probes[0], len(probes[1]), probes[2]) == (landmarks.PROBE_QUERIES, 1, False)
    assert paid is not None


def test_lanes_answer_edited_arrays_as_they_are_now(counted: list[int]) -> None:
    walkable = open_map(5)
    pairs = far_pairs(walkable, 30, seed=6)
    for start, goal in pairs:
        find_path(walkable, divmod(start, SIDE), divmod(goal, SIDE))
    walkable[:, 128] = False  # a wall with one gap
    walkable[200, 128] = True
    first, last = (10, 10), (10, 250)
    walkable[first] = walkable[last] = True
    before = len(counted)
    result = find_path(walkable, first, last)
    assert len(counted) == before  # a lane answered
    expected = find_path(walkable.copy(), first, last, algorithm="astar")
    assert result.found == expected.found
    assert result.cost == pytest.approx(expected.cost, rel=1e-12)
