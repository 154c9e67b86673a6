"""A FIFO, a device, a folder or a huge file given as input ends in one line and status 2, fast.

Each case puts the odd file where a scene, a Moving AI map or its scenario list is expected and
runs the command in a subprocess with a timeout, so a regression (a read that waits for a FIFO's
writer, or reads /dev/zero for ever) fails the test instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sim.navigation.maps.input_file import InputFileError, read_input_file
from sim.navigation.maps.movingai import MAX_FILE_BYTES
from sim.scene.file import MAX_SCENE_BYTES
from tests.helpers.paths import REPO_ROOT

# Generous: a refused file costs the interpreter's start and an import, well under a second.
TIMEOUT_S = 60
SMALL_MAP = "type octile\nheight 2\nwidth 3\nmap\n...\n.@.\n"
SMALL_SCEN = "version 1\n0\tx.map\t3\t2\t0\t0\t2\t0\t2\n"
SCENE = REPO_ROOT / "scenes" / "default.toml"


def _fifo(path: Path, limit: int) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path, limit: int) -> None:
    path.symlink_to("/dev/zero")


def _folder(path: Path, limit: int) -> None:
    path.mkdir()


def _oversize(path: Path, limit: int) -> None:
    with path.open("wb") as file:
        file.truncate(limit + 1)  # sparse: no disk is spent on it


KINDS: dict[str, Callable[[Path, int], None]] = {
    "fifo": _fifo,
    "dev-zero": _dev_zero,
    "folder": _folder,
    "oversize": _oversize,
}
PROBLEMS = {
    "fifo": "is a FIFO (named pipe), not a regular file",
    "dev-zero": "is a character device, not a regular file",
    "folder": "",  # each command words a folder its own way, as before
    "oversize": "too large",
}


def _sim(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim", *argv],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=REPO_ROOT,
        env={**os.environ, **(env or {})},
        check=False,
    )


def _assert_refused(done: subprocess.CompletedProcess[str], *expected: str) -> str:
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {done.stderr!r}"
    assert done.returncode == 2
    for text in expected:
        assert text in lines[0]
    return lines[0]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", ["run", "compare"])
def test_an_odd_scene_file_is_refused(tmp_path: Path, command: str, kind: str):
    scene = tmp_path / "x.toml"
    KINDS[kind](scene, MAX_SCENE_BYTES)
    flags = ["--headless", "--frames", "1"] if command == "run" else []
    done = _sim(command, *flags, str(scene))
    _assert_refused(done, f"sim: {scene}: ", PROBLEMS[kind])


@pytest.fixture
def movingai(tmp_path: Path) -> Path:
    """A folder with a valid x.map and x.map.scen; returns the folder."""
    folder = tmp_path / "movingai"
    folder.mkdir()
    (folder / "x.map").write_text(SMALL_MAP)
    (folder / "x.map.scen").write_text(SMALL_SCEN)
    return folder


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("odd", ["x.map", "x.map.scen"])
def test_an_odd_map_or_scenario_file_is_refused_by_plan(movingai: Path, odd: str, kind: str):
    path = movingai / odd
    path.unlink()
    KINDS[kind](path, MAX_FILE_BYTES)
    done = _sim("plan", str(movingai / "x.map"), "--scen", str(movingai / "x.map.scen"))
    _assert_refused(done, f"sim: {path}: ", PROBLEMS[kind])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("odd", ["x.map", "x.map.scen"])
def test_an_odd_map_or_scenario_file_is_refused_by_bench(movingai: Path, odd: str, kind: str):
    path = movingai / odd
    path.unlink()
    KINDS[kind](path, MAX_FILE_BYTES)
    done = _sim(
        "bench",
        "--maps",
        "x",
        "--peers",
        "none",
        "--sample",
        "1",
        env={"MOVINGAI_DIR": str(movingai)},
    )
    if odd == "x.map.scen" and kind != "oversize":
        # bench lists only maps with a regular .scen file beside them: x is not one.
        _assert_refused(done, "sim: bench: unknown map 'x'")
    else:
        _assert_refused(done, f"sim: {path}: ", PROBLEMS[kind])


# --- the reader itself --------------------------------------------------------------------------


def test_a_file_at_the_limit_is_read_whole(tmp_path: Path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_input_file(path, 10) == b"x" * 10


def test_a_file_past_the_limit_is_refused_unread(tmp_path: Path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 11)
    with pytest.raises(InputFileError, match=r"too large: 11 bytes; the limit is 10 bytes"):
        read_input_file(path, 10)


def test_a_special_file_that_says_it_is_empty_is_still_read_with_a_bound(tmp_path: Path):
    # /proc files report size 0 but hold text; the bound holds on what is actually read.
    data = read_input_file("/proc/self/status", 1 << 20)
    assert data.startswith(b"Name:")
    with pytest.raises(InputFileError, match="too large: past the limit of 16 bytes"):
        read_input_file("/proc/self/status", 16)


def test_a_format_error_quoting_a_huge_line_stays_short(tmp_path: Path):
    path = tmp_path / "x.map"
    path.write_bytes(b"\0" * 1_000_000)
    done = _sim("plan", str(path), "--scen", str(path))
    line = _assert_refused(done, f"sim: {path}:1: ")
    assert len(line) < 300


@pytest.mark.timeout(20)
def test_saving_onto_a_scene_swapped_for_a_fifo_fails_in_one_line(tmp_path: Path):
    from sim.scene.writer import ObjectState, SceneSaveError, save_scene

    scene = tmp_path / "scene.toml"
    scene.write_text((REPO_ROOT / "scenes" / "default.toml").read_text(encoding="utf-8"))
    scene.unlink()
    os.mkfifo(scene)  # another program replaced the file while the app ran
    state = ObjectState("end", "End", "cube", (1.0, 1.0, 0.0), (1.0, 1.0, 1.0), 0.0)
    with pytest.raises(SceneSaveError, match=r"not a regular file") as raised:
        save_scene(scene, [state])
    assert "\n" not in str(raised.value)
