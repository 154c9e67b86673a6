"""`sim plan`: run the pathfinding core on a Moving AI map, headless, without Panda3D.

Two modes, both planning with `find_path` (the code the app uses, with its default algorithm);
``--implementation c|python`` forces the compiled kernel or the Python reference (default
"auto": the kernel when it is built):

- ``sim plan MAP.map --scen MAP.map.scen [--limit N] [--sample N] [--json]`` checks our
  costs against the published optimal lengths: one line per scenario, then ``P passed, F
  failed``; exit status 1 if any cost lies outside the published length's
  `Scenario.tolerance`: 1e-5 relative (older files print 6 significant digits), or half a unit
  of the last decimal where a file prints fixed decimals (``2.83``). A failing line shows our
  cost, the published one and their difference. ``--sample N`` checks exactly N scenarios
  spread evenly over the file's buckets (`spread_scenarios`; no seed: ``--seed`` is still
  accepted so older command lines run, and changes nothing). With ``--json``, "tolerance" is
  the relative floor and each scenario's "abs_tolerance" the absolute difference it allows.
- ``sim plan MAP.map --from X,Y --to X,Y [--json]`` prints one path; exit status 1 if none.

Coordinates are the Moving AI ones: x is the column, y the row, (0, 0) the top-left character.
Bad input raises SimError: one line, exit status 2. That includes a .scen written for another
map (its name's file stem or its size differ: ``scen X is for map Y (WxH), not Z (wxh)``) and
a scenario whose start or goal is on a wall (``FILE:LINE: ...``): the file is wrong, not the
planner.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.commands.args import scenario_count
from sim.errors import SimError, shown, storable
from sim.files import load_file
from sim.navigation import (
    MovingAIMap,
    PathResult,
    Scenario,
    find_path,
    pathfinder,
    read_map,
    read_scenarios,
)
from sim.navigation.maps.movingai import (
    REL_TOLERANCE,
    ScenarioMismatchError,
    check_scenarios,
    spread_scenarios,
)

IMPLEMENTATIONS = ("auto", "c", "python")
"""`find_path`'s implementations (`sim.navigation.searches.kernel.IMPLEMENTATIONS`, not imported
here: importing the kernel early would slow every `sim` command and warn where it is not built)."""
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
            "Run the pathfinding core (find_path) on a Moving AI .map: compare with a .scen "
            "file's published optimal lengths, or print the path between two points "
            "(x = column, y = row)."
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
        help="check exactly N scenarios spread evenly over the file's buckets",
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="no longer needed: --sample spreads over the buckets without a seed (accepted "
        "so older command lines still run; changes nothing)",
    )
    parser.add_argument(
        "--implementation",
        choices=IMPLEMENTATIONS,
        default="auto",
        help="find_path's implementation: the compiled kernel (c), the Python reference "
        "(python) or the kernel when it is built (auto, the default)",
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
    planner = _Planner(grid, args.implementation)
    if args.scen is not None:
        scenarios = load_file(read_scenarios, args.scen)
        try:
            check_scenarios(grid, scenarios, scen_source=str(args.scen))
        except ScenarioMismatchError as error:
            raise SimError(str(error)) from None
        if args.sample is not None and args.sample > len(scenarios):
            _say(
                f"sim: plan: --sample {args.sample}: {args.scen} holds only {len(scenarios)} "
                f"scenarios; checking all {len(scenarios)}"
            )
        chosen = _choose(scenarios, limit=args.limit, sample=args.sample)
        return _check_scenarios(planner, args.scen, chosen, as_json=args.json)
    start = _parse_point(grid, "--from", args.from_xy)
    goal = _parse_point(grid, "--to", args.to_xy)
    return _print_path(planner, start, goal, as_json=args.json)


class _Planner:
    """`find_path` on one map with the implementation asked for, timed per query."""

    def __init__(self, grid: MovingAIMap, implementation: str) -> None:
        self.grid, self.implementation = grid, implementation
        self.algorithm = _default_algorithm()
        # An untimed first query imports the kernel and touches its buffers for this map size
        # (some 2 ms on 512 x 512, which the first row would show), and turns "c" without a
        # built kernel into one line before the table starts.
        open_cells = np.argwhere(grid.walkable)
        cell = (int(open_cells[0][0]), int(open_cells[0][1])) if len(open_cells) else (0, 0)
        self.plan(cell, cell)

    def plan(self, start: tuple[int, int], goal: tuple[int, int]) -> tuple[PathResult, float]:
        """Return `find_path`'s result on the map and its time in ms.

        The map's array is passed every time, so find_path can reuse what it keeps per array.
        """
        began = time.perf_counter()
        try:
            result = find_path(self.grid.walkable, start, goal, implementation=self.implementation)
        except ValueError as error:
            raise SimError(f"plan: --implementation {self.implementation}: {error}") from None
        return result, (time.perf_counter() - began) * 1000.0


def _default_algorithm() -> str:
    """The algorithm `find_path` runs when none is named (what the app and the lab use)."""
    # Read from its module, so a wrapper of the name imported here hides nothing.
    return str((pathfinder.find_path.__kwdefaults__ or {}).get("algorithm", "default"))


@dataclass(frozen=True, slots=True)
class _Outcome:
    scenario: Scenario
    result: PathResult
    ms: float

    @property
    def diff(self) -> float:
        """Our cost minus the published length (inf when no path was found)."""
        return self.result.cost - self.scenario.optimal_length

    @property
    def rel_diff(self) -> float:
        optimal = self.scenario.optimal_length
        difference = abs(self.diff)
        return difference / optimal if optimal > 0 else difference

    @property
    def passed(self) -> bool:
        return self.result.found and self.scenario.accepts(self.result.cost)

    @property
    def status(self) -> str:
        """``ok``, ``FAIL (why no path)``, or our cost against the published one."""
        if self.passed:
            return "ok"
        if not self.result.found:
            return f"FAIL ({self.result.reason})"
        decimals = _decimals_to_show(self.scenario, self.diff)
        return (
            f"FAIL: ours {self.result.cost:.{decimals}f} vs published "
            f"{_published(self.scenario)} (diff {self.diff:+.{decimals}f})"
        )


def _published(scenario: Scenario) -> str:
    """The published length as the file prints it: fixed decimals, or up to 15 digits."""
    if scenario.fixed_decimals:
        return f"{scenario.optimal_length:.{scenario.length_decimals}f}"
    return f"{scenario.optimal_length:.15g}"


def _decimals_to_show(scenario: Scenario, diff: float) -> int:
    """Decimals that show the file's precision and the difference's first two digits (4-12)."""
    wanted = scenario.length_decimals + 1 if scenario.fixed_decimals else 0
    if diff != 0 and math.isfinite(diff):
        # The exponent after rounding to two digits: 4 - 4.0001 is -0.0000999..., shown -0.00010.
        exponent = int(f"{abs(diff):.1e}".partition("e")[2])
        wanted = max(wanted, 1 - exponent)
    return min(max(wanted, 4), 12)


def _check_scenarios(
    planner: _Planner, scen_path: Path, scenarios: Sequence[Scenario], *, as_json: bool
) -> int:
    grid = planner.grid
    if not as_json:
        print(
            f"{shown(grid.source)}: {len(scenarios)} scenarios from {shown(str(scen_path))} "
            f"(find_path, algorithm {planner.algorithm}, implementation {planner.implementation})"
        )
        print(
            f"{'line':>6} {'bucket':>6}  {'start':<11} {'goal':<11} {'optimal':>15} "
            f"{'ours':>15} {'rel diff':>9} {'expanded':>9} {'ms':>9}"
        )
    outcomes = []
    for scenario in scenarios:
        outcome = _Outcome(scenario, *planner.plan(scenario.start, scenario.goal))
        outcomes.append(outcome)
        if not as_json:
            print(_scenario_line(outcome), flush=True)
    passed = sum(outcome.passed for outcome in outcomes)
    failed = len(outcomes) - passed
    if as_json:
        document = {
            "map": storable(grid.source),
            "scen": storable(str(scen_path)),
            "algorithm": planner.algorithm,
            "implementation": planner.implementation,
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
    return (
        f"{scenario.line:>6} {scenario.bucket:>6}  {start:<11} {goal:<11} "
        f"{scenario.optimal_length:>15.8f} {result.cost:>15.8f} {outcome.rel_diff:>9.1e} "
        f"{result.expanded:>9} {outcome.ms:>9.2f}  {outcome.status}"
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
        "diff": outcome.diff if result.found else None,
        "rel_diff": outcome.rel_diff if result.found else None,
        "abs_tolerance": scenario.tolerance,
        "expanded": result.expanded,
        "ms": round(outcome.ms, 3),
        "passed": outcome.passed,
        "reason": str(result.reason),
    }


def _print_path(
    planner: _Planner, start: tuple[int, int], goal: tuple[int, int], *, as_json: bool
) -> int:
    result, ms = planner.plan(start, goal)
    points = [(col, row) for row, col in result.cells]
    start_xy, goal_xy = f"{start[1]},{start[0]}", f"{goal[1]},{goal[0]}"
    if as_json:
        document = {
            "map": storable(planner.grid.source),
            "from": [start[1], start[0]],
            "to": [goal[1], goal[0]],
            "algorithm": planner.algorithm,
            "implementation": planner.implementation,
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


def _choose(scenarios: list[Scenario], *, limit: int | None, sample: int | None) -> list[Scenario]:
    """Apply --sample (spread over the buckets, in bucket order) and then --limit."""
    chosen = scenarios if sample is None else spread_scenarios(scenarios, sample)
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


def _say(line: str) -> None:
    """A note on stderr, beside the results on stdout (names escaped: `shown`)."""
    print(shown(line), file=sys.stderr, flush=True)
