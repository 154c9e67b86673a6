"""``sim bench --carve`` and ``sim bench --burst``: a world in motion, and a burst of replans.

``--carve`` runs `sim.bench.world.carve` three times on the same seeded world, repairing cut
routes by the app's choice (D* Lite while cheaper, else a fresh search), always with D* Lite,
and always with `find_path` from scratch, and prints all three; the JSON's top-level figures
are the app's choice's, the others sit under ``"dstar_lite"`` and ``"find_path"``.
``--burst`` runs `sim.bench.world.burst`. Each draws a progress bar on a terminal, writes
``--json FILE`` if given, and exits 1 when a plan it checked was not optimal (``--carve``) or
an agent was never planned (``--burst``); missed speed targets are reported, not failed
(speed on a shared machine is not a verdict on the code).
"""

from __future__ import annotations

import argparse
import functools
from typing import Any

from sim.bench.progress import Progress
from sim.bench.world import burst, carve
from sim.commands.args import Output, OutputKind, check_output
from sim.errors import SimError
from sim.files import write_json_atomic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--carve`` and ``--burst`` to ``sim bench``'s parser."""
    parser.add_argument(
        "--carve",
        action="store_true",
        help=f"instead: {carve.OBSTACLES} obstacles moving every frame and {carve.AGENTS} "
        f"agents repairing cut routes on a generated {carve.SIDE}x{carve.SIDE} map, headless: "
        "sim fps, p99 frame, repairs; exit 1 if a sampled plan is not optimal",
    )
    parser.add_argument(
        "--burst",
        action="store_true",
        help=f"instead: {burst.AGENTS} agents asking for a path on one frame, served nearest "
        f"first under a {burst.BUDGET_MS:g} ms budget a frame: frame ms, frames until all "
        "planned",
    )


def wanted(args: argparse.Namespace) -> bool:
    """Whether the run is ``--carve`` or ``--burst``."""
    return bool(args.carve or args.burst)


def run(args: argparse.Namespace) -> int:
    """Run ``--carve`` or ``--burst``; 0, or 1 when a check failed (SimError for bad input)."""
    others = [flag for flag in ("mapf", "crowd", "dynamic", "env", "gppc") if getattr(args, flag)]
    if (args.carve and args.burst) or others:
        raise SimError("bench: --carve and --burst are separate runs; give one of them alone")
    if args.json is not None:
        check_output(Output("--json", args.json, OutputKind.JSON))
    data, status = _carve(args.seed) if args.carve else _burst(args.seed)
    if args.json is not None:
        try:
            write_json_atomic(args.json, data)
        except OSError as error:
            print(f"sim: --json {args.json}: not written: {error.strerror or error}")
            return 1
    return status


def _carve(seed: int) -> tuple[dict[str, Any], int]:
    progress = Progress(len(carve.REPAIRS) * carve.FRAMES, "carve")
    reports = []
    for repair in carve.REPAIRS:
        advance = functools.partial(_advance, progress, repair)
        reports.append(carve.run_carve(seed=seed, repair=repair, on_frame=advance))
    progress.close()
    for report in reports:
        print("\n".join(report.lines()))
    chosen, incremental, fresh = reports
    data: dict[str, Any] = chosen.to_json()
    data["dstar_lite"] = incremental.to_json()
    data["find_path"] = fresh.to_json()
    bad = sum(report.mismatches + report.routes_broken for report in reports)
    return data, 1 if bad else 0


def _advance(progress: Progress, note: str, _frame: int) -> None:
    progress.advance(1, note)


def _burst(seed: int) -> tuple[dict[str, Any], int]:
    progress = Progress(burst.AGENTS, "burst")
    planned_before = [0]

    def on_frame(_frame: int, planned: int) -> None:
        progress.advance(planned - planned_before[0], f"{planned} planned")
        planned_before[0] = planned

    report = burst.run_burst(seed=seed, on_frame=on_frame)
    progress.close()
    print("\n".join(report.lines()))
    return report.to_json(), 0 if report.frames_to_all_planned is not None else 1
