"""What `sim run` and `sim soak` asked to write is written, or the failure is loud.

Each runs `sim` in a subprocess, as a user does. A write failure is injected with a file size
limit (RLIMIT_FSIZE: any write past it fails with "File too large", as a full disk fails with
"No space left on device"), which needs no privileges, unlike a small tmpfs.
"""

from __future__ import annotations

import json
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sim.app.report import validate_report
from tests.helpers.paths import DEFAULT_SCENE

pytestmark = [pytest.mark.render, pytest.mark.timeout(180)]

SMALL = ["--size", "320x240"]
FILE_SIZE_LIMIT = 1024  # bytes: the old files below fit, a new screenshot or report does not


def limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


def sim(
    argv: list[str], folder: Path, preexec_fn: Callable[[], None] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim", *argv],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
        preexec_fn=preexec_fn,
    )


def old_png(path: Path) -> bytes:
    """Write a small real PNG at `path` (a screenshot from an earlier run) and return it."""
    from panda3d.core import Filename, PNMImage

    image = PNMImage(4, 4)
    image.fill(0.2, 0.4, 0.6)
    assert image.write(Filename.from_os_specific(str(path)))
    return path.read_bytes()


def test_a_failed_screenshot_leaves_the_old_image_and_exits_1(tmp_path):
    shot = tmp_path / "shot.png"
    before = old_png(shot)
    run = ["run", str(DEFAULT_SCENE), "--headless", "--frames", "3", *SMALL]
    done = sim([*run, "--screenshot", str(shot)], tmp_path, limit_file_size)
    assert done.returncode == 1, done.stderr
    # One line of ours, none of Panda3D's.
    assert done.stderr == f"sim: --screenshot {shot}: not written: File too large\n"
    assert shot.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["shot.png"]  # no temporary


def test_a_report_that_cannot_be_written_exits_1_and_leaves_the_old_one(tmp_path):
    report = tmp_path / "r.json"
    report.write_text('{"frames": 1, "from": "an earlier run"}\n')
    before = report.read_bytes()
    run = ["run", str(DEFAULT_SCENE), "--headless", "--frames", "3", *SMALL]
    done = sim([*run, "--report", str(report)], tmp_path, limit_file_size)
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"sim: --report {report}: not written: File too large\n"
    assert report.read_bytes() == before


def test_the_screenshot_format_follows_its_extension(tmp_path):
    shot = tmp_path / "shot.jpg"
    run = ["run", str(DEFAULT_SCENE), "--headless", "--frames", "3", *SMALL]
    done = sim([*run, "--screenshot", str(shot)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert shot.read_bytes()[:3] == b"\xff\xd8\xff"


@pytest.mark.parametrize(
    ("number", "status"),
    [(signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, -signal.SIGINT)],
    ids=["sigterm", "sigint"],
)
def test_a_signal_writes_the_final_report_and_screenshot(tmp_path, number, status):
    report, shot = tmp_path / "r.json", tmp_path / "shot.png"
    command = [sys.executable, "-m", "sim", "run", str(DEFAULT_SCENE), "--headless", *SMALL]
    command += ["--frames", "100000", "--report", str(report), "--screenshot", str(shot)]
    process = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not report.exists():
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, "no first report within 60 s"
        time.sleep(0.05)
    first = json.loads(report.read_text())["frames"]
    time.sleep(0.5)  # some frames more
    process.send_signal(number)
    stderr = process.communicate(timeout=60)[1]
    assert process.returncode == status, stderr  # a shell shows 128 + the signal's number
    assert stderr == ""
    final = json.loads(report.read_text())
    assert validate_report(final) == []
    assert final["frames"] > first
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_soak_whose_report_is_never_rewritten_fails(tmp_path):
    scene = tmp_path / "sc.toml"
    shutil.copyfile(DEFAULT_SCENE, scene)
    report = tmp_path / "soak.json"
    soak = ["soak", str(scene), "--minutes", "0.1", "--report", str(report)]
    first = sim(soak, tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert validate_report(json.loads(report.read_text())) == []
    # The first soak's valid report stays at the path: the second soak can never replace it,
    # and must not take it for its own.
    done = sim(soak, tmp_path, limit_file_size)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "soak: FAILED: the report was rewritten 0 times, expected at least 5" in done.stdout
    assert f"soak: FAILED: the report lists errors: report {report}: File too large" in (
        done.stdout
    )
