from __future__ import annotations

from pathlib import Path

import pytest

from sim.commands.cli import main
from tests.helpers.paths import DEFAULT_SCENE

DEFAULT = str(DEFAULT_SCENE)


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got: {captured.err!r}"
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--frames", "-1"], "--frames: expected a number >= 1, got -1"),
        (["--frames", "0"], "--frames: expected a number >= 1, got 0"),
        (["--frames", "ten"], "--frames: expected a whole number, got 'ten'"),
        (["--size", "0x0"], "--size: each side must be 16 to 8192 pixels, got 0x0"),
        (["--size", "800"], "--size: expected WIDTHxHEIGHT such as 800x600, got '800'"),
        (["--size", "99999x10"], "--size: each side must be 16 to 8192 pixels, got 99999x10"),
        (["--fps", "0"], "--fps: expected a number >= 1, got 0"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
    ids=[
        "frames-negative",
        "frames-zero",
        "frames-not-a-number",
        "size-zero",
        "size-no-x",
        "size-too-large",
        "fps-zero",
        "unknown-flag",
    ],
)
def test_bad_run_values_give_one_line_and_status_2(capsys, argv, expected):
    status = main(["run", DEFAULT, "--headless", *argv])
    assert status == 2
    line = one_error_line(capsys)
    assert line.startswith(("sim run: ", "sim: "))
    assert expected in line


def test_missing_scene_file_is_one_line(capsys, tmp_path):
    missing = tmp_path / "nope.toml"
    status = main(["run", str(missing), "--headless"])
    assert status == 2
    line = one_error_line(capsys)
    assert line.startswith(f"sim: {missing}")


@pytest.mark.parametrize(
    ("flag", "make_path", "problem"),
    [
        ("--report", lambda tmp: tmp / "no-such-folder" / "r.json", "does not exist"),
        ("--screenshot", lambda tmp: tmp / "no-such-folder" / "s.png", "does not exist"),
        ("--report", lambda tmp: tmp, "is a folder"),
    ],
    ids=["report-folder-missing", "screenshot-folder-missing", "report-is-a-folder"],
)
def test_unwritable_output_paths_are_refused_before_opening(
    capsys, tmp_path, flag, make_path, problem
):
    path: Path = make_path(tmp_path)
    status = main(["run", DEFAULT, "--headless", flag, str(path)])
    assert status == 2
    line = one_error_line(capsys)
    assert line.startswith(f"sim: {flag} {path}")
    assert problem in line


def test_run_help_documents_every_option(capsys):
    assert main(["run", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--headless", "--frames", "--screenshot", "--report", "--size", "--fps"):
        assert option in out
    assert "Esc" in out
