"""`sim bench`: our planner against its peers on the shared Moving AI maps, in one run.

Per map, one table of every planner on the same seeded queries (`sim.bench.maps`); then the
first path of a fresh process (`sim.bench.startup`) and one line per target
(`sim.bench.results`). ``--crowd`` runs only the crowd throughput (`sim.bench.crowd`);
``--dynamic`` only incremental replanning against A* from scratch (`sim.bench.dynamic`);
``--mapf`` only our MAPF solvers against pymapf's on the MAPF benchmark (`sim.bench.mapf`);
``--calls`` only the cost of one call and of the batch call (`sim.bench.gppc.calls`).
``--write-results`` runs the maps, then the crowd, then the dynamic benchmark, and writes them
all, with the targets, into benchmarks/RESULTS.md; with ``--crowd`` or ``--dynamic`` it
rewrites only that section. ``--json FILE`` writes what the run measured: the maps (every
row, the unreachable row, the targets), or ``--crowd``'s or ``--dynamic``'s figures.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.bench import dynamic, mapf, mapf_window
from sim.bench.dynamic_report import DynamicReport
from sim.bench.envs import steps as env_steps
from sim.bench.gppc import calls
from sim.bench.gppc import scoreboard as gppc
from sim.bench.map_targets import maps_json
from sim.bench.maps import (
    bench_map,
    contestants_for,
    default_algorithm,
    map_paths,
    movingai_dir,
)
from sim.bench.peers import PEERS
from sim.bench.progress import Progress
from sim.bench.results import (
    summary_lines,
    targets_of,
    write_calls_section,
    write_crowd_section,
    write_dynamic_section,
    write_env_section,
    write_gppc_section,
    write_mapf_section,
    write_mapf_window_section,
    write_results,
)
from sim.bench.startup import first_path_timing
from sim.bench.window import maps as window_maps
from sim.commands import bench_suite, bench_world
from sim.commands.args import (
    Output,
    OutputKind,
    check_output,
    peer_list,
    positive_float,
    positive_int,
    scenario_count,
)
from sim.config import REPO_ROOT
from sim.errors import SimError, shown
from sim.files import write_json_atomic

if TYPE_CHECKING:
    from sim.bench.crowd import CrowdReport

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
            "median and p95 ms per query, expanded nodes and ours/peer ratios for find_path "
            "with its defaults (auto) and forced A*, a row of unreachable queries, then the "
            "targets."
        ),
    )
    parser.add_argument(
        "--crowd",
        action="store_true",
        help="instead: only the simulated-time throughput of 200, 1000 and 5000 agents sharing "
        "one End (scenes/crowd.toml, headless, no rendering): sim fps, arrivals, overlap",
    )
    bench_suite.add_arguments(parser)
    parser.add_argument(
        "--dynamic",
        action="store_true",
        help="instead: incremental replanning (D* Lite) against A* from scratch while "
        f"{dynamic.CHANGED_CELLS} cells change near the path each round (default maps: the "
        f"{dynamic.DEFAULT_SIDE}x{dynamic.DEFAULT_SIDE} ones); exit 1 if any cost differs",
    )
    parser.add_argument(
        "--mapf",
        action="store_true",
        help="instead: our MAPF solvers (lacam, pibt, cbs) against pymapf's on the MAPF "
        "benchmark ($MAPF_DIR; --peers none: ours alone); default maps "
        f"{' '.join(mapf.DEFAULT_MAPS)}, about 15 s; exit 1 if a plan of ours is invalid",
    )
    parser.add_argument(
        "--env",
        action="store_true",
        help="instead: the learning environments' steps per second (1, 64 and 256 agents on a "
        "64x64 random map, observation radius 5) beside POGEMA's, run by $POGEMA_PYTHON, an "
        "interpreter with pogema installed (without it: ours alone)",
    )
    parser.add_argument(
        "--gppc",
        action="store_true",
        help="instead: a scoreboard in the grid-pathfinding competition's fields (solved, "
        "optimal, query and preprocessing time, storage, peak memory, path length, "
        "suboptimality) per map set for ours (auto, jps, astar); with --peers warthog and "
        "WARTHOG naming warthog's warthog-timed, warthog's jps2, jps2+ and astar beside them; "
        "every scenario unless --sample",
    )
    parser.add_argument(
        "--calls",
        action="store_true",
        help="instead: the fixed cost of one find_path call, and find_paths' time per query on "
        "the smaller maps beside find_path's (and warthog's, with --peers warthog)",
    )
    parser.add_argument(
        "--agents",
        type=_agent_counts,
        default=list(mapf.DEFAULT_AGENTS),
        metavar="LIST",
        help="with --mapf: comma-separated agent counts "
        f"(default {','.join(map(str, mapf.DEFAULT_AGENTS))})",
    )
    parser.add_argument(
        "--time-limit",
        type=positive_float,
        default=mapf.DEFAULT_TIME_LIMIT_S,
        metavar="S",
        help=f"with --mapf: seconds per solver run (default {mapf.DEFAULT_TIME_LIMIT_S:g})",
    )
    parser.add_argument(
        "--first-plan",
        action="store_true",
        help="with --mapf: our LaCAM* only to its first plan (skip its anytime runs)",
    )
    parser.add_argument(
        "--window",
        action="store_true",
        help="with --mapf: also play 1,000 agents' plans in an 800 x 600 window "
        "(Berlin_1_256, warehouse-10-20-10-2-1) and time its frames; alone: instead open "
        "8room_000, maze512-1-0 and random512-40-0 as sim run does and time the opening and frames",
    )
    parser.add_argument(
        "--scens",
        type=positive_int,
        default=mapf.DEFAULT_SCENS,
        metavar="N",
        help=f"with --mapf: random scenario files 1..N per map (default {mapf.DEFAULT_SCENS})",
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="also write the results as JSON to FILE (replaced atomically): the maps' rows, "
        "unreachable rows and targets, or with --crowd or --dynamic their figures",
    )
    parser.add_argument(
        "--maps", nargs="+", metavar="NAME", help="map names (e.g. arena maze512-1-0); default all"
    )
    parser.add_argument(
        "--sample",
        type=scenario_count,
        metavar="N",
        help=f"scenarios drawn per map, seeded (default {DEFAULT_SAMPLE}; with --gppc all)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="random seed for --sample (default 0)"
    )
    parser.add_argument(
        "--peers",
        type=peer_list,
        default=list(PEERS),
        metavar="LIST",
        help=f"comma-separated peers, 'all' or 'none' (default all: {','.join(PEERS)})",
    )
    parser.add_argument(
        "--peer-limit",
        type=scenario_count,
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
        "and targets to benchmarks/RESULTS.md; with --crowd or --dynamic only that section",
    )
    bench_world.add_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sim bench``; return 0, or 1 when --dynamic fails (SimError for bad input)."""
    if args.variants is not None and not args.crowd_suite:
        raise SimError("bench: --variants goes with --crowd-suite")
    if bench_world.wanted(args):
        return bench_world.run(args)
    if args.calls:
        if args.gppc or args.mapf or args.crowd or args.dynamic:
            raise SimError("bench: --calls is a run of its own: without --gppc, --mapf, ...")
        return _bench_calls(args)
    if args.gppc:
        if args.mapf or args.crowd or args.dynamic:
            raise SimError(
                "bench: --gppc, --mapf, --crowd and --dynamic are separate runs; give one"
            )
        return _bench_gppc(args)
    if args.sample is None:
        args.sample = DEFAULT_SAMPLE
    args.peers = [name for name in args.peers if name in PEERS]
    if args.env:
        if args.mapf or args.crowd or args.dynamic:
            raise SimError(
                "bench: --env, --mapf, --crowd and --dynamic are separate runs; give one"
            )
        return _bench_env(args)
    if args.window and not args.mapf:
        return window_maps.run(args, _commit())
    if args.mapf:
        if args.crowd or args.dynamic:
            raise SimError("bench: --mapf, --crowd and --dynamic are separate runs; give one")
        return _bench_mapf(args)
    if args.dynamic:
        if args.crowd:
            raise SimError("bench: --dynamic and --crowd are separate runs; give one of them")
        return _bench_dynamic(args)
    if args.crowd_suite:
        if args.crowd or args.dynamic:
            raise SimError("bench: --crowd-suite, --crowd and --dynamic are separate runs")
        return bench_suite.run(args, _commit)
    if args.crowd:
        return _bench_crowd_only(args)
    _check_json(args)
    directory = movingai_dir()
    maps = map_paths(directory, args.maps)
    contestants, notes = contestants_for(args.peers)
    for note in notes:
        print(note)
    reports = []
    # The bar's units are file bytes, about a map's cells: a big map's query costs more.
    weights = {path: path.stat().st_size for path in maps}
    progress = Progress(sum(weights.values()) * (args.sample + 1), "bench")
    for map_path in maps:
        name = map_path.name.removesuffix(".map")
        report = bench_map(
            map_path,
            contestants,
            args.sample,
            args.seed,
            args.peer_limit,
            on_query=functools.partial(progress.advance, weights[map_path], name),
        )
        reports.append(report)
        progress.close()
        print()
        print("\n".join(report.lines()), flush=True)
    startup = first_path_timing(maps[-1], args.sample, args.seed)
    # The file records every target, so writing it runs the crowd too.
    crowd = _bench_crowd() if args.write_results else None
    if crowd is not None:
        print()
        print("\n".join(crowd.lines()), flush=True)
    moving = _run_dynamic(directory, args.maps, args.seed) if args.write_results else None
    summary = summary_lines(reports, startup, crowd)
    print()
    print("\n".join(summary))
    status = 0
    if crowd is not None:
        command = _command(args)
        written = write_results(command, reports, summary, notes, contestants, crowd, moving)
        print(f"\nwrote {written}")
    if args.json is not None:
        data = maps_json(reports, targets_of(reports), default_algorithm())
        data["first_path"] = {**dataclasses.asdict(startup), "extra_ms": startup.extra_ms}
        status |= _write_json(args, data)
    return status if moving is None or moving.costs_equal else _disagreed(moving)


