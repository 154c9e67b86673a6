"""`region_cache.proven_apart` (C, `_apart.c`) answers only what the region proof shows now.

`find_path` asks it before anything else on its common call; a True there is the whole
answer, so every way the remembered proof can go stale must give False (the Python path then
decides): a boundary cell opened in place, an end blocked, the map relabelled, another array
(even one at the address of a dead one), a reshaped or strided array, ends that are not
tuples of two ints inside the grid.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import Reason, find_path
from sim.navigation.regions import cache as region_cache

pytestmark = pytest.mark.skipif(
    not region_cache.APART_AVAILABLE, reason="needs the _apart extension"
)

START, GOAL = (0, 0), (6, 6)


@pytest.fixture(autouse=True)
def empty_cache() -> Iterator[None]:
    region_cache.clear()
    yield
    region_cache.clear()


def walled_in() -> NDArray[np.bool_]:
    """A 9 x 9 grid whose goal (6, 6) sits alone in a ring of blocked cells."""
    walkable = np.ones((9, 9), dtype=bool)
    walkable[5:8, 5:8] = False
    walkable[GOAL] = True
    return walkable


def proven(walkable: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """`walkable` after the queries that leave a proof for the C answer."""
    for _ in range(2):
        assert find_path(walkable, START, GOAL).reason is Reason.UNREACHABLE
    assert region_cache.proven_apart(walkable, START, GOAL)
    return walkable


def test_a_proof_answers_any_pair_across_the_same_sealed_boundary() -> None:
    walkable = proven(walled_in())
    assert region_cache.proven_apart(walkable, (8, 0), GOAL)
    assert region_cache.proven_apart(walkable, GOAL, (3, 2))
    assert not region_cache.proven_apart(walkable, START, (8, 8))  # same region: no proof
    result = find_path(walkable, (8, 0), GOAL)
    assert (result.found, result.reason, result.expanded, result.cells) == (
        False,
        Reason.UNREACHABLE,
        0,
        (),
    )


def test_an_opened_boundary_cell_ends_the_proof_at_once() -> None:
    walkable = proven(walled_in())
    walkable[5, 6] = True
    assert not region_cache.proven_apart(walkable, START, GOAL)
    assert find_path(walkable, START, GOAL).found
    walkable[5, 6] = False
    assert find_path(walkable, START, GOAL).reason is Reason.UNREACHABLE


@pytest.mark.parametrize(("cell", "reason"), [(START, Reason.START_BLOCKED), (GOAL, None)])
def test_a_blocked_end_is_not_proven_unreachable(cell, reason) -> None:
    walkable = proven(walled_in())
    walkable[cell] = False
    assert not region_cache.proven_apart(walkable, START, GOAL)
    expected = reason or Reason.GOAL_BLOCKED
    assert find_path(walkable, START, GOAL).reason is expected


def test_a_changed_map_is_not_read_until_proven_again() -> None:
    walkable = proven(walled_in())
    regions = region_cache.labelled(walkable)
    assert regions is not None
    before = regions.version
    walkable[0, 4] = False  # far from the ring: the proof would still hold
    region_cache.cells_changed(walkable, np.array([4]))
    assert regions.version > before
    assert not region_cache.proven_apart(walkable, START, GOAL)  # the map moved on
    assert find_path(walkable, START, GOAL).expanded == 0  # proven again in Python
    assert region_cache.proven_apart(walkable, START, GOAL)


def test_another_array_is_never_answered_even_at_a_dead_ones_address() -> None:
    walkable = proven(walled_in())
    assert not region_cache.proven_apart(walkable.copy(), START, GOAL)
    del walkable
    gc.collect()
    for _ in range(20):  # an array of the same size often lands where the last one lay
        fresh = np.ones((9, 9), dtype=bool)
        assert not region_cache.proven_apart(fresh, START, GOAL)
        assert find_path(fresh, START, GOAL).found


def test_a_map_the_cache_dropped_is_not_read() -> None:
    walkable = proven(walled_in())
    others = [np.ones((4, 4), dtype=bool) for _ in range(region_cache.MAX_ARRAYS + 1)]
    for other in others:  # the least recently queried array, ours, leaves the cache
        find_path(other, (0, 0), (3, 3))
    gc.collect()
    assert region_cache.labelled(walkable) is None
    assert not region_cache.proven_apart(walkable, START, GOAL)
    assert find_path(walkable, START, GOAL).reason is Reason.UNREACHABLE


def test_a_clear_forgets_the_proof() -> None:
    walkable = proven(walled_in())
    region_cache.clear()
    assert not region_cache.proven_apart(walkable, START, GOAL)


def test_a_reshaped_or_strided_array_is_not_answered() -> None:
    walkable = proven(walled_in())
    walkable.shape = (3, 27)
    assert not region_cache.proven_apart(walkable, START, (2, 6))
    walkable.shape = (9, 9)
    assert region_cache.proven_apart(walkable, START, GOAL)
    base = np.zeros((9, 18), dtype=bool)
    base[:, ::2] = walled_in()
    strided = base[:, ::2]
    assert not region_cache.proven_apart(strided, START, GOAL)
    assert find_path(strided, START, GOAL).reason is Reason.UNREACHABLE


@pytest.mark.parametrize(
    "goal",
    [
        (np.int64(6), 6),
        [6, 6],
        (6, 6, 0),
        (6,),
        (6, 9),
        (-1, 6),
        (2**70, 6),
        (6.0, 6),
        (True, 6),
        "66",
    ],
)
def test_ends_off_the_common_shape_are_not_answered(goal) -> None:
    walkable = proven(walled_in())
    assert not region_cache.proven_apart(walkable, START, goal)


def test_wrong_arguments_are_a_type_error_not_a_crash() -> None:
    with pytest.raises(TypeError):
        region_cache.proven_apart(walled_in(), START)  # type: ignore[call-arg]


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    edits=st.lists(st.lists(st.integers(0, 63), max_size=3), min_size=1, max_size=20),
)
def test_a_c_answer_is_always_the_truth_through_edits_in_place(seed, edits) -> None:
    # Islands on a tiny grid, edited in place between queries; whatever C answers must be
    # what a search on a fresh copy (no cache) says.
    region_cache.clear()
    rng = np.random.default_rng(seed)
    walkable = rng.random((8, 8)) < 0.5
    for cells in edits:
        walkable.reshape(-1)[cells] ^= True
        for _ in range(2):
            start = (int(rng.integers(0, 8)), int(rng.integers(0, 8)))
            goal = (int(rng.integers(0, 8)), int(rng.integers(0, 8)))
            said = region_cache.proven_apart(walkable, start, goal)
            result = find_path(walkable, start, goal)
            fresh = find_path(walkable.copy(), start, goal)
            assert (result.found, result.reason) == (fresh.found, fresh.reason)
            if said:
                assert fresh.reason is Reason.UNREACHABLE
