"""`sim bench`: our planner against its peers on the shared Moving AI maps, in one run.

Every planner answers the same seeded sample of each map's scenarios. The runs are interleaved
per query (each query goes to every planner before the next query, in an order that rotates),
so machine noise hits everyone alike; ratios are steadier than absolute times. Each map gets a
table: the movement rule, whether the returned paths are legal under the Moving AI rule
(8-connected, diagonal sqrt(2), no corner cutting) and as short as the published optimum,
median and p95 ms per query, median expanded nodes where known, and ours/peer, the ratio of
the medians over the queries that peer answered. Then one line per target of the issue.

Only the query is timed: building a peer's graph for a map, reading its answer and checking
the path happen outside the clock. Peers that are not installed are skipped and named.

``--crowd`` runs only the crowd throughput (`sim.bench.crowd`); ``--write-results`` runs the
maps, then the crowd, and writes both, with the targets, into benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import inspect
import json
import math
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from sim.bench.peers import PEERS, RULE_MOVINGAI, Cell, Planner, Read
from sim.commands.plan import REL_TOLERANCE, _load, _positive_int
from sim.config import REPO_ROOT
from sim.errors import SimError
from sim.navigation import PathResult, Scenario, find_path, read_map, read_scenarios

if TYPE_CHECKING:  # imported when run: the crowd needs Panda3D's core, the maps do not
    from sim.bench.crowd import CrowdReport

RESULTS_PATH = REPO_ROOT / "benchmarks" / "RESULTS.md"
SLOW_PEER_MAX_CELLS = 256 * 256
"""Pure-Python peers run only on maps up to 256x256 cells (and only --peer-limit queries)."""
FIRST_PATH_BUDGET_MS = 50.0
STARTUP_RUNS = 3
"""Fresh interpreters the first-path figure is measured in; the median one is reported."""
TCOD_TARGET = 1.0
PYASTAR2D_TARGET = 2.0
DEFAULT_SAMPLE = 50
DEFAULT_PEER_LIMIT = 10


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Register the ``bench`` sub-command; its `func` is `run`."""
    parser = subparsers.add_parser(
        "bench",
        help="time our planner against tcod, pyastar2d, ... on the Moving AI maps",
        description=(
            "Run our planner and the installed peers on the same seeded scenarios of the "
            "shared Moving AI maps ($MOVINGAI_DIR), interleaved per query; print per map the "
            "median and p95 ms per query, expanded nodes and ours/peer ratios."
        ),
    )
    parser.add_argument(
        "--crowd",
        action="store_true",
        help="instead: only the simulated-time throughput of 50, 200 and 1000 agents sharing "
        "one End (scenes/crowd.toml, headless, no rendering)",
    )
    parser.add_argument(
        "--maps", nargs="+", metavar="NAME", help="map names (e.g. arena maze512-1-0); default all"
    )
    parser.add_argument(
        "--sample",
        type=_positive_int,
        default=DEFAULT_SAMPLE,
        metavar="N",
        help=f"scenarios drawn per map, seeded (default {DEFAULT_SAMPLE})",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="random seed for --sample (default 0)"
    )
    parser.add_argument(
        "--peers",
        type=_peer_list,
        default=list(PEERS),
        metavar="LIST",
        help=f"comma-separated peers, 'all' or 'none' (default all: {','.join(PEERS)})",
    )
    parser.add_argument(
        "--peer-limit",
        type=_positive_int,
        default=DEFAULT_PEER_LIMIT,
        metavar="N",
        help=(
            "pure-Python peers (pathfinding, networkx) run only N queries (evenly spread over "
            "the sample), and only "
            f"on maps up to 256x256 (default {DEFAULT_PEER_LIMIT})"
        ),
    )
    parser.add_argument(
        "--write-results",
        action="store_true",
        help="also run the crowd throughput (as --crowd) after the maps, and write the tables "
        "and targets to benchmarks/RESULTS.md",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sim bench``; return 0 (SimError for bad input)."""
    if args.crowd:
        if args.write_results:
            raise SimError(
                "bench: --write-results runs the maps and then the crowd, and writes the whole "
                "file; drop --crowd"
            )
        crowd_only = _bench_crowd()
        print("\n".join([*crowd_only.lines(), "", "Target:", crowd_only.target_line()]))
        return 0
    directory = movingai_dir()
    maps = _map_paths(directory, args.maps)
    contestants, notes = _contestants(args.peers)
    for note in notes:
        print(note)
    reports = []
    for map_path in maps:
        report = bench_map(map_path, contestants, args.sample, args.seed, args.peer_limit)
        reports.append(report)
        print()
        print("\n".join(report.lines()), flush=True)
    startup = first_path_timing(maps[-1], args.sample, args.seed)
    # The file records every target of the issue, so writing it runs the crowd too.
    crowd = _bench_crowd() if args.write_results else None
    if crowd is not None:
        print()
        print("\n".join(crowd.lines()), flush=True)
    summary = summary_lines(reports, startup, crowd)
    print()
    print("\n".join(summary))
    if crowd is not None:
        _write_results(args, reports, summary, notes, contestants, crowd)
        print(f"\nwrote {RESULTS_PATH}")
    return 0


def _bench_crowd() -> CrowdReport:
    from sim.bench import crowd as crowd_bench  # Panda3D's core is needed only for the crowd

    return crowd_bench.bench_crowd()


def movingai_dir() -> Path:
    """Where the Moving AI maps live: $MOVINGAI_DIR, else ../shared/benchmarks/movingai."""
    override = os.environ.get("MOVINGAI_DIR")
    return Path(override) if override else REPO_ROOT.parent / "shared" / "benchmarks" / "movingai"


@dataclass(frozen=True, slots=True)
class PathCheck:
    """The verdict on one returned path under the Moving AI rule.

    Attributes:
        legal: every step is one of the 8 moves between walkable cells, no corner is cut,
            and the path runs from start to goal.
        cost: the path's length under the rule (1 straight, sqrt(2) diagonal); ``inf`` if
            illegal.
        problem: what is wrong, or "" when legal.
    """

    legal: bool
    cost: float
    problem: str


def check_path(
    walkable: NDArray[np.bool_], cells: Sequence[Cell], start: Cell, goal: Cell
) -> PathCheck:
    """Check `cells` (``(row, col)``, start to goal) against the Moving AI movement rule.

    >>> grid = np.array([[1, 1], [0, 1]], dtype=bool)
    >>> check_path(grid, [(0, 0), (1, 1)], (0, 0), (1, 1)).problem
    'step 1 cuts the corner of (1, 0)'
    >>> round(check_path(grid, [(0, 0), (0, 1), (1, 1)], (0, 0), (1, 1)).cost, 1)
    2.0
    """
    if not cells or tuple(cells[0]) != start or tuple(cells[-1]) != goal:
        return PathCheck(False, math.inf, "does not run from start to goal")
    height, width = walkable.shape
    cost = 0.0
    for index, (row, col) in enumerate(cells):
        if not (0 <= row < height and 0 <= col < width) or not walkable[row, col]:
            return PathCheck(False, math.inf, f"cell {index} ({row}, {col}) is not walkable")
        if index == 0:
            continue
        prev_row, prev_col = cells[index - 1]
        dy, dx = row - prev_row, col - prev_col
        if max(abs(dy), abs(dx)) != 1:
            return PathCheck(False, math.inf, f"step {index} is not one of the 8 moves")
        if dy and dx:
            for corner in ((prev_row + dy, prev_col), (prev_row, prev_col + dx)):
                if not walkable[corner]:
                    return PathCheck(False, math.inf, f"step {index} cuts the corner of {corner}")
            cost += math.sqrt(2.0)
        else:
            cost += 1.0
    return PathCheck(True, cost, "")


@dataclass(frozen=True, slots=True)
class Contestant:
    """One row of every table: ours or a peer."""

    label: str
    rule: str
    prepare: Callable[[NDArray[np.bool_]], Planner]
    slow: bool = False
    ours: bool = False


@dataclass
class Row:
    """What one contestant did on one map."""

    contestant: Contestant
    ms: dict[int, float] = field(default_factory=dict)
    expanded: dict[int, int] = field(default_factory=dict)
    illegal: list[str] = field(default_factory=list)
    longer: int = 0
    skipped: str = ""

    def legal_text(self) -> str:
        """Say whether every path was legal and optimal under the Moving AI rule."""
        if self.illegal:
            return f"NO ({len(self.illegal)}/{len(self.ms)}: {self.illegal[0]})"
        if self.longer:
            return f"legal, {self.longer}/{len(self.ms)} longer than optimal"
        return "yes"


@dataclass
class MapReport:
    """One map's rows, ours first."""

    name: str
    width: int
    height: int
    queries: int
    rows: list[Row]

    def median_ms(self, row: Row, over: Sequence[int] | None = None) -> float:
        """Median ms of `row`, over the query indices `over` (default all it answered)."""
        keys = row.ms.keys() if over is None else over
        return float(np.median([row.ms[key] for key in keys]))

    def ratio(self, row: Row) -> float | None:
        """Ours (the first row) / `row`: medians over the queries `row` answered."""
        ours = self.rows[0]
        if row is ours or not row.ms:
            return None
        return self.median_ms(ours, list(row.ms)) / self.median_ms(row)

    def row(self, label: str) -> Row | None:
        """The row of contestant `label`, if it ran."""
        return next((r for r in self.rows if r.contestant.label == label and r.ms), None)

    def expanded_text(self, row: Row) -> str:
        """Median expanded nodes; for a peer that ran fewer queries, ours on the same ones."""
        if not row.expanded:
            return "n/a"
        text = str(int(np.median(list(row.expanded.values()))))
        ours = self.rows[0]
        if len(row.ms) < len(ours.ms) and ours.expanded:
            same = int(np.median([ours.expanded[key] for key in row.ms]))
            text += f" (ours {same})"
        return text

    def table(self) -> list[list[str]]:
        """Header and one line per contestant, as strings."""
        lines = [
            ["planner", "rule", "legal?", "queries", "median ms", "p95 ms", "expanded", "ours/peer"]
        ]
        for row in self.rows:
            name, rule = row.contestant.label, row.contestant.rule
            if not row.ms:
                lines.append([name, rule, "-", "0", "-", "-", "-", row.skipped or "-"])
                continue
            ratio = self.ratio(row)
            expanded = self.expanded_text(row)
            lines.append(
                [
                    name,
                    rule,
                    row.legal_text(),
                    str(len(row.ms)),
                    f"{self.median_ms(row):.3f}",
                    f"{np.percentile(list(row.ms.values()), 95):.3f}",
                    expanded,
                    "-" if ratio is None else f"{ratio:.2f}",
                ]
            )
        return lines

    def lines(self) -> list[str]:
        """The table as text: a title line and a pipe table (valid Markdown)."""
        title = f"{self.name} ({self.width}x{self.height}), {self.queries} queries"
        return [title, "", *pipe_table(self.table())]


def bench_map(
    map_path: Path, contestants: Sequence[Contestant], sample: int, seed: int, peer_limit: int
) -> MapReport:
    """Run every contestant on `sample` seeded scenarios of one map, interleaved per query."""
    grid = _load(read_map, map_path)
    scen_path = map_path.with_name(map_path.name + ".scen")
    scenarios = _sample(_load(read_scenarios, scen_path), sample, seed)
    walkable = grid.walkable
    limited = _spread(len(scenarios), peer_limit)
    rows: list[Row] = []
    planners: list[Planner | None] = []
    for contestant in contestants:
        row = Row(contestant)
        rows.append(row)
        if contestant.slow and walkable.size > SLOW_PEER_MAX_CELLS:
            row.skipped = "skipped: map > 256x256"
            planners.append(None)
        else:
            planners.append(contestant.prepare(walkable))
    for index, scenario in enumerate(scenarios):
        turn = index % len(rows)
        for row, planner in zip(
            rows[turn:] + rows[:turn], planners[turn:] + planners[:turn], strict=True
        ):
            if planner is None or (row.contestant.slow and index not in limited):
                continue
            _one_query(walkable, scenario, index, row, planner)
    name = map_path.name.removesuffix(".map")
    return MapReport(name, grid.width, grid.height, len(scenarios), rows)


def _one_query(
    walkable: NDArray[np.bool_], scenario: Scenario, index: int, row: Row, planner: Planner
) -> None:
    began = time.perf_counter()
    raw = planner.plan(scenario.start, scenario.goal, scenario.optimal_length)
    row.ms[index] = (time.perf_counter() - began) * 1000.0
    cells, expanded = planner.read(raw)
    if expanded is not None:
        row.expanded[index] = expanded
    verdict = check_path(walkable, cells or [], scenario.start, scenario.goal)
    if not verdict.legal:
        row.illegal.append(verdict.problem)
    elif abs(verdict.cost - scenario.optimal_length) > REL_TOLERANCE * scenario.optimal_length:
        row.longer += 1


def _ours(implementation: str | None) -> Callable[[NDArray[np.bool_]], Planner]:
    """Planner factory for our `find_path`, with `implementation` if given."""

    def prepare(walkable: NDArray[np.bool_]) -> Planner:
        def plan(start: Cell, goal: Cell, optimal: float) -> PathResult:
            if implementation is None:
                return find_path(walkable, start, goal)
            return find_path(walkable, start, goal, implementation=implementation)

        def read(raw: PathResult) -> Read:
            return (list(raw.cells) if raw.found else None), raw.expanded

        return Planner(plan, read)

    return prepare


def _contestants(peer_names: Sequence[str]) -> tuple[list[Contestant], list[str]]:
    """Our rows and the installed peers' rows; notes say what is missing and why."""
    notes = []
    if "implementation" in inspect.signature(find_path).parameters:
        from sim.navigation import kernel

        compiled = kernel.KERNEL_AVAILABLE
        auto = "ours (C)" if compiled else "ours (auto: kernel not built, Python)"
        if not compiled:
            notes.append("note: sim.navigation._kernel is not built: ours (auto) runs Python")
        contestants = [
            Contestant(auto, RULE_MOVINGAI, _ours("auto"), ours=True),
            Contestant("ours (Python)", RULE_MOVINGAI, _ours("python"), ours=True),
        ]
    else:
        notes.append("note: find_path has no implementation= yet: one row for ours")
        contestants = [Contestant("ours", RULE_MOVINGAI, _ours(None), ours=True)]
    for name in peer_names:
        peer = PEERS[name]
        problem = peer.available()
        if problem is not None:
            notes.append(f"peer {name} skipped: not installed ({problem}); pip install '.[bench]'")
            continue
        label = f"{name} {peer.version()}"
        contestants.append(Contestant(label, peer.rule, peer.prepare, slow=peer.slow))
    return contestants, notes


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
    grid = _load(read_map, map_path)
    scenarios = _load(read_scenarios, map_path.with_name(map_path.name + ".scen"))
    by_length = sorted(_sample(scenarios, sample, seed), key=lambda s: s.optimal_length)
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


def summary_lines(
    reports: Sequence[MapReport], startup: Startup, crowd: CrowdReport | None = None
) -> list[str]:
    """One line per target of the issue, met or not, with the numbers (the crowd's if run)."""
    ours = reports[0].rows[0].contestant.label
    lines = [f"Targets (ours = {ours}; ratio = median ours / median peer):"]
    tcod = [(report, report.row(_peer_label("tcod"))) for report in reports]
    if any(row for _, row in tcod):
        lines.append(f"- median per query <= {TCOD_TARGET:.1f}x tcod on every map:")
        for report, row in tcod:
            if row is not None:
                ratio = report.ratio(row)
                assert ratio is not None  # a peer row with queries always has a ratio
                verdict = "met" if ratio <= TCOD_TARGET else "NOT met"
                lines.append(f"  - {report.name}: {ratio:.2f}x, {verdict}")
    else:
        lines.append(f"- median per query <= {TCOD_TARGET:.1f}x tcod: not measured (tcod not run)")
    square = [
        (report, report.row(_peer_label("pyastar2d")))
        for report in reports
        if (report.width, report.height) == (512, 512)
    ]
    ratios = [report.ratio(row) for report, row in square if row is not None]
    if ratios:
        mean = math.exp(sum(math.log(r) for r in ratios if r is not None) / len(ratios))
        verdict = "met" if mean <= PYASTAR2D_TARGET else "NOT met"
        names = ", ".join(report.name for report, _ in square)
        lines.append(
            f"- geometric mean over the 512x512 maps ({names}) <= {PYASTAR2D_TARGET:.1f}x "
            f"pyastar2d: {mean:.2f}x, {verdict} (pyastar2d cuts corners and charges 1 per "
            "diagonal: a different, easier rule)"
        )
    else:
        lines.append(
            f"- geometric mean over the 512x512 maps <= {PYASTAR2D_TARGET:.1f}x pyastar2d: "
            "not measured (no 512x512 map selected, or pyastar2d not run)"
        )
    extra = startup.extra_ms
    verdict = "met" if extra <= FIRST_PATH_BUDGET_MS else "NOT met"
    lines.append(
        f"- first planned path of a process <= {FIRST_PATH_BUDGET_MS:.0f} ms beyond a warm "
        f"query ({startup.map_name}, fresh interpreter, numpy already imported, bytecode "
        f"cached as on every launch after the first; the median of {startup.runs}): first "
        f"{startup.first_ms:.1f} ms (import {startup.import_ms:.1f} ms), warm "
        f"{startup.warm_ms:.2f} ms, {extra:.1f} ms beyond: {verdict}"
    )
    if startup.cold_first_ms is not None:
        lines.append(
            f"  - the very first launch, which also compiles our modules to bytecode: first "
            f"{startup.cold_first_ms:.1f} ms"
        )
    if crowd is not None:
        lines.append(crowd.target_line())
    return lines


def _peer_label(name: str) -> str:
    return f"{name} {PEERS[name].version()}"


def _write_results(
    args: argparse.Namespace,
    reports: Sequence[MapReport],
    summary: Sequence[str],
    notes: Sequence[str],
    contestants: Sequence[Contestant],
    crowd: CrowdReport,
) -> None:
    """Write benchmarks/RESULTS.md: when, where, the command, the tables and the targets."""
    versions = [c.label for c in contestants if not c.ours]
    lines = [
        "# Planner benchmark results",
        "",
        f"Written by `sim bench --write-results` on {datetime.date.today().isoformat()}.",
        "",
        f"- command (defaults spelled out): `{_command(args)}`",
        f"- machine: {os.cpu_count()} CPUs (nproc), {_cpu_model()}, {platform.system()} "
        f"{platform.release()}",
        f"- Python {platform.python_version()}, numpy {np.__version__}, panda3d "
        f"{_version('panda3d')}; peers: " + (", ".join(versions) or "none"),
        f"- maps: {movingai_dir()} (Moving AI Lab, Sturtevant 2012)",
        "",
        "Every planner answers the same seeded scenarios, interleaved per query. Only the query",
        "is timed (peer graphs are built per map beforehand). `legal?` checks every returned path",
        "under the Moving AI rule (8-connected, diagonal sqrt(2), no corner cutting) and against",
        "the published optimum. `ours/peer` is the ratio of medians over the queries that peer",
        "answered (pure-Python peers answer only --peer-limit queries spread evenly over the",
        "sample, on maps up to 256x256; their `expanded` adds ours on the same queries).",
        "scipy has no goal stop: its Dijkstra gets `limit` = the published optimum,",
        "which settles what a goal-stopping Dijkstra would. tcod costs are integers 10000/14142.",
        "",
        *[f"{note}" for note in notes],
        "",
    ]
    for report in reports:
        lines += ["## " + report.lines()[0], "", *report.lines()[2:], ""]
    lines += ["## " + crowd.title(), "", _CROWD_NOTE, "", *crowd.lines()[2:], ""]
    lines += ["## Targets", "", *summary[1:], "", _GAP_NOTE]
    RESULTS_PATH.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_PATH.write_text("\n".join(lines) + "\n", encoding="utf-8")


_CROWD_NOTE = """Run after the maps, in the same process (`sim bench --crowd` runs only this):
N agents of scenes/crowd.toml chase one End and share one distance field. `planning ms / sim s`
is the time spent on fields and waypoints per simulated second; `sim fps` counts simulated
frames per wall-clock second of the whole sim step (grid sync, planning, steering), without
rendering; `arrived` is how many agents reached End, `fields` how many fields were computed."""

_GAP_NOTE = """## Closing the gap to pyastar2d

pyastar2d solves an easier problem (corners may be cut, every move costs 1, so many more
equal-cost paths and a tighter Chebyshev heuristic), so it is not a like-for-like peer. The
kernel already has the memory-side work of PERFORMANCE-NOTES (one flat 16-byte state record
per cell, int32 indices, a 4-ary heap, buffers reused across queries with only touched cells
reset) plus decrease-key instead of stale heap entries. What would close the remaining gap on
the Moving AI rule: jump point search (Harabor & Grastien 2011) on uniform-cost grids, which
expands only jump points instead of every cell on a straight run (typically 10-30x fewer
expansions on these maps), and connected-region labels so unreachable goals cost no search
at all."""


def _command(args: argparse.Namespace) -> str:
    parts = ["sim", "bench"]
    if args.maps:
        parts += ["--maps", *args.maps]
    parts += ["--sample", str(args.sample), "--seed", str(args.seed)]
    parts += ["--peers", ",".join(args.peers) or "none", "--peer-limit", str(args.peer_limit)]
    return " ".join([*parts, "--write-results"])


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return platform.processor() or "unknown CPU"
    for line in text.splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return "unknown CPU"


def pipe_table(cells: list[list[str]]) -> list[str]:
    """Render rows of cells, the first one the header, as an aligned Markdown pipe table.

    >>> for line in pipe_table([["a", "bb"], ["ccc", "d"]]):
    ...     print(line)
    | a   | bb |
    |-----|----|
    | ccc | d  |
    """
    widths = [max(len(line[i]) for line in cells) for i in range(len(cells[0]))]
    rendered = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |"
        for line in cells
    ]
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return [rendered[0], rule, *rendered[1:]]


