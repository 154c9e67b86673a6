"""``sim bench --crowd-suite [--seeds N] [--variants N]``: the torture cases and users' variants.

The nine cases of ``scenes/torture/`` over seeds 0 .. N-1 (`sim.bench.crowd_suite`) and, with
``--variants N``, N seeded variants of each case (`sim.bench.variants`), headless, under one
progress bar. ``--json FILE`` writes ``{"cases": [...], "variants": [...]}`` (the second only
with ``--variants``); ``--write-results`` rewrites the suite's section of RESULTS.md, or with
``--variants`` the variants' section only (the suite's figures stay those of a run of their own).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from sim.bench.progress import Progress
from sim.bench.results import RESULTS_PATH, write_mapf_section
from sim.commands.args import Output, OutputKind, check_output, positive_int
from sim.errors import SimError
from sim.files import write_bytes_atomic, write_json_atomic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--crowd-suite``, ``--seeds`` and ``--variants`` to ``sim bench``'s parser."""
    parser.add_argument(
        "--crowd-suite",
        action="store_true",
        help="instead: the crowd torture cases (every scenes/torture/*.toml) over --seeds "
        "seeds, headless: arrived %%, time over free flow, overlap, stalls, doorway flow",
    )
    parser.add_argument(
        "--seeds",
        type=positive_int,
        default=20,
        metavar="N",
        help="with --crowd-suite: seeds per case, 0 .. N-1 (default 20)",
    )
    parser.add_argument(
        "--variants",
        type=positive_int,
        default=None,
        metavar="N",
        help="with --crowd-suite: also N seeded variants of each case, as users vary them "
        "(corridor length and width, agents each way, alcove place, door width, pillar shape, "
        "two sizes and speeds, priorities, an extra wall)",
    )


def run(args: argparse.Namespace, commit: Callable[[], str]) -> int:
    """Run the suite (and the variants); 0, or 1 when --json could not be written."""
    # Imported only now: the crowd needs Panda3D's core, the maps do not.
    from sim.bench import crowd_suite
    from sim.bench.variants import run as variants

    if args.json is not None:
        check_output(Output("--json", args.json, OutputKind.JSON))
    scenes = crowd_suite.suite_scenes()
    if not scenes:
        raise SimError(f"bench: no torture scenes in {crowd_suite.SUITE_DIR}")
    count = args.variants or 0
    bar = Progress(len(scenes) * args.seeds + len(variants.CASES) * count, "crowd suite")
    try:
        report = crowd_suite.bench_suite(
            scenes, seeds=args.seeds, progress=lambda note: bar.advance(1, note)
        )
        varied = (
            variants.bench_variants(count, progress=lambda note: bar.advance(1, note))
            if count
            else None
        )
    finally:
        bar.close()
    print("\n".join([*report.lines(), "", "Targets:", *report.target_lines()]))
    if varied is not None:
        print("\n".join(["", *varied.lines()]))
    command = f"sim bench --crowd-suite --seeds {args.seeds} --write-results"
    if args.write_results and varied is not None:
        command = command.replace(" --write-results", f" --variants {count} --write-results")
        print(f"\nwrote {write_mapf_section(variants.section_lines(varied, command, commit()))}")
    elif args.write_results:
        write_bytes_atomic(RESULTS_PATH.parent / crowd_suite.CHART, report.chart_svg().encode())
        print(f"\nwrote {write_mapf_section(crowd_suite.section_lines(report, command, commit()))}")
    document: dict[str, Any] = report.to_json()
    if varied is not None:
        document["variants"] = varied.to_json()
    if args.json is None:
        return 0
    try:
        write_json_atomic(args.json, document)
    except OSError as error:
        print(f"sim: --json {args.json}: not written: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0
