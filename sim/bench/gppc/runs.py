"""The runs behind `sim bench --gppc`: our planners in worker processes, warthog's binary.

Each planner answers a map's queries pass after pass and keeps each query's fastest time. Ours
run in a process per planner (`sim.bench.gppc.worker`), either all passes at once (`run_ours`)
or a pass at a time on the parent's word (`OursSession`); warthog's ``warthog-timed`` runs once
a pass (`WarthogRuns`), each query timed by warthog's own timer, its setup time (the map read
and, for JPS2+, the jump tables) the process's wall time less its queries'. Taking a pass at a
time lets `sim.bench.gppc.rounds` put every planner's passes on a map side by side in time.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.errors import SimError
from sim.navigation import read_scenarios
from sim.navigation.maps.movingai import sample_scenarios

OUR_ALGORITHMS = ("auto", "jps", "astar", "jps+", "auto-frozen", "jps-frozen")
"""Ours: `find_path`'s algorithms, jps+, the offline planner (an offline index per map), and
auto and jps again on the map frozen (`sim.navigation.freeze`: no checks against edits)."""
WARTHOG_ALGORITHMS = ("jps2", "jps2+", "astar")
PASSES = 3
MEMORY_POLL_S = 0.02
WORKER = (sys.executable, "-m", "sim.bench.gppc.worker")
"""How our worker is started (its arguments follow)."""


@dataclass(frozen=True, slots=True)
class MapFigures:
    """One planner on one map (the worker's line, or warthog's read the same way)."""

    planner: str
    algorithm: str
    map: str
    cells: int
    queries: int
    solved: int
    optimally_solved: int
    query_s: float
    setup_s: float
    path_length_sum: float
    suboptimality_sum: float
    max_ram_bytes: int | None  # None: the process ended before its memory could be read
    storage_bytes: int | None = None  # what the preprocessing keeps; None: not reported
    repair_ms_mean: float | None = None  # jps+: the index's repair after a cube's step
    repair_ms_max: float | None = None
    query_with_cells_s: float | None = None  # ours: the call with its cells read (lazy_cells)
    # The thread's CPU time a query (ours: the call with its cells read; warthog's cpu_ns: its
    # get_path call), each query's least: a wait for a core on a loaded machine never counts.
    query_cpu_s: float | None = None

    @property
    def mean_query_us(self) -> float:
        """Mean query time in microseconds."""
        return 1e6 * self.query_s / max(self.queries, 1)


def run_ours(
    algorithm: str,
    maps: Sequence[Path],
    *,
    sample: int | None,
    seed: int,
    passes: int = PASSES,
) -> list[MapFigures]:
    """Our `algorithm` on `maps`, in a worker process, all passes at once; each map's figures."""
    command = [*WORKER, algorithm, *map(str, maps), "--passes", str(passes), "--seed", str(seed)]
    if sample is not None:
        command += ["--sample", str(sample)]
    lines, ram = _run(command)
    return [
        ours_figures(algorithm, json.loads(line), ram) for line in lines if line.startswith("{")
    ]


def ours_figures(algorithm: str, line: dict[str, Any], ram: int) -> MapFigures:
    """One map's figures from the worker's JSON `line`; `ram` its peak (0: not read)."""
    return MapFigures(
        "ours",
        algorithm,
        line["map"],
        line["cells"],
        line["queries"],
        line["solved"],
        line["optimally_solved"],
        line["query_s"],
        line.get("setup_s", 0.0),
        line["path_length_sum"],
        line["suboptimality_sum"],
        ram or None,
        line.get("storage_bytes"),
        line.get("repair_ms_mean"),
        line.get("repair_ms_max"),
        line.get("query_with_cells_s"),
        line.get("query_cpu_s"),
    )


class OursSession:
    """Our `algorithm` in a worker of its own that runs a map's passes when told (``--serve``).

    The worker lives as long as the session, so its peak memory covers the maps it ran, as
    `run_ours`'s worker does; a map's state (a build on its first pass) lasts until `end`.
    """

    def __init__(self, algorithm: str, *, sample: int | None, seed: int) -> None:
        self.algorithm = algorithm
        command = [*WORKER, algorithm, "--serve", "--seed", str(seed)]
        if sample is not None:
            command += ["--sample", str(sample)]
        self._folder = tempfile.TemporaryDirectory()
        self._errors = Path(self._folder.name) / "stderr"
        # The child keeps its own copy of the file; ours can close at once.
        with self._errors.open("wb") as errors:
            self._child = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True
            )
        self._status = Path(f"/proc/{self._child.pid}/status")
        self.peak = 0

    def run_pass(self, map_path: Path) -> None:
        """One pass of `map_path`'s queries."""
        self._ask(f"pass {map_path}")

    def end(self, map_path: Path) -> dict[str, Any]:
        """The map's figures over its passes so far (the worker's JSON); it lets the map go."""
        line: dict[str, Any] = json.loads(self._ask(f"end {map_path}"))
        return line

    def close(self) -> None:
        """Let the worker end; raise if it failed."""
        stdin = self._child.stdin
        if stdin is not None and not stdin.closed:
            stdin.close()
        self._child.wait()
        if self._child.stdout is not None:
            self._child.stdout.close()
        try:
            if self._child.returncode != 0:
                raise self._failure()
        finally:
            self._folder.cleanup()

    def _ask(self, command: str) -> str:
        stdin, stdout = self._child.stdin, self._child.stdout
        # Both were opened as pipes.
        assert stdin is not None
        assert stdout is not None
        try:
            stdin.write(command + "\n")
            stdin.flush()
        except BrokenPipeError:
            pass  # the worker has gone: its error is read below
        answer = stdout.readline()
        # The worker is alive and waiting here: its high-water mark is its peak so far.
        self.peak = max(self.peak, _high_water(self._status))
        if not answer:
            self._child.wait()
            raise self._failure()
        return answer

    def _failure(self) -> SimError:
        text = self._errors.read_text(encoding="utf-8", errors="replace")
        return SimError(f"bench: worker {self.algorithm} failed: {_last_line(text)}")


