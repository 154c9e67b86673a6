"""`sim sweep` end to end on real Dask clusters: a local one, and a scheduler + workers started
as separate processes on 127.0.0.1, as a user's cluster would be; `--resume` after a kill, and
a worker killed midway.

Each sweep runs as its own `python -m sim` process, as a user runs it. These tests take some
40 seconds in all (marked `lab`); they run in the default suite and in CI.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import matplotlib.image
import pytest

from sim.navigation import find_path, read_map, read_scenarios
from sim.navigation.maps.movingai import check_scenarios
from tests.helpers.paths import REPO_ROOT, movingai_dir

pytestmark = [pytest.mark.lab, pytest.mark.timeout(240)]

DASK = Path(sys.executable).with_name("dask")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PLOTS = ("expanded_vs_optimal.png", "suboptimality.png", "time_vs_optimal.png")
WEIGHT = 2.5


def sweep(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim", "sweep", *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=180,
        check=check,
    )


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    """Two small Moving AI maps, two small generated ones, three searches."""
    path = tmp_path / "exp.toml"
    path.write_text(
        'name = "cluster-test"\nseed = 7\nscenarios_per_map = 12\n'
        f'[[maps]]\nmovingai = "{movingai_dir() / "arena.map"}"\n'
        f'[[maps]]\nmovingai = "{movingai_dir() / "den312d.map"}"\n'
        '[[maps]]\ngenerate = "maze"\nsize = [41, 33]\ncorridor = 1\nseed = 1\n'
        '[[maps]]\ngenerate = "rooms"\nsize = [50, 50]\nroom = 6\ndoor = 2\nseed = 2\n'
        '[[searches]]\nalgorithm = "astar"\n'
        f'[[searches]]\nalgorithm = "astar"\nweight = {WEIGHT}\n'
        '[[searches]]\nalgorithm = "dijkstra"\nconnectivity = 4\n',
        encoding="utf-8",
    )
    return path


@dataclass
class Cluster:
    """A running cluster: the scheduler's address and the worker processes (nanny + worker)."""

    address: str
    workers: list[subprocess.Popen[bytes]]


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[Cluster]:
    """A `dask scheduler` and two `dask worker` processes on 127.0.0.1.

    The scheduler picks a free port itself (``--port 0``) and writes its address to a
    scheduler file. Every process runs in its own session, so its whole group (a worker's
    nanny and the worker under it) is ended afterwards, however the test ends.
    """
    scheduler_file = tmp_path / "scheduler.json"
    log = (tmp_path / "cluster.log").open("w")
    started: list[subprocess.Popen[bytes]] = []

    def start(*args: str) -> subprocess.Popen[bytes]:
        # cwd: the workers import sim as installed, not from the folder they start in.
        process = subprocess.Popen(
            [str(DASK), *args], stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
            start_new_session=True,
        )  # fmt: skip
        started.append(process)
        return process

    try:
        scheduler = start(
            "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
            "--scheduler-file", str(scheduler_file),
        )  # fmt: skip
        address = _wait_for_address(scheduler_file, scheduler)
        for _ in range(2):
            start(
                "worker", address, "--nthreads", "1", "--nworkers", "1", "--no-dashboard",
                "--host", "127.0.0.1", "--local-directory", str(tmp_path / "workers"),
            )  # fmt: skip
        yield Cluster(address, started[1:])
    finally:
        for process in reversed(started):
            _end_group(process)
        log.close()


def _wait_for_address(scheduler_file: Path, scheduler: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert scheduler.poll() is None, "dask scheduler exited"
        try:
            return str(json.loads(scheduler_file.read_text())["address"])
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    raise AssertionError("dask scheduler wrote no address in 60 s")


def _end_group(process: subprocess.Popen[bytes]) -> None:
    for signal_number, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, signal_number)
        except ProcessLookupError:
            break
        try:
            process.wait(wait_s)
            break
        except subprocess.TimeoutExpired:
            continue


def read_rows(out: Path) -> list[dict[str, str]]:
    with (out / "results.csv").open(newline="") as file:
        return list(csv.DictReader(file))


def without_times(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{key: value for key, value in row.items() if key != "time_ms"} for row in rows]


