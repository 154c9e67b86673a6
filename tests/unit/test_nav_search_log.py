"""ExpansionLog and SearchReplay: a recorded search replays to the one-shot search, both ways."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sim.navigation import (
    CellStatus,
    ExpansionLog,
    Heuristic,
    Reason,
    SearchReplay,
    find_path,
    start_search,
)
from sim.navigation.heuristics import HEURISTICS
from sim.navigation.searches.best_first import STEPPED_ALGORITHMS
from tests.helpers.grids import ascii_grid, grid
from tests.helpers.problems import COST_LEVELS, PROPERTY_SETTINGS

ALGORITHMS = tuple(a.value for a in STEPPED_ALGORITHMS)  # jump point search is not stepped
ALL_HEURISTICS = tuple(h.value for h in Heuristic)
REPLAY_SETTINGS = PROPERTY_SETTINGS
SMALL_REPLAY_SETTINGS = settings(PROPERTY_SETTINGS, max_examples=150)


@dataclass(frozen=True)
class Query:
    """One search to record: a grid, its ends and every option."""

    walkable: NDArray[np.bool_]
    costs: NDArray[np.float64] | None
    start: tuple[int, int]
    goal: tuple[int, int]
    diagonal: bool
    algorithm: str
    heuristic: str
    weight: float

    def options(self) -> dict[str, Any]:
        return {
            "diagonal": self.diagonal,
            "algorithm": self.algorithm,
            "heuristic": self.heuristic,
            "weight": self.weight,
            "costs": self.costs,
        }

    def log(self) -> ExpansionLog:
        return ExpansionLog(self.walkable, self.start, self.goal, **self.options())

    def __repr__(self) -> str:
        return (
            f"Query({self.algorithm}, {self.heuristic}, w={self.weight}, "
            f"diagonal={self.diagonal}, costs={self.costs is not None}, "
            f"{self.start} -> {self.goal})\n{ascii_grid(self.walkable)}"
        )


@st.composite
def queries(draw: st.DrawFn) -> Query:
    """A grid up to 24x24 with walls and maybe costs, mostly walkable ends, any variant."""
    height, width = draw(st.integers(1, 24)), draw(st.integers(1, 24))
    walls_in_six = draw(st.sampled_from((0, 1, 2, 3)))
    elements = st.sampled_from((True,) * (6 - walls_in_six) + (False,) * walls_in_six)
    walkable = draw(hnp.arrays(np.bool_, (height, width), elements=elements)).copy()
    costs = None
    if draw(st.booleans()):
        costs = draw(hnp.arrays(np.float64, (height, width), elements=st.sampled_from(COST_LEVELS)))
    start = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    goal = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    if draw(st.integers(0, 9)) > 0:  # mostly walkable ends; sometimes a search that never starts
        walkable[start] = walkable[goal] = True
    return Query(
        walkable,
        costs,
        start,
        goal,
        diagonal=draw(st.booleans()),
        algorithm=draw(st.sampled_from(ALGORITHMS)),
        heuristic=draw(st.sampled_from(ALL_HEURISTICS)),
        weight=draw(st.sampled_from((1.0, 1.5, 3.0))),
    )


def assert_replay_matches_search(replay: SearchReplay, query: Query, expansions: int) -> None:
    """The replay's arrays equal those of a fresh Search advanced `expansions` times."""
    search = start_search(query.walkable, query.start, query.goal, **query.options())
    if expansions:
        search.advance(expansions)
    assert search.expanded == expansions, query
    status = replay.status
    assert np.array_equal(status == CellStatus.OPEN, search.frontier_mask()), query
    assert np.array_equal(status == CellStatus.CLOSED, search.closed_mask()), query
    assert replay.g.tobytes() == search.g_costs().tobytes(), query
    assert np.array_equal(replay.parent, search.came_from()), query
    assert replay.f.tobytes() == search.f_costs().tobytes(), query
    assert replay.current == search.current, query


