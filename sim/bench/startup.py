"""The first planned path of a fresh process, against the same query warm, for `sim bench`.

A user meets the start-up cost once per process: importing sim.navigation (and the C kernel)
and the first query's cold caches. It is measured in fresh interpreters, beside the warm figure
of the same query, and compared with the startup budget in `sim.bench.results`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from sim.config import REPO_ROOT
from sim.errors import SimError
from sim.files import load_file
from sim.navigation import read_map, read_scenarios
from sim.navigation.maps.movingai import sample_scenarios

STARTUP_RUNS = 3
"""Fresh interpreters the first-path figure is measured in; the median one is reported."""


@dataclass(frozen=True, slots=True)
class Startup:
    """The first `find_path` of a fresh process against a warm one, in ms.

    Attributes:
        map_name: the map queried.
        import_ms: importing sim.navigation.
        first_ms: the import and the first query.
        warm_ms: the median of 5 more runs of the same query.
        runs: fresh processes measured; these figures are the median one's (by
            `extra_ms`).
        cold_first_ms: `first_ms` of the very first launch, which also compiles our modules
            to bytecode (None when not measured).
    """

    map_name: str
    import_ms: float
    first_ms: float
    warm_ms: float
    runs: int = 1
    cold_first_ms: float | None = None

    @property
    def extra_ms(self) -> float:
        """What the first query costs beyond a warm one (the import included)."""
        return self.first_ms - self.warm_ms


_STARTUP_SCRIPT = """
import json, sys, time
import numpy as np
walkable = np.load(sys.argv[1])
start, goal = (int(sys.argv[2]), int(sys.argv[3])), (int(sys.argv[4]), int(sys.argv[5]))
began = time.perf_counter()
from sim.navigation import find_path
imported = time.perf_counter()
find_path(walkable, start, goal)
first = time.perf_counter()
warm = []
for _ in range(5):
    again = time.perf_counter()
    find_path(walkable, start, goal)
    warm.append(time.perf_counter() - again)
print(json.dumps({"import_ms": (imported - began) * 1e3, "first_ms": (first - began) * 1e3,
                  "warm_ms": sorted(warm)[2] * 1e3}))
"""


def first_path_timing(map_path: Path, sample: int, seed: int) -> Startup:
    """Time, in fresh interpreters, import + the first `find_path` vs. the same call warm.

    numpy is already imported (any caller has it to build the grid); the query is the sampled
    scenario of `map_path` with the median optimal length. One process start is at the mercy of
    the disk cache and the machine's load, so `STARTUP_RUNS` processes run one after another
    and the median one (by `Startup.extra_ms`) is returned.
    """
    grid = load_file(read_map, map_path)
    scenarios = load_file(read_scenarios, map_path.with_name(map_path.name + ".scen"))
    by_length = sorted(sample_scenarios(scenarios, sample, seed), key=lambda s: s.optimal_length)
    scenario = by_length[len(by_length) // 2]
    name = map_path.name.removesuffix(".map")
    with tempfile.TemporaryDirectory() as folder:
        array_path = Path(folder) / "walkable.npy"
        np.save(array_path, grid.walkable)
        points = [*scenario.start, *scenario.goal]
        # Python compiles our modules to bytecode once, on the first launch after an install,
        # and every later launch reads the cache: that is the start-up a user meets. A private,
        # empty cache folder makes the first run here that first launch (reported apart) and
        # the runs after it the usual ones, whatever PYTHONDONTWRITEBYTECODE says outside.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "bytecode")
        command = [sys.executable, "-c", _STARTUP_SCRIPT, str(array_path), *map(str, points)]
        cold = _startup_run(command, env, name)
        runs = [_startup_run(command, env, name) for _ in range(STARTUP_RUNS)]
    median = sorted(runs, key=lambda run: run.extra_ms)[len(runs) // 2]
    return replace(median, runs=STARTUP_RUNS, cold_first_ms=cold.first_ms)


def _startup_run(command: list[str], env: dict[str, str], name: str) -> Startup:
    completed = subprocess.run(
        command, capture_output=True, text=True, check=False, cwd=REPO_ROOT, env=env
    )
    if completed.returncode != 0:
        raise SimError(f"bench: first-path subprocess failed: {completed.stderr.strip()[-300:]}")
    measured = json.loads(completed.stdout.strip().splitlines()[-1])
    return Startup(name, measured["import_ms"], measured["first_ms"], measured["warm_ms"])