def _bench_dynamic(args: argparse.Namespace) -> int:
    """``sim bench --dynamic``: print the table and targets; write --json, RESULTS.md's part."""
    _check_json(args)
    report = _run_dynamic(movingai_dir(), args.maps, args.seed)
    status = 0
    if args.write_results:
        written = write_dynamic_section(report, _dynamic_command(args))
        print(f"\nwrote {written}")
    status |= _write_json(args, report.to_json())
    return status if report.costs_equal else _disagreed(report)


def _bench_mapf(args: argparse.Namespace) -> int:
    """``sim bench --mapf``: print the table and targets; write --json, RESULTS.md's part."""
    _check_json(args)
    found = mapf.instances(mapf.mapf_dir(), args.maps, args.agents, args.scens)
    if not found:
        raise SimError("bench: no MAPF instance: every --agents count exceeds the files")
    rows, notes = mapf.run_bench(
        found,
        time_limit_s=args.time_limit,
        seed=args.seed,
        peer=bool(args.peers),
        anytime=not args.first_plan,
    )
    print("\n".join([*notes, *mapf.report_lines(rows)]), flush=True)
    status = 0 if all(row.valid is not False for row in rows if row.peer == mapf.OURS) else 1
    rendered = mapf_window.window_rows(mapf.mapf_dir()) if args.window else []
    if rendered:
        print("\n".join(["", *mapf_window.window_lines(rendered)]), flush=True)
    if args.write_results:
        section = mapf.section_lines(
            rows, _mapf_command(args), _commit(), time_limit_s=args.time_limit
        )
        print(f"\nwrote {write_mapf_section(section)}")
        if rendered:
            lines = mapf_window.window_lines(rendered)
            print(f"wrote {write_mapf_window_section(lines, _mapf_command(args), _commit())}")
    if args.json is not None:
        document = mapf.to_json(rows)
        if rendered:
            document["window"] = [
                {"map": row.map, "agents": row.agents, "fps": row.fps} for row in rendered
            ]
        status |= _write_json(args, document)
    return status


