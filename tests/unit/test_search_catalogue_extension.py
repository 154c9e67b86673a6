"""A search is one declaration: one registered here, and nowhere else, is offered everywhere.

The test's search wraps Dijkstra in a stepper of its own, recorded by tape, so the catalogue,
the comparison, the replays and the race all meet a search no module of the simulator names.
"""

from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest

from sim.navigation.catalogue import SearchKind, registered
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.query import Algorithm, PathResult, Query
from sim.navigation.replay.compare import compare_searches, format_table
from sim.navigation.replay.log import CellStatus, SearchReplay
from sim.navigation.replay.recorder import record
from sim.navigation.replay.tape import SearchTape, TapeReplay
from sim.navigation.searches import best_first, kernel
from sim.navigation.searches.declaration import (
    Expansions,
    RowCase,
    SearchProblem,
    TableFacts,
    Tape,
    TapeFrame,
    ViewHints,
)
from sim.search_view.race import Race

WALLS = ("......", ".####.", "......", ".#.##.", "......")
WALKABLE = np.array([[char == "." for char in row] for row in WALLS])
START, GOAL = (0, 0), (4, 5)


class SteppedDijkstra:
    """Dijkstra run by `best_first.Search`, seen only through the stepper protocol."""

    def __init__(self, problem: SearchProblem) -> None:
        self.search = best_first.start_search(
            problem.walkable,
            problem.start,
            problem.goal,
            diagonal=problem.rule.value,
            algorithm="dijkstra",
            costs=problem.costs,
        )

    @property
    def done(self) -> bool:
        return self.search.done

    @property
    def expanded(self) -> int:
        return self.search.expanded

    @property
    def current(self) -> tuple[int, int] | None:
        return self.search.current

    def advance(self, max_expansions: int | None = None) -> bool:
        return self.search.advance(max_expansions)

    def result(self) -> PathResult:
        return self.search.result()


def read_state(stepper: SteppedDijkstra, problem: SearchProblem) -> TapeFrame:
    search = stepper.search
    status = np.zeros(problem.walkable.size, dtype=np.uint8)
    status[search.frontier_mask().ravel()] = CellStatus.OPEN
    status[search.closed_mask().ravel()] = CellStatus.CLOSED
    return TapeFrame(
        status,
        search.g_costs().ravel(),
        search.f_costs().ravel(),
        search.came_from().ravel(),
        np.zeros(problem.walkable.size, dtype=np.uint8),
    )


def refuse_costs(problem: SearchProblem) -> None:
    if problem.costs is not None:
        raise ValueError("dijkstra again takes no costs")


def solve_again(query: Query) -> PathResult:
    return best_first.solve(query)


AGAIN = SearchKind(
    "AGAIN",
    "Dijkstra again",
    Algorithm.DIJKSTRA,
    "shortest path, once more",
    order=95,
    solver=solve_again,
    stepper=SteppedDijkstra,
    recording=Tape(SteppedDijkstra, read_state),
    table=TableFacts(
        95,
        own_loop=True,
        note=lambda case, guaranteed: "the test's own",
        guaranteed=lambda case: True,
    ),
    shortest=True,
    check=refuse_costs,
    hints=ViewHints(arrows=True),
)


@pytest.fixture
def again() -> Iterator[SearchKind]:
    with registered(AGAIN) as kind:
        yield kind
    assert "AGAIN" not in [kind.name for kind in SearchKind]


def dijkstra() -> PathResult:
    return best_first.start_search(WALKABLE, START, GOAL, algorithm="dijkstra").run()


def test_a_registered_search_is_in_the_catalogue_in_its_order(again: SearchKind) -> None:
    assert list(SearchKind)[-1] is again
    assert SearchKind.AGAIN is again
    assert SearchKind["AGAIN"] is again
    assert repr(again) == "<SearchKind.AGAIN>"
    assert str(again) == "Dijkstra again"


def test_a_search_is_declared_once(again: SearchKind) -> None:
    with pytest.raises(ValueError, match="declared twice"), registered(replace(again)):
        pass


def test_unregistered_it_is_gone() -> None:
    before = list(SearchKind)
    with registered(AGAIN):
        assert len(SearchKind) == len(before) + 1
    assert list(SearchKind) == before
    with pytest.raises(AttributeError, match="AGAIN"):
        _ = SearchKind.AGAIN