def _spread(count: int, limit: int) -> set[int]:
    """Up to `limit` indices out of ``range(count)``, evenly spaced, first and last included.

    The sample is in file order, which the files sort by difficulty bucket, so the first N
    would all be short queries.

    >>> sorted(_spread(50, 3)), sorted(_spread(2, 10))
    ([0, 24, 49], [0, 1])
    """
    if limit >= count:
        return set(range(count))
    if limit == 1:
        return {0}
    return {round(i * (count - 1) / (limit - 1)) for i in range(limit)}


def _sample(scenarios: list[Scenario], sample: int, seed: int) -> list[Scenario]:
    """`sample` scenarios drawn with `seed`, in file order (as ``sim plan --sample``)."""
    if sample >= len(scenarios):
        return scenarios
    picked = sorted(random.Random(seed).sample(range(len(scenarios)), sample))
    return [scenarios[i] for i in picked]


def _map_paths(directory: Path, names: Sequence[str] | None) -> list[Path]:
    """The chosen maps (all by default) that have a .scen beside them, smallest first."""
    if not directory.is_dir():
        raise SimError(f"bench: no Moving AI folder at {directory} (set $MOVINGAI_DIR)")
    known = {
        p.name.removesuffix(".map"): p
        for p in directory.glob("*.map")
        if p.with_name(p.name + ".scen").is_file()
    }
    if names is None:
        chosen = list(known.values())
    else:
        chosen = []
        for name in names:
            stem = name.removesuffix(".map")
            if stem not in known:
                raise SimError(f"bench: unknown map {name!r}; known: {', '.join(sorted(known))}")
            chosen.append(known[stem])
    if not chosen:
        raise SimError(f"bench: no .map with a .scen beside it in {directory}")
    return sorted(dict.fromkeys(chosen), key=lambda p: (p.stat().st_size, p.name))


def _peer_list(text: str) -> list[str]:
    """Parse ``--peers``: comma-separated names, or 'all', or 'none'."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if names == ["all"]:
        return list(PEERS)
    if names == ["none"] or not names:
        return []
    unknown = [name for name in names if name not in PEERS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown peer {unknown[0]!r}; choose from {', '.join(PEERS)}, all, none"
        )
    return list(dict.fromkeys(names))
