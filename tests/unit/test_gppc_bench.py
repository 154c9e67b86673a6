"""`sim bench --gppc`: the fields of the competition's tables, ours alone and beside warthog.

Warthog itself is never needed: a stand-in script answers like ``warthog-timed`` (one tab-separated
line per query), so reading it, the optimality check and the targets are tested everywhere.
"""

from __future__ import annotations

import dataclasses
import io
import json
import sys
from pathlib import Path

import pytest

from sim.bench.gppc import runs, worker
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


def logging_warthog(folder: Path, log: Path) -> Path:
    """A warthog-timed stand-in for any map: the published lengths, a log line a run.

    Its run k (from 0) of one algorithm on one map times query i at ``1000 * (1 + (i + k) % 3)``
    ns, so each query's fastest time over the runs is known beforehand (`staggered_ns`).
    """
    binary = folder / "warthog-timed"
    binary.write_text(
        f"""#!{sys.executable}
import sys
from pathlib import Path
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
counter = Path({str(folder)!r}) / f"runs-{{args['--alg']}}-{{Path(args['--map']).stem}}"
run = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(run + 1))
with open({str(log)!r}, "a") as log:
    log.write(f"warthog {{args['--alg']}} {{Path(args['--map']).stem}}\\n")
lines = [line.split("\\t") for line in Path(args["--scen"]).read_text().splitlines()[1:] if line]
print("id\\talg\\texpanded\\tnanos\\twall_ns\\tcpu_ns\\tplen\\tpcost\\tscost")
for index, fields in enumerate(lines):
    nanos = 1000 * (1 + (index + run) % 3)
    print(f"{{index}}\\tx\\t5\\t{{nanos}}\\t{{nanos}}\\t{{nanos}}\\t3\\t{{fields[8]}}\\t{{fields[8]}}")
""",
        encoding="utf-8",
    )
    binary.chmod(0o755)
    return binary


def staggered_ns(queries: int, runs: int) -> int:
    """The sum over `queries` of each one's fastest time over `runs` runs of `logging_warthog`."""
    return sum(min(1000 * (1 + (i + k) % 3) for k in range(runs)) for i in range(queries))


def logging_worker(folder: Path, log: Path) -> tuple[str, ...]:
    """Our worker's command, with each pass it runs logged to `log` before it runs."""
    script = folder / "logging_worker.py"
    script.write_text(
        f"""import sys
from sim.bench.gppc import worker
algorithm, real = sys.argv[1], worker.MapRun.run_pass
def run_pass(self):
    with open({str(log)!r}, "a") as log:
        log.write(f"ours {{algorithm}} {{self.name}}\\n")
    real(self)
worker.MapRun.run_pass = run_pass
sys.exit(worker.main(sys.argv[1:]))
""",
        encoding="utf-8",
    )
    return (sys.executable, str(script))


