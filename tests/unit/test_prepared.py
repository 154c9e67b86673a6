"""Options checked once (`sim.navigation.prepared`): the same answers and errors as ever."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.navigation import PathResult, SearchSettings, find_path, find_path_with, prepared
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import kernel

pytestmark = pytest.mark.skipif(
    not (kernel.KERNEL_AVAILABLE and kernel.JPS_AVAILABLE), reason="needs the C kernels"
)

OPTIONS = [
    {"algorithm": "astar"},
    {"algorithm": "jps"},
    {"algorithm": "jps", "heuristic": "euclidean"},
    {"algorithm": "dijkstra", "diagonal": "always"},
    {"algorithm": "bfs", "diagonal": False},
    {"algorithm": "greedy", "diagonal": "one-obstacle"},
    {"algorithm": "astar", "weight": 1.5, "heuristic": "manhattan", "diagonal": "never"},
    {"diagonal": "never"},
    {"heuristic": "euclidean"},
    {"implementation": "c"},
]


def general(walkable: Any, start: Any, goal: Any, options: dict[str, Any]) -> PathResult:
    # find_path_with takes settings as they are: the checks on every call, then the kernel.
    return find_path_with(walkable, start, goal, SearchSettings.parse(**options))


def parts(result: PathResult) -> tuple[Any, ...]:
    return (result.found, result.cells, result.cost, result.expanded, result.reason)


@st.composite
def grids(draw: st.DrawFn) -> tuple[Any, ...]:
    height = draw(st.integers(1, 12))
    width = draw(st.integers(1, 12))
    density = draw(st.sampled_from([0.0, 0.2, 0.35, 0.5]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walkable = rng.random((height, width)) >= density
    cell = st.tuples(st.integers(0, height - 1), st.integers(0, width - 1))
    return walkable, draw(cell), draw(cell), draw(st.sampled_from(OPTIONS))


@settings(max_examples=400, deadline=None)
@given(grids())
def test_prepared_options_answer_as_the_general_path(case: tuple[Any, ...]) -> None:
    walkable, start, goal, options = case
    # The first query, the one that labels, and a repeat: each path from an empty cache.
    region_cache.clear()
    fast = [parts(find_path(walkable, start, goal, **options)) for _ in range(3)]
    region_cache.clear()
    checked = [parts(general(walkable, start, goal, options)) for _ in range(3)]
    assert fast == checked


def test_the_options_are_checked_once_and_kept() -> None:
    walkable = np.ones((4, 4), dtype=bool)
    find_path(walkable, (0, 0), (3, 3), algorithm="astar", weight=2.0)
    call = prepared.prepared(True, "octile", "astar", 2.0, "auto")
    assert call is not None
    assert call.h_factor == 2.0
    assert prepared.prepared(True, "octile", "astar", 2.0, "auto") is call
    # Equal values of other types are other options: 1 is not True, 2 is not 2.0.
    assert prepared.prepared(True, "octile", "astar", 2, "auto") is not call
    with pytest.raises(ValueError, match="diagonal"):
        find_path(walkable, (0, 0), (3, 3), diagonal=1, algorithm="astar")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"algorithm": "jps", "heuristic": "manhattan"}, "manhattan"),
        ({"algorithm": "astar", "weight": 0.5}, "weight"),
        ({"algorithm": "sideways"}, "sideways"),
        ({"implementation": "fortran", "algorithm": "astar"}, "fortran"),
    ],
)
def test_bad_options_still_fail_every_time(options: dict[str, Any], message: str) -> None:
    walkable = np.ones((3, 3), dtype=bool)
    for _ in range(2):
        with pytest.raises(ValueError, match=message):
            find_path(walkable, (0, 0), (2, 2), **options)


def test_searches_c_does_not_run_and_the_python_implementation_go_the_general_way() -> None:
    assert prepared.prepared(True, "octile", "bidirectional", 1.0, "auto") is None
    assert prepared.prepared(True, "octile", "theta", 1.0, "auto") is None
    assert prepared.prepared(True, "octile", "astar", 1.0, "python") is None
    walkable = np.ones((5, 5), dtype=bool)
    walkable[2, 1:4] = False
    for algorithm in ("bidirectional", "dfs", "theta"):
        result = find_path(walkable, (0, 0), (4, 4), algorithm=algorithm)
        assert parts(result) == parts(general(walkable, (0, 0), (4, 4), {"algorithm": algorithm}))


def test_early_answers_keep_their_reasons() -> None:
    walkable = np.ones((3, 3), dtype=bool)
    walkable[1, 1] = False
    assert find_path(walkable, (1, 1), (0, 0), algorithm="astar").reason.value == "start blocked"
    assert find_path(walkable, (0, 0), (1, 1), algorithm="astar").reason.value == "goal blocked"
    assert (
        find_path(walkable, (0, 0), (5, 5), algorithm="astar").reason.value
        == "goal outside the grid"
    )
    with pytest.raises(ValueError, match="start"):
        find_path(walkable, (9, 9), (0, 0), algorithm="astar")
