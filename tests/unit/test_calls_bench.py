"""`sim bench --calls`: the cost of one call and the batch call's, beside warthog's per query.

The run is made small (one map, few calls); warthog is a stand-in script answering like
``warthog-timed``, so reading it and the targets are tested everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.bench.gppc import calls
from sim.commands.cli import main
from sim.navigation import read_scenarios
from tests.helpers.paths import REPO_ROOT

MAPS = REPO_ROOT / "experiments" / "maps"


@pytest.fixture
def small_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOVINGAI_DIR", str(MAPS))
    monkeypatch.setattr(calls, "FIXED_MAPS", ("den312d",))
    monkeypatch.setattr(calls, "SMALL_MAPS", ("den312d",))
    monkeypatch.setattr(calls, "FIXED_CALLS", 50)
    monkeypatch.setattr(calls, "PASSES", 1)


def fake_warthog(folder: Path, nanos: int) -> Path:
    """A warthog-timed stand-in: every den312d query answered optimally in `nanos`."""
    scenarios = read_scenarios(MAPS / "den312d.map.scen")
    lines = ["id\talg\texpanded\tnanos\twall_ns\tcpu_ns\tplen\tpcost\tscost"]
    for index, s in enumerate(scenarios):
        lines.append(f"{index}\tjps2\t5\t{nanos}\t1\t1\t3\t{s.optimal_length!r}\t0")
    answers = folder / "answers.tsv"
    answers.write_text("\n".join(lines) + "\n", encoding="utf-8")
    binary = folder / "warthog-timed"
    binary.write_text(f"#!/bin/sh\ncat '{answers}'\n", encoding="utf-8")
    binary.chmod(0o755)
    return binary


@pytest.mark.usefixtures("small_run")
def test_ours_alone_writes_every_call_and_every_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("WARTHOG", raising=False)
    out = tmp_path / "calls.json"
    assert main(["bench", "--calls", "--json", str(out)]) == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    assert [row["call"] for row in document["fixed"]] == [name for name, _ in calls.CALL_OPTIONS]
    assert all(0 < row["us"] < 1e5 and row["cells"] == 65 * 81 for row in document["fixed"])
    queries = len(read_scenarios(MAPS / "den312d.map.scen"))
    assert [row["algorithm"] for row in document["batch"]] == list(calls.BATCH_ALGORITHMS)
    for row in document["batch"]:
        assert row["queries"] == row["optimal"] == queries
        assert row["batch_us"] > 0
        assert row["batch_cells_us"] >= row["batch_us"]  # the same batch, its cells read too
        assert row["single_us"] > 0
        assert row["warthog_us"] is None
        assert row["ratio"] is None
        assert row["arrays_us"] > 0
        assert row["arrays_ratio"] is None
    assert document["warthog"] is None
    assert "batch against warthog: not measured" in capsys.readouterr().out


@pytest.mark.usefixtures("small_run")
def test_warthogs_per_query_time_is_the_bar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WARTHOG", str(fake_warthog(tmp_path, nanos=1_000_000)))
    out = tmp_path / "calls.json"
    assert main(["bench", "--calls", "--peers", "warthog", "--json", str(out)]) == 0
    for row in json.loads(out.read_text(encoding="utf-8"))["batch"]:
        assert row["warthog_us"] == pytest.approx(1000.0)
        assert row["ratio"] == pytest.approx(row["batch_us"] / 1000.0)
        assert row["arrays_ratio"] == pytest.approx(row["arrays_us"] / 1000.0)


def test_the_targets_say_met_or_missed() -> None:
    fixed = (calls.FixedCost("arena", 2401, "jps", 1.5), calls.FixedCost("big", 9, "astar", 2.5))
    rows = (
        calls.BatchRow("arena", "auto", 10, 10, 3.0, 4.0, 2.0, arrays_us=3.8),
        calls.BatchRow("den312d", "auto", 10, 10, 3.0, 4.0, 1.0, arrays_us=1.5),
        calls.BatchRow("den312d", "astar", 10, 10, 90.0, 4.0, 1.0, arrays_us=80.0),
    )
    lines = calls.CallsReport(fixed, rows, "warthog-timed").target_lines()
    assert lines == [
        "- fixed cost of one call <= 2 us: worst 2.50 us (astar, big), missed",
        "- batch (auto, list form) per query <= 2x warthog JPS2's on the smaller maps: worst "
        "den312d 3.00x, missed",
        "- batch (auto, array form) per query <= 2x warthog JPS2's on the smaller maps: worst "
        "arena 1.90x, met",
    ]


@pytest.mark.usefixtures("small_run")
def test_a_missing_map_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(calls, "FIXED_MAPS", ("nowhere",))
    assert main(["bench", "--calls"]) == 2
    assert "--calls needs nowhere.map" in capsys.readouterr().err