@REPLAY_SETTINGS
@given(query=queries(), data=st.data())
def test_replay_reaches_the_one_shot_search(query: Query, data: st.DataObject) -> None:
    log = query.log()
    expected = find_path(
        query.walkable, query.start, query.goal, implementation="python", **query.options()
    )
    replay = SearchReplay(log)
    total = log.total_steps()
    assert total == expected.expanded, query
    # Part way, in one jump, then the rest in random strides.
    middle = data.draw(st.integers(0, total), label="middle")
    replay.seek(middle)
    assert_replay_matches_search(replay, query, middle)
    while not replay.at_end:
        before, stride = replay.step, data.draw(st.integers(1, 7), label="stride")
        assert replay.forward(stride) == min(stride, total - before)
    assert replay.step == total
    assert_replay_matches_search(replay, query, total)
    assert log.result() == expected, query
    assert replay.path == expected.cells, query


@REPLAY_SETTINGS
@given(query=queries(), data=st.data())
def test_forward_then_back_restores_the_state(query: Query, data: st.DataObject) -> None:
    log = query.log()
    replay = SearchReplay(log)
    total = log.total_steps()
    start_at = data.draw(st.integers(0, total), label="j")
    count = data.draw(st.integers(0, total + 3), label="k")
    replay.seek(start_at)
    before = replay.snapshot()

    moved = replay.forward(count)
    assert moved == min(count, total - start_at)
    assert replay.back(moved) == moved
    assert replay.snapshot() == before

    moved_back = replay.back(count)
    assert moved_back == min(count, start_at)
    assert replay.forward(moved_back) == moved_back
    assert replay.snapshot() == before

    # One step at a time (each step alone) and in one stride (many steps at once) agree.
    for _ in range(moved):
        assert replay.forward() == 1
    after = replay.snapshot()
    for _ in range(moved):
        assert replay.back() == 1
    assert replay.snapshot() == before
    assert replay.forward(moved) == moved
    assert replay.snapshot() == after


@SMALL_REPLAY_SETTINGS
@given(query=queries(), data=st.data())
def test_seek_equals_stepping_one_at_a_time(query: Query, data: st.DataObject) -> None:
    log = query.log()
    total = log.total_steps()
    target = data.draw(st.integers(0, total), label="j")
    stepped = SearchReplay(log)
    for _ in range(target):
        assert stepped.forward() == 1
    jumped = SearchReplay(log)
    jumped.seek(target)
    assert jumped.snapshot() == stepped.snapshot(), query
    from_the_end = SearchReplay(log)
    from_the_end.seek(total)
    from_the_end.seek(target)
    assert from_the_end.snapshot() == stepped.snapshot(), query


def test_recording_is_lazy_and_never_reruns() -> None:
    log = ExpansionLog(np.ones((6, 6), dtype=bool), (0, 0), (5, 5), algorithm="dijkstra")
    assert (log.recorded, log.finished) == (0, False)
    replay = SearchReplay(log)
    assert replay.forward(3) == 3
    assert log.recorded == 3
    assert log.record_until(2) == 3  # nothing to do: never goes back
    replay.back(3)
    assert log.recorded == 3
    total = log.total_steps()
    assert log.finished
    assert total == log.recorded == log.result().expanded


# ---- Golden expansion orders: every tie, explained -----------------------------------------

ISLAND = grid(
    """
    .....
    ..#..
    .....
    """
)  # start S = (1, 0), goal G = (1, 4); '#' = (1, 2)


def expansion_order(algorithm: str, **options: Any) -> list[tuple[int, int]]:
    replay = SearchReplay(ExpansionLog(ISLAND, (1, 0), (1, 4), algorithm=algorithm, **options))
    order = []
    while replay.forward():
        assert replay.current is not None
        order.append(replay.current)
    return order


SLOPE = grid(
    """
    ......
    ......
    ......
    .##...
    """
)  # start (0, 0), goal (3, 5): every cell on a shortest path has f = 2 + 3 sqrt2 = 6.243


def test_golden_order_astar_octile() -> None:
    replay = SearchReplay(ExpansionLog(SLOPE, (0, 0), (3, 5), heuristic="octile"))
    order = []
    while replay.forward():
        assert replay.current is not None
        order.append(replay.current)
    assert order == [
        (0, 0),  # the start
        # (0, 1) and (1, 1) both have f = 6.243; the tie goes to the smaller h, the diagonal
        # (1, 1) with h = 4.83 over (0, 1) with 5.24, though its flat index is larger (7 > 1).
        (1, 1),
        # (0, 1), (1, 2) and (2, 2) all at f = 6.243: smallest h again, (2, 2) (h = 3.41).
        (2, 2),
        # (3, 3) would be next on the diagonal, but the wall at (3, 2) forbids cutting the
        # corner; (2, 3) has f = 6.243 and the smallest h (2.41).
        (2, 3),
        # (2, 4) and (3, 4) sum their steps in different orders: (2, 4)'s f comes out one ulp
        # below (3, 4)'s. Floored to 1 / TIE_SCALE they tie, and (3, 4) wins on its h = 1
        # (vs 1.41): without the floor A* would wander to (2, 4) first.
        (3, 4),
        (3, 5),  # the goal: f = 6.243 floored ties (2, 4) again, and h = 0 wins
    ]


