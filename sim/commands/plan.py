"""`sim plan`: run the pathfinding core on a Moving AI map, headless, without Panda3D.

Two modes:

- ``sim plan MAP.map --scen MAP.map.scen [--limit N] [--sample N --seed S] [--json]`` checks our
  A* (8-connected, octile, no corner cutting) against the published optimal lengths: one line
  per scenario, then ``N passed, M failed``; exit status 1 if any cost lies outside the
  published length's `Scenario.tolerance`: 1e-5 relative (older files print 6 significant
  digits), or half a unit of the last decimal where a file prints fixed decimals (``2.83``).
  With ``--json``, "tolerance" is that relative floor and each scenario's "abs_tolerance" the
  absolute difference it allows.
- ``sim plan MAP.map --from X,Y --to X,Y [--json]`` prints one path; exit status 1 if none.

Coordinates are the Moving AI ones: x is the column, y the row, (0, 0) the top-left character.
Bad input (a missing or malformed file, a bad point) raises SimError: one line, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.commands.args import load_file, scenario_count
from sim.errors import SimError
from sim.navigation import (
    MoveGraph,
    MovingAIMap,
    PathResult,
    Scenario,
    Search,
    read_map,
    read_scenarios,
)
from sim.navigation.movingai import REL_TOLERANCE, sample_scenarios

TOLERANCE_RULE = (
    "|ours - published| <= the larger of 1e-5 x published and, where the file prints a fixed "
    "number of decimals, half a unit of the last one"
)


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Register the ``plan`` sub-command; its `func` is `run`."""
    parser = subparsers.add_parser(
        "plan",
        help="plan on a Moving AI map: check a .scen file or print one path",
        description=(
            "Run the pathfinding core on a Moving AI .map: compare with a .scen file's "
            "published optimal lengths, or print the path between two points (x = column, "
            "y = row)."
        ),
    )
    parser.add_argument("map", type=Path, metavar="MAP.map", help="Moving AI map file")
    parser.add_argument(
        "--scen", type=Path, metavar="FILE", help="Moving AI scenario file to check against"
    )
    parser.add_argument(
        "--limit", type=scenario_count, metavar="N", help="check only the first N scenarios"
    )
    parser.add_argument(
        "--sample",
        type=scenario_count,
        metavar="N",
        help="check N scenarios drawn at random (kept in file order)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="random seed for --sample (default 0)"
    )
    parser.add_argument("--from", dest="from_xy", metavar="X,Y", help="start of a single path")
    parser.add_argument("--to", dest="to_xy", metavar="X,Y", help="goal of a single path")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sim plan``; return 0 if everything passed (or the path exists), else 1."""
    single = args.from_xy is not None or args.to_xy is not None
    if args.scen is not None and single:
        raise SimError("plan: give either --scen or --from/--to, not both")
    if args.scen is None and not single:
        raise SimError("plan: give --scen FILE, or --from X,Y and --to X,Y")
    if single and (args.from_xy is None or args.to_xy is None):
        raise SimError("plan: --from and --to go together")
    if single and (args.limit is not None or args.sample is not None):
        raise SimError("plan: --limit and --sample apply to --scen only")
    grid = load_file(read_map, args.map)
    if args.scen is not None:
        scenarios = load_file(read_scenarios, args.scen)
        chosen = _choose(scenarios, limit=args.limit, sample=args.sample, seed=args.seed)
        return _check_scenarios(grid, args.scen, chosen, as_json=args.json)
    start = _parse_point(grid, "--from", args.from_xy)
    goal = _parse_point(grid, "--to", args.to_xy)
    return _print_path(grid, start, goal, as_json=args.json)


@dataclass(frozen=True, slots=True)
class _Outcome:
    scenario: Scenario
    result: PathResult
    ms: float

    @property
    def rel_diff(self) -> float:
        optimal = self.scenario.optimal_length
        difference = abs(self.result.cost - optimal)
        return difference / optimal if optimal > 0 else difference

    @property
    def passed(self) -> bool:
        return self.result.found and self.scenario.accepts(self.result.cost)


def _check_scenarios(
    grid: MovingAIMap, scen_path: Path, scenarios: Sequence[Scenario], *, as_json: bool
) -> int:
    for scenario in scenarios:
        if (scenario.map_width, scenario.map_height) != (grid.width, grid.height):
            raise SimError(
                f"{scen_path}:{scenario.line}: scenario expects a "
                f"{scenario.map_width}x{scenario.map_height} map, "
                f"{grid.source} is {grid.width}x{grid.height}"
            )
    graph = MoveGraph.build(grid.walkable)
    if not as_json:
        print(f"{grid.source}: {len(scenarios)} scenarios from {scen_path}")
        print(
            f"{'line':>6} {'bucket':>6}  {'start':<11} {'goal':<11} {'optimal':>15} "
            f"{'ours':>15} {'rel diff':>9} {'expanded':>9} {'ms':>9}"
        )
    outcomes = []
    for scenario in scenarios:
        began = time.perf_counter()
        result = Search(graph, scenario.start, scenario.goal).run()
        outcome = _Outcome(scenario, result, (time.perf_counter() - began) * 1000.0)
        outcomes.append(outcome)
        if not as_json:
            print(_scenario_line(outcome), flush=True)
    passed = sum(outcome.passed for outcome in outcomes)
    failed = len(outcomes) - passed
    if as_json:
        document = {
            "map": grid.source,
            "scen": str(scen_path),
            "tolerance": REL_TOLERANCE,
            "tolerance_rule": TOLERANCE_RULE,
            "scenarios": [_scenario_json(outcome) for outcome in outcomes],
            "passed": passed,
            "failed": failed,
        }
        print(json.dumps(document, indent=1))
    else:
        print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def _scenario_line(outcome: _Outcome) -> str:
    scenario, result = outcome.scenario, outcome.result
    start = f"{scenario.start_x},{scenario.start_y}"
    goal = f"{scenario.goal_x},{scenario.goal_y}"
    status = "ok" if outcome.passed else f"FAIL ({result.reason})"
    return (
        f"{scenario.line:>6} {scenario.bucket:>6}  {start:<11} {goal:<11} "
        f"{scenario.optimal_length:>15.8f} {result.cost:>15.8f} {outcome.rel_diff:>9.1e} "
        f"{result.expanded:>9} {outcome.ms:>9.2f}  {status}"
    )


def _scenario_json(outcome: _Outcome) -> dict[str, Any]:
    scenario, result = outcome.scenario, outcome.result
    return {
        "line": scenario.line,
        "bucket": scenario.bucket,
        "start": [scenario.start_x, scenario.start_y],
        "goal": [scenario.goal_x, scenario.goal_y],
        "optimal": scenario.optimal_length,
        "cost": result.cost if result.found else None,
        "rel_diff": outcome.rel_diff if result.found else None,
        "abs_tolerance": scenario.tolerance,
        "expanded": result.expanded,
        "ms": round(outcome.ms, 3),
        "passed": outcome.passed,
        "reason": str(result.reason),
    }


def _print_path(
    grid: MovingAIMap, start: tuple[int, int], goal: tuple[int, int], *, as_json: bool
) -> int:
    began = time.perf_counter()
    result = Search(MoveGraph.build(grid.walkable), start, goal).run()
    ms = (time.perf_counter() - began) * 1000.0
    points = [(col, row) for row, col in result.cells]
    start_xy, goal_xy = f"{start[1]},{start[0]}", f"{goal[1]},{goal[0]}"
    if as_json:
        document = {
            "map": grid.source,
            "from": [start[1], start[0]],
            "to": [goal[1], goal[0]],
            "found": result.found,
            "reason": str(result.reason),
            "cost": result.cost if result.found else None,
            "expanded": result.expanded,
            "ms": round(ms, 3),
            "path": [list(point) for point in points],
        }
        print(json.dumps(document, indent=1))
    elif result.found:
        print(
            f"from {start_xy} to {goal_xy}: cost {result.cost:.8f}, {len(points)} cells, "
            f"{result.expanded} expanded, {ms:.2f} ms"
        )
        print("path (x,y): " + " ".join(f"{x},{y}" for x, y in points))
    else:
        print(
            f"from {start_xy} to {goal_xy}: no path ({result.reason}), "
            f"{result.expanded} expanded, {ms:.2f} ms"
        )
    return 0 if result.found else 1


def _choose(
    scenarios: list[Scenario], *, limit: int | None, sample: int | None, seed: int
) -> list[Scenario]:
    """Apply --sample (seeded, kept in file order) and then --limit."""
    chosen = scenarios if sample is None else sample_scenarios(scenarios, sample, seed)
    return chosen if limit is None else chosen[:limit]


def _parse_point(grid: MovingAIMap, option: str, text: str) -> tuple[int, int]:
    """Turn ``"X,Y"`` into a walkable ``(row, col)`` of `grid`, or raise SimError."""
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = int(parts[0]), int(parts[1])
    except ValueError:
        raise SimError(f"{option}: expected X,Y (two integers), got {text!r}") from None
    if not (0 <= x < grid.width and 0 <= y < grid.height):
        raise SimError(
            f"{grid.source}: {option} {x},{y} lies outside the {grid.width}x{grid.height} map "
            f"(x is the column 0..{grid.width - 1}, y the row 0..{grid.height - 1})"
        )
    if not grid.walkable[y, x]:
        terrain = grid.terrain((y, x))
        raise SimError(f"{grid.source}: {option} {x},{y} is on a blocked cell {terrain!r}")
    return y, x
