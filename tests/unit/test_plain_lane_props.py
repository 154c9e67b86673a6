"""Plain lanes under stress: counts kept across forgetting, eviction, many arrays and edits.

Each test runs the same queries through `find_path` (lanes) and through `landmarks.search`
(the Python path the lanes replace) on equal arrays and asks for the same notes: the counts a
lane has taken must reach the notes that survive when the other cache forgets the array, and
no lane may hand counts to an array that took another's address.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator

import numpy as np
import pytest
from numpy.typing import NDArray

from sim.navigation import find_path, freeze, label_regions
from sim.navigation.searches import call_cache, jump_cache, landmarks

pytestmark = pytest.mark.skipif(not call_cache.COMPILED, reason="needs the C searches")

SIDE = 256


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # No build during these tests: the rent is counted, never paid.
    monkeypatch.setattr(jump_cache, "BUILD_NS_PER_CELL", 1e12)
    landmarks.forget()
    jump_cache.forget()
    yield
    jump_cache.wait_for_builds()
    landmarks.forget()
    jump_cache.forget()


def open_map(seed: int) -> NDArray[np.bool_]:
    rng = np.random.default_rng(seed)
    walkable = rng.random((SIDE, SIDE)) >= 0.04
    walkable[:, 128] = True
    walkable[128, :] = True
    return walkable


def far_pairs(walkable: NDArray[np.bool_], count: int, seed: int) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    labels, _ = label_regions(walkable)
    cells = np.flatnonzero(labels == labels[128, 128])
    out: list[tuple[int, int]] = []
    while len(out) < count:
        start, goal = (int(c) for c in rng.choice(cells, size=2))
        if abs(start // SIDE - goal // SIDE) > 2 or abs(start % SIDE - goal % SIDE) > 2:
            out.append((start, goal))
    return out


def rent(walkable: NDArray[np.bool_]) -> tuple[int, float] | None:
    with jump_cache._lock:
        entry = jump_cache._entries.get(walkable)
        return None if entry is None else (entry.queries, entry.rent_ns)


def decided(walkable: NDArray[np.bool_]) -> tuple[int, bool] | None:
    """The decisions on fields (probes to the next, open map), whatever a lane holds back."""
    counts = probes(walkable)
    return None if counts is None else (counts[0], counts[2])


def probes(walkable: NDArray[np.bool_]) -> tuple[int, int, bool] | None:
    with landmarks._lock:
        entry = landmarks._entries.get(walkable)
        return None if entry is None else (entry.probes, len(entry.expanded), entry.open_map)


def both(lane: NDArray[np.bool_], python: NDArray[np.bool_], pair: tuple[int, int]) -> None:
    start, goal = pair
    result = find_path(lane, divmod(start, SIDE), divmod(goal, SIDE))
    found = landmarks.search(python, SIDE, SIDE, start, goal)
    assert (result.found, result.cost) == (found[0], found[2])


def test_a_lane_hands_its_rent_to_the_index_when_landmarks_forget_the_array() -> None:
    lane, python = open_map(1), open_map(1)
    pairs = far_pairs(lane, 60, seed=2)
    for pair in pairs[:40]:  # past the first decision: a lane counts on `lane`
        both(lane, python, pair)
    landmarks.forget()  # the fields' notes go; the index's rent stays, lane or not
    both(lane, python, pairs[40])
    assert rent(lane) == rent(python) is not None
    for pair in pairs[41:]:
        both(lane, python, pair)
        assert decided(lane) == decided(python)


def test_a_lane_hands_its_found_counts_to_landmarks_when_the_index_forgets_the_array() -> None:
    lane, python = open_map(3), open_map(3)
    pairs = far_pairs(lane, 60, seed=4)
    for pair in pairs[:25]:
        both(lane, python, pair)
    jump_cache.forget()
    both(lane, python, pairs[25])
    assert probes(lane) == probes(python)
    for pair in pairs[26:]:
        both(lane, python, pair)
        assert decided(lane) == decided(python)


def test_a_lane_keeps_its_counts_when_other_arrays_evict_its_notes() -> None:
    lane, python = open_map(5), open_map(5)
    pairs = far_pairs(lane, 50, seed=6)
    others = [open_map(10 + i) for i in range(landmarks.MAX_ARRAYS)]
    other_pairs = far_pairs(others[0], 4, seed=7)
    for pair in pairs[:30]:
        both(lane, python, pair)
    for other in others:  # evict both arrays' landmark notes, not their index notes
        for start, goal in other_pairs:
            if other.flat[start] and other.flat[goal]:
                find_path(other, divmod(start, SIDE), divmod(goal, SIDE))
    del others
    gc.collect()
    both(lane, python, pairs[30])
    assert rent(lane) == rent(python)


def test_a_new_array_at_a_dead_ones_address_starts_its_counts_afresh() -> None:
    pairs = far_pairs(open_map(7), 30, seed=8)
    for round_ in range(6):
        lane, python = open_map(7), open_map(7)
        for pair in pairs[: 12 + round_]:
            both(lane, python, pair)
        assert decided(lane) == decided(python)
        del lane, python
        gc.collect()
    lane, python = freeze(open_map(7)), open_map(7)
    for pair in pairs:
        both(lane, python, pair)
    both(lane, python, pairs[0])
    assert decided(lane) == decided(python) is not None


def test_ten_thousand_short_lived_arrays_leak_nothing() -> None:
    walkable = open_map(9)
    pairs = [(divmod(s, SIDE), divmod(g, SIDE)) for s, g in far_pairs(walkable, 6, seed=10)]

    def churn(arrays: int) -> int:
        """Make, query and drop `arrays` arrays (a lane opens on each); the traced bytes."""
        for index in range(arrays):
            fresh = walkable.copy() if index % 2 else freeze(walkable)
            for start, goal in pairs:  # past the first decision on fields: a lane answers
                find_path(fresh, start, goal)
            del fresh
        gc.collect()
        return tracemalloc.get_traced_memory()[0]

    churn(50)
    tracemalloc.start()
    try:
        churn(500)  # every bounded cache full, whatever ran before
        before = tracemalloc.get_traced_memory()[0]
        after = churn(10_000)
    finally:
        tracemalloc.stop()
    # Four arrays' notes and eight lanes at most: a byte an array would be a leak.
    assert after - before < 10_000


def test_a_lane_hands_its_counts_on_when_its_array_is_reshaped_in_place() -> None:
    lane, python = open_map(11), open_map(11)
    pairs = far_pairs(lane, 40, seed=12)
    for pair in pairs[:20]:  # past the first decision: a lane counts on `lane`
        both(lane, python, pair)
    for array in (lane, python):
        array.shape = (SIDE // 2, SIDE * 2)  # the same array, its cells moved: the same notes
    start, goal = next((s, g) for s, g in pairs[20:] if abs(s % (2 * SIDE) - g % (2 * SIDE)) > 2)
    ends = divmod(start, 2 * SIDE), divmod(goal, 2 * SIDE)
    result = find_path(lane, *ends)
    found = landmarks.search(python, SIDE // 2, SIDE * 2, start, goal)
    assert (result.found, result.cost) == (found[0], found[2])
    assert rent(lane) == rent(python)
    assert probes(lane) == probes(python)


def test_edits_between_queries_leave_answers_and_decisions_as_the_python_paths() -> None:
    lane, python = open_map(13), open_map(13)
    pairs = far_pairs(lane, 60, seed=14)
    for index, pair in enumerate(pairs):
        both(lane, python, pair)  # the answers of the cells as they are now
        assert decided(lane) == decided(python)
        if index % 5 == 0:
            for array in (lane, python):
                array[3, 3 + index] = not array[3, 3 + index]
    jump_cache.forget()  # settles what the lane holds into the notes that remain
    both(lane, python, pairs[0])
    assert probes(lane) == probes(python)


def evicted_after_lane_queries(lanes: bool) -> list[bool]:
    """Which of five arrays keep landmarks' notes, lanes on or off, after one order of queries."""
    from sim.navigation.searches import _kernel

    landmarks.forget()
    jump_cache.forget()
    _kernel.lane_setup(
        call_cache.offer if lanes else lambda _: call_cache.LANE_RETRY, call_cache.settle
    )
    try:
        arrays = [open_map(20 + index) for index in range(landmarks.MAX_ARRAYS + 1)]
        pairs = far_pairs(arrays[0], 16, seed=21)

        def query(array: NDArray[np.bool_], pair: tuple[int, int]) -> None:
            find_path(array, divmod(pair[0], SIDE), divmod(pair[1], SIDE))

        for pair in pairs[:12]:  # a lane opens on the first array
            query(arrays[0], pair)
        for array in arrays[1:-1]:
            query(array, pairs[0])
        for pair in pairs[12:15]:  # the lane answers: the first array is the latest used
            query(arrays[0], pair)
        query(arrays[-1], pairs[1])  # one array's notes go: the least recently used one's
        with landmarks._lock:
            return [landmarks._entries.get(array) is not None for array in arrays]
    finally:
        _kernel.lane_setup(call_cache.offer, call_cache.settle)


def test_arrays_lanes_answer_stay_as_recently_used_as_without_lanes() -> None:
    assert evicted_after_lane_queries(lanes=True) == evicted_after_lane_queries(lanes=False)
