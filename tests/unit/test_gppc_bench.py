"""`sim bench --gppc`: the fields of the competition's tables, ours alone and beside warthog.

Warthog itself is never needed: a stand-in script answers like ``warthog-timed`` (one tab-separated
line per query), so reading it, the optimality check and the targets are tested everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.bench.gppc import scoreboard as gppc
from sim.commands.cli import main
from sim.errors import SimError
from sim.navigation import find_path, read_map, read_scenarios
from tests.helpers.paths import REPO_ROOT

MAPS = REPO_ROOT / "experiments" / "maps"
FIELDS = {
    "set",
    "planner",
    "algorithm",
    "queries",
    "solved",
    "optimally_solved",
    "query_s",
    "preprocessing_s",
    "storage_bytes",
    "max_ram_bytes",
    "mean_path_length",
    "mean_suboptimality",
}


def fake_warthog(folder: Path, map_path: Path, *, off_by: float = 0.0) -> Path:
    """A warthog-timed stand-in answering `map_path`'s scenarios with our own costs."""
    walkable = read_map(map_path).walkable
    lines = ["id\talg\texpanded\tnanos\twall_ns\tcpu_ns\tplen\tpcost\tscost"]
    for index, s in enumerate(read_scenarios(map_path.with_name(map_path.name + ".scen"))):
        cost = find_path(walkable, s.start, s.goal).cost + off_by
        lines.append(f"{index}\tjps2\t5\t1000\t1500\t1400\t3\t{cost:.17g}\t{s.optimal_length}")
    answers = folder / "answers.tsv"
    answers.write_text("\n".join(lines) + "\n", encoding="utf-8")
    binary = folder / "warthog-timed"
    binary.write_text(f"#!/bin/sh\ncat '{answers}'\n", encoding="utf-8")
    binary.chmod(0o755)
    return binary


def test_every_set_row_has_the_competition_fields(tmp_path: Path) -> None:
    map_path = MAPS / "den312d.map"
    report = gppc.run(
        [map_path],
        warthog=fake_warthog(tmp_path, map_path),
        warthog_asked=True,
        sample=None,
        seed=0,
    )
    document = report.to_json()
    rows = document["sets"]
    assert {(row["planner"], row["algorithm"]) for row in rows} == {
        *(("ours", name) for name in gppc.OUR_ALGORITHMS),
        *(("warthog", name) for name in gppc.WARTHOG_ALGORITHMS),
    }
    queries = len(read_scenarios(map_path.with_name("den312d.map.scen")))
    for row in rows:
        assert row.keys() >= FIELDS
        assert row["set"] == "games"
        assert row["queries"] == row["solved"] == row["optimally_solved"] == queries
        assert row["mean_suboptimality"] == 0.0
        # A process too short to be read between two polls has no figure: never a made-up 0.
        assert row["max_ram_bytes"] is None or row["max_ram_bytes"] > 0
    assert all(row["max_ram_bytes"] for row in rows if row["planner"] == "ours")
    warthog_rows = [row for row in rows if row["planner"] == "warthog"]
    assert all(row["query_s"] == pytest.approx(queries * 1e-6) for row in warthog_rows)
    assert any("jps / jps2" in line for line in report.lines())
    assert any(line.startswith("- our plain JPS") for line in report.target_lines())
    # Ours are timed twice: the call, and the call with its lazily laid out cells read.
    ours = [m for m in report.maps if m.planner == "ours"]
    assert all(m.query_with_cells_s is not None for m in ours)
    assert all(m.query_with_cells_s >= m.query_s for m in ours if m.query_with_cells_s)
    assert any("jps us, cells read" in line for line in report.lines())
    assert any(
        line.startswith("- the same with every path's cells read") for line in report.target_lines()
    )


def test_a_wrong_answer_is_solved_but_not_optimal(tmp_path: Path) -> None:
    map_path = MAPS / "den312d.map"
    figures = gppc.run_warthog(
        fake_warthog(tmp_path, map_path, off_by=1.0), "jps2", map_path, sample=None, seed=0
    )
    assert figures.solved == figures.queries
    assert figures.optimally_solved < figures.queries
    assert figures.suboptimality_sum > 0


def test_map_sets_and_warthogs_path() -> None:
    assert [gppc.map_set(name) for name in ("8room_000", "random512-40-0", "lak303d")] == [
        "rooms",
        "random",
        "games",
    ]
    assert gppc.warthog_binary(None) is None
    with pytest.raises(SimError, match="warthog-timed"):
        gppc.warthog_binary("/nowhere/warthog")


