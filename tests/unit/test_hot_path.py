"""find_path's common call (`sim.navigation.hot_path`) answers exactly as the general path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.navigation import Reason, SearchSettings, find_path, find_path_with
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import kernel

pytestmark = pytest.mark.skipif(not kernel.JPS_AVAILABLE, reason="needs the _jps extension")


def general(walkable, start, goal):
    # Settings that are not the common ones take Query.check and kernel.solve.
    return find_path_with(walkable, start, goal, SearchSettings.parse(implementation="c"))


def same(a, b) -> bool:
    return (a.found, a.cells, a.cost, a.expanded, a.reason) == (
        b.found,
        b.cells,
        b.cost,
        b.expanded,
        b.reason,
    )


@st.composite
def grids(draw):
    height = draw(st.integers(1, 14))
    width = draw(st.integers(1, 14))
    density = draw(st.sampled_from([0.0, 0.2, 0.35, 0.5]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    walkable = rng.random((height, width)) >= density
    cell = st.tuples(st.integers(0, height - 1), st.integers(0, width - 1))
    return walkable, draw(cell), draw(cell)


@settings(max_examples=300, deadline=None)
@given(grids())
def test_the_common_call_answers_as_the_general_path(case) -> None:
    walkable, start, goal = case
    # The first query, the one that labels, and a repeat: each path from an empty cache.
    region_cache.clear()
    common = [find_path(walkable, start, goal) for _ in range(3)]
    region_cache.clear()
    checked = [general(walkable, start, goal) for _ in range(3)]
    assert all(same(a, b) for a, b in zip(common, checked, strict=True))


@pytest.mark.parametrize(
    ("start", "goal"),
    [((0, 0), (0, 9)), ((0, 0), (5, 0)), ((0, 0), (0, -1)), ((np.int64(0), 0), (2, 2))],
)
def test_calls_off_the_common_shape_answer_as_before(start, goal) -> None:
    walkable = np.ones((3, 10), dtype=bool)
    walkable[1, 1] = False
    if goal == (5, 0):
        assert find_path(walkable, start, goal).reason is Reason.GOAL_OUTSIDE
    else:
        assert same(find_path(walkable, start, goal), general(walkable, start, goal))
    fortran = np.asfortranarray(walkable)
    assert same(find_path(fortran, start, (2, 2)), general(walkable, start, (2, 2)))
    with pytest.raises(ValueError, match="start"):
        find_path(walkable, [0, 0, 0], goal)  # type: ignore[arg-type]


def walled_in() -> np.ndarray:
    walkable = np.ones((9, 9), dtype=bool)
    walkable[5:8, 5:8] = False
    walkable[6, 6] = True  # a goal in a ring
    return walkable


def test_a_kept_proof_answers_repeats_at_once_and_never_stays_stale() -> None:
    region_cache.clear()
    walkable = walled_in()
    start, goal = (0, 0), (6, 6)
    assert find_path(walkable, start, goal).expanded > 0  # searched: nothing labelled yet
    again = find_path(walkable, start, goal)
    assert (again.reason, again.expanded) == (Reason.UNREACHABLE, 0)
    # The proof is kept for the next query on the array, answered before any Python check.
    assert region_cache.proven_apart(walkable, start, goal) is region_cache.APART_AVAILABLE
    assert region_cache.proven_apart(walkable, goal, start) is region_cache.APART_AVAILABLE
    assert find_path(walkable, start, goal).expanded == 0
    assert find_path(walkable, (0, 8), goal).expanded == 0  # another start, the same proof
    walkable[5, 6] = True  # opens the ring: the proof no longer holds
    opened = find_path(walkable, start, goal)
    assert opened.found
    assert same(opened, general(walkable, start, goal))
    walkable[5, 6] = False
    assert find_path(walkable, start, goal).reason is Reason.UNREACHABLE
    walkable[6, 6] = False  # the goal itself is now blocked: say so, not "unreachable"
    assert find_path(walkable, start, goal).reason is Reason.GOAL_BLOCKED
    walkable[6, 6] = True
    walkable[0, 0] = False
    assert find_path(walkable, start, goal).reason is Reason.START_BLOCKED


def test_a_proof_belongs_to_its_array_and_its_ends() -> None:
    region_cache.clear()
    walkable = walled_in()
    for _ in range(2):
        find_path(walkable, (0, 0), (6, 6))
    copy = walled_in()
    copy[5, 6] = True  # a different array, open: the kept proof must not answer for it
    assert find_path(copy, (0, 0), (6, 6)).found
    assert find_path(walkable, (0, 0), (1, 1)).found
    reshaped = walled_in()
    for _ in range(2):
        find_path(reshaped, (0, 0), (6, 6))
    reshaped.shape = (3, 27)  # the same cells read as another grid
    assert same(find_path(reshaped, (0, 0), (2, 20)), general(reshaped, (0, 0), (2, 20)))
