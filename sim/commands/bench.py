"""`sim bench`: our planner against its peers on the shared Moving AI maps, in one run.

Per map, one table of every planner on the same seeded queries (`sim.bench.maps`); then the
first path of a fresh process (`sim.bench.startup`) and one line per target of the issue
(`sim.bench.results`). ``--crowd`` runs only the crowd throughput (`sim.bench.crowd`);
``--write-results`` runs the maps, then the crowd, and writes both, with the targets, into
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from sim.bench.maps import bench_map, contestants_for, map_paths, movingai_dir
from sim.bench.peers import PEERS
from sim.bench.results import summary_lines, write_results
from sim.bench.startup import first_path_timing
from sim.commands.args import scenario_count
from sim.errors import SimError

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
        type=scenario_count,
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
    maps = map_paths(directory, args.maps)
    contestants, notes = contestants_for(args.peers)
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
        written = write_results(_command(args), reports, summary, notes, contestants, crowd)
        print(f"\nwrote {written}")
    return 0


def _bench_crowd() -> CrowdReport:
    # Imported only now: the crowd needs Panda3D's core, the maps do not.
    from sim.bench import crowd as crowd_bench

    return crowd_bench.bench_crowd()


def _command(args: argparse.Namespace) -> str:
    parts = ["sim", "bench"]
    if args.maps:
        parts += ["--maps", *args.maps]
    parts += ["--sample", str(args.sample), "--seed", str(args.seed)]
    parts += ["--peers", ",".join(args.peers) or "none", "--peer-limit", str(args.peer_limit)]
    return " ".join([*parts, "--write-results"])


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
