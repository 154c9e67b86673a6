"""`find_paths` with options checked once (`kernel_batch.plan_of`): the checked path's answers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.navigation import PathResult, Reason, find_path, find_paths
from sim.navigation.batch import PathBatch
from sim.navigation.searches import call_cache, kernel_batch

pytestmark = pytest.mark.skipif(not call_cache.COMPILED, reason="needs the C searches")

RULES = ("never", "no-corner-cutting", "one-obstacle", "always")
ALGORITHMS = ("auto", "astar", "dijkstra", "bfs", "greedy", "jps", "dfs")


def answers(results: list[PathResult] | PathBatch) -> list[tuple[Any, ...]]:
    listed = results.results() if isinstance(results, PathBatch) else results
    return [(r.found, r.cells, r.cost, r.expanded, r.reason) for r in listed]


def run(
    walkable: Any, starts: Any, goals: Any, options: dict[str, Any], arrays: bool
) -> list[PathResult] | PathBatch:
    if arrays:
        return find_paths(walkable, starts, goals, as_arrays=True, **options)
    return find_paths(walkable, starts, goals, **options)


def batch(walkable: Any, starts: Any, goals: Any, options: dict[str, Any], arrays: bool) -> Any:
    try:
        return answers(run(walkable, starts, goals, options, arrays))
    except ValueError as error:
        return str(error)


def checked(walkable: Any, starts: Any, goals: Any, options: dict[str, Any], arrays: bool) -> Any:
    """`batch` with the plans switched off: every batch checked as before them."""
    real = kernel_batch.plan_of
    kernel_batch.plan_of = lambda _: None  # type: ignore[assignment]
    try:
        return batch(walkable, starts, goals, options, arrays)
    finally:
        kernel_batch.plan_of = real


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    algorithm=st.sampled_from(ALGORITHMS),
    diagonal=st.sampled_from(RULES),
    heuristic=st.sampled_from(("octile", "manhattan")),
    arrays=st.booleans(),
)
def test_a_planned_batch_answers_as_the_checked_one(
    seed: int, algorithm: str, diagonal: str, heuristic: str, arrays: bool
) -> None:
    rng = np.random.default_rng(seed)
    ours = rng.random((8, 10)) > 0.25
    theirs = ours.copy()  # the same batches in the same order: the region cache's too
    options = {"algorithm": algorithm, "diagonal": diagonal, "heuristic": heuristic}
    for _ in range(3):
        open_cells = np.argwhere(ours)
        picks = rng.integers(0, len(open_cells), (2, 12)) if len(open_cells) else None
        if picks is None:
            return
        starts, goals = open_cells[picks[0]], open_cells[picks[1]]
        # The second and third batches find the options planned and the array labelled.
        assert batch(ours, starts, goals, options, arrays) == checked(
            theirs, starts, goals, options, arrays
        )
        cell = tuple(rng.integers(0, (8, 10)))
        ours[cell] = theirs[cell] = not ours[cell]  # an edit in place between two batches


@pytest.mark.parametrize("arrays", [False, True])
@pytest.mark.parametrize("options", [{}, {"algorithm": "jps"}, {"algorithm": "astar"}], ids=str)
def test_an_edit_between_two_batches_is_read(options: dict[str, Any], arrays: bool) -> None:
    walkable = np.ones((5, 7), dtype=bool)
    starts, goals = np.array([[2, 0], [0, 0]]), np.array([[2, 6], [4, 6]])
    for _ in range(3):
        first = run(walkable, starts, goals, options, arrays)
    assert kernel_batch.plan_of(dict(options)) is not None
    assert [r.cost for r in answers_of(first)] == [6.0, 2 + 4 * 2**0.5]
    walkable[1:, 3] = False  # a wall with a gap at the top: both paths go round it
    after = answers_of(run(walkable, starts, goals, options, arrays))
    singles = [
        find_path(walkable.copy(), tuple(s), tuple(g), **options)
        for s, g in zip(starts.tolist(), goals.tolist(), strict=True)
    ]
    assert [r.cost for r in after] == [r.cost for r in singles]
    assert all((0, 3) in r.cells for r in after)
    walkable[0, 3] = False  # closed: both goals out of reach
    closed = answers_of(run(walkable, starts, goals, options, arrays))
    assert [r.reason for r in closed] == [Reason.UNREACHABLE, Reason.UNREACHABLE]
    assert [r.expanded for r in closed] == [0, 0]  # proven by the labels brought up to date


def answers_of(results: list[PathResult] | PathBatch) -> list[PathResult]:
    return results.results() if isinstance(results, PathBatch) else results


def test_plans_tell_equal_values_of_other_types_apart() -> None:
    walkable = np.ones((3, 3), dtype=bool)
    for _ in range(2):
        find_paths(walkable, [(0, 0)], [(2, 2)], weight=1.0)
    with pytest.raises(ValueError, match="weight must be a number"):
        find_paths(walkable, [(0, 0)], [(2, 2)], weight=True)
    assert kernel_batch.plan_of({"costs": np.ones((3, 3))}) is None
