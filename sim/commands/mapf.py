"""`sim mapf`: solve a multi-agent path finding instance, or check a plan for one.

``sim mapf MAP.map SCEN.scen --agents K [--solver lacam|pibt|cbs] [--time-limit S] [--seed N]
[--first-plan] [--connectivity 4|8] [--plan OUT.txt] [--json OUT.json]`` runs the solver on
the first K agents of the scenario file and prints whether it solved them, the sum of costs,
the makespan, both lower bounds and the time. ``--connectivity 8`` lets agents step
diagonally too (one time step, never cutting a corner, two diagonals of one 2x2 block never
crossed at once); 4, the benchmark's rule, is the default. LaCAM* improves its plan until
the time limit unless ``--first-plan`` stops it at its first. ``--plan`` writes the plan in the
format of Kei18's mapf-visualizer, ``--json`` a summary. ``sim mapf --check MAP.map SCEN.scen
PLAN.txt`` lists every conflict, illegal move and wrong start or goal of a plan in that format,
under the same ``--connectivity``.

Exit status: 0 solved (or a valid plan); 1 not solved within the time limit (``--plan`` is not
written), a plan that breaks a rule, or an output that could not be written; 2 bad input, in
one line, before anything is written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from sim.commands.args import (
    Output,
    OutputKind,
    check_output,
    check_writable,
    positive_float,
    positive_int,
)
from sim.errors import SimError
from sim.files import write_bytes_atomic
from sim.mapf import SOLVERS, MapfProblem, MapfResult, distance_tables, lower_bounds, solve
from sim.mapf.checker import check_plan, flat_to_pairs
from sim.mapf.plan_file import format_plan, parse_plan
from sim.mapf.problem import CONNECTIVITIES, LowerBounds, plan_costs
from sim.mapf.scenario import load_problem
from sim.navigation.maps.input_file import read_input_file

EXIT_NOT_SOLVED = 1
DEFAULT_TIME_LIMIT_S = 10.0
MAX_PLAN_BYTES = 256 * 2**20
"""Largest plan file --check reads: 1,000 agents over 10,000 steps in some 150 MB."""


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Register the ``mapf`` sub-command; its `func` is `run`."""
    parser = subparsers.add_parser(
        "mapf",
        help="multi-agent path finding on a Moving AI MAPF instance (solve, or --check a plan)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("map", type=Path, metavar="MAP.map", help="the grid")
    parser.add_argument("scen", type=Path, metavar="SCEN.scen", help="agents' starts and goals")
    parser.add_argument(
        "plan_in", type=Path, nargs="?", metavar="PLAN.txt", help="with --check: the plan"
    )
    parser.add_argument("--check", action="store_true", help="check PLAN.txt instead of solving")
    parser.add_argument(
        "--agents", type=positive_int, metavar="K", help="the first K scenario lines (agents)"
    )
    parser.add_argument("--solver", choices=SOLVERS, default="lacam", help="default: lacam")
    parser.add_argument(
        "--time-limit",
        type=positive_float,
        default=DEFAULT_TIME_LIMIT_S,
        metavar="S",
        help=f"seconds, > 0 (default {DEFAULT_TIME_LIMIT_S:g}); lacam uses all of it to improve "
        "unless --first-plan",
    )
    parser.add_argument(
        "--first-plan",
        action="store_true",
        help="lacam: stop at the first plan instead of improving it until the time limit",
    )
    parser.add_argument("--seed", type=seed_value, default=0, metavar="N", help="default 0")
    parser.add_argument(
        "--connectivity",
        type=int,
        choices=CONNECTIVITIES,
        default=4,
        help="4 (the benchmark's rule, default) or 8: diagonal steps too, no corner cutting",
    )
    parser.add_argument(
        "--implementation",
        choices=("auto", "c", "python"),
        default="auto",
        help="pibt and lacam: compiled kernel or Python reference (default auto)",
    )
    parser.add_argument("--plan", type=Path, metavar="OUT.txt", help="write the plan here")
    parser.add_argument("--json", type=Path, metavar="OUT.json", help="write a summary here")
    parser.set_defaults(func=run)


def seed_value(text: str) -> int:
    """Parse a random seed, a whole number from 0 to 2**64 - 1 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 2**64 - 1, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Run ``sim mapf``; see the module's docstring for the exit status."""
    if args.check:
        return _check(args)
    if args.plan_in is not None:
        raise SimError(f"mapf: {args.plan_in}: a plan to read goes with --check")
    if args.agents is None:
        raise SimError("mapf: give --agents K, the number of scenario lines to solve")
    _check_outputs(args)
    problem = _load(args.map, args.scen, args.agents, args.connectivity)
    tables = distance_tables(problem)
    bounds = _bounds(problem, tables)
    result = solve(
        problem,
        args.solver,
        time_limit_s=args.time_limit,
        seed=args.seed,
        implementation=args.implementation,
        tables=tables,
        first_plan=args.first_plan,
    )
    status = 0
    if result.solved:
        print(
            f"{args.solver}: solved {problem.agents} agents on {problem.name} in "
            f"{result.time_s:.3f} s{' (proved optimal)' if result.optimal else ''}: "
            f"sum of costs {result.soc} (lower bound {bounds.sum_of_costs}), "
            f"makespan {result.makespan} (lower bound {bounds.makespan})"
        )
    else:
        print(
            f"{args.solver}: not solved: {problem.agents} agents on {problem.name} within "
            f"{args.time_limit:g} s (lower bounds: sum of costs {bounds.sum_of_costs}, "
            f"makespan {bounds.makespan})"
        )
        status = EXIT_NOT_SOLVED
    outputs: list[tuple[str, Path, str]] = []
    if args.plan is not None and result.solved:
        outputs.append(("--plan", args.plan, _plan_text(problem, result, bounds)))
    if args.json is not None:
        outputs.append(("--json", args.json, _json_text(problem, result, bounds)))
    for flag, path, text in outputs:
        try:
            write_bytes_atomic(path, text.encode("utf-8"))
        except OSError as error:
            _say(f"sim: {flag} {path}: not written: {error.strerror or error}")
            status = EXIT_NOT_SOLVED
    return status


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse an output that may not be written, or that is an input or the other output."""
    taken = [("the map", args.map), ("the scenario file", args.scen)]
    for flag, path in (("--plan", args.plan), ("--json", args.json)):
        if path is None:
            continue
        for owner, other in taken:
            if os.path.realpath(path) == os.path.realpath(other):
                raise SimError(f"{flag} {path}: is {owner}")
        taken.append((f"the {flag} output", path))
        if flag == "--json":
            check_output(Output(flag, path, OutputKind.JSON))
        else:
            check_writable(flag, path)


def _check(args: argparse.Namespace) -> int:
    if args.plan_in is None:
        raise SimError("mapf: --check needs MAP.map SCEN.scen PLAN.txt")
    if args.plan is not None or args.json is not None:
        raise SimError("mapf: --check writes nothing; drop --plan and --json")
    try:
        text = read_input_file(args.plan_in, MAX_PLAN_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise SimError(f"{args.plan_in}: no such file") from None
    except OSError as error:
        raise SimError(f"{args.plan_in}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise SimError(f"{args.plan_in}: not a text file") from None
    try:
        paths = parse_plan(text, source=str(args.plan_in))
    except ValueError as error:
        raise SimError(str(error)) from None
    agents = args.agents if args.agents is not None else len(paths)
    if agents != len(paths):
        raise SimError(f"{args.plan_in}: the plan moves {len(paths)} agents, not --agents {agents}")
    if agents == 0:
        raise SimError(f"{args.plan_in}: the plan has no steps")
    problem = _load(args.map, args.scen, agents, args.connectivity)
    violations = check_plan(problem, paths)
    for violation in violations:
        print(violation)
    if violations:
        print(f"{args.plan_in}: {len(violations)} violations")
        return EXIT_NOT_SOLVED
    flat = [[row * problem.width + col for row, col in path] for path in paths]
    soc, makespan = plan_costs(problem, flat)
    print(
        f"{args.plan_in}: valid plan for {agents} agents: sum of costs {soc}, makespan {makespan}"
    )
    return 0


def _load(map_path: Path, scen_path: Path, agents: int, connectivity: int) -> MapfProblem:
    """The problem, every file or content problem a SimError of one line."""
    try:
        return load_problem(map_path, scen_path, agents, connectivity=connectivity)
    except FileNotFoundError as error:
        raise SimError(f"{error.filename}: no such file") from None
    except IsADirectoryError as error:
        raise SimError(f"{error.filename}: is a directory, not a file") from None
    except OSError as error:
        raise SimError(f"{error.filename}: cannot read: {error.strerror or error}") from None
    except ValueError as error:
        raise SimError(str(error)) from None


def _bounds(problem: MapfProblem, tables: Any) -> LowerBounds:
    try:
        return lower_bounds(problem, tables)
    except ValueError as error:
        raise SimError(f"mapf: {error}") from None


def _plan_text(problem: MapfProblem, result: MapfResult, bounds: LowerBounds) -> str:
    header = {
        "agents": problem.agents,
        "map_file": problem.name,
        "solver": result.solver,
        "solved": 1,
        "soc": result.soc,
        "soc_lb": bounds.sum_of_costs,
        "makespan": result.makespan,
        "makespan_lb": bounds.makespan,
        "comp_time": round(result.time_s * 1000),
    }
    return format_plan(header, flat_to_pairs(problem, result.paths))


def _json_text(problem: MapfProblem, result: MapfResult, bounds: LowerBounds) -> str:
    document = {
        "solved": result.solved,
        "solver": result.solver,
        "agents": problem.agents,
        "sum_of_costs": result.soc if result.solved else None,
        "makespan": result.makespan if result.solved else None,
        "soc_lower_bound": bounds.sum_of_costs,
        "makespan_lower_bound": bounds.makespan,
        "time_s": round(result.time_s, 6),
    }
    return json.dumps(document, indent=2) + "\n"


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
