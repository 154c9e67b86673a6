"""`sim bench --mapf`: our MAPF solvers against pymapf's on the benchmark of Stern et al. (2019).

Every instance (a map, a scenario file, its first K agents) is solved by each of our solvers
(`sim.mapf.solve`) and, when pymapf is installed, by pymapf's solver of the same name, one
after the other in one process with the same time limit. Every plan, ours and the peer's, is
checked by `sim.mapf.checker.check_plan`; costs are computed from the paths by the same rule
for both (`sim.mapf.plan_costs`: each agent's last arrival at its goal).

pymapf's ``LaCAM`` stops at its first plan; ours is LaCAM*, which spends the whole time limit
improving its plan unless it proves it optimal first. So ours runs twice: ``lacam`` stops at
its first plan (``solve(..., first_plan=True)``), set beside pymapf's and judged against it,
and ``lacam-anytime`` improves its plan until the limit (ours only; ``anytime=False`` skips it).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.bench.progress import Progress
from sim.config import REPO_ROOT
from sim.errors import SimError
from sim.mapf import SOLVERS, MapfProblem, distance_tables, lower_bounds, plan_costs, solve
from sim.mapf.checker import Pair, check_plan, flat_to_pairs
from sim.mapf.scenario import load_problem

DEFAULT_MAPS = ("empty-32-32", "random-32-32-20", "room-32-32-4", "maze-32-32-2")
DEFAULT_AGENTS = (10, 50, 100)
DEFAULT_SCENS = 1
DEFAULT_TIME_LIMIT_S = 1.0
"""The default set, 4 maps x 3 agent counts x 1 scenario file, takes about 15 s on 2 cores
with pymapf beside ours, most of it our anytime LaCAM* spending the whole limit."""
CBS_MAX_AGENTS = 20
"""CBS (ours and the peer's) runs only on instances with at most this many agents: beyond,
both spend their whole time limit and fail, which tells nothing."""
ANYTIME = "lacam-anytime"
"""Our LaCAM* run until the time limit; the bench's ``lacam`` rows stop at the first plan."""
BENCH_SOLVERS = ("lacam", ANYTIME, "pibt", "cbs")
LACAM_TARGET_SHARE = 0.99
LACAM_TARGET_AGENTS = 1000
LACAM_TARGET_S = 10.0
SPEEDUP_TARGET = 10.0
PEER = "pymapf"
OURS = "ours"
SECTION_HEADING = "## MAPF: ours against pymapf"
PEER_NOTE = "pymapf not installed (pip install .[bench]): running ours alone"

_SCEN_NAME = re.compile(r"^(?P<map>.+)-(?P<kind>random|even)-(?P<index>\d+)\.scen$")


def mapf_dir() -> Path:
    """Where the MAPF benchmark lives: $MAPF_DIR, else ``shared/mapf`` beside the repository."""
    override = os.environ.get("MAPF_DIR")
    return Path(override) if override else REPO_ROOT.parent / "shared" / "mapf"


@dataclass(frozen=True, slots=True)
class Instance:
    """One benchmark instance: the first `agents` lines of `scen` on `map_path`."""

    map_path: Path
    scen: Path
    agents: int

    @property
    def map_name(self) -> str:
        """The map's name without ``.map``."""
        return self.map_path.name.removesuffix(".map")


@dataclass(frozen=True, slots=True)
class MapfRow:
    """One solver run on one instance.

    Attributes:
        map: the map's name. scen: the scenario file's name. agents: K.
        solver: ``lacam`` (to the first plan), ``lacam-anytime`` (ours, until the time limit),
            ``pibt`` or ``cbs``. peer: who ran it, ``ours`` or ``pymapf``.
        solved: a plan came back within the time limit.
        time_s: wall-clock seconds of the solve call (ours: distance tables included).
        sum_of_costs, makespan: of the plan, 0 when not solved.
        soc_lower_bound: the sum of the single-agent distances.
        valid: the checker found no violation (None when not solved).
    """

    map: str
    scen: str
    agents: int
    solver: str
    peer: str
    solved: bool
    time_s: float
    sum_of_costs: int
    makespan: int
    soc_lower_bound: int
    valid: bool | None

    def to_json(self) -> dict[str, Any]:
        """The row as the JSON report holds it (without `valid`, counted in the targets)."""
        return {
            "map": self.map,
            "scen": self.scen,
            "agents": self.agents,
            "solver": self.solver,
            "peer": self.peer,
            "solved": self.solved,
            "time_s": round(self.time_s, 6),
            "sum_of_costs": self.sum_of_costs,
            "makespan": self.makespan,
            "soc_lower_bound": self.soc_lower_bound,
        }


PeerSolve = Callable[[MapfProblem], list[list[Pair]] | None]
"""A peer's solver on one problem: ``(row, col)`` paths per agent, or None when not solved."""


def instances(
    directory: Path,
    maps: Sequence[str] | None,
    agents: Sequence[int],
    scens: int,
) -> list[Instance]:
    """The instances: per map, its ``random`` scenario files 1..`scens`, per agent count.

    Agent counts beyond a file's lines are left out for that file (Berlin's files hold
    fewer than 1,000 some times).

    Raises:
        SimError: no benchmark folder, an unknown map, or a map with fewer scenario files.
    """
    if not (directory / "maps").is_dir():
        raise SimError(f"bench: no MAPF benchmark folder at {directory} (set $MAPF_DIR)")
    known = sorted(path.name.removesuffix(".map") for path in (directory / "maps").glob("*.map"))
    chosen = list(DEFAULT_MAPS) if maps is None else [name.removesuffix(".map") for name in maps]
    for name in chosen:
        if name not in known:
            raise SimError(f"bench: no MAPF map {name!r} in {directory}; known: {', '.join(known)}")
    found = []
    for name in chosen:
        for index in range(1, scens + 1):
            scen = directory / "scen-random" / f"{name}-random-{index}.scen"
            if not scen.is_file():
                raise SimError(f"bench: {scen} is missing (fewer than {scens} scenario files)")
            lines = agent_lines(scen)
            found += [
                Instance(directory / "maps" / f"{name}.map", scen, count)
                for count in agents
                if count <= lines
            ]
    return found


def agent_lines(scen: Path) -> int:
    """Agent lines of a scenario file (all but the version line and blank lines)."""
    text = scen.read_text(encoding="utf-8")
    return sum(1 for line in text.splitlines()[1:] if line.strip())


def peer_solvers(solvers: Sequence[str], time_limit_s: float, seed: int) -> dict[str, PeerSolve]:
    """Pymapf's solver for each of `solvers` (empty when pymapf is not installed).

    Each gets `time_limit_s` and `seed` where it takes them; CBS gets no node cap but the
    time limit, as ours has.
    """
    try:
        pymapf: Any = importlib.import_module("pymapf")
    except ImportError:
        return {}
    made = {
        "lacam": lambda: pymapf.LaCAM(seed=seed, time_limit=time_limit_s),
        "pibt": lambda: pymapf.PIBT(seed=seed, time_limit=time_limit_s),
        "cbs": lambda: pymapf.ConflictBasedSearch(time_limit=time_limit_s, max_expansions=2**62),
    }
    return {name: _peer_adapter(pymapf, made[name]()) for name in solvers}


def peer_version() -> str:
    """Pymapf's installed version, or ``"?"``."""
    try:
        return importlib.metadata.version(PEER)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _peer_adapter(pymapf: Any, solver: Any) -> PeerSolve:
    """Wrap a pymapf solver: our problem in (as pymapf's), ``(row, col)`` paths out."""

    def run(problem: MapfProblem) -> list[list[Pair]] | None:
        grid = pymapf.GridMap((~problem.walkable).astype(int).tolist())
        agents = [
            pymapf.Agent(str(agent), divmod(start, problem.width), divmod(goal, problem.width))
            for agent, (start, goal) in enumerate(zip(problem.starts, problem.goals, strict=True))
        ]
        solution = solver.solve(pymapf.MAPFProblem(grid, agents))
        if solution is None:
            return None
        return [[(int(r), int(c)) for r, c in solution.paths[str(a)]] for a in range(len(agents))]

    return run


def run_instance(
    instance: Instance,
    solvers: Sequence[str],
    peers: dict[str, PeerSolve],
    *,
    time_limit_s: float,
    seed: int,
    on_run: Callable[[str], None] | None = None,
) -> list[MapfRow]:
    """Solve `instance` with each of our `solvers` (of `BENCH_SOLVERS`) and each peer; a row each.

    `on_run` is called after each run with a short note (for the progress bar).
    """
    problem = load_problem(instance.map_path, instance.scen, instance.agents)
    bound = lower_bounds(problem, distance_tables(problem)).sum_of_costs
    rows = []
    for solver in solvers:
        if solver == "cbs" and instance.agents > CBS_MAX_AGENTS:
            continue
        result = solve(
            problem,
            "lacam" if solver == ANYTIME else solver,
            time_limit_s=time_limit_s,
            seed=seed,
            first_plan=solver == "lacam",
        )
        paths = flat_to_pairs(problem, result.paths) if result.solved else None
        rows.append(_row(instance, solver, OURS, problem, paths, bound, result.time_s))
        _note(on_run, instance, solver, OURS)
        if solver in peers:
            began = time.perf_counter()
            peer_paths = peers[solver](problem)
            elapsed = time.perf_counter() - began
            rows.append(_row(instance, solver, PEER, problem, peer_paths, bound, elapsed))
            _note(on_run, instance, solver, PEER)
    return rows


def _note(on_run: Callable[[str], None] | None, instance: Instance, solver: str, who: str) -> None:
    if on_run is not None:
        on_run(f"{instance.map_name} {instance.agents} {solver} {who}")


def _row(
    instance: Instance,
    solver: str,
    peer: str,
    problem: MapfProblem,
    paths: list[list[Pair]] | None,
    bound: int,
    time_s: float,
) -> MapfRow:
    """A row for `paths` (None: not solved), checked and costed by our rules."""
    soc = makespan = 0
    valid = None
    if paths is not None:
        valid = not check_plan(problem, paths)
        if valid:
            width = problem.width
            soc, makespan = plan_costs(problem, [[r * width + c for r, c in p] for p in paths])
    return MapfRow(
        instance.map_name,
        instance.scen.name,
        instance.agents,
        solver,
        peer,
        paths is not None,
        time_s,
        soc,
        makespan,
        bound,
        valid,
    )


def to_json(rows: Sequence[MapfRow]) -> dict[str, Any]:
    """The JSON report: ``{"rows": [...]}``, one row per solver run."""
    return {"rows": [row.to_json() for row in rows]}


def table_lines(rows: Sequence[MapfRow]) -> list[str]:
    """Per map, solver and peer: runs, share solved, median time, cost over its bound, invalid.

    The cost column is the mean sum of costs over its lower bound of the valid plans: LaCAM*
    trades its time for it, so it stands beside the time.
    """
    lines = [
        "| map | solver | who | runs | solved | median s (solved) | mean SoC / bound | invalid |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    groups: dict[tuple[str, str, str], list[MapfRow]] = {}
    for row in rows:
        groups.setdefault((row.map, row.solver, row.peer), []).append(row)
    for (map_name, solver, peer), group in groups.items():
        solved = [row for row in group if row.solved]
        median = f"{statistics.median(r.time_s for r in solved):.4f}" if solved else "-"
        invalid = sum(1 for row in group if row.valid is False)
        ratios = [
            r.sum_of_costs / r.soc_lower_bound for r in solved if r.valid and r.soc_lower_bound
        ]
        ratio = f"{statistics.fmean(ratios):.3f}" if ratios else "-"
        lines.append(
            f"| {map_name} | {solver} | {peer} | {len(group)} | "
            f"{len(solved) / len(group):.0%} | {median} | {ratio} | {invalid} |"
        )
    return lines


@dataclass(frozen=True, slots=True)
class Verdict:
    """One target's figure and whether it is met (None: nothing to judge it on)."""

    name: str
    met: bool | None
    detail: str

    def line(self) -> str:
        """``- name: MET|MISSED|n/a: detail``."""
        word = {True: "MET", False: "MISSED", None: "n/a"}[self.met]
        return f"- {self.name}: {word}: {self.detail}"


def verdicts(rows: Sequence[MapfRow]) -> list[Verdict]:
    """The MAPF targets, judged on `rows`."""
    found = [_lacam_share(rows)]
    found += [_speedup(rows, solver) for solver in ("lacam", "pibt")]
    found.append(_cbs_equal(rows))
    invalid = [row for row in rows if row.valid is False]
    ours_invalid = sum(1 for row in invalid if row.peer == OURS)
    found.append(
        Verdict(
            "every plan of ours valid by the checker",
            ours_invalid == 0,
            f"{ours_invalid} invalid of {sum(1 for r in rows if r.peer == OURS and r.solved)} "
            f"plans (pymapf: {len(invalid) - ours_invalid} invalid)",
        )
    )
    return found


def _lacam_share(rows: Sequence[MapfRow]) -> Verdict:
    runs = [r for r in rows if r.solver == "lacam" and r.peer == OURS]
    runs = [r for r in runs if r.agents <= LACAM_TARGET_AGENTS]
    name = (
        f"LaCAM* solves >= {LACAM_TARGET_SHARE:.0%} of the instances with up to "
        f"{LACAM_TARGET_AGENTS:,} agents within {LACAM_TARGET_S:g} s each (time to its first plan)"
    )
    if not runs:
        return Verdict(name, None, "no lacam run")
    solved = sum(1 for r in runs if r.solved and r.valid and r.time_s <= LACAM_TARGET_S)
    share = solved / len(runs)
    return Verdict(
        name, share >= LACAM_TARGET_SHARE, f"{solved} of {len(runs)} ({share:.1%}), valid"
    )


def _speedup(rows: Sequence[MapfRow], solver: str) -> Verdict:
    what = "median time to the first plan" if solver == "lacam" else "median time"
    name = f"{solver}: ours >= {SPEEDUP_TARGET:g}x faster than pymapf ({what}, both solved)"
    ours, peer = _paired(rows, solver)
    if not ours:
        return Verdict(name, None, "no instance both solved (or pymapf not run)")
    ratio = statistics.median(peer) / max(statistics.median(ours), 1e-9)
    detail = (
        f"{len(ours)} instances, median {statistics.median(ours):.4f} s ours vs "
        f"{statistics.median(peer):.4f} s pymapf: {ratio:.1f}x"
    )
    return Verdict(name, ratio >= SPEEDUP_TARGET, detail)


def _paired(rows: Sequence[MapfRow], solver: str) -> tuple[list[float], list[float]]:
    """Times of ours and the peer's on the instances both solved validly, in the same order."""
    keyed = {(r.map, r.scen, r.agents, r.peer): r for r in rows if r.solver == solver}
    ours, peer = [], []
    for (map_name, scen, agents, who), row in keyed.items():
        other = keyed.get((map_name, scen, agents, PEER))
        if who == OURS and other is not None and row.valid and other.valid:
            ours.append(row.time_s)
            peer.append(other.time_s)
    return ours, peer


def _cbs_equal(rows: Sequence[MapfRow]) -> Verdict:
    name = "cbs: our sum of costs equals pymapf's on every instance both solve"
    keyed = {(r.map, r.scen, r.agents, r.peer): r for r in rows if r.solver == "cbs"}
    pairs = [
        (row, keyed[(m, s, a, PEER)])
        for (m, s, a, who), row in keyed.items()
        if who == OURS and (m, s, a, PEER) in keyed and row.valid and keyed[(m, s, a, PEER)].valid
    ]
    if not pairs:
        return Verdict(name, None, "no instance both solved (or pymapf not run)")
    differ = [
        f"{o.map} {o.agents}: {o.sum_of_costs} vs {p.sum_of_costs}"
        for o, p in pairs
        if o.sum_of_costs != p.sum_of_costs
    ]
    detail = f"{len(pairs) - len(differ)} of {len(pairs)} equal"
    return Verdict(name, not differ, detail + (f"; differ: {'; '.join(differ)}" if differ else ""))


def run_bench(
    found: Sequence[Instance],
    *,
    time_limit_s: float,
    seed: int,
    peer: bool = True,
    anytime: bool = True,
) -> tuple[list[MapfRow], list[str]]:
    """Run every instance with ours and (when `peer` and installed) pymapf; rows and notes.

    Without `anytime`, our LaCAM* runs only to its first plan (no ``lacam-anytime`` rows). A
    progress bar on a terminal (`sim.bench.progress`) counts the solver runs.
    """
    solvers = [s for s in BENCH_SOLVERS if anytime or s != ANYTIME]
    peers = peer_solvers(SOLVERS, time_limit_s, seed) if peer else {}
    notes = [] if peers or not peer else [PEER_NOTE]
    runs_each = [
        sum(1 + (s in peers) for s in solvers if s != "cbs" or i.agents <= CBS_MAX_AGENTS)
        for i in found
    ]
    progress = Progress(sum(runs_each), "bench --mapf")
    rows: list[MapfRow] = []
    for instance in found:
        rows += run_instance(
            instance,
            solvers,
            peers,
            time_limit_s=time_limit_s,
            seed=seed,
            on_run=lambda note: progress.advance(1, note),
        )
    progress.close()
    return rows, notes


def report_lines(rows: Sequence[MapfRow]) -> list[str]:
    """The table, then one line per target with its verdict."""
    return [*table_lines(rows), "", "Targets:", *(v.line() for v in verdicts(rows))]


def section_lines(
    rows: Sequence[MapfRow], command: str, commit: str, *, time_limit_s: float
) -> list[str]:
    """The ``## MAPF`` section of benchmarks/RESULTS.md: how it was run, the table, targets."""
    instances_run = {(r.map, r.scen, r.agents) for r in rows}
    agents = sorted({r.agents for r in rows})
    return [
        SECTION_HEADING,
        "",
        f"`{command}` at commit `{commit}`, {time.strftime('%Y-%m-%d')}, pymapf "
        f"{peer_version()}, {os.cpu_count()} cores: {len(instances_run)} instances "
        f"(agents {', '.join(map(str, agents))}), time limit {time_limit_s:g} s per run, "
        f"ours and pymapf one after the other in one process. CBS runs only up to "
        f"{CBS_MAX_AGENTS} agents. Every plan is checked by `sim.mapf.checker`; costs by our "
        "rule (last arrival at the goal) for both. `lacam` rows stop at the first plan, ours as "
        "pymapf's LaCAM does, and their times are compared; "
        + (
            "`lacam-anytime` is our LaCAM* improving its plan until the limit (or until it "
            "proves it optimal)."
            if any(r.solver == ANYTIME for r in rows)
            else "our LaCAM* did not run anytime (`--first-plan`)."
        ),
        "",
        *table_lines(rows),
        "",
        *(v.line() for v in verdicts(rows)),
        "",
    ]