def _bench_env(args: argparse.Namespace) -> int:
    """``sim bench --env``: print the table and targets; write --json, RESULTS.md's part."""
    _check_json(args)
    try:
        import sim.envs  # noqa: F401 - the rl extra's packages, asked for before any timing
    except ImportError as error:
        raise SimError(
            f"bench --env needs the rl extra (pip install -e '.[rl]'): {error}"
        ) from None
    runs = 2 * len(env_steps.AGENT_COUNTS)
    progress = Progress(runs, "env")
    try:
        report = env_steps.run(
            pogema_python=env_steps.pogema_python(),
            on_run=lambda note: progress.advance(1, note),
        )
    except RuntimeError as error:
        raise SimError(f"bench: {error}") from None
    finally:
        progress.close()
    print("\n".join(report.lines()), flush=True)
    status = 0
    if args.write_results:
        command = "sim bench --env --write-results"
        print(f"\nwrote {write_env_section(report, command, _commit())}")
    status |= _write_json(args, report.to_json())
    return status


def _bench_gppc(args: argparse.Namespace) -> int:
    """``sim bench --gppc``: the scoreboard; write --json and RESULTS.md's part."""
    _check_json(args)
    maps = map_paths(movingai_dir(), args.maps)
    asked = "warthog" in args.peers
    binary = gppc.warthog_binary(os.environ.get("WARTHOG")) if asked else None
    progress = Progress(gppc.steps(len(maps), warthog=binary is not None), "gppc")
    try:
        report = gppc.run(
            maps,
            warthog=binary,
            warthog_asked=asked,
            sample=args.sample,
            seed=args.seed,
            on_done=progress.advance,
        )
    finally:
        progress.close()
    print("\n".join(report.lines()), flush=True)
    status = 0
    if args.write_results:
        command = " ".join(
            ["sim", "bench", "--gppc", *(["--maps", *args.maps] if args.maps else [])]
            + (["--sample", str(args.sample)] if args.sample is not None else [])
            + (["--peers", "warthog"] if asked else [])
            + ["--write-results"]
        )
        print(f"\nwrote {write_gppc_section(report, command, _commit())}")
    status |= _write_json(args, report.to_json())
    return status