def test_golden_order_bfs() -> None:
    assert expansion_order("bfs") == [
        (1, 0),  # the start, 0 moves
        # 1 move away: (0, 0), (0, 1), (1, 1), (2, 0), (2, 1), all ties with h = 0, taken by
        # flat index 0 < 1 < 6 < 10 < 11.
        (0, 0),
        (0, 1),
        (1, 1),
        (2, 0),
        (2, 1),
        (0, 2),  # 2 moves: flat 2 before 12
        (2, 2),
        (0, 3),  # 3 moves: flat 3 before 13
        (2, 3),
        # 4 moves: (0, 4) = 4, (1, 3) = 8, (1, 4) = 9, (2, 4) = 14; the goal comes third.
        (0, 4),
        (1, 3),
        (1, 4),
    ]


def test_golden_order_dfs() -> None:
    assert expansion_order("dfs") == [
        (1, 0),
        (2, 1),  # pushed last: down-right is the last of the DIRECTIONS
        (2, 2),  # its only new neighbour with a legal move, pushed after (1, 1) and (2, 0)
        (2, 3),
        (1, 4),  # up-right, pushed after up (1, 3) and right (2, 4): the goal
    ]


# ---- Edge cases and the read-only contract -------------------------------------------------


@pytest.mark.parametrize(
    ("start", "goal", "reason"),
    [
        pytest.param((1, 2), (0, 0), Reason.START_BLOCKED, id="start-blocked"),
        pytest.param((0, 0), (1, 2), Reason.GOAL_BLOCKED, id="goal-blocked"),
        pytest.param((0, 0), (7, 7), Reason.GOAL_OUTSIDE, id="goal-outside"),
    ],
)
def test_a_search_that_ends_at_setup_has_no_steps(
    start: tuple[int, int], goal: tuple[int, int], reason: Reason
) -> None:
    log = ExpansionLog(ISLAND, start, goal)
    replay = SearchReplay(log)
    assert (replay.step, replay.current, replay.at_end, replay.path) == (0, None, True, ())
    assert not replay.status.any()
    assert np.isinf(replay.g).all()
    assert replay.forward(5) == 0
    assert log.result().reason is reason


def test_start_is_goal_is_one_step() -> None:
    replay = SearchReplay(ExpansionLog(ISLAND, (0, 3), (0, 3)))
    assert replay.status[0, 3] == CellStatus.OPEN
    assert not replay.at_end
    assert replay.forward(10) == 1
    assert (replay.at_end, replay.path, replay.current) == (True, ((0, 3),), (0, 3))


def test_unreachable_goal_ends_without_a_path() -> None:
    walkable = grid(
        """
        ..#.
        ..#.
        """
    )
    replay = SearchReplay(ExpansionLog(walkable, (0, 0), (0, 3)))
    replay.seek(100)
    assert (replay.step, replay.at_end, replay.path) == (4, True, ())
    assert replay.log.result().reason is Reason.UNREACHABLE


def test_arrays_are_read_only_views() -> None:
    replay = SearchReplay(ExpansionLog(ISLAND, (1, 0), (1, 4)))
    status, g, parent = replay.status, replay.g, replay.parent
    for array in (status, g, parent, replay.f, replay.log.h):
        with pytest.raises(ValueError, match="read-only"):
            array[0, 0] = 0
    replay.forward(2)
    # Views, not copies: what a drawing holds follows the cursor.
    assert status[1, 0] == CellStatus.CLOSED
    assert g[0, 1] == pytest.approx(math.sqrt(2.0))
    assert parent[0, 1] == 5  # flat (1, 0)


