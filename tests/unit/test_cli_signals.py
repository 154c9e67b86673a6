"""The `sim` process at its edges: Ctrl+C at any moment, a stdout that fails, a soak too short.

Each runs `sim` as a user does, in a subprocess: Ctrl+C ends it quietly, by SIGINT (a shell
shows status 130); a full, broken or closed stdout is one line on stderr and status 1; none
prints a traceback or CPython's "Exception ignored" at exit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.commands.cli import main
from tests.helpers.paths import DEFAULT_SCENE, REPO_ROOT, movingai_dir

pytestmark = pytest.mark.timeout(120)

SIM = Path(sys.executable).with_name("sim")  # the console script of this environment
DEV_FULL = Path("/dev/full")
needs_dev_full = pytest.mark.skipif(not DEV_FULL.exists(), reason="no /dev/full here")
COMPARE = ["compare", str(DEFAULT_SCENE), "--repeat", "1"]
# With this set, CPython prints a line to stderr as each import ends: the line for
# sim.commands.cli means our code runs, so signals can be timed from it (the interpreter's own
# start-up before it is not ours to guard).
IMPORT_TIMES = {"PYTHONPROFILEIMPORTTIME": "1"}
OUR_CODE_RUNS = "| sim.commands.cli"


def without_import_times(stderr: str) -> str:
    return "".join(line for line in stderr.splitlines(True) if not line.startswith("import time:"))


def interrupt(command: list[str], delay_s: float) -> tuple[int, str]:
    """Start `command`, send SIGINT `delay_s` after our code starts; return status and stderr."""
    process = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        env={**os.environ, **IMPORT_TIMES},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        if line.rstrip().endswith(OUR_CODE_RUNS):
            break
    time.sleep(delay_s)
    process.send_signal(signal.SIGINT)
    rest = process.communicate(timeout=60)[1]
    return process.returncode, without_import_times("".join(seen) + rest)


DELAYS_S = [0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5]


@pytest.mark.parametrize("delay_s", DELAYS_S, ids=[f"{delay:g}s" for delay in DELAYS_S])
def test_ctrl_c_at_any_moment_ends_python_m_sim_quietly(delay_s):
    status, stderr = interrupt([sys.executable, "-m", "sim", *COMPARE], delay_s)
    assert status in (-signal.SIGINT, 0), stderr  # 0: it finished first
    assert stderr == ""


@pytest.mark.skipif(not SIM.exists(), reason="the sim console script is not installed")
@pytest.mark.parametrize("delay_s", [0.0, 0.05, 0.2], ids=["0s", "0.05s", "0.2s"])
def test_ctrl_c_at_any_moment_ends_the_console_script_quietly(delay_s):
    status, stderr = interrupt([str(SIM), *COMPARE], delay_s)
    assert status in (-signal.SIGINT, 0), stderr
    assert stderr == ""


def test_ctrl_c_shows_as_status_130_in_a_shell():
    # `set -m`: with job control a background command keeps SIGINT (else the shell ignores it).
    command = f'"{sys.executable}" -m sim {" ".join(COMPARE)} >/dev/null'
    script = f"set -m; {command} & sleep 0.4; kill -INT $!; wait $!"
    done = subprocess.run(
        ["bash", "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode in (130, 0), done.stderr  # 0: it finished first
    assert "Traceback" not in done.stderr  # bash itself may say "[1]+ Interrupt ..."


def test_ctrl_c_in_process_returns_130(monkeypatch):
    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr("sim.commands.dispatch.run_command", interrupted)
    before = signal.getsignal(signal.SIGINT)
    assert main(COMPARE) == 130
    assert signal.getsignal(signal.SIGINT) is before  # a call with argv leaves the handlers


def plan_argv() -> list[str]:
    """`sim plan` on a map with 1900 scenarios: far more output than one pipe buffer."""
    maps = movingai_dir()
    if not (maps / "32room_000.map").exists():
        pytest.skip(f"no Moving AI maps in {maps}")
    return ["plan", str(maps / "32room_000.map"), "--scen", str(maps / "32room_000.map.scen")]


def run_sim(argv: list[str], **popen: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim", *argv],
        cwd=REPO_ROOT,
        stderr=subprocess.PIPE,
        text=True,
        timeout=90,
        check=False,
        **popen,  # type: ignore[call-overload]
    )


def assert_one_line_status_1(done: subprocess.CompletedProcess[str], reason: str) -> None:
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"sim: cannot write to standard output: {reason}\n"


@needs_dev_full
@pytest.mark.parametrize(
    "argv",
    [COMPARE, ["plan", "--help"], ["bench", "--help"], ["run", "--help"], ["--help"], "PLAN"],
    ids=["compare", "plan-help", "bench-help", "run-help", "help", "plan-scenarios"],
)
def test_a_full_stdout_is_one_line_and_status_1(argv):
    with DEV_FULL.open("w") as full:
        done = run_sim(plan_argv() if argv == "PLAN" else argv, stdout=full)
    assert_one_line_status_1(done, "No space left on device")


def test_a_reader_that_goes_away_is_one_line_and_status_1():
    # The first line of `sim plan` comes before the scenarios are checked; the pipe is closed
    # as soon as it arrives, so all the rest meets a broken pipe.
    process = subprocess.Popen(
        [sys.executable, "-m", "sim", *plan_argv()],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait(timeout=90) == 1, stderr
    assert stderr == "sim: cannot write to standard output: Broken pipe\n"


def test_a_closed_stdout_is_one_line_and_status_1():
    done = run_sim(COMPARE, preexec_fn=lambda: os.close(1))
    assert_one_line_status_1(done, "it is closed")


@pytest.mark.parametrize("minutes", ["0.0002", "0.09"])
def test_a_soak_too_short_to_measure_is_refused(capsys, minutes):
    status = main(["soak", str(DEFAULT_SCENE), "--minutes", minutes])
    err = capsys.readouterr().err
    assert status == 2
    assert err == (
        "sim soak: argument --minutes: a soak under 0.1 simulated minutes is too short to "
        f"measure, got {minutes}\n"
    )
