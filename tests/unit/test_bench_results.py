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
    assert lines[at + 7 : at + 10] == [results.NOTES_MARK, "", "## Targets"]
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


def test_a_new_run_keeps_the_notes_written_below_its_mark(results_file: Path) -> None:
    results.write_calls_section(["| run 1 |"], "sim bench --calls", "one")
    text = results_file.read_text(encoding="utf-8")
    note = "**A dated run by hand.** It measured something the bench does not."
    results_file.write_text(text.replace(results.NOTES_MARK, f"{results.NOTES_MARK}\n\n{note}"))
    results.write_calls_section(["| run 2 |"], "sim bench --calls", "two")
    lines = results_file.read_text(encoding="utf-8").splitlines()
    at = lines.index(results.CALLS_HEADING)
    assert "| run 1 |" not in lines
    assert lines[at + 4] == "| run 2 |"
    assert lines[at + 6 : at + 9] == [results.NOTES_MARK, "", note]
    assert lines.count(results.NOTES_MARK) == 1
    assert lines[-3:] == ["## Targets", "", "- a target"]


def test_a_section_written_before_the_mark_existed_is_replaced_and_gains_it(
    results_file: Path,
) -> None:
    results_file.write_text(BEFORE.replace("## Old", results.CALLS_HEADING), encoding="utf-8")
    results.write_calls_section(["| run |"], "sim bench --calls", "one")
    lines = results_file.read_text(encoding="utf-8").splitlines()
    assert "kept" not in lines
    at = lines.index(results.CALLS_HEADING)
    assert lines[at + 4 : at + 8] == ["| run |", "", results.NOTES_MARK, ""]
