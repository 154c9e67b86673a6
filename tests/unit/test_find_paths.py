"""The batch call (`sim.navigation.find_paths`): `find_path`'s answers and errors, pair by pair."""

from __future__ import annotations

import inspect
import typing
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.navigation import PathResult, Query, SearchSettings, find_path, find_paths, pathfinder
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import kernel, kernel_batch
from tests.helpers.problems import layouts

OPTIONS = [
    {},
    {"algorithm": "astar"},
    {"algorithm": "jps"},
    {"algorithm": "jps", "heuristic": "euclidean"},
    {"algorithm": "astar", "diagonal": "never", "heuristic": "manhattan", "weight": 1.5},
    {"algorithm": "dijkstra", "diagonal": "always"},
    {"algorithm": "bfs", "diagonal": False},
    {"algorithm": "greedy", "diagonal": "one-obstacle"},
    {"algorithm": "astar", "diagonal": "one-obstacle"},
    {"algorithm": "dfs"},
    {"algorithm": "bidirectional"},
    {"algorithm": "theta"},
    {"implementation": "python"},
    {"algorithm": "astar", "costs": "random"},
    {"algorithm": "dijkstra", "diagonal": "always", "costs": "random"},
]


def parts(result: PathResult) -> tuple[Any, ...]:
    return (result.found, result.cells, result.cost, result.expanded, result.reason)


def singles(walkable: Any, starts: Any, goals: Any, options: dict[str, Any]) -> list[Any]:
    return [
        parts(find_path(walkable, (int(s[0]), int(s[1])), (int(g[0]), int(g[1])), **options))
        for s, g in zip(starts, goals, strict=True)
    ]


