"""`sim compare SCENE`: every search variant between a scene's Start and End, as a table.

``sim compare SCENE [--weight W] [--connectivity 4|8] [--repeat N] [--csv F] [--chart F.png]``
rasterizes the scene's obstacles exactly as the 3D app does (`sim.scene.grid`), takes the cells
under the first Start and End objects (the nearest free cell when one stands in an obstacle),
runs A*, weighted A* and greedy with four heuristics each, Dijkstra, BFS and DFS on the Python
reference loop, then JPS, bidirectional A* and Theta* where the grid allows them (JPS only
8-connected and without terrain costs, Theta* without costs), and prints one header line and a
table with costs in world units. Rows that miss the shortest path are marked ``*``. ``--csv``
also writes the table as CSV and ``--chart`` as a bar chart PNG (`sim.commands.compare_export`;
the chart needs matplotlib). Headless and without Panda3D. Bad input (a missing or invalid
scene, no Start or End, a bad option, an export path that cannot be written, an existing file
that is not this command's CSV table) is one line on stderr and exit status 2; an export that
fails while it is written (a full disk) leaves any file there as it was, is one line on stderr,
and the status is 1.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim.commands.args import Output, OutputKind, check_outputs, positive_int
from sim.commands.compare_export import (
    check_csv_target,
    require_matplotlib,
    write_chart,
    write_csv,
)
from sim.config import Tag
from sim.errors import SimError, shown
from sim.navigation.replay.compare import compare_searches, format_table
from sim.scene.file import load_scene
from sim.scene.grid import scene_endpoints, scene_grid

DEFAULT_WEIGHT = 1.5
DEFAULT_REPEAT = 3
EXIT_OUTPUT_FAILED = 1


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Register the ``compare`` sub-command; its `func` is `run`."""
    parser = subparsers.add_parser(
        "compare",
        help="compare A*, weighted A*, greedy, Dijkstra, BFS, DFS, JPS, bidirectional and Theta*",
        description=(
            "Search from the scene's Start to its End with every algorithm and heuristic and "
            "print a table: cells expanded, time (Python reference loop, best of N), cost in "
            "world units and the gap to the shortest path (Dijkstra's)."
        ),
    )
    parser.add_argument("scene", type=Path, metavar="SCENE", help="scene file (.toml)")
    parser.add_argument(
        "--weight",
        type=weight_value,
        default=DEFAULT_WEIGHT,
        metavar="W",
        help=f"heuristic weight of the weighted A* rows, >= 1 (default {DEFAULT_WEIGHT})",
    )
    parser.add_argument(
        "--connectivity",
        type=int,
        choices=(4, 8),
        help="4 or 8 neighbours (default: the scene's grid.connectivity)",
    )
    parser.add_argument(
        "--repeat",
        type=positive_int,
        default=DEFAULT_REPEAT,
        metavar="N",
        help=f"runs per row; the fastest is shown (default {DEFAULT_REPEAT})",
    )
    parser.add_argument(
        "--csv", type=Path, metavar="F", help="also write the table as CSV, one row per search"
    )
    parser.add_argument(
        "--chart",
        type=Path,
        metavar="F.png",
        help="also draw cells expanded and cost per search as a bar chart PNG (needs matplotlib)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sim compare``; print the header and the table, write the exports; return 0."""
    _check_exports(args)
    scene = load_scene(args.scene)
    if not (scene.objects_with_tag(Tag.START) and scene.objects_with_tag(Tag.END)):
        raise SimError(f"{args.scene}: needs a Start and an End object to compare searches")
    grid = scene_grid(scene)
    ends = scene_endpoints(scene, grid)
    if ends.start is None or ends.goal is None:
        raise SimError(f"{args.scene}: obstacles cover every cell; there is nothing to compare")
    connectivity = args.connectivity or scene.grid.connectivity
    rows = compare_searches(
        grid.walkable,
        ends.start,
        ends.goal,
        diagonal=connectivity == 8,
        weight=args.weight,
        costs=grid.costs,
        repeat=args.repeat,
        cost_scale=grid.cell_size,
        more=True,
    )
    height, width = grid.shape
    header = (
        f"{scene.name}: {height} x {width} grid, cell size {grid.cell_size:g}, "
        f"{connectivity}-connected, Start {ends.start} -> End {ends.goal} (row, col)"
    )
    ends_moved = ((Tag.START, ends.start_moved), (Tag.END, ends.goal_moved))
    moved = [tag for tag, flag in ends_moved if flag]
    if moved:
        header += f"; {' and '.join(moved)} stood in an obstacle: nearest free cell used"
    print(header)
    for line in format_table(rows, cost_unit="units"):
        print(line)
    status = 0
    if args.csv is not None and not _export("--csv", args.csv, lambda: write_csv(rows, args.csv)):
        status = EXIT_OUTPUT_FAILED
    if args.chart is not None and not _export(
        "--chart", args.chart, lambda: write_chart(rows, args.chart, header)
    ):
        status = EXIT_OUTPUT_FAILED
    return status


def _export(flag: str, path: Path, write: Callable[[], None]) -> bool:
    """Run `write`; say "wrote" on stdout, or why not in one line on stderr (a full disk)."""
    try:
        write()
    except OSError as error:
        with contextlib.suppress(OSError):  # stderr gone too: no one is left to tell
            print(
                f"sim: {flag} {shown(str(path))}: not written: {error.strerror or error}",
                file=sys.stderr,
            )
        return False
    print(f"wrote {shown(str(path))}")
    return True


def _check_exports(args: argparse.Namespace) -> None:
    """Refuse bad export paths, and a chart without matplotlib, before any search runs."""
    outputs = []
    if args.csv is not None:
        outputs.append(Output("--csv", args.csv, OutputKind.CSV))
    if args.chart is not None:
        if args.chart.suffix.lower() != ".png":
            raise SimError(f"--chart {args.chart}: the chart is a PNG; name it F.png")
        outputs.append(Output("--chart", args.chart, OutputKind.IMAGE))
    check_outputs(args.scene, outputs)
    if args.csv is not None:
        check_csv_target("--csv", args.csv)
    if args.chart is not None:
        require_matplotlib()


def weight_value(text: str) -> float:
    """Parse a heuristic weight: a finite number >= 1 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {text!r}") from None
    if not (math.isfinite(value) and value >= 1.0):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 1, got {text!r}")
    return value