def test_local_and_separate_clusters_give_the_same_rows(
    tmp_path: Path, experiment: Path, dask_cluster: Cluster
) -> None:
    local, remote = tmp_path / "local", tmp_path / "remote"
    done = sweep(str(experiment), "--out", str(local), "--workers", "2")
    assert "sweep: 144 rows;" in done.stdout
    # Smaller chunks on the other cluster: rows must not depend on how the work was cut.
    sweep(
        str(experiment), "--out", str(remote), "--scheduler", dask_cluster.address, "--chunk", "5"
    )

    rows = read_rows(local)
    assert without_times(rows) == without_times(read_rows(remote))
    assert len(rows) == 4 * 3 * 12
    names = ["arena", "den312d", "maze-41x33-corridor1-seed1", "rooms-50x50-room6-door2-seed2"]
    assert list(dict.fromkeys(row["map"] for row in rows)) == names
    searches = ["astar", f"astar w{WEIGHT:g}", "dijkstra 4-conn"]
    keys = [
        (names.index(row["map"]), searches.index(row["search"]), int(row["scenario"]))
        for row in rows
    ]
    assert keys == sorted(keys)
    assert all(row["found"] == "true" for row in rows)
    _check_costs(rows, local)
    _check_outputs(local)
    assert "2 workers of tcp://127.0.0.1:" in (remote / "summary.md").read_text()


def _check_costs(rows: list[dict[str, str]], out: Path) -> None:
    for row in rows:
        cost, optimal = float(row["cost"]), float(row["optimal"])
        if row["weight"] == "1.0":  # astar and dijkstra: optimal, to the optimum's precision
            assert cost == pytest.approx(optimal, rel=1e-5, abs=1e-8), row
            assert float(row["suboptimality"]) == 1.0
        else:
            assert optimal - 1e-5 * optimal <= cost <= WEIGHT * optimal * (1 + 1e-5), row
            assert float(row["suboptimality"]) == pytest.approx(cost / optimal, abs=1e-4)
    # The optima themselves, checked independently on a few rows of each kind.
    published = read_scenarios(movingai_dir() / "den312d.map.scen")
    den = [r for r in rows if r["map"] == "den312d" and r["connectivity"] == "8"]
    for row in den[:5]:
        match = [
            s
            for s in published
            if (s.start_x, s.start_y, s.goal_x, s.goal_y)
            == tuple(int(row[k]) for k in ("start_x", "start_y", "goal_x", "goal_y"))
        ]
        assert match, row
        assert float(row["optimal"]) == match[0].optimal_length
    maze = read_map(out / "maps" / "maze-41x33-corridor1-seed1.map")
    four = [r for r in rows if r["map"].startswith("maze") and r["connectivity"] == "4"]
    for row in four[:5]:
        start, goal = (
            (int(row["start_y"]), int(row["start_x"])),
            (
                int(row["goal_y"]),
                int(row["goal_x"]),
            ),
        )
        reference = find_path(maze.walkable, start, goal, algorithm="dijkstra", diagonal=False)
        assert float(row["optimal"]) == pytest.approx(reference.cost, rel=1e-12)
        assert row["optimal_source"] == "dijkstra"


def _check_outputs(out: Path) -> None:
    for name in ("maze-41x33-corridor1-seed1", "rooms-50x50-room6-door2-seed2"):
        grid = read_map(out / "maps" / f"{name}.map")
        scenarios = read_scenarios(out / "maps" / f"{name}.map.scen")
        check_scenarios(grid, scenarios, scen_source=f"{name}.map.scen")
        assert len(scenarios) == 12
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# Sweep: cluster-test\n")
    assert "2 local worker processes" in summary
    assert "| den312d | astar w2.5 | 12 | 100.0% |" in summary
    assert sorted(path.name for path in (out / "plots").iterdir()) == list(PLOTS)
    for name in PLOTS:
        data = (out / "plots" / name).read_bytes()
        assert data.startswith(PNG_MAGIC)
        assert len(data) > 10_000
        image = matplotlib.image.imread(out / "plots" / name)
        assert image.shape[:2] == (500, 800)
        assert image.std() > 0.05  # something is drawn, not a blank canvas