def test_f_is_g_weight_g_plus_h_and_inf_where_unseen() -> None:
    log = ExpansionLog(ISLAND, (1, 0), (1, 4), algorithm="greedy", heuristic="chebyshev")
    replay = SearchReplay(log)
    replay.forward()
    f = replay.f
    assert log.g_weight == 0.0
    assert f[0, 1] == log.h[0, 1] == 3.0  # greedy: f is h alone
    assert np.isinf(f[0, 4])
    assert not np.isnan(f).any()


@pytest.mark.parametrize("heuristic", ALL_HEURISTICS)
@pytest.mark.parametrize("weight", [1.0, 1.5, 3.0])
def test_h_grid_matches_the_heuristic_functions(heuristic: str, weight: float) -> None:
    goal = (13, 41)
    log = ExpansionLog(
        np.ones((50, 60), dtype=bool), (0, 0), goal, heuristic=heuristic, weight=weight
    )
    function = HEURISTICS[Heuristic(heuristic)]
    expected = np.array(
        [
            [weight * function(abs(col - goal[1]), abs(row - goal[0])) for col in range(60)]
            for row in range(50)
        ]
    )
    assert log.h.tobytes() == expected.tobytes()
    assert (log.heuristic, log.weight, log.g_weight) == (Heuristic(heuristic), weight, 1.0)


@pytest.mark.parametrize("algorithm", ["dijkstra", "bfs", "dfs"])
def test_h_is_zero_without_a_heuristic(algorithm: str) -> None:
    log = ExpansionLog(ISLAND, (1, 0), (1, 4), algorithm=algorithm, heuristic="manhattan", weight=2)
    assert (log.heuristic, log.weight, log.g_weight) == (Heuristic.ZERO, 1.0, 1.0)
    assert not log.h.any()


def test_relaxed_and_expanded_cell_name_the_step() -> None:
    log = ExpansionLog(ISLAND, (1, 0), (1, 4))
    log.record_until(2)
    assert log.expanded_cell(1) == (1, 0)
    assert log.relaxed(1) == ((0, 0), (2, 0), (1, 1), (0, 1), (2, 1))
    assert log.relaxed(2) == ()  # (1, 1) is a dead end
    with pytest.raises(ValueError, match=r"step must be 1\.\.2 \(recorded\), got 3"):
        log.expanded_cell(3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"weight": 0.5}, "weight must be a finite number >= 1, got 0.5", id="weight"),
        pytest.param({"algorithm": "ida*"}, r"unknown algorithm 'ida\*'", id="algorithm"),
        pytest.param({"start": (9, 0)}, r"start \(9, 0\) lies outside the 3x5 grid", id="start"),
        pytest.param({"heuristic": "taxicab"}, "unknown heuristic 'taxicab'", id="heuristic"),
    ],
)
def test_log_checks_its_arguments_like_start_search(kwargs: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {"walkable": ISLAND, "start": (1, 0), "goal": (1, 4)}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        ExpansionLog(**arguments)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        pytest.param(lambda r: r.forward(-1), "count must be an integer >= 0, got -1", id="fwd"),
        pytest.param(lambda r: r.back(1.5), "count must be an integer >= 0, got 1.5", id="back"),
        pytest.param(lambda r: r.seek("3"), "step must be an integer, got '3'", id="seek"),
        pytest.param(lambda r: r.log.record_until(-2), "steps must be >= 0 or None", id="rec"),
    ],
)
def test_replay_checks_its_arguments(call: Any, message: str) -> None:
    replay = SearchReplay(ExpansionLog(ISLAND, (1, 0), (1, 4)))
    with pytest.raises(ValueError, match=message):
        call(replay)


def test_seek_clamps_and_reset_goes_home() -> None:
    replay = SearchReplay(ExpansionLog(ISLAND, (1, 0), (1, 4)))
    home = replay.snapshot()
    replay.seek(-5)
    assert replay.step == 0
    replay.seek(1000)
    assert (replay.step, replay.at_end) == (6, True)
    replay.reset()
    assert replay.snapshot() == home


def test_two_replays_share_one_log() -> None:
    log = ExpansionLog(ISLAND, (1, 0), (1, 4), algorithm="bfs")
    first, second = SearchReplay(log), SearchReplay(log)
    first.seek(7)
    second.forward(3)
    second.forward(4)
    assert first.snapshot() == second.snapshot()
    first.back(7)
    assert first.snapshot() == SearchReplay(log).snapshot()
