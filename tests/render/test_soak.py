"""`sim soak`: cubes jump to random places (inside walls, off the grid) and nothing breaks."""

from __future__ import annotations

import os
import re

import pytest

from sim.app.report import validate_report
from sim.commands.cli import main
from sim.commands.soak import SoakResult
from tests.helpers.paths import DEFAULT_SCENE
from tests.helpers.reports import read_report

pytestmark = pytest.mark.render

DEFAULT = str(DEFAULT_SCENE)
SUMMARY = re.compile(
    r"^soak: (?P<minutes>[\d.]+) simulated minutes, (?P<frames>\d+) frames, 0 exceptions, "
    r"blocked_cell_frames 0, (?P<valid>\d+) reports valid of (?P=valid), "
    r"RSS [\d.]+ MB at minute [\d.]+ -> [\d.]+ MB at the end \([+-][\d.]+ MB\)$",
    re.MULTILINE,
)


# About 25 s: with the long soak, only in .ci/run's `pytest -m soak` step, so the default
# suite stays fast.
@pytest.mark.soak
def test_two_minute_soak_stays_clean(capsys, tmp_path):
    report = tmp_path / "soak.json"
    status = main(["soak", DEFAULT, "--minutes", "2", "--seed", "1", "--report", str(report)])
    out = capsys.readouterr().out
    assert status == 0, out
    match = SUMMARY.search(out)
    assert match is not None, out
    assert match["frames"] == "7200"
    assert int(match["valid"]) >= 100
    final = read_report(report)
    assert validate_report(final) == []
    assert final["errors"] == []
    assert all(agent["blocked_cell_frames"] == 0 for agent in final["agents"])


# The long soak takes about 90 s on one core: deselected by default (addopts has -m "not soak");
# .ci/run runs it with `pytest -m soak`.
@pytest.mark.soak
def test_long_soak_stays_clean(capsys):
    minutes = os.environ.get("SIM_SOAK_MINUTES", "30")
    status = main(["soak", DEFAULT, "--minutes", minutes, "--seed", "1"])
    out = capsys.readouterr().out
    print(out)
    assert status == 0, out
    assert SUMMARY.search(out) is not None, out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--minutes", "0"], "--minutes: expected a number > 0, got 0"),
        (["--minutes", "nan"], "--minutes: expected a number > 0, got nan"),
        (["--minutes", "soon"], "--minutes: expected a number, got 'soon'"),
        (["--seed", "x"], "--seed: invalid int value: 'x'"),
    ],
    ids=["minutes-zero", "minutes-nan", "minutes-not-a-number", "seed-not-a-number"],
)
def test_bad_soak_values_give_one_line_and_status_2(capsys, argv, expected):
    status = main(["soak", DEFAULT, *argv])
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert expected in err


def test_soak_of_a_missing_scene_is_one_line(capsys, tmp_path):
    missing = tmp_path / "nope.toml"
    status = main(["soak", str(missing), "--minutes", "0.1"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(f"sim: {missing}: cannot read file")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"exceptions": 2, "first_traceback": "Traceback ...\n"}, "2 exceptions"),
        ({"blocked_cell_frames": 3}, "agents spent 3 frames in blocked cells"),
        ({"bad_reports": ["report at frame 60: Expecting value"]}, "report at frame 60"),
        ({"rss_end_mb": 121.0}, "resident memory grew 21.0 MB (limit 20 MB)"),
        (
            {"reports_due": 108},
            "the report was rewritten 0 times, expected at least 108 in 120 simulated seconds",
        ),
        (
            {"report_errors": ["report r.json: No space left on device", "screenshot x"]},
            "the report lists errors: report r.json: No space left on device (and 1 more)",
        ),
    ],
    ids=[
        "exception",
        "blocked-cell",
        "bad-report",
        "memory-growth",
        "report-not-rewritten",
        "report-lists-errors",
    ],
)
def test_soak_fails_on_each_problem(capsys, changes, problem):
    result = SoakResult(minutes=2.0, frames=7200, rss_baseline_mb=100.0, rss_end_mb=101.0)
    for name, value in changes.items():
        setattr(result, name, value)
    assert result.exit_status() == 1
    assert f"soak: FAILED: {problem}" in capsys.readouterr().out


def test_clean_soak_result_passes(capsys):
    result = SoakResult(minutes=2.0, frames=7200, rss_baseline_mb=100.0, rss_end_mb=101.0)
    assert result.exit_status() == 0
    assert "FAILED" not in capsys.readouterr().out