def test_both_calls_take_the_same_options_with_the_same_defaults() -> None:
    # find_paths takes SearchOptions and leaves the defaults to SearchSettings.parse; find_path
    # spells the options out: a new or changed option must go to all three.
    single = inspect.signature(find_path).parameters
    shared = {name: param for name, param in single.items() if name != "links"}
    shared = {n: p for n, p in shared.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    parse = inspect.signature(SearchSettings.parse).parameters
    hints = typing.get_type_hints(find_path)
    assert list(shared) == list(typing.get_type_hints(pathfinder.SearchOptions)) == list(parse)
    assert {name: param.default for name, param in shared.items()} == {
        name: param.default for name, param in parse.items()
    }
    assert {name: hints[name] for name in shared} == typing.get_type_hints(pathfinder.SearchOptions)
    batch = inspect.signature(find_paths).parameters["options"]
    assert batch.kind is inspect.Parameter.VAR_KEYWORD
    assert typing.get_type_hints(find_paths)["options"] == typing.Unpack[pathfinder.SearchOptions]


def test_an_option_find_path_does_not_take_is_refused() -> None:
    with pytest.raises(TypeError, match="links"):
        find_paths(np.ones((2, 2), dtype=bool), [(0, 0)], [(1, 1)], links=[])  # type: ignore[call-overload]


@st.composite
def cases(draw: st.DrawFn) -> tuple[Any, ...]:
    walkable, rng = draw(layouts(max_side=16, room=3))
    height, width = walkable.shape
    count = draw(st.integers(1, 12))
    # Goals may lie one cell outside the grid: that is a reason, not an error.
    starts = np.stack([rng.integers(0, height, count), rng.integers(0, width, count)], axis=1)
    goals = np.stack([rng.integers(-1, height + 1, count), rng.integers(-1, width + 1, count)], 1)
    options: dict[str, Any] = dict(draw(st.sampled_from(OPTIONS)))
    if options.get("costs") == "random":
        options["costs"] = rng.uniform(0.25, 4.0, (height, width))
    return walkable, starts, goals, options


@settings(max_examples=300, deadline=None)
@given(cases())
def test_the_batch_answers_as_single_calls(case: tuple[Any, ...]) -> None:
    walkable, starts, goals, options = case
    region_cache.clear()
    batch = [parts(result) for result in find_paths(walkable, starts, goals, **options)]
    # The batch labelled the array; single calls on a labelled array answer the same.
    assert batch == singles(walkable, starts, goals, options)


def test_pairs_may_be_sequences_of_tuples_or_arrays() -> None:
    walkable = np.ones((4, 5), dtype=bool)
    as_lists = find_paths(walkable, [(0, 0), (3, 4)], [[3, 4], (0, 0)])
    as_array = find_paths(walkable, np.array([[0, 0], [3, 4]], dtype=np.int32), [(3, 4), (0, 0)])
    assert [parts(result) for result in as_lists] == [parts(result) for result in as_array]
    assert as_lists[0].cells[-1] == (3, 4)
    assert find_paths(walkable, [], []) == []


def test_an_array_edited_in_place_is_read_as_it_is_now() -> None:
    walkable = np.ones((3, 5), dtype=bool)
    before = find_paths(walkable, [(1, 0)], [(1, 4)])[0]
    walkable[:, 2] = False  # a wall between them
    after = find_paths(walkable, [(1, 0)], [(1, 4)], algorithm="astar")[0]
    assert before.found
    assert after.reason.value == "unreachable"
    walkable[0, 2] = True
    again = find_paths(walkable, [(1, 0)], [(1, 4)], algorithm="astar")[0]
    assert parts(again) == parts(find_path(walkable, (1, 0), (1, 4), algorithm="astar"))


def calls_in_turn(walkable: Any, starts: Any, goals: Any, options: dict[str, Any]) -> None:
    for start, goal in zip(starts, goals, strict=True):
        find_path(walkable, start, goal, **options)


@pytest.mark.parametrize(
    ("walkable", "starts", "goals", "options", "message"),
    [
        (np.ones((3, 3)), [(0, 0)], [(2, 2)], {}, "walkable"),
        (np.ones(9, dtype=bool), [(0, 0)], [(2, 2)], {}, "walkable"),
        (np.ones((3, 3), dtype=bool), [(0, 0)], [(2, 2)], {"algorithm": "sideways"}, "sideways"),
        (np.ones((3, 3), dtype=bool), [(0, 0)], [(2, 2)], {"weight": 0.5}, "weight"),
        (
            np.ones((3, 3), dtype=bool),
            [(0, 0)],
            [(2, 2)],
            {"algorithm": "jps", "heuristic": "manhattan"},
            "manhattan",
        ),
        (np.ones((3, 3), dtype=bool), [(0, 0), (5, 0)], [(2, 2), (0, 0)], {}, "start"),
        (np.ones((3, 3), dtype=bool), [(0, 0)], [(2, 2)], {"costs": np.ones((2, 2))}, "costs"),
    ],
    ids=["not-bool", "not-2d", "algorithm", "weight", "jps-heuristic", "start-outside", "costs"],
)
def test_bad_inputs_raise_find_paths_first_error(
    walkable: Any, starts: Any, goals: Any, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message) as from_single:
        calls_in_turn(walkable, starts, goals, options)
    with pytest.raises(ValueError, match=message) as from_batch:
        find_paths(walkable, starts, goals, **options)
    assert str(from_batch.value) == str(from_single.value)


@pytest.mark.parametrize(
    ("starts", "goals", "message"),
    [
        ([(0, 0), (1, 1)], [(2, 2)], "2 starts but 1 goals"),
        ([(0.5, 0)], [(2, 2)], "starts must be N"),
        ([0, 0], [(2, 2)], "starts must be N"),
        ([(0, 0)], [(2, 2, 2)], "goals must be N"),
    ],
    ids=["lengths", "floats", "flat", "triples"],
)
def test_pairs_that_are_not_pairs_of_integers_are_named(
    starts: Any, goals: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        find_paths(np.ones((3, 3), dtype=bool), starts, goals)


@pytest.mark.skipif(not kernel.KERNEL_AVAILABLE, reason="needs the C kernel")
def test_the_c_batch_checks_its_pairs_before_any_search() -> None:
    walkable = np.ones((3, 3), dtype=bool)
    walkable[1, 1] = False
    query = Query.check(walkable, (0, 0), (2, 2), SearchSettings.parse(algorithm="astar"))
    good = np.array([0, 8], dtype=np.int64)
    with pytest.raises(ValueError, match="pair 1"):
        kernel_batch.batch(query, good, np.array([8, 4], dtype=np.int64))
    with pytest.raises(ValueError, match="pair 0"):
        kernel_batch.batch(query, np.array([9], dtype=np.int64), np.array([0], dtype=np.int64))
    with pytest.raises(ValueError, match="one length"):
        kernel_batch.batch(query, good, good[:1])


@pytest.mark.skipif(not kernel.KERNEL_AVAILABLE, reason="needs the C kernel")
@pytest.mark.parametrize("seed", range(5))
def test_the_pairs_in_c_are_the_pairs_in_python(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    walkable = rng.random((7, 9)) > 0.3
    starts = rng.integers(-2, 11, (40, 2)).astype(np.int64)
    goals = rng.integers(-2, 11, (40, 2)).astype(np.int64)
    compiled = kernel_batch.flat_pairs(walkable, starts, goals)
    monkeypatch.setattr(kernel, "KERNEL_AVAILABLE", False)
    python = kernel_batch.flat_pairs(walkable, starts, goals)
    assert compiled[0] == python[0]
    for ours, theirs in zip(compiled[1:], python[1:], strict=True):
        assert ours.tolist() == theirs.tolist()
