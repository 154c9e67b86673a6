"""`find_path` in one C call (`call_cache`): the Python path's answers, edits read as they are."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.navigation import (
    PathResult,
    Reason,
    SearchSettings,
    find_path,
    find_path_with,
    hot_path,
)
from sim.navigation.maps.generators import generate_layout
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import call_cache, jump_cache, kernel, landmarks

pytestmark = pytest.mark.skipif(not call_cache.COMPILED, reason="needs the C searches")

RULES = ("never", "no-corner-cutting", "one-obstacle", "always")
ALGORITHMS = ("auto", "astar", "dijkstra", "bfs", "greedy", "dfs", "jps", "bidirectional", "theta")


def full(walkable: Any, start: Any, goal: Any, options: dict[str, Any]) -> Any:
    """The answer of the general path (every check, no memo), or its error's words."""
    try:
        result = find_path_with(walkable, start, goal, SearchSettings.parse(**options))
    except ValueError as error:
        return str(error)
    return (result.found, result.cells, result.cost, result.expanded, result.reason)


def called(walkable: Any, start: Any, goal: Any, options: dict[str, Any]) -> Any:
    try:
        result = find_path(walkable, start, goal, **options)
    except ValueError as error:
        return str(error)
    return (result.found, result.cells, result.cost, result.expanded, result.reason)


def in_c(walkable: Any, start: Any, goal: Any, options: dict[str, Any]) -> Any:
    """What the C call answers by itself (a PathResult, None or NotImplemented)."""
    every = {
        "algorithm": "auto",
        "diagonal": True,
        "heuristic": "octile",
        "weight": 1.0,
        "implementation": "auto",
        **options,
    }
    return call_cache.call(
        walkable,
        start,
        goal,
        every["algorithm"],
        every["diagonal"],
        every["heuristic"],
        every["weight"],
        every["implementation"],
    )


def without_c(walkable: Any, start: Any, goal: Any, options: dict[str, Any]) -> Any:
    """`called` with the C call switched off: the Python path alone, as before it."""
    call_cache.COMPILED = False
    try:
        return called(walkable, start, goal, options)
    finally:
        call_cache.COMPILED = True


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    algorithm=st.sampled_from(ALGORITHMS),
    diagonal=st.sampled_from(RULES),
    heuristic=st.sampled_from(("octile", "manhattan", "zero")),
)
def test_the_c_call_answers_as_the_python_path(
    seed: int, algorithm: str, diagonal: str, heuristic: str
) -> None:
    rng = np.random.default_rng(seed)
    ours = rng.random((9, 11)) > 0.3
    theirs = ours.copy()  # the same queries in the same order: the region cache's too
    options = {"algorithm": algorithm, "diagonal": diagonal, "heuristic": heuristic}
    cells = [tuple(int(v) for v in cell) for cell in rng.integers(0, 9, (12, 2))]
    for start, goal in zip(cells[::2], cells[1::2], strict=True):
        # Three times each: the first teaches the options, the second labels the array, the
        # third runs in C where it can.
        for _ in range(3):
            assert called(ours, start, goal, options) == without_c(theirs, start, goal, options)
        if ours[start] and ours[goal]:
            assert called(ours, start, goal, options)[:3] == full(ours, start, goal, options)[:3]


def test_repeated_calls_are_answered_in_c() -> None:
    walkable = np.ones((6, 8), dtype=bool)
    every: list[dict[str, Any]] = [
        {},
        {"algorithm": "jps"},
        {"algorithm": "astar", "diagonal": "never"},
    ]
    for options in every:
        for _ in range(3):
            find_path(walkable, (0, 0), (5, 7), **options)
        answer = in_c(walkable, (0, 0), (5, 7), options)
        assert type(answer) is PathResult
        assert answer == find_path_with(walkable, (0, 0), (5, 7), SearchSettings.parse(**options))