def _bench_calls(args: argparse.Namespace) -> int:
    """``sim bench --calls``: the cost of a call and of the batch call; --json, RESULTS.md."""
    _check_json(args)
    binary = gppc.warthog_binary(os.environ.get("WARTHOG")) if "warthog" in args.peers else None
    with contextlib.closing(Progress(calls.steps(), "calls")) as progress:
        report = calls.run(movingai_dir(), warthog=binary, on_done=progress.advance)
    print("\n".join(report.lines()), flush=True)
    if args.write_results:
        command = "sim bench --calls" + " --peers warthog" * bool(binary) + " --write-results"
        print(f"\nwrote {write_calls_section(report.lines(), command, _commit())}")
    return _write_json(args, report.to_json())


def _check_json(args: argparse.Namespace) -> None:
    """Refuse a ``--json`` path that cannot be written, before any measuring (SimError)."""
    if args.json is not None:
        check_output(Output("--json", args.json, OutputKind.JSON))


def _write_json(args: argparse.Namespace, document: dict[str, Any]) -> int:
    """Write `document` to ``--json`` if given: 0, or 1 (said on stderr) when it fails."""
    if args.json is None:
        return 0
    try:
        write_json_atomic(args.json, document)
    except OSError as error:
        _say(f"sim: --json {args.json}: not written: {error.strerror or error}")
        return 1
    return 0


