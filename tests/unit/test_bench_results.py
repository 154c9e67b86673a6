"""`sim.bench.results`' section writers: a section a run, replaced in place, before Targets."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from sim.bench import results

BEFORE = "# Planner benchmark results\n\n## Old\n\nkept\n\n## Targets\n\n- a target\n"


@pytest.fixture
def results_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "RESULTS.md"
    path.write_text(BEFORE, encoding="utf-8")
    monkeypatch.setattr(results, "RESULTS_PATH", path)
    monkeypatch.setattr(results, "_cpu_model", lambda: "A CPU")
    return path


def test_a_run_section_says_how_and_goes_before_the_targets(results_file: Path) -> None:
    results.write_calls_section(["| calls |", "| 1 |"], "sim bench --calls", "abc123")
    lines = results_file.read_text(encoding="utf-8").splitlines()
    at = lines.index(results.CALLS_HEADING)
    today = datetime.date.today().isoformat()
    assert lines[at + 1] == ""
    assert lines[at + 2].startswith(f"`sim bench --calls` at commit `abc123`, {today}, A CPU: ")
    assert lines[at + 3 : at + 7] == ["", "| calls |", "| 1 |", ""]
    assert lines[at + 7] == "## Targets"
    assert lines[:5] == ["# Planner benchmark results", "", "## Old", "", "kept"]


def test_a_second_run_replaces_its_section_and_no_other(results_file: Path) -> None:
    results.write_map_window_section(["| run 1 |"], "sim bench --window", "one")
    results.write_calls_section(["| calls |"], "sim bench --calls", "two")
    results.write_map_window_section(["| run 2 |"], "sim bench --window", "three")
    lines = results_file.read_text(encoding="utf-8").splitlines()
    assert lines.count(results.MAP_WINDOW_HEADING) == 1
    assert "| run 1 |" not in lines
    at = lines.index(results.MAP_WINDOW_HEADING)
    assert lines[at + 2].startswith("`sim bench --window` at commit `three`, ")
    assert lines[at + 4] == "| run 2 |"
    assert "| calls |" in lines
    assert "kept" in lines
    assert lines[-3:] == ["## Targets", "", "- a target"]