@pytest.mark.parametrize("options", [{}, {"algorithm": "jps"}, {"algorithm": "astar"}], ids=str)
def test_an_edit_between_two_calls_is_read(options: dict[str, Any]) -> None:
    walkable = np.ones((5, 7), dtype=bool)
    for _ in range(3):  # taught, labelled, then answered in C
        find_path(walkable, (2, 0), (2, 6), **options)
    assert type(in_c(walkable, (2, 0), (2, 6), options)) is PathResult
    walkable[1:4, 3] = False  # a wall across the straight line: the path goes around it
    detour = find_path(walkable, (2, 0), (2, 6), **options)
    assert detour == find_path_with(
        walkable.copy(), (2, 0), (2, 6), SearchSettings.parse(**options)
    )
    assert (2, 3) not in detour.cells
    walkable[:, 3] = False  # the wall closed: no way across
    assert find_path(walkable, (2, 0), (2, 6), **options).reason is Reason.UNREACHABLE
    assert find_path(walkable, (2, 0), (2, 6), **options).reason is Reason.UNREACHABLE
    walkable[0, 3] = True  # reopened at the top: found again, though labelled apart
    again = find_path(walkable, (2, 0), (2, 6), **options)
    assert again.found
    assert (0, 3) in again.cells
    assert again == find_path_with(walkable.copy(), (2, 0), (2, 6), SearchSettings.parse(**options))


def test_labels_behind_the_array_never_answer_unreachable_wrongly() -> None:
    walkable = np.ones((5, 7), dtype=bool)
    for _ in range(3):
        find_path(walkable, (2, 0), (2, 6), algorithm="jps")
    before = region_cache.labelled(walkable)
    assert before is not None
    walkable[:, 3] = False  # the labels still say one region: C searches, finds nothing
    assert in_c(walkable, (2, 0), (2, 6), {"algorithm": "jps"}) is None
    assert find_path(walkable, (2, 0), (2, 6), algorithm="jps") == full_result(walkable)


def full_result(walkable: Any) -> PathResult:
    return find_path_with(walkable.copy(), (2, 0), (2, 6), SearchSettings.parse(algorithm="jps"))


def test_a_reshape_in_place_is_read() -> None:
    walkable = np.ones((4, 6), dtype=bool)
    for _ in range(3):
        find_path(walkable, (0, 0), (3, 5), algorithm="jps")
    walkable.shape = (6, 4)
    assert find_path(walkable, (0, 0), (3, 5), algorithm="jps").reason is Reason.GOAL_OUTSIDE
    assert find_path(walkable, (0, 0), (5, 3), algorithm="jps") == find_path_with(
        walkable.copy(), (0, 0), (5, 3), SearchSettings.parse(algorithm="jps")
    )


@pytest.mark.parametrize(
    ("kept", "given", "words"),
    [
        ({"diagonal": True}, {"diagonal": 1}, "diagonal must be True, False"),
        ({"weight": 1.0}, {"weight": True}, "weight must be a number"),
        ({"algorithm": "astar", "weight": 1}, {"algorithm": "astar", "weight": True}, "weight"),
    ],
)
def test_equal_values_of_another_type_are_checked_again(
    kept: dict[str, Any], given: dict[str, Any], words: str
) -> None:
    walkable = np.ones((3, 3), dtype=bool)
    for _ in range(3):
        find_path(walkable, (0, 0), (2, 2), **kept)
    with pytest.raises(ValueError, match=words):
        find_path(walkable, (0, 0), (2, 2), **given)


def test_options_of_other_types_go_the_python_way() -> None:
    walkable = np.ones((3, 3), dtype=bool)
    weight = np.float64(1.0)
    for _ in range(3):
        assert find_path(walkable, (0, 0), (2, 2), weight=weight).found
    assert in_c(walkable, (0, 0), (2, 2), {"weight": weight}) is None


def test_without_the_kernels_c_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    walkable = np.ones((3, 3), dtype=bool)
    for _ in range(3):
        find_path(walkable, (0, 0), (2, 2), implementation="c")
    monkeypatch.setattr(kernel, "JPS_AVAILABLE", False)
    with pytest.raises(ValueError, match="compiled jump point search is not built"):
        find_path(walkable, (0, 0), (2, 2), implementation="c")


