"""`find_path`'s C call hands the plain search the bytes it checked and holds (`_plain_call.h`).

The call takes the array's buffer once and the search reads those very bytes; these tests hold
the answers to the Python path's through edits between calls, on frozen arrays, and for the
`PathResult` the call builds field by field.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.navigation import PathResult, Reason, find_path, freeze
from sim.navigation.searches import call_cache

pytestmark = pytest.mark.skipif(not call_cache.COMPILED, reason="needs the C kernels")

OPTIONS = ("jps", True, "octile", 1.0, "auto")
"""`algorithm="jps"` as `find_path` hands it to the C call, the other options at their defaults."""
ALGORITHMS = ("jps", "astar")
"""The two searches the call runs on its held view: the plain jump point search and _kernel's."""


def room() -> np.ndarray:
    """A 12 x 16 room with a wall down column 8, open at its two ends."""
    walkable = np.ones((12, 16), dtype=bool)
    walkable[1:11, 8] = False
    return walkable


def taught(
    walkable: np.ndarray, start: tuple[int, int], goal: tuple[int, int], algorithm: str = "jps"
) -> None:
    """Two calls: the C call learns the options and the array's region labels."""
    for _ in range(2):
        find_path(walkable, start, goal, algorithm=algorithm)
    assert isinstance(call_cache.call(walkable, start, goal, algorithm, *OPTIONS[1:]), PathResult)


def python_answer(
    walkable: np.ndarray, start: tuple[int, int], goal: tuple[int, int], algorithm: str = "jps"
) -> PathResult:
    """The Python path's answer on a copy of `walkable`."""
    return find_path(walkable.copy(), start, goal, algorithm=algorithm, implementation="python")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_an_edit_in_place_between_calls_gives_the_new_answer(algorithm: str) -> None:
    walkable = room()
    start, goal = (5, 2), (5, 13)
    options = (algorithm, *OPTIONS[1:])
    taught(walkable, start, goal, algorithm)
    before = call_cache.call(walkable, start, goal, *options)
    walkable[0, 8] = False  # the top gap closes: the path must go round the bottom
    after = call_cache.call(walkable, start, goal, *options)
    assert isinstance(after, PathResult)
    assert after.cost > before.cost
    assert (0, 8) not in after.cells
    assert (11, 8) in after.cells
    expected = python_answer(walkable, start, goal, algorithm)
    assert repr(after) == repr(expected)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_goal_cut_off_in_place_is_left_to_the_python_path(algorithm: str) -> None:
    walkable = room()
    start, goal = (5, 2), (5, 13)
    taught(walkable, start, goal, algorithm)
    walkable[0, 8] = walkable[11, 8] = False  # the labels still say one region
    assert call_cache.call(walkable, start, goal, algorithm, *OPTIONS[1:]) is None
    result = find_path(walkable, start, goal, algorithm=algorithm)
    assert (result.found, result.reason) == (False, Reason.UNREACHABLE)


def test_a_frozen_array_answers_as_its_writable_copy() -> None:
    walkable = freeze(room())
    start, goal = (3, 1), (9, 14)
    taught(walkable, start, goal)
    answer = call_cache.call(walkable, start, goal, *OPTIONS)
    expected = python_answer(np.array(walkable), start, goal)
    assert (answer.found, answer.cost, answer.reason) == (True, expected.cost, Reason.FOUND)
    assert answer.cells == expected.cells


def test_the_call_builds_a_whole_frozen_path_result() -> None:
    walkable = room()
    start, goal = (2, 3), (10, 12)
    taught(walkable, start, goal)
    answer = call_cache.call(walkable, start, goal, *OPTIONS)
    expected = python_answer(walkable, start, goal)
    assert type(answer) is PathResult
    assert repr(answer) == repr(expected)
    with pytest.raises(dataclasses.FrozenInstanceError):
        answer.cost = 0.0  # type: ignore[misc]


def test_start_is_goal_through_the_call() -> None:
    walkable = room()
    taught(walkable, (4, 4), (4, 4))
    answer = call_cache.call(walkable, (4, 4), (4, 4), *OPTIONS)
    assert (answer.found, answer.cells, answer.cost, answer.expanded) == (True, ((4, 4),), 0.0, 1)
