"""`sim sweep EXP.toml --out DIR`: run an experiment on Dask; write a table, a summary, plots.

The work is `sim.lab`'s; this module parses the options, checks that the `lab` extra (Dask
and matplotlib) is installed, and reports. Dask is imported only here, once a sweep runs, so
every other `sim` command starts as fast as before.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

from sim.commands.args import positive_int
from sim.errors import SimError, shown

EXIT_FAILED = 1
LAB_MODULES = ("dask", "distributed", "matplotlib")
INSTALL_HINT = 'sim sweep needs Dask and matplotlib: pip install -e ".[lab]"'


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Register the ``sweep`` sub-command; its `func` is `run`."""
    parser = subparsers.add_parser(
        "sweep",
        help="run an experiment (maps x searches x scenarios) on Dask; table, summary, plots",
        description=(
            "Run every search of an experiment file on every scenario of its maps, in "
            "parallel on a local Dask cluster (one worker process per core) or on an existing "
            "cluster, and write OUT/results.csv, OUT/summary.md and OUT/plots/*.png."
        ),
    )
    parser.add_argument("experiment", type=Path, metavar="EXP.toml", help="the experiment file")
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="output folder (new or empty)"
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help=f"worker processes of the local cluster (default: one per core, {_cores()} here)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="run on this existing Dask cluster instead (its workers need this project "
        "installed and the maps at the same paths)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the chunks an earlier, interrupted run left in DIR and run only the rest",
    )
    parser.add_argument(
        "--chunk",
        type=positive_int,
        metavar="N",
        help="scenarios per task (default: about a quarter second of searching, by map size)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the sweep; 0 when every output is written, 1 if a chunk or an output failed."""
    if args.scheduler is not None and args.workers is not None:
        raise SimError("--workers sizes the local cluster; it cannot go with --scheduler")
    require_lab()
    from sim.lab.cluster import ChunkFailedError
    from sim.lab.sweep import SweepSettings, run_sweep

    cores = _cores()
    workers = args.workers or cores
    if workers > cores:
        # Each worker is a process of its own (memory, semaphores) and the searches are
        # CPU-bound: past one per core they only wait their turn.
        _say(f"sim: sweep: --workers {workers}: {cores} started, one per core here")
        workers = cores
    settings = SweepSettings(
        experiment=args.experiment,
        out=args.out,
        workers=workers,
        scheduler=args.scheduler,
        resume=args.resume,
        block=args.chunk,
        note=lambda line: _say(f"sim: {line}"),
    )
    try:
        outcome = run_sweep(settings)
    except ChunkFailedError as error:
        _say(f"sim: sweep: {error}")
        return EXIT_FAILED
    except OSError as error:
        where = error.filename or args.out
        _say(f"sim: --out {args.out}: {where}: not written: {error.strerror or error}")
        return EXIT_FAILED
    print(
        f"sweep: {outcome.rows} rows; {outcome.chunks_run} chunks run, "
        f"{outcome.chunks_reused} kept from an earlier run"
    )
    for path in outcome.files:
        print(f"wrote {shown(str(path))}")
    return 0


def require_lab() -> None:
    """Raise `SimError` saying what to install unless Dask and matplotlib import."""
    import importlib

    for name in LAB_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            raise SimError(f"{INSTALL_HINT} ({name} is missing)") from None


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _say(line: str) -> None:
    with contextlib.suppress(OSError):  # stderr gone too: no one is left to tell
        print(shown(line), file=sys.stderr, flush=True)