def warthog_binary(value: str | None) -> Path | None:
    """``warthog-timed`` from `WARTHOG`'s value: the binary, its folder or the build prefix.

    Raises:
        SimError: when the value names none of these.
    """
    if not value:
        return None
    given = Path(value)
    for candidate in (given, given / "warthog-timed", given / "bin" / "warthog-timed"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise SimError(f"bench: WARTHOG={value} holds no warthog-timed (build it: see --help)")


def run_warthog(
    binary: Path, algorithm: str, map_path: Path, *, sample: int | None, seed: int
) -> MapFigures:
    """Warthog's `algorithm` on one map, `PASSES` runs, each query's fastest `nanos`."""
    with WarthogRuns(binary, algorithm, map_path, sample=sample, seed=seed) as runs:
        for _ in range(PASSES):
            runs.run_pass()
        return runs.figures()


class WarthogRuns:
    """Warthog's `algorithm` on one map, a run of ``warthog-timed`` a pass (a context manager).

    A sample is written to a scenario file of its own, so warthog answers only those queries;
    each query keeps its fastest ``nanos`` over the passes, the setup its least.
    """

    def __init__(
        self, binary: Path, algorithm: str, map_path: Path, *, sample: int | None, seed: int
    ) -> None:
        self.algorithm = algorithm
        self._map = map_path
        scen = map_path.with_name(map_path.name + ".scen")
        scenarios = read_scenarios(scen)
        self._folder = tempfile.TemporaryDirectory()
        queries = scen
        if sample is not None and sample < len(scenarios):
            scenarios = sample_scenarios(scenarios, sample, seed)
            lines = scen.read_text(encoding="utf-8").split("\n")
            chosen = [lines[s.line - 1].rstrip("\r") for s in scenarios]
            queries = Path(self._folder.name) / scen.name
            queries.write_text("\n".join(["version 1", *chosen]) + "\n", encoding="utf-8")
        self._scenarios = scenarios
        self._command = [
            *(str(binary), "--alg", algorithm, "--scen", str(queries), "--map", str(map_path))
        ]
        self.best = [math.inf] * len(scenarios)
        self.best_cpu = [math.inf] * len(scenarios)
        self._costs = [math.inf] * len(scenarios)
        self._setups: list[float] = []
        self._ram = 0

    def __enter__(self) -> WarthogRuns:
        return self

    def __exit__(self, *_: object) -> None:
        self._folder.cleanup()

    def run_pass(self) -> None:
        """Run warthog once over the queries; keep each one's fastest time."""
        began = time.perf_counter()
        answers, peak = _run(self._command)
        wall = time.perf_counter() - began
        self._ram = max(self._ram, peak)
        spent = 0.0
        for answer in answers[1:]:
            fields = answer.split("\t")
            index = int(fields[0])
            spent += int(fields[4]) / 1e9
            self.best[index] = min(self.best[index], int(fields[3]) / 1e9)
            self.best_cpu[index] = min(self.best_cpu[index], int(fields[5]) / 1e9)
            self._costs[index] = float(fields[7])
        self._setups.append(max(wall - spent, 0.0))

    def figures(self) -> MapFigures:
        """The map's figures over the passes so far."""
        solved = optimal = 0
        length = worse = 0.0
        for scenario, cost in zip(self._scenarios, self._costs, strict=True):
            # A path of cost 0 is an answer only where start and goal are one cell.
            if math.isfinite(cost) and (cost > 0 or scenario.optimal_length == 0):
                solved += 1
                length += cost
                optimal += scenario.accepts(cost)
                if scenario.optimal_length > 0 and not scenario.accepts(cost):
                    worse += max(cost / scenario.optimal_length - 1.0, 0.0)
        return MapFigures(
            "warthog",
            self.algorithm,
            self._map.name.removesuffix(".map"),
            0,
            len(self._scenarios),
            solved,
            optimal,
            sum(value for value in self.best if math.isfinite(value)),
            min(self._setups, default=0.0),
            length,
            worse,
            self._ram or None,
            query_cpu_s=sum(value for value in self.best_cpu if math.isfinite(value)),
        )


def _run(command: list[str]) -> tuple[list[str], int]:
    """Run `command`; its stdout lines and its peak resident memory in bytes.

    The peak is the child's own ``VmHWM`` (/proc/PID/status), read every `MEMORY_POLL_S`
    while it runs: the operating system's ``ru_maxrss`` of a child started from this process
    carries this process's own peak over the ``exec``, so it would read as ours.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(command, stdout=out, stderr=errors)
        status = Path(f"/proc/{child.pid}/status")
        peak = 0
        while child.poll() is None:
            peak = max(peak, _high_water(status))
            time.sleep(MEMORY_POLL_S)
        if child.returncode != 0:
            errors.seek(0)
            text = errors.read().decode("utf-8", "replace")
            raise SimError(f"bench: {Path(command[0]).name} failed: {_last_line(text)}")
        out.seek(0)
        return out.read().decode("utf-8").splitlines(), peak


def _high_water(status: Path) -> int:
    """``VmHWM`` of a running process in bytes; 0 once it has gone."""
    try:
        text = status.read_text(encoding="ascii")
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def _last_line(text: str) -> str:
    """The last line of what a child wrote to its stderr, or ``no output``."""
    return (text.strip().splitlines() or ["no output"])[-1]
