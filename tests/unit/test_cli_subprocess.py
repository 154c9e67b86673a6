"""`python -m sim run` with bad values, end to end: exit 2, one stderr line, no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.paths import DEFAULT_SCENE, REPO_ROOT

DEFAULT = str(DEFAULT_SCENE)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--frames", "-1"], "sim run: argument --frames: expected a number >= 1, got -1"),
        (["--size", "0x0"], "sim run: argument --size: each side must be 16 to 8192 pixels"),
        (["MISSING"], "sim: {tmp}/nope.toml: cannot read file: No such file or directory"),
        (["--report", "{tmp}/no-such-folder/r.json"], "sim: --report {tmp}/no-such-folder/r.json"),
    ],
    ids=["frames-negative", "size-zero", "missing-scene", "report-folder-missing"],
)
def test_bad_value_exits_2_with_one_line(tmp_path, argv, expected):
    scene = [str(tmp_path / "nope.toml")] if argv == ["MISSING"] else [DEFAULT]
    flags = [] if argv == ["MISSING"] else [arg.format(tmp=tmp_path) for arg in argv]
    done = subprocess.run(
        [sys.executable, "-m", "sim", "run", *scene, "--headless", *flags],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(expected.format(tmp=tmp_path))
    assert done.stdout == ""
