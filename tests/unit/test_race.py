"""The race's lock-step clock (sim.search_view.race) and `--race` parsing."""

from __future__ import annotations

import numpy as np
import pytest

from sim.app.race_args import parse_race
from sim.navigation import find_path
from sim.navigation.catalogue import SearchKind
from sim.navigation.replay.log import CellStatus
from sim.search_view.race import Entrant, Race, record

LINEUP = (SearchKind.ASTAR, SearchKind.JPS, SearchKind.BIDIRECTIONAL, SearchKind.DIJKSTRA)


def random_grid(seed: int, size: int = 16, density: float = 0.25):
    rng = np.random.default_rng(seed)
    walkable = rng.random((size, size)) >= density
    # A corridor along the top row and down the last column: a path always exists.
    walkable[0, :] = walkable[:, size - 1] = True
    return walkable, (0, 0), (size - 1, size - 1)


def race_on(seed: int, kinds=LINEUP, **options) -> Race:
    walkable, start, goal = random_grid(seed)
    return Race.on_grid(kinds, walkable, start, goal, diagonal=True, **options)


@pytest.mark.parametrize("seed", range(3))
def test_each_tick_every_unfinished_lane_expands_one_node(seed):
    race = race_on(seed)
    totals = [replay.log.total_steps() for replay in race.running]
    for tick in (0, 1, 2, 5, 17, max(totals) // 2, max(totals)):
        race.seek(tick)
        for row, total, lane in zip(race.standings(), totals, race.lanes, strict=True):
            assert row.expanded == min(tick, total)
            assert row.finished == (tick >= total)
            # The lane shows exactly its own search after that many expansions.
            alone = record(lane.entrant.kind, *random_grid(seed), diagonal=True)
            alone.seek(min(tick, total))
            assert row.open == int(np.count_nonzero(alone.status == CellStatus.OPEN))


@pytest.mark.parametrize("seed", range(6))
def test_the_finish_order_is_the_order_of_expansions_needed(seed):
    race = race_on(seed)
    race.to_end()
    assert race.at_end
    order = race.finish_order()
    assert [row.expanded for row in order] == sorted(row.expanded for row in order)
    walkable, start, goal = random_grid(seed)
    for row in race.standings():
        # Each lane's count is what find_path reports for that search.
        name = {"A*": "astar", "JPS": "jps", "bidirectional": "bidirectional"}.get(
            row.search, "dijkstra"
        )
        result = find_path(walkable, start, goal, algorithm=name, implementation="python")
        assert row.expanded == result.expanded
        assert (row.cost is None) == (not result.found)
        if result.found:
            assert row.cost == pytest.approx(result.cost)


def test_lanes_that_finish_on_the_same_tick_share_a_place():
    race = race_on(
        1,
        kinds=[Entrant(SearchKind.ASTAR), Entrant(SearchKind.ASTAR, "octile"), SearchKind.DIJKSTRA],
        heuristic="octile",
    )
    race.to_end()
    places = [row.place for row in race.standings()]
    assert places == [1, 1, 3]
    assert race.finish_line().startswith("1. A* ")
    assert "  1. A* octile " in race.finish_line()
    assert "  3. Dijkstra " in race.finish_line()


def test_a_lane_has_no_place_before_it_finishes():
    race = race_on(2)
    race.seek(3)
    first = min(replay.log.total_steps() for replay in race.running)
    assert first > 3
    assert all(row.place is None and row.cost is None for row in race.standings())
    race.seek(first)
    assert [row.place for row in race.standings()].count(1) >= 1


def test_stepping_back_restores_every_lane_exactly():
    race = race_on(3)
    race.seek(20)
    before = [replay.snapshot() for replay in race.running]
    race.forward(15)
    race.back(15)
    assert [replay.snapshot() for replay in race.running] == before
    assert race.tick == 20


def test_the_clock_stops_at_the_last_finish():
    race = race_on(0)
    race.seek(10**6)
    last = max(replay.log.total_steps() for replay in race.running)
    assert race.tick == last
    race.back(1)
    assert race.tick == last - 1
    assert not race.at_end


def test_a_search_that_refuses_the_grid_sits_out_and_says_why():
    walkable, start, goal = random_grid(4)
    race = Race.on_grid([SearchKind.ASTAR, SearchKind.JPS], walkable, start, goal, diagonal=False)
    race.to_end()
    astar, jps = race.standings()
    assert astar.place == 1
    assert jps.place is None
    assert not jps.finished
    assert "cannot search this" in jps.refusal
    assert race.at_end


def test_no_path_finishes_without_a_cost():
    walkable = np.ones((5, 5), dtype=bool)
    walkable[:, 2] = False
    race = Race.on_grid([SearchKind.ASTAR, SearchKind.BFS], walkable, (0, 0), (4, 4), diagonal=True)
    race.to_end()
    assert all(row.finished and row.cost is None for row in race.standings())
    assert "no path" in race.finish_line()


@pytest.mark.parametrize("count", [0, 1, 5])
def test_a_race_takes_two_to_four_lanes(count):
    walkable, start, goal = random_grid(0)
    with pytest.raises(ValueError, match="a race takes 2 to 4 searches"):
        Race.on_grid([SearchKind.ASTAR] * count, walkable, start, goal, diagonal=True)


def test_parse_race_reads_names_and_heuristics():
    assert parse_race("astar:manhattan,jps,dijkstra") == (
        Entrant(SearchKind.ASTAR, "manhattan"),
        Entrant(SearchKind.JPS),
        Entrant(SearchKind.DIJKSTRA),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("astar", "a race takes 2 to 4 searches, got 1"),
        ("astar,jps,bfs,dfs,theta", "a race takes 2 to 4 searches, got 5"),
        ("astar,nope", "unknown search 'nope'"),
        ("astar,theta:octile", "theta takes no heuristic"),
        ("astar,astar", "names a search twice"),
        ("astar,astar:octile", "names a search twice: A\\* octile \\(a lane without"),
        ("jps:manhattan,astar,jps:manhattan", "names a search twice: JPS manhattan$"),
    ],
    ids=["one", "five", "name", "heuristic", "twice", "twice-by-the-race-heuristic", "twice-own"],
)
def test_parse_race_refuses_bad_lineups(text, message):
    with pytest.raises(ValueError, match=message):
        parse_race(text)


@pytest.mark.parametrize("rule", ["never", "no-corner-cutting", "one-obstacle", "always"])
def test_every_lane_moves_by_the_race_s_diagonal_rule(rule):
    walkable, start, goal = random_grid(5)
    race = Race.on_grid([SearchKind.ASTAR, SearchKind.BFS], walkable, start, goal, diagonal=rule)
    race.to_end()
    astar, _ = race.standings()
    expected = find_path(walkable, start, goal, diagonal=rule, implementation="python")
    assert astar.cost == pytest.approx(expected.cost)


@pytest.mark.parametrize("rule", ["one-obstacle", "always"])
def test_jps_sits_out_a_rule_that_passes_blocked_corners(rule):
    walkable, start, goal = random_grid(5)
    race = Race.on_grid([SearchKind.ASTAR, SearchKind.JPS], walkable, start, goal, diagonal=rule)
    assert "no-corner-cutting rule only" in race.standings()[1].refusal