def _mapf_command(args: argparse.Namespace) -> str:
    parts = ["sim", "bench", "--mapf"]
    if args.maps:
        parts += ["--maps", *args.maps]
    parts += ["--agents", ",".join(map(str, args.agents)), "--scens", str(args.scens)]
    parts += ["--time-limit", f"{args.time_limit:g}"]
    parts += ["--first-plan"] * args.first_plan + ["--peers", "none"] * (not args.peers)
    parts += ["--window"] * args.window
    return " ".join([*parts, "--write-results"])


def _commit() -> str:
    """The checked-out commit's short hash, or "unknown" outside a git checkout."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return done.stdout.strip()


def _agent_counts(text: str) -> list[int]:
    """Parse ``--agents``: comma-separated whole numbers >= 1, e.g. ``10,50,100``."""
    counts = []
    for part in text.split(","):
        try:
            count = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected whole numbers, got {part!r}") from None
        if count < 1:
            raise argparse.ArgumentTypeError(f"agent counts must be >= 1, got {count}")
        counts.append(count)
    return sorted(set(counts))


def _run_dynamic(directory: Path, names: Sequence[str] | None, seed: int) -> DynamicReport:
    """Run the dynamic benchmark on `names` (default the 512x512 maps); print its tables."""
    maps = map_paths(directory, names)
    if names is None:
        maps = dynamic.default_maps(maps)
        if not maps:
            raise SimError(
                f"bench: no {dynamic.DEFAULT_SIDE}x{dynamic.DEFAULT_SIDE} map in {directory} "
                "for --dynamic; name maps with --maps"
            )
    implementation, notes = dynamic.choose_implementation("auto")
    for note in notes:
        print(note)
    report = dynamic.run_dynamic(maps, seed=seed, implementation=implementation)
    print()
    print("\n".join([*report.lines(), "", "Targets:", *report.target_lines()]), flush=True)
    return report


def _say(line: str) -> None:
    # dispatch.say's twin: dispatch imports this module, so importing it back would be a cycle.
    with contextlib.suppress(OSError):
        print(shown(line), file=sys.stderr, flush=True)


def _disagreed(report: DynamicReport) -> int:
    mismatches = [m for run in report.runs for m in run.mismatches]
    _say(f"sim: bench --dynamic: {len(mismatches)} answers differ; first: {mismatches[0]}")
    return 1


def _dynamic_command(args: argparse.Namespace) -> str:
    parts = ["sim", "bench", "--dynamic"]
    if args.maps:
        parts += ["--maps", *args.maps]
    return " ".join([*parts, "--seed", str(args.seed), "--write-results"])


def _bench_crowd_only(args: argparse.Namespace) -> int:
    """``sim bench --crowd``: print the table and targets; write --json, RESULTS.md's part."""
    _check_json(args)
    report = _bench_crowd()
    print("\n".join([*report.lines(), "", "Targets:", *report.target_lines()]))
    status = 0
    if args.write_results:
        written = write_crowd_section(report, "sim bench --crowd --write-results")
        print(f"\nwrote {written}")
    status |= _write_json(args, report.to_json())
    return status


def _bench_crowd() -> CrowdReport:
    # Imported only now: the crowd needs Panda3D's core, the maps do not.
    from sim.bench import crowd as crowd_bench
    from sim.bench.crowd_window import rendered_fps

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    return crowd_bench.bench_crowd(render=rendered_fps, progress=progress)


def _command(args: argparse.Namespace) -> str:
    parts = ["sim", "bench"]
    if args.maps:
        parts += ["--maps", *args.maps]
    parts += ["--sample", str(args.sample), "--seed", str(args.seed)]
    parts += ["--peers", ",".join(args.peers) or "none", "--peer-limit", str(args.peer_limit)]
    return " ".join([*parts, "--write-results"])