def slow_experiment(tmp_path: Path) -> Path:
    """Slow chunks: the Python reference's Dijkstra on a 512 x 512 map, 24 scenarios."""
    path = tmp_path / "slow.toml"
    path.write_text(
        "scenarios_per_map = 24\n"
        f'[[maps]]\nmovingai = "{movingai_dir() / "random512-25-0.map"}"\n'
        '[[searches]]\nalgorithm = "dijkstra"\nimplementation = "python"\n',
        encoding="utf-8",
    )
    return path


def start_sweep(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "sim", "sweep", *args],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its local cluster's workers are in its group: killed with it
    )


def wait_for_chunks(partial: Path, count: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while len(list(partial.glob("*.csv"))) < count:
        assert process.poll() is None, f"the sweep ended before {count} chunks were done"
        assert time.monotonic() < deadline, f"fewer than {count} chunks finished in 120 s"
        time.sleep(0.02)


def test_resume_after_a_kill_finishes_without_duplicates(tmp_path: Path) -> None:
    # One scenario a chunk on one worker: the run can be killed with some chunks done.
    out = tmp_path / "out"
    partial = out / "partial"
    args = [str(slow_experiment(tmp_path)), "--out", str(out), "--workers", "1", "--chunk", "1"]
    process = start_sweep(*args)
    try:
        wait_for_chunks(partial, 3, process)
    finally:
        _end_group_now(process)
    kept = {path.name: path.stat().st_mtime_ns for path in partial.glob("*.csv")}
    assert 3 <= len(kept) < 24
    assert not (out / "results.csv").exists()

    refused = sweep(*args, check=False)
    assert refused.returncode == 2
    assert "--resume" in refused.stderr

    done = sweep(*args, "--resume")
    assert f"{24 - len(kept)} chunks run, {len(kept)} kept from an earlier run" in done.stdout
    assert {name: (partial / name).stat().st_mtime_ns for name in kept} == kept
    rows = read_rows(out)
    assert [int(row["scenario"]) for row in rows] == list(range(24))
    assert all(float(row["suboptimality"]) == 1.0 for row in rows)
    assert len(list(partial.glob("*.csv"))) == 24

    again = sweep(*args, "--resume")  # nothing left to run: no cluster is started
    assert "0 chunks run, 24 kept from an earlier run" in again.stdout
    assert "- workers: none needed" in (out / "summary.md").read_text()
    assert without_times(read_rows(out)) == without_times(rows)


def test_a_worker_that_dies_midway_loses_no_chunk(tmp_path: Path, dask_cluster: Cluster) -> None:
    out = tmp_path / "out"
    args = [str(slow_experiment(tmp_path)), "--out", str(out), "--chunk", "1"]
    process = start_sweep(*args, "--scheduler", dask_cluster.address)
    try:
        wait_for_chunks(out / "partial", 2, process)
        _end_group_now(dask_cluster.workers[0])  # the nanny too: it would restart the worker
        assert process.wait(150) == 0
    finally:
        _end_group_now(process)
    rows = read_rows(out)
    assert [int(row["scenario"]) for row in rows] == list(range(24))
    assert all(float(row["suboptimality"]) == 1.0 for row in rows)


def _end_group_now(process: subprocess.Popen[bytes]) -> None:
    """Kill the sweep and its workers at once, as a crash or a pulled plug would."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    process.wait(30)


def test_a_chunk_that_fails_every_try_is_named_in_one_error(tmp_path: Path) -> None:
    from sim.lab.chunks import make_chunks
    from sim.lab.cluster import ChunkFailedError, open_client, run_chunks
    from sim.lab.experiment import read_experiment
    from sim.lab.maps import prepare_maps

    path = tmp_path / "exp.toml"
    path.write_text(
        f'scenarios_per_map = 3\n[[maps]]\nmovingai = "{movingai_dir() / "arena.map"}"\n'
        '[[searches]]\nalgorithm = "astar"\n'
    )
    experiment = read_experiment(path)
    (chunk,) = make_chunks(prepare_maps(experiment, tmp_path / "maps"), experiment.searches)
    gone = dataclasses.replace(chunk, map_path=str(tmp_path / "gone.map"))  # as on a bad worker
    with (
        open_client(workers=1, scheduler=None) as (client, _),
        pytest.raises(ChunkFailedError, match=r"\(arena, astar\) failed: FileNotFoundError: "),
    ):
        run_chunks(client, [gone], lambda chunk, rows: None)
