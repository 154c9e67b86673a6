"""The array form of the batch call (`find_paths(..., as_arrays=True)`, `PathBatch`).

Pair by pair it must answer as the list form and as `find_path` do, for every algorithm and
rule; its arrays must agree with each other (lengths, offsets, cells); and where the searches
run in C the arrays must come from the C loops, not from a `PathResult` a pair.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings

from sim.navigation import PathBatch, PathResult, Reason, find_path, find_paths
from sim.navigation.batch import REASONS
from sim.navigation.maps.generators import generate_layout
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import kernel, kernel_batch, landmarks, lazy_cells
from tests.unit.test_find_paths import cases, parts, singles

needs_c = pytest.mark.skipif(
    not (kernel.KERNEL_AVAILABLE and kernel.JPS_AVAILABLE), reason="needs the C searches"
)


def check_arrays(batch: PathBatch, width: int) -> None:
    """The arrays agree with each other and with ``batch[i]``, and none can be written."""
    count = len(batch)
    assert batch.found.dtype == np.bool_
    assert batch.cost.dtype == np.float64
    assert batch.expanded.dtype == np.int64
    assert batch.reason.dtype == np.int8
    assert batch.lengths.dtype == np.int64
    assert batch.offsets.dtype == np.int64
    assert batch.cells.dtype == np.int32
    assert [len(array) for array in (batch.cost, batch.expanded, batch.reason)] == [count] * 3
    assert batch.offsets.tolist() == [0, *np.cumsum(batch.lengths).tolist()]
    assert len(batch.cells) == batch.offsets[-1]
    for index in range(count):
        result = batch[index]
        assert REASONS[batch.reason[index]] is result.reason
        assert bool(batch.found[index]) is result.found
        assert batch.path(index).tolist() == [list(cell) for cell in result.cells]
        flat = [row * width + col for row, col in result.cells]
        assert batch.cells[batch.offsets[index] : batch.offsets[index + 1]].tolist() == flat
    for array in (batch.found, batch.cost, batch.reason, batch.offsets, batch.cells):
        assert not array.flags.writeable


@settings(max_examples=250, deadline=None)
@given(cases())
def test_the_array_form_answers_as_the_list_form_and_single_calls(case: tuple[Any, ...]) -> None:
    walkable, starts, goals, options = case
    region_cache.clear()
    batch = find_paths(walkable, starts, goals, as_arrays=True, **options)
    # Both forms and the single calls answer on the array the first call labelled.
    listed = find_paths(walkable, starts, goals, **options)
    assert [parts(batch[i]) for i in range(len(batch))] == [parts(r) for r in listed]
    assert [parts(result) for result in batch.results()] == singles(
        walkable, starts, goals, options
    )
    assert batch.results() == listed
    check_arrays(batch, walkable.shape[1])


def test_reason_codes_are_the_reasons_in_order() -> None:
    # _flat_path.h writes REASON_FOUND = 0 and REASON_UNREACHABLE = 4.
    assert REASONS[0] is Reason.FOUND
    assert REASONS[4] is Reason.UNREACHABLE
    assert tuple(Reason) == REASONS


@needs_c
@pytest.mark.parametrize(
    "options",
    [{}, {"algorithm": "jps"}, {"algorithm": "astar"}, {"algorithm": "dijkstra"}],
    ids=["auto", "jps", "astar", "dijkstra"],
)
def test_c_searches_fill_the_arrays_without_a_result_a_pair(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found, unreachable, blocked, outside and start == goal in one batch. Under "always"
    # (A*, Dijkstra) the regions are not cached and C finds the unreachable pair itself; jump
    # point search keeps the default rule, whose regions answer it before C (merged in).
    walkable = np.ones((6, 7), dtype=bool)
    walkable[:, 3] = False
    walkable[5, 6] = False
    if options.get("algorithm") in ("astar", "dijkstra"):
        options = {**options, "diagonal": "always"}
    starts = [(0, 0), (0, 0), (0, 0), (2, 1), (4, 4), (1, 1)]
    goals = [(5, 2), (0, 6), (5, 6), (2, 9), (0, 6), (1, 1)]
    expected = find_paths(walkable, starts, goals, **options)

    def no_list(*args: Any, **kwargs: Any) -> list[PathResult]:
        raise AssertionError("the array form built the list form")

    monkeypatch.setattr(kernel_batch, "batch", no_list)
    monkeypatch.setattr(kernel_batch, "jps_batch", no_list)
    batch = find_paths(walkable, starts, goals, as_arrays=True, **options)
    assert batch.results() == expected
    reasons = [REASONS[code] for code in batch.reason]
    assert reasons[1:4] == [Reason.UNREACHABLE, Reason.GOAL_BLOCKED, Reason.GOAL_OUTSIDE]
    assert batch.found.tolist() == [True, False, False, False, True, True]
    assert batch.lengths[5] == 1
    assert batch.cost[5] == 0.0
    check_arrays(batch, 7)


def test_no_pairs_is_an_empty_batch() -> None:
    batch = find_paths(np.ones((2, 2), dtype=bool), [], [], as_arrays=True)
    assert len(batch) == 0
    assert batch.offsets.tolist() == [0]
    assert batch.results() == []


def test_an_index_counts_back_and_stops_at_the_end() -> None:
    walkable = np.ones((3, 3), dtype=bool)
    batch = find_paths(walkable, [(0, 0), (2, 2)], [(2, 2), (0, 0)], as_arrays=True)
    assert batch[-1] == find_path(walkable, (2, 2), (0, 0))
    with pytest.raises(IndexError):
        batch[2]
    with pytest.raises(IndexError):
        batch.path(-3)


@needs_c
def test_the_landmark_maps_answer_alike_without_laying_out_cells(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Default options on 256 x 256 cells or more: landmarks may pay, one call a pair.
    walkable = generate_layout("rooms", 256, 256, seed=3, room=16)
    free = np.argwhere(walkable)
    rng = np.random.default_rng(3)
    starts, goals = free[rng.integers(0, len(free), 40)], free[rng.integers(0, len(free), 40)]
    listed = find_paths(walkable, starts, goals)
    searched = []
    search = landmarks.search

    def counted(*args: Any) -> Any:
        searched.append(args)
        return search(*args)

    monkeypatch.setattr(landmarks, "search", counted)
    batch = find_paths(walkable, starts, goals, as_arrays=True)
    assert len(searched) == 40  # the landmark route, one search a pair
    check_arrays(batch, 256)
    assert batch.results() == listed
    # The list form's flat paths were copied into the arrays, not laid out as pairs.
    fresh = find_paths(walkable, starts, goals)
    assert PathBatch.of(fresh, 256).cells.tolist() == batch.cells.tolist()
    assert not any(lazy_cells.laid_out(result) for result in fresh if result.found)


@pytest.mark.parametrize("compiled", [True, False], ids=["c", "numpy"])
def test_pairs_apart_are_cleared_alike_in_c_and_numpy(
    compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if compiled and not kernel.KERNEL_AVAILABLE:
        pytest.skip("needs the C kernel")
    monkeypatch.setattr(kernel, "KERNEL_AVAILABLE", compiled)
    labels = np.array([[0, 0, 1], [2, 1, 1]], dtype=np.int32)
    starts = np.array([0, 0, 2, 3, 1], dtype=np.int64)
    goals = np.array([1, 2, 4, 3, 5], dtype=np.int64)
    searchable = np.array([True, True, True, True, False])
    assert kernel_batch.apart(labels, starts, goals, searchable) == [1]
    assert searchable.tolist() == [True, False, True, True, False]
