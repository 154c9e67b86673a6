"""`sim sweep`'s workers: as many as help, and a Ctrl+C that leaves nothing behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.paths import REPO_ROOT

pytestmark = [pytest.mark.lab, pytest.mark.timeout(240)]

SWEEP = (sys.executable, "-m", "sim", "sweep")


def cores() -> int:
    return len(os.sched_getaffinity(0))


def small_experiment(tmp_path: Path, *, scenarios: int, implementation: str = "auto") -> Path:
    path = tmp_path / "exp.toml"
    path.write_text(
        f"scenarios_per_map = {scenarios}\n"
        '[[maps]]\ngenerate = "random"\nsize = [256, 256]\ndensity = 0.2\n'
        f'[[searches]]\nalgorithm = "dijkstra"\nimplementation = "{implementation}"\n',
        encoding="utf-8",
    )
    return path


def test_workers_past_the_cores_and_the_chunks_are_capped_with_a_note(tmp_path: Path) -> None:
    out = tmp_path / "out"
    experiment = small_experiment(tmp_path, scenarios=2)
    done = subprocess.run(
        [*SWEEP, str(experiment), "--out", str(out), "--workers", "1000", "--chunk", "2"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    notes = [f"sim: sweep: --workers 1000: {cores()} started, one per core here"]
    if cores() > 1:
        notes.append(f"sim: sweep: {cores()} workers asked, 1 started: only 1 chunk to run")
    assert done.stderr.splitlines() == notes
    assert "- workers: 1 local worker processes" in (out / "summary.md").read_text()


@pytest.mark.parametrize(
    ("number", "to_group"),
    [(signal.SIGINT, True), (signal.SIGTERM, False)],
    ids=["ctrl-c-to-the-group", "sigterm-to-the-sweep"],
)
def test_a_signal_stops_the_sweep_and_its_workers_without_a_word(
    tmp_path: Path, number: signal.Signals, to_group: bool
) -> None:
    out = tmp_path / "out"
    experiment = small_experiment(tmp_path, scenarios=40, implementation="python")
    process = subprocess.Popen(
        [*SWEEP, str(experiment), "--out", str(out), "--workers", "2", "--chunk", "1"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group, as a terminal gives a command
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 150
        while not list((out / "partial").glob("*.csv")):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no chunk finished in 150 s"
            time.sleep(0.02)
        if to_group:  # Ctrl+C: the whole group gets it
            os.killpg(process.pid, number)
        else:  # kill, a service manager: the sweep alone
            os.kill(process.pid, number)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)
    assert process.returncode == -number
    assert stderr == ""  # no worker's traceback, no "leaked semaphore objects"
    # Its workers go too: the group empties (they end as the cluster closes, not killed).
    deadline = time.monotonic() + 60
    while _group_alive(process.pid):
        assert time.monotonic() < deadline, f"left running: {_group_members(process.pid)}"
        time.sleep(0.05)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def _group_members(group: int) -> list[str]:
    found = subprocess.run(
        ["ps", "-o", "pid=,stat=,args=", "-g", str(group)], capture_output=True, text=True
    )
    return found.stdout.splitlines()
