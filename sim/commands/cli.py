"""The `sim` command line: one parser, one sub-command module each.

Every sub-command module exposes `add_parser(subparsers)`, which registers its parser and sets
`func` to a `run(args) -> int`. Panda3D is imported only by the sub-commands that open a scene, so
`sim plan`, `sim compare` and `sim bench` start fast and work without it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from sim.errors import SimError

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr, `sim <cmd>: <problem>`, exit 2."""

    def error(self, message: str) -> NoReturn:
        """Report a bad command-line value in one line and exit with status 2."""
        self.exit(EXIT_USAGE, f"{self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every sub-command registered."""
    from sim.commands import bench, compare, plan, run, soak

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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `sim` command line and return its exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:  # --help, or a bad value already reported in one line
        return int(exit_request.code or 0)
    try:
        status: int = args.func(args)
    except SimError as error:
        print(f"sim: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `sim plan ... | head` closed our output early: not an error, and no traceback.
        sys.stderr.close()
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