def test_rounds_put_every_planner_side_by_side_map_by_map(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "order.log"
    monkeypatch.setattr(runs, "WORKER", logging_worker(tmp_path, log))
    maps = [MAPS / "den312d.map", MAPS / "lak303d.map"]
    steps: list[str] = []
    report = gppc.run(
        maps,
        warthog=logging_warthog(tmp_path, log),
        warthog_asked=True,
        sample=4,
        seed=0,
        rounds=2,
        on_done=lambda units, note: steps.extend([note] * units),
    )
    one_round = [f"ours {name}" for name in gppc.OUR_ALGORITHMS] + [
        f"warthog {name}" for name in gppc.WARTHOG_ALGORITHMS
    ]
    expected = [
        f"{planner} {path.stem}" for path in maps for _ in range(2) for planner in one_round
    ]
    assert log.read_text(encoding="utf-8").splitlines() == expected
    assert len(steps) == gppc.steps(len(maps), warthog=True, rounds=2) == len(expected)
    # Each warthog run timed query i at 1, 2 or 3 us by its run's count: the fastest is kept.
    theirs = [m for m in report.maps if m.planner == "warthog"]
    assert len(theirs) == len(maps) * len(gppc.WARTHOG_ALGORITHMS)
    for figures in theirs:
        assert figures.query_s == pytest.approx(staggered_ns(4, 2) / 1e9)
        # The stand-in's cpu_ns is its nanos: each query's least CPU time is kept alike.
        assert figures.query_cpu_s == pytest.approx(staggered_ns(4, 2) / 1e9)
        assert figures.optimally_solved == figures.queries == 4
    # A worker's peak memory is its whole life's, on every map it ran, as before.
    for algorithm in gppc.OUR_ALGORITHMS:
        ours = [m for m in report.maps if m.planner == "ours" and m.algorithm == algorithm]
        assert [m.map for m in ours] == ["den312d", "lak303d"]
        assert ours[0].max_ram_bytes == ours[1].max_ram_bytes
        assert ours[0].max_ram_bytes
        assert ours[0].max_ram_bytes > 0
    assert [(load.map, load.round) for load in report.loads] == [
        ("den312d", 1),
        ("den312d", 2),
        ("lak303d", 1),
        ("lak303d", 2),
    ]
    assert report.lines()[0].startswith("machine load over the 4 rounds")


def test_a_warthog_query_keeps_its_fastest_run(tmp_path: Path) -> None:
    binary = logging_warthog(tmp_path, tmp_path / "order.log")
    map_path = MAPS / "den312d.map"
    figures = gppc.run_warthog(binary, "jps2", map_path, sample=None, seed=0)
    queries = len(read_scenarios(map_path.with_name("den312d.map.scen")))
    assert figures.query_s == pytest.approx(staggered_ns(queries, gppc.PASSES) / 1e9)


def test_our_query_keeps_its_fastest_pass() -> None:
    """Pass k times query i's call at ``i + 1 + 5k`` us and its cells read ``i + 1 + 4k`` later."""
    passes = [[(i + 1 + 5 * k, i + 1 + 4 * k) for i in range(6)] for k in range(2)]
    ticks: list[float] = []
    for k, times in enumerate(passes):
        for call_us, cells_us in times:
            began = 1000.0 * (k + 1)
            ticks += [began, began + call_us * 1e-6, began + (call_us + cells_us) * 1e-6]
    # The thread's CPU time: query i ran (i + 1) * (3 - 2k) us in pass k, the least in pass 1.
    ran = [float(t) for k in range(2) for i in range(6) for t in (0, (i + 1) * (3 - 2 * k) * 1e-6)]
    clock, cpu_clock = iter(ticks).__next__, iter(ran).__next__
    run = worker.MapRun("jps", MAPS / "den312d.map", 6, 0, clock=clock, cpu_clock=cpu_clock)
    run.run_pass()
    run.run_pass()
    figures = run.figures()
    assert figures["query_s"] == pytest.approx(sum(range(1, 7)) * 1e-6)
    assert figures["query_with_cells_s"] == pytest.approx(2 * sum(range(1, 7)) * 1e-6)
    assert figures["query_cpu_s"] == pytest.approx(sum(range(1, 7)) * 1e-6)
    assert figures["queries"] == figures["optimally_solved"] == 6


def test_the_worker_serves_a_pass_at_a_time() -> None:
    map_path = MAPS / "den312d.map"
    commands = io.StringIO(f"pass {map_path}\npass {map_path}\nend {map_path}\n")
    out = io.StringIO()
    worker.serve("auto", 5, 0, commands, out)
    passed, again, figures = out.getvalue().splitlines()
    assert passed == again == "passed"
    line = json.loads(figures)
    assert (line["map"], line["queries"], line["optimally_solved"]) == ("den312d", 5, 5)
    with pytest.raises(ValueError, match="unknown command"):
        worker.serve("auto", 5, 0, io.StringIO("stop\n"), io.StringIO())


MAP_KEYS = {
    "planner",
    "algorithm",
    "map",
    "cells",
    "queries",
    "solved",
    "optimally_solved",
    "query_s",
    "setup_s",
    "path_length_sum",
    "suboptimality_sum",
    "max_ram_bytes",
    "storage_bytes",
    "repair_ms_mean",
    "repair_ms_max",
    "query_with_cells_s",
    "mean_query_us",
}
"""Every per-map key the JSON had before rounds: none may go or change its name."""


def test_the_json_keeps_every_key_and_adds_the_load(tmp_path: Path) -> None:
    map_path = MAPS / "den312d.map"
    report = gppc.run(
        [map_path],
        warthog=logging_warthog(tmp_path, tmp_path / "order.log"),
        warthog_asked=True,
        sample=3,
        seed=0,
        rounds=1,
    )
    document = json.loads(json.dumps(report.to_json()))
    assert document.keys() >= {"sets", "maps", "warthog", "rounds", "load"}
    assert document["rounds"] == 1
    assert all(row.keys() >= FIELDS | {"maps"} for row in document["sets"])
    assert all(entry.keys() >= MAP_KEYS | {"query_cpu_s"} for entry in document["maps"])
    assert all(entry["query_cpu_s"] > 0 for entry in document["maps"])
    (load,) = document["load"]
    assert (load["map"], load["round"]) == ("den312d", 1)
    assert len(load["start"]) == len(load["end"]) == 3
    assert all(value >= 0 for value in load["start"] + load["end"])


def test_the_targets_are_said_again_on_cpu_time() -> None:
    def timed(planner: str, algorithm: str, wall_us: float, cpu_us: float) -> gppc.MapFigures:
        return dataclasses.replace(
            online(planner, algorithm, "a", wall_us), query_cpu_s=cpu_us * 1e-4
        )

    figures = (
        timed("warthog", "jps2", 10.0, 5.0),
        timed("ours", "auto", 9.0, 6.0),
        timed("ours", "jps", 9.5, 4.0),
    )
    report = gppc.GppcReport(figures, (), None)
    lines = report.cpu_lines()
    assert (
        "- ours (auto, CPU time) <= 0.8x warthog JPS2 over those maps (geomean): 1.20x, missed"
        in lines
    )
    assert any(
        line.startswith("- our plain JPS, CPU time <=") and "0.80x, met" in line for line in lines
    )
    assert not any("frozen" in line for line in lines)
    assert set(lines) <= set(report.lines())
    assert (
        gppc.GppcReport((figures[0], online("ours", "jps", "a", 9.0)), (), None).cpu_lines() == []
    )
