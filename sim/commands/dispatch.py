"""The `sim` parser and its dispatch: one sub-command module each, bad input in one line.

Every sub-command module exposes `add_parser(subparsers)`, which registers its parser and sets
`func` to a `run(args) -> int`. Panda3D is imported only by the sub-commands that open a scene, so
`sim plan`, `sim compare` and `sim bench` start fast and work without it. The process-wide
guards (Ctrl+C, SIGTERM, a stdout that fails) are `sim.commands.cli.main`'s.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from sim.errors import SimError, shown

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr, `sim <cmd>: <problem>`, exit 2."""

    def error(self, message: str) -> NoReturn:
        """Report a bad command-line value in one line and exit with status 2."""
        self.exit(EXIT_USAGE, f"{self.prog}: {shown(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every sub-command registered."""
    from sim.commands import bench, compare, generate, mapf, plan, run, soak, sweep

    parser = OneLineParser(
        prog="sim",
        description=(
            "Grid pathfinding sandbox: run a 3D scene, plan on Moving AI maps, compare "
            "searches, benchmark."
        ),
    )
    subparsers = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=OneLineParser
    )
    run.add_parser(subparsers)
    plan.add_parser(subparsers)
    compare.add_parser(subparsers)
    soak.add_parser(subparsers)
    bench.add_parser(subparsers)
    generate.add_parser(subparsers)
    sweep.add_parser(subparsers)
    mapf.add_parser(subparsers)
    return parser


def run_command(argv: Sequence[str] | None) -> int:
    """Parse `argv` (None: the process's arguments), run its sub-command, return its status.

    `--help` and bad arguments end here with argparse's status (0, or 2 after one line); a
    `SimError` from the sub-command is printed as `sim: <message>` with status 2.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:  # --help, or a bad value already reported in one line
        return int(exit_request.code or 0)
    try:
        status: int = args.func(args)
    except SimError as error:
        say(f"sim: {error}")
        return EXIT_USAGE
    return status


def say(line: str) -> None:
    """Print one line on stderr, names in it escaped (`shown`); if stderr fails, no one is told."""
    with contextlib.suppress(OSError):
        print(shown(line), file=sys.stderr, flush=True)
