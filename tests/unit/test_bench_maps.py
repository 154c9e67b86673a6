"""`sim bench` on the maps: unreachable pairs, the targets' verdicts, table and JSON.

No timing assertions: the verdicts are checked from given numbers, the run only for its shape.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import random
from pathlib import Path

import numpy as np
import pytest

from sim.bench import map_targets
from sim.bench.map_report import OURS_ASTAR, OURS_AUTO, Contestant, MapReport, Row
from sim.bench.map_targets import MapFigures
from sim.bench.maps import bench_map, contestants_for, default_algorithm
from sim.bench.peers import RULE_MOVINGAI, Planner
from sim.bench.unreachable import (
    ISLANDS,
    WALLED_GOAL,
    UnreachableRow,
    UnreachableSetup,
    label_regions,
    pick_pairs,
    time_unreachable,
    unreachable_setup,
    wall_in,
)
from sim.commands.cli import main
from sim.navigation import PathResult, Reason, find_path
from tests.helpers.grids import grid
from tests.helpers.paths import movingai_dir

needs_maps = pytest.mark.skipif(
    not (movingai_dir() / "arena.map").is_file(), reason="shared Moving AI maps not found"
)

# Three regions: the west block, the east column, and (4, 2) which touches the west block
# only diagonally, across two walls: no step may cut those corners, so it is cut off.
ISLANDS_GRID = grid(
    """
    ..#..
    ..#..
    .##..
    ###..
    ..#..
    """
)


def test_regions_follow_the_no_corner_cutting_rule() -> None:
    labels, count = label_regions(ISLANDS_GRID)
    assert count == 3
    assert labels[0, 0] == labels[2, 0] != labels[0, 3]
    assert labels[4, 0] == labels[4, 1], "(4, 0) and (4, 1) are one region"
    assert labels[4, 0] not in (labels[0, 0], labels[0, 3])
    assert (labels == -1).sum() == (~ISLANDS_GRID).sum()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_regions_agree_with_the_planner_on_random_grids(seed: int) -> None:
    rng = np.random.default_rng(seed)
    walkable = rng.random((12, 14)) > 0.4
    labels, _ = label_regions(walkable)
    cells = [(int(row), int(col)) for row, col in np.argwhere(walkable)]
    picks = random.Random(seed)
    for _ in range(60):
        start, goal = picks.choice(cells), picks.choice(cells)
        found = find_path(walkable, start, goal, algorithm="astar").found
        assert found == (labels[start] == labels[goal]), (start, goal)


def test_pairs_lie_in_two_regions_one_end_in_the_largest() -> None:
    labels, _ = label_regions(ISLANDS_GRID)
    sizes = np.bincount(labels[labels >= 0])
    largest = int(sizes.argmax())
    pairs = pick_pairs(labels, 20, random.Random(7))
    assert len(pairs) == 20
    for index, (start, goal) in enumerate(pairs):
        assert labels[start] != labels[goal]
        main = start if index % 2 == 0 else goal
        assert labels[main] == largest, "even pairs start in the largest region, odd ones end"
    assert pairs == pick_pairs(labels, 20, random.Random(7)), "seeded"
    assert len({goal for start, goal in pairs[::2]}) > 1, "several islands are drawn"


def test_pairs_need_two_regions() -> None:
    with pytest.raises(ValueError, match="two regions or more, got 1"):
        pick_pairs(np.zeros((2, 2), np.int32), 3, random.Random(0))


def test_a_walled_in_goal_has_its_8_neighbours_blocked_and_nothing_else_changed() -> None:
    walkable = np.ones((7, 9), dtype=bool)
    walkable[0, :] = False
    labels, _ = label_regions(walkable)
    walled, goal = wall_in(walkable, labels, random.Random(3))
    row, col = goal
    assert 0 < row < 6, "a cell off the edge: all 8 neighbours in the grid"
    assert 0 < col < 8
    assert walled[goal]
    around = walled[row - 1 : row + 2, col - 1 : col + 2]
    assert around.sum() == 1, "only the goal is open in its 3x3 block"
    changed = np.argwhere(walled != walkable)
    assert all(max(abs(r - row), abs(c - col)) == 1 for r, c in changed)
    assert walkable.sum() - walled.sum() == (8 - (row == 1) * 3)
    assert walled is not walkable


def test_a_one_region_map_gets_a_walled_in_goal_that_no_start_reaches() -> None:
    walkable = np.ones((6, 6), dtype=bool)
    setup = unreachable_setup(walkable, 10, seed=4)
    assert setup is not None
    assert (setup.kind, setup.regions) == (WALLED_GOAL, 1)
    assert setup.walled is not None
    assert walkable.all(), "the map itself is left as it was"
    assert setup.walkable is not walkable
    assert {goal for _, goal in setup.pairs} == {setup.walled}
    for start, goal in setup.pairs:
        assert not find_path(setup.walkable, start, goal, algorithm="astar").found


def test_a_map_with_islands_keeps_its_cells_and_draws_pairs_across_them() -> None:
    setup = unreachable_setup(ISLANDS_GRID, 9, seed=0)
    assert setup is not None
    assert (setup.kind, setup.regions, setup.walled) == (ISLANDS, 3, None)
    assert np.array_equal(setup.walkable, ISLANDS_GRID)
    assert setup.walkable is not ISLANDS_GRID, "a fresh copy: the first query is a first one"
    for start, goal in setup.pairs:
        assert not find_path(setup.walkable, start, goal, algorithm="astar").found


def test_no_unreachable_pairs_where_walling_in_leaves_no_start() -> None:
    assert unreachable_setup(np.ones((3, 3), dtype=bool), 5, seed=0) is None
    assert unreachable_setup(np.zeros((3, 3), dtype=bool), 5, seed=0) is None


def test_the_unreachable_row_times_the_first_query_apart_and_checks_every_answer() -> None:
    walkable = ISLANDS_GRID.copy()
    pairs = (((0, 0), (0, 3)), ((0, 3), (0, 0)), ((0, 0), (4, 0)), ((0, 0), (1, 1)))
    seen: list[object] = []

    def find(array: np.ndarray, start: tuple[int, int], goal: tuple[int, int]) -> PathResult:
        seen.append(array)
        if goal == (1, 1):  # a planner that wrongly finds a path
            return PathResult(True, (start, goal), 1.0, 3, Reason.FOUND)
        # The first query searches; after it, one repeat still searches.
        expanded = 40 if len(seen) in (1, 3) else 0
        return PathResult.none(Reason.UNREACHABLE, expanded)

    row = time_unreachable(UnreachableSetup(walkable, pairs, ISLANDS, 3), find)
    assert all(array is walkable for array in seen), "the same array object every time"
    assert (row.queries, len(row.ms), row.first_expanded) == (4, 3, 40)
    assert row.expanded == [0, 40, 3]
    assert row.searched == 2
    assert row.wrong == ["(0, 0) -> (1, 1): found a path"]
    assert row.answered_right == 3
    assert row.verdict().startswith("NO (1/4: (0, 0) -> (1, 1)")


def test_the_unreachable_row_with_the_real_planner_answers_unreachable() -> None:
    setup = unreachable_setup(ISLANDS_GRID, 6, seed=2)
    assert setup is not None
    row = time_unreachable(setup)
    assert row.wrong == []
    assert row.queries == 6
    assert row.first_ms > 0


def _report(
    name: str, side: int, ours_ms: list[float], peer_ms: dict[str, list[float]]
) -> MapReport:
    """A map report from given times: ours (auto), ours A* at twice ours, and the peers."""

    def prepare(walkable: np.ndarray) -> Planner:
        raise AssertionError("not run")

    def row(key: str, times: list[float], ours: bool) -> Row:
        contestant = Contestant(key, RULE_MOVINGAI, prepare, ours=ours, key=key)
        return Row(contestant, ms=dict(enumerate(times)))

    rows = [
        row(OURS_AUTO, ours_ms, True),
        row(OURS_ASTAR, [2 * t for t in ours_ms], True),
        *(row(peer, times, False) for peer, times in peer_ms.items()),
    ]
    return MapReport(name, side, side, len(ours_ms), rows)


def test_ratios_are_of_medians_over_the_same_queries() -> None:
    report = _report("m", 512, [1.0, 2.0, 3.0], {"pyastar2d": [4.0, 4.0, 8.0], "tcod": [20.0]})
    assert report.peer_ratio("pyastar2d") == pytest.approx(2.0 / 4.0)
    assert report.peer_ratio("tcod") == pytest.approx(1.0 / 20.0), "over tcod's one query"
    assert report.peer_ratio("pyastar2d", OURS_ASTAR) == pytest.approx(1.0)
    assert report.peer_ratio("scipy") is None


def test_the_table_has_an_astar_column_and_an_unreachable_row() -> None:
    report = _report("m", 64, [1.0, 1.0], {"tcod": [10.0, 10.0]})
    report.unreachable = UnreachableRow(
        WALLED_GOAL, 1, first_ms=5.0, first_expanded=99, ms=[0.002] * 4, expanded=[0] * 4
    )
    header, *lines = report.table()
    assert header[-2:] == ["ours/peer", "A*/peer"]
    tcod = next(line for line in lines if line[0] == "tcod")
    assert tcod[-2:] == ["0.10", "0.20"]
    last = lines[-1]
    assert last[0] == f"{OURS_AUTO}, unreachable"
    assert last[1] == "walled-in goal (the map is one region)"
    assert last[2] == "yes: 5/5 unreachable, repeats expanded 0"
    assert (last[3], last[4], last[6]) == ("5", "0.0020", "0 (first 99)")
    note = report.lines()[-1]
    assert "the first query on a fresh copy of the array took 5.000 ms (expanded 99)" in note
    assert "0.0020x the median reachable query (1.000 ms)" in note


def test_a_landmark_build_is_shown_under_the_table_and_in_the_json() -> None:
    report = _report("m", 512, [1.0, 1.0], {"tcod": [10.0, 10.0]})
    assert report.landmarks_note() is None
    assert report.to_json()["landmarks_build_ms"] is None
    report.landmarks_build_ms = 123.4
    assert "built its 8 distance fields in 123 ms" in report.lines()[-1]
    assert report.to_json()["landmarks_build_ms"] == 123.4


def _figures(**changes: float | None) -> list[MapFigures]:
    """Ten 512x512 maps that meet every target, plus two smaller ones; `changes` to map0."""
    maps = [MapFigures(f"map{i}", 512, 512, 0.4, 0.1, 0.01, 100, 100, 51, 51) for i in range(10)]
    maps += [
        MapFigures("small", 49, 49, 3.0, 0.1, 0.5, 100, 100, 51, 51),
        MapFigures("tall", 256, 300, 0.7, 0.12, None, 100, 100, 0, 0),
    ]
    maps[0] = dataclasses.replace(maps[0], **changes)  # type: ignore[arg-type]
    return maps


def _verdicts(figures: list[MapFigures]) -> dict[str, bool | None]:
    return {target.key: target.met for target in map_targets.map_targets(figures)}


def test_every_target_met_from_given_numbers() -> None:
    targets = map_targets.map_targets(_figures())
    assert [t.met for t in targets] == [True] * 6
    by_key = {t.key: t for t in targets}
    assert by_key["pyastar2d_geomean_512"].value == pytest.approx(0.4)
    assert "over the 10 512x512 maps" in by_key["pyastar2d_geomean_512"].text
    # small (49x49) is exempt from the pyastar2d per-map target; tall (256x300) is not.
    assert by_key["pyastar2d_every_map"].worst == "tall"
    assert by_key["pyastar2d_every_map"].text.endswith("11 of 11 maps within: met")
    assert by_key["tcod_every_map"].worst == "tall"
    assert by_key["unreachable_every_512"].text.endswith("10 of 10 maps within: met")
    assert by_key["paths_legal_and_optimal"].text.endswith("1200 of 1200, met")


@pytest.mark.parametrize(
    ("changes", "key", "worst"),
    [
        pytest.param({"vs_pyastar2d": 0.81}, "pyastar2d_every_map", "map0", id="pyastar2d"),
        pytest.param({"vs_tcod": 0.151}, "tcod_every_map", "map0", id="tcod"),
        pytest.param({"unreachable": 0.021}, "unreachable_every_512", "map0", id="unreachable"),
        pytest.param({"good_paths": 99}, "paths_legal_and_optimal", None, id="paths"),
        pytest.param({"unreachable_right": 50}, "unreachable_answered_unreachable", None, id="u"),
        pytest.param(
            {"unreachable_searched": 1}, "unreachable_answered_unreachable", None, id="searched"
        ),
    ],
)
def test_one_miss_fails_its_target_only(
    changes: dict[str, float], key: str, worst: str | None
) -> None:
    verdicts = _verdicts(_figures(**changes))
    assert verdicts.pop(key) is False
    assert all(verdicts.values()), verdicts
    target = next(t for t in map_targets.map_targets(_figures(**changes)) if t.key == key)
    assert target.text.endswith("NOT met")
    assert target.worst == worst


def test_a_geomean_above_the_target_fails_though_every_map_meets_its_own() -> None:
    figures = [dataclasses.replace(f, vs_pyastar2d=0.6) for f in _figures()]
    verdicts = _verdicts(figures)
    assert verdicts.pop("pyastar2d_geomean_512") is False
    assert all(verdicts.values()), verdicts


def test_limits_themselves_are_met() -> None:
    figures = _figures(vs_pyastar2d=0.8, vs_tcod=0.15, unreachable=0.02)
    assert all(_verdicts(figures).values())


def test_geomean_is_over_the_512_maps_only() -> None:
    # 0.25 and 1.0 on the 512 maps: geometric mean 0.5, met; the 49x49 map's 3.0 is not in it.
    figures = [
        MapFigures("a", 512, 512, 0.25),
        MapFigures("b", 512, 512, 1.0),
        MapFigures("c", 49, 49, 3.0),
    ]
    target = map_targets.map_targets(figures)[0]
    assert target.value == pytest.approx(0.5)
    assert target.met is True
    assert "(a, b)" in target.text


def test_targets_not_measured_say_so() -> None:
    targets = map_targets.map_targets([MapFigures("small", 49, 49)])
    assert [t.met for t in targets] == [None] * 6
    assert all("not measured" in t.text for t in targets)


def test_a_map_without_a_peer_is_named_and_fails_every_map_targets() -> None:
    figures = _figures(vs_tcod=None)
    target = next(t for t in map_targets.map_targets(figures) if t.key == "tcod_every_map")
    assert target.met is False
    assert "1 not measured (map0)" in target.text


def test_the_chart_shows_both_ratios_per_map() -> None:
    report = _report("m", 512, [1.0], {"pyastar2d": [2.0], "tcod": [10.0]})
    svg = map_targets.chart_svg([report])
    assert svg.startswith("<svg")
    assert "m (512)" in svg
    assert "0.50x" in svg
    assert "0.10x" in svg
    assert "ours / pyastar2d (target 0.8x)" in svg
    assert "ours / tcod (target 0.15x)" in svg


def test_ours_are_the_default_call_and_forced_astar() -> None:
    contestants, _ = contestants_for([])
    keys = [c.key for c in contestants]
    assert keys[:2] == [OURS_AUTO, OURS_ASTAR]
    assert contestants[0].label.startswith(f"ours (auto: {default_algorithm()}")
    assert all(c.ours for c in contestants)


@needs_maps
def test_bench_map_has_an_unreachable_row_on_a_small_map() -> None:
    contestants, _ = contestants_for([])
    calls: list[int] = []
    report = bench_map(
        movingai_dir() / "arena.map", contestants, 4, 0, 2, on_query=lambda: calls.append(1)
    )
    assert len(calls) == 4 + 1, "once per scenario, once for the unreachable row"
    assert report.unreachable is not None
    assert report.unreachable.kind == WALLED_GOAL, "arena is one region"
    assert report.unreachable.wrong == []
    assert report.unreachable.queries == 51


@needs_maps
def test_bench_json_has_the_new_rows_and_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MOVINGAI_DIR", str(movingai_dir()))
    answer = tmp_path / "bench.json"
    argv = ["bench", "--maps", "arena", "Berlin_0_256", "--sample", "4", "--peers", "tcod"]
    assert main([*argv, "--json", str(answer)]) == 0
    out = capsys.readouterr().out
    assert f"| ours (auto: {default_algorithm()}" in out
    assert "| ours A* " in out
    unreachable_lines = [line for line in out.splitlines() if ", unreachable " in line]
    assert len(unreachable_lines) == 2, "one unreachable row per map"
    assert "| walled-in goal (the map is one region)" in unreachable_lines[0]
    assert "| islands: 31 regions, one end in the largest" in unreachable_lines[1]
    data = json.loads(answer.read_text())
    assert set(data) >= {"auto_algorithm", "maps", "targets", "first_path"}
    assert data["auto_algorithm"] == default_algorithm()
    assert [entry["map"] for entry in data["maps"]] == ["arena", "Berlin_0_256"]
    berlin = data["maps"][1]
    assert set(berlin) >= {"map", "width", "height", "queries", "rows", "unreachable"}
    keys = [row["key"] for row in berlin["rows"]]
    assert keys[:2] == [OURS_AUTO, OURS_ASTAR]
    # tcod is a `bench` extra, which CI does not install: then its row is missing, and named.
    tcod_installed = importlib.util.find_spec("tcod") is not None
    assert ("tcod" in keys) is tcod_installed
    if not tcod_installed:
        assert "peer tcod skipped: not installed" in out
    auto = berlin["rows"][0]
    assert set(auto) >= {
        "planner",
        "median_ms",
        "p95_ms",
        "median_expanded",
        "legal_and_optimal",
        "auto_over_peer",
        "astar_over_peer",
    }
    assert auto["legal_and_optimal"] is True
    if tcod_installed:
        tcod = berlin["rows"][keys.index("tcod")]
        assert tcod["auto_over_peer"] > 0
    unreachable = berlin["unreachable"]
    assert unreachable["kind"] == ISLANDS
    assert unreachable["regions"] == 31
    assert unreachable["all_unreachable"] is True
    assert set(unreachable) >= {"first_ms", "first_expanded", "median_ms", "over_reachable"}
    targets = {target["key"]: target for target in data["targets"]}
    assert set(targets) == {
        "pyastar2d_geomean_512",
        "pyastar2d_every_map",
        "tcod_every_map",
        "unreachable_every_512",
        "paths_legal_and_optimal",
        "unreachable_answered_unreachable",
    }
    assert targets["paths_legal_and_optimal"]["met"] is True
    assert targets["pyastar2d_geomean_512"]["met"] is None, "no 512x512 map ran"
