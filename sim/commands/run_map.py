"""`sim run MAP.map`: a Moving AI map opened as a scene, and a MAPF plan played on it.

The map becomes a scene (`sim.scene.layout.map_scene_spec`: blocked cells merged into few
boxes, the map's first row north), built from its cells, not read back from TOML; its text
(`map_scene_text`) is written to a temporary folder, since saving merges the app's edits onto
the scene file it names; Ctrl+S writes ``--save-as``, else ``NAME.toml`` in
the current folder, never the map. ``--scen FILE --index N`` puts Start and End on that
scenario line (default: line 0 of ``MAP.map.scen`` when it exists, else no Start and End).
``--agents K`` solves the first K lines of ``--scen`` with `sim.mapf.solve` before any window
opens and hands the plan to the playback (`sim.app.mapf_playback`).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.errors import SimError
from sim.mapf import SOLVERS, MapfProblem, MapfResult, solve
from sim.mapf.scenario import load_problem
from sim.navigation.maps.movingai import (
    MapFormatError,
    check_scenarios,
    read_map,
    read_scenarios,
)
from sim.scene.file import load_scene
from sim.scene.layout import map_scene_spec, map_scene_text
from sim.scene.spec import SceneSpec

if TYPE_CHECKING:
    from panda3d.core import NodePath

    from sim.app.mapf_playback import MapfPlayback
    from sim.engine import World

MAP_SUFFIX = ".map"
DEFAULT_TIME_LIMIT_S = 10.0
EXIT_NOT_SOLVED = 1


@dataclass(frozen=True, slots=True)
class MapPlan:
    """A solved MAPF instance to play: the problem and the solver's answer."""

    problem: MapfProblem
    result: MapfResult


@dataclass(frozen=True, slots=True)
class OpenedScene:
    """What `open_scene` gives `sim run`.

    Attributes:
        scene: the scene to open.
        plan: the MAPF plan to play on it, or None.
        save_as: where Ctrl+S writes (a map's scene never goes over the map).
        status: an exit status to end with before any window opens (an unsolved instance),
            or None to run.
        keep: the temporary folder holding a map's scene file; it lives as long as this does.
    """

    scene: SceneSpec | None
    plan: MapPlan | None = None
    save_as: Path | None = None
    status: int | None = None
    keep: tempfile.TemporaryDirectory[str] | None = None


def add_map_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the flags that go with a ``.map`` scene."""
    parser.add_argument(
        "--scen",
        type=Path,
        metavar="SCEN.scen",
        help="with MAP.map: the scenario file (Start and End from --index; agents from --agents)",
    )
    parser.add_argument(
        "--index",
        type=_non_negative,
        metavar="N",
        help="with MAP.map: put Start and End on scenario line N, from 0 (default 0)",
    )
    parser.add_argument(
        "--agents",
        type=_positive,
        metavar="K",
        help="with MAP.map and --scen: solve the first K agents jointly and play their plan",
    )
    parser.add_argument(
        "--solver",
        choices=SOLVERS,
        help="with --agents: the MAPF solver (default lacam)",
    )
    parser.add_argument(
        "--time-limit",
        type=_time_limit,
        metavar="S",
        help=f"with --agents: seconds the solver may take (default {DEFAULT_TIME_LIMIT_S:g})",
    )


def open_scene(args: argparse.Namespace) -> OpenedScene:
    """Load ``args.scene``: a scene file as ever, or a ``.map`` built into one (and solved).

    Raises:
        SimError: one line for a bad map, scenario, index or agent count, or map flags
            given with a scene file.
    """
    path: Path = args.scene
    if path.suffix != MAP_SUFFIX:
        given = [flag for flag, value in _map_flags(args) if value is not None]
        if given:
            raise SimError(f"{', '.join(given)}: only with a .map file, not {path}")
        return OpenedScene(load_scene(path), save_as=args.save_as)
    if args.agents is None and (args.solver is not None or args.time_limit is not None):
        raise SimError("--solver and --time-limit go with --agents K")
    scen = args.scen
    if scen is None:
        if args.agents is not None:
            raise SimError("--agents needs --scen SCEN.scen")
        beside = path.with_name(path.name + ".scen")
        scen = beside if beside.is_file() else None
    if scen is None and args.index is not None:
        raise SimError("--index needs --scen SCEN.scen")
    try:
        grid = read_map(path)
        endpoints = None
        if scen is not None:
            scenarios = read_scenarios(scen)
            index = args.index or 0
            if index >= len(scenarios):
                raise SimError(f"--index {index}: {scen} holds {len(scenarios)} scenarios")
            check_scenarios(grid, [scenarios[index]], scen_source=str(scen))
            endpoints = (scenarios[index].start, scenarios[index].goal)
        plan = None
        if args.agents is not None:
            plan = _solve(path, scen, args)
            if plan is None:
                return OpenedScene(None, status=EXIT_NOT_SOLVED)
    except OSError as error:
        raise SimError(f"{error.filename or path}: {error.strerror or error}") from None
    except (MapFormatError, ValueError) as error:
        raise SimError(str(error)) from None
    keep = tempfile.TemporaryDirectory(prefix="sim-map-")
    name = path.name.removesuffix(MAP_SUFFIX)
    text = map_scene_text(
        grid.walkable,
        name=path.name,
        endpoints=endpoints,
        comment=f"The Moving AI map {path.name}, as `sim run` opened it.",
    )
    scene_path = Path(keep.name) / f"{name}.toml"
    scene_path.write_text(text, encoding="utf-8")
    scene = map_scene_spec(grid.walkable, path=scene_path, name=path.name, endpoints=endpoints)
    save_as = args.save_as if args.save_as is not None else Path(f"{name}.toml")
    return OpenedScene(scene, plan=plan, save_as=save_as, keep=keep)


def play_plan(
    plan: MapPlan,
    *,
    world: World,
    root: NodePath,
    corner: NodePath,
    hud_visible: Callable[[], bool],
    captured: Callable[[str], bool],
) -> MapfPlayback:
    """Play `plan` in the app's `world`: its agents, timeline keys, legend (`MapfPlayback`)."""
    from sim.app.mapf_playback import MapfPlayback

    return world.spawn("mapf-playback").add_component(
        MapfPlayback(
            world=world,
            root=root,
            corner=corner,
            problem=plan.problem,
            result=plan.result,
            hud_visible=hud_visible,
            captured=captured,
        )
    )


def _solve(map_path: Path, scen: Path, args: argparse.Namespace) -> MapPlan | None:
    """Solve the first ``--agents`` lines; None (said in one line) when not solved in time."""
    problem = load_problem(map_path, scen, args.agents)
    solver = args.solver or "lacam"
    limit = DEFAULT_TIME_LIMIT_S if args.time_limit is None else args.time_limit
    result = solve(problem, solver, time_limit_s=limit)
    if not result.solved:
        print(
            f"sim: {solver} did not solve {problem.agents} agents on {map_path.name} "
            f"within {limit:g} s",
            file=sys.stderr,
        )
        return None
    return MapPlan(problem, result)


def _map_flags(args: argparse.Namespace) -> list[tuple[str, Any]]:
    return [
        ("--scen", args.scen),
        ("--index", args.index),
        ("--agents", args.agents),
        ("--solver", args.solver),
        ("--time-limit", args.time_limit),
    ]


def _positive(text: str) -> int:
    value = _non_negative(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return value


def _time_limit(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got {text!r}")
    return value