def test_sim_bench_gppc_runs_ours_alone_without_warthog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MOVINGAI_DIR", str(MAPS))
    monkeypatch.delenv("WARTHOG", raising=False)
    out = tmp_path / "gppc.json"
    args = ["bench", "--gppc", "--maps", "den312d", "--sample", "5", "--peers", "warthog"]
    assert main([*args, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "warthog not run: WARTHOG is not set" in printed
    document = json.loads(out.read_text(encoding="utf-8"))
    assert {row["planner"] for row in document["sets"]} == {"ours"}
    assert all(row["queries"] == 5 for row in document["sets"])
    assert document["warthog"] is None


def test_the_offline_planner_reports_its_index_as_preprocessing_and_storage() -> None:
    map_path = MAPS / "den312d.map"
    (figures,) = gppc.run_ours("jps+", [map_path], sample=10, seed=0, passes=1)
    cells = read_map(map_path).walkable.size
    assert (figures.planner, figures.algorithm, figures.queries) == ("ours", "jps+", 10)
    assert figures.optimally_solved == 10
    assert figures.setup_s > 0  # the build, never inside a query's time
    # 8 int16 entries, a copy's byte and 11 int32 landmark fields per cell.
    assert figures.storage_bytes == cells * (17 + 44)
    assert figures.repair_ms_mean is not None
    assert figures.repair_ms_max is not None
    assert 0 < figures.repair_ms_mean <= figures.repair_ms_max
    (row,) = gppc.set_rows([figures])
    assert (row.preprocessing_s, row.storage_bytes) == (figures.setup_s, cells * (17 + 44))
    document = gppc.GppcReport((figures,), (), None).to_json()
    assert document["maps"][0]["repair_ms_max"] == figures.repair_ms_max
    assert document["sets"][0]["storage_bytes"] == cells * (17 + 44)


def offline(name: str, *, query_s: float, setup_s: float, repair_ms: float) -> gppc.MapFigures:
    return gppc.MapFigures(
        "ours",
        "jps+",
        name,
        512 * 512,
        1000,
        1000,
        1000,
        query_s,
        setup_s,
        0.0,
        0.0,
        None,
        512 * 512 * 17,
        repair_ms / 2,
        repair_ms,
    )


def test_offline_targets_say_met_or_missed() -> None:
    fast = offline("a", query_s=0.1, setup_s=0.05, repair_ms=2.0)
    slow = offline("b", query_s=0.5, setup_s=3.0, repair_ms=60.0)
    met = gppc.GppcReport((fast,), (), None).offline_lines()
    assert [line.rsplit(" ", 1)[-1] for line in met[1:]] == ["met", "met", "met"]
    assert "0.100 ms (met" in met[0]
    missed = gppc.GppcReport((fast, slow), (), None).offline_lines()
    assert "0.300 ms (missed; slowest map b 0.500 ms)" in missed[0]
    assert missed[1].endswith("(b), missed")
    assert missed[3].endswith("missed")
    assert (
        gppc.GppcReport((), (), None)
        .offline_lines()[0]
        .endswith("not measured (no 512x512 map run with jps+)")
    )


def online(planner: str, algorithm: str, name: str, mean_us: float) -> gppc.MapFigures:
    """One map's figures with `mean_us` a query over 100 queries."""
    return gppc.MapFigures(
        planner, algorithm, name, 512 * 512, 100, 100, 100, mean_us * 1e-4, 0.0, 0.0, 0.0, None
    )


def test_the_frozen_map_is_its_own_row_and_its_setup_counts_the_freeze() -> None:
    map_path = MAPS / "den312d.map"
    (figures,) = gppc.run_ours("jps-frozen", [map_path], sample=10, seed=0, passes=1)
    assert (figures.planner, figures.algorithm, figures.queries) == ("ours", "jps-frozen", 10)
    assert figures.optimally_solved == 10
    assert figures.setup_s > 0  # the frozen copy, never inside a query's time
    (row,) = gppc.set_rows([figures])
    assert row.algorithm == "jps-frozen"


def test_targets_are_said_apart_for_the_frozen_map() -> None:
    figures = (
        online("warthog", "jps2", "a", 10.0),
        online("ours", "auto", "a", 15.0),
        online("ours", "jps", "a", 12.0),
        online("ours", "auto-frozen", "a", 9.0),
        online("ours", "jps-frozen", "a", 8.0),
    )
    report = gppc.GppcReport(figures, (), None)
    lines = report.target_lines()
    every = "on every map of 256x256 or more: worst a"
    assert f"- ours (auto) <= 1.0x warthog JPS2 {every} 1.50x, missed" in lines
    assert f"- ours (auto, frozen) <= 1.0x warthog JPS2 {every} 0.90x, met" in lines
    plain = "<= 1.0x warthog JPS2 like for like (geomean over 1 maps)"
    assert f"- our plain JPS, frozen {plain}: 0.80x, met" in lines
    (row,) = [line for line in report.lines() if line.startswith("| a |")]
    assert row.endswith("| 9.0 | 8.0 | 0.90x | 0.80x |")
    unfrozen = gppc.GppcReport(figures[:3], (), None).target_lines()
    assert not any("frozen" in line for line in unfrozen)