@pytest.mark.parametrize("fields_pay", [True, False], ids=["landmarks", "jump-tables"])
def test_the_landmark_sized_default_call_answers_as_the_python_path(
    fields_pay: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 256 x 256 cells: the default call hands the checked query to `landmarks.search` from C.
    # Landmark fields built (or found not to pay: the plain search, then jump tables), edits
    # in place between calls: two equal arrays asked the same queries in the same order get
    # the same answers, one through C and one through the Python path alone.
    monkeypatch.setattr(landmarks, "PAYS_EXPANDED", -1 if fields_pay else 10**9)
    monkeypatch.setattr(jump_cache, "SWITCH_AFTER_QUERIES", 0)
    ours = generate_layout("rooms", 256, 256, seed=5, room=16)
    theirs = ours.copy()
    rng = np.random.default_rng(5)
    free = np.argwhere(ours)
    in_c_answers = 0
    for round_ in range(4):
        ends = free[rng.integers(0, len(free), (12, 2))]
        for start, goal in ((tuple(map(int, a)), tuple(map(int, b))) for a, b in ends):
            assert called(ours, start, goal, {}) == without_c(theirs, start, goal, {})
            if ours[start] and ours[goal]:
                # C itself against what it stands for: an answer from C asked `landmarks.search`
                # once, as `hot_path.plan` does (None or NotImplemented: it did not ask).
                answer = in_c(ours, start, goal, {})
                if type(answer) is PathResult:
                    in_c_answers += 1
                    assert answer == hot_path.plan(theirs, start, goal)
                assert called(ours, start, goal, {}) == without_c(theirs, start, goal, {})
        # An edit in place: a room's wall opened or a cell closed, in both arrays alike.
        row, col = (int(v) for v in free[rng.integers(0, len(free))])
        for walkable in (ours, theirs):
            walkable[max(row - 2, 0) : row + 2, col] = round_ % 2 == 0
    assert in_c_answers > 20
    assert (landmarks.build_ms(ours) is not None) is fields_pay


def with_settings(walkable: Any, start: Any, goal: Any, settings: SearchSettings) -> Any:
    try:
        result = find_path_with(walkable, start, goal, settings)
    except ValueError as error:
        return str(error)
    return (result.found, result.cells, result.cost, result.expanded, result.reason)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    algorithm=st.sampled_from(ALGORITHMS),
    diagonal=st.sampled_from(RULES),
    heuristic=st.sampled_from(("octile", "manhattan", "zero")),
)
def test_find_path_with_takes_the_c_call_and_answers_as_the_python_path(
    seed: int, algorithm: str, diagonal: str, heuristic: str
) -> None:
    # The settings form (the app's) goes through the same C call, its options those of the
    # settings; edits in place between calls are read.
    rng = np.random.default_rng(seed)
    ours = rng.random((9, 11)) > 0.3
    theirs = ours.copy()
    try:
        chosen = SearchSettings.parse(algorithm=algorithm, diagonal=diagonal, heuristic=heuristic)
    except ValueError:
        return  # refused before any query: nothing for either path to answer
    cells = [tuple(int(v) for v in cell) for cell in rng.integers(0, 9, (12, 2))]
    for index, (start, goal) in enumerate(zip(cells[::2], cells[1::2], strict=True)):
        for _ in range(3):
            mine = with_settings(ours, start, goal, chosen)
            call_cache.COMPILED = False
            try:
                assert mine == with_settings(theirs, start, goal, chosen)
            finally:
                call_cache.COMPILED = True
        flip = (index % 9, (3 * index) % 11)
        ours[flip] = theirs[flip] = not ours[flip]


def test_find_path_with_is_answered_in_c_once_taught() -> None:
    walkable = np.ones((6, 8), dtype=bool)
    chosen = SearchSettings.parse(algorithm="astar", diagonal="never")
    for _ in range(3):
        find_path_with(walkable, (0, 0), (5, 7), chosen)
    answer = call_cache.call(walkable, (0, 0), (5, 7), "astar", "never", "octile", 1.0, "auto")
    assert type(answer) is PathResult
    assert answer == find_path_with(walkable, (0, 0), (5, 7), chosen)