def test_the_comparison_runs_it_with_its_own_judges(again: SearchKind) -> None:
    rows = compare_searches(WALKABLE, START, GOAL, repeat=1, more=True)
    row = rows[-1]
    assert row.label == "Dijkstra again"
    assert row.cost == pytest.approx(dijkstra().cost)
    assert (row.optimal, row.guaranteed, row.note) == (True, True, "the test's own")
    assert any("Dijkstra again" in line for line in format_table(rows))


def test_the_comparison_leaves_it_out_where_its_check_refuses(again: SearchKind) -> None:
    rows = compare_searches(WALKABLE, START, GOAL, repeat=1, more=True, costs=np.ones((5, 6)))
    assert "Dijkstra again" not in [row.label for row in rows]


def test_the_comparison_leaves_it_out_without_more(again: SearchKind) -> None:
    rows = compare_searches(WALKABLE, START, GOAL, repeat=1)
    assert "Dijkstra again" not in [row.label for row in rows]


def test_it_replays_both_ways_to_dijkstras_path(again: SearchKind) -> None:
    replay = record(again, WALKABLE, START, GOAL)
    assert replay.kind is again
    before = replay.snapshot()
    replay.seek(10_000)
    assert replay.at_end
    assert replay.path == dijkstra().cells
    assert replay.step == dijkstra().expanded
    replay.seek(0)
    assert replay.snapshot() == before


def test_its_check_refuses_before_recording(again: SearchKind) -> None:
    with pytest.raises(ValueError, match="takes no costs"):
        record(again, WALKABLE, START, GOAL, costs=np.ones(WALKABLE.shape))


def test_a_tape_takes_it_by_its_declaration(again: SearchKind) -> None:
    tape = SearchTape(WALKABLE, START, GOAL, algorithm=again)
    assert tape.result().cells == dijkstra().cells


def test_recorded_by_expansions_it_replays_as_itself() -> None:
    logged = replace(AGAIN, name="LOGGED", recording=Expansions(), order=96)
    with registered(logged):
        replay = record(logged, WALKABLE, START, GOAL, rule=DiagonalRule.NEVER)
        assert isinstance(replay, SearchReplay)
        assert replay.kind is logged
        replay.seek(10_000)
        assert (
            replay.path
            == best_first.start_search(
                WALKABLE, START, GOAL, diagonal="never", algorithm="dijkstra"
            )
            .run()
            .cells
        )


def test_it_races(again: SearchKind) -> None:
    race = Race.on_grid([SearchKind.ASTAR, again], WALKABLE, START, GOAL, diagonal=True)
    race.to_end()
    standings = race.standings()
    assert [row.search for row in standings] == ["A*", "Dijkstra again"]
    assert standings[1].cost == pytest.approx(dijkstra().cost)
    assert isinstance(race.lanes[1].replay, TapeReplay)


@pytest.mark.parametrize("kind", list(SearchKind), ids=lambda kind: kind.name)
def test_the_kernel_flag_says_what_c_runs(kind: SearchKind) -> None:
    runs_in_c = kind.algorithm in kernel.COMPILED_ALGORITHMS or kind.algorithm is Algorithm.JPS
    assert kind.kernel == runs_in_c


def test_every_search_has_its_own_place() -> None:
    kinds = list(SearchKind)
    assert len({kind.order for kind in kinds}) == len(kinds)
    assert len({(kind.table.own_loop, kind.table.order) for kind in kinds}) == len(kinds)
    assert sum(kind.table.optimum for kind in kinds) == 1


@pytest.mark.parametrize(
    ("kind", "case", "guaranteed"),
    [
        pytest.param(SearchKind.ASTAR, RowCase(None, 1.0, True, True), False, id="astar-no-h"),
        pytest.param(SearchKind.BFS, RowCase(None, 1.0, False, True), True, id="bfs-4-uniform"),
        pytest.param(SearchKind.BFS, RowCase(None, 1.0, True, True), False, id="bfs-8"),
        pytest.param(SearchKind.THETA, RowCase(None, 1.0, True, True), False, id="theta"),
    ],
)
def test_declared_judges(kind: SearchKind, case: RowCase, guaranteed: bool) -> None:
    assert kind.table.guaranteed(case) is guaranteed
