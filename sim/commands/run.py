"""`sim run`: open a scene in a window, or run it headless with a fixed time step."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.app.process import warn
from sim.app.race_args import parse_race
from sim.app.search_control import SearchRequest, parse_search, parse_search_step
from sim.commands.args import (
    IMAGE_EXTENSIONS,
    Output,
    OutputKind,
    check_outputs,
    positive_int,
    window_size,
)
from sim.commands.run_map import add_map_arguments, open_scene, play_plan
from sim.config import DEFAULT_FIXED_FPS, DEFAULT_SCENE, LOOK_FALLBACK_FPS, LOOKS
from sim.errors import SimError, shown
from sim.scene.script_trust import decide, script_count, skipped_line
from sim.scene.writer import check_scene_target

if TYPE_CHECKING:
    from panda3d.core import GraphicsOutput

    from sim.search_view.view import SearchView

HEADLESS_DEFAULT_FRAMES = 600
WINDOW_SIZE = (1024, 768)
HEADLESS_SIZE = (800, 600)
WINDOW_MAX_FPS = 60  # as `DisplaySettings.max_fps`: enough, and it leaves the other core free
EXIT_OUTPUT_FAILED = 1

DESCRIPTION = """\
Open SCENE (default: scenes/default.toml) in a window. Controls: right-drag orbits the camera,
middle-drag or shift+right-drag pans, the wheel zooms, C resets the camera. Left-drag moves the
Start, End and obstacle cubes; shift+click on the ground adds an obstacle, X or Delete removes the
one under the cursor, V snaps to cell centres, Ctrl+S saves the scene (to --save-as if given).
G, B, P and H toggle the grid, blocked cells, paths and HUD; Space pauses; R puts the agents back on
Start; M switches chase/patrol; K cycles the heuristic; N switches 8/4-connected moves. T opens
the search view: the Start -> End search replayed step by step, with its own buttons. Esc or
closing the window quits (exit status 0); Ctrl+C exits with 130 and SIGTERM with 143, each
after writing the screenshot and the final report.

With --headless the scene renders offscreen with Panda3D's software renderer (no display or GPU
needed) and simulated time advances exactly 1/FPS seconds per frame, so runs are repeatable.

--trace FILE.jsonl records every agent's position and heading as the run goes: a header line
(scene, dt, grid, each agent's name and radius), then one JSON line per traced frame (every
frame, or every N-th with --trace-every N).

--search NAME[:HEURISTIC] opens the search view on that search (astar, dijkstra, bfs, greedy,
dfs, jps, bidirectional, theta; the heuristic: manhattan, octile, euclidean or chebyshev) at
--search-step N or end (the default), so the screenshot and the report show it;
--record-search OUT.gif (headless) writes the search as an animated GIF of every k-th step, at
most 300 frames, rendered before the run with simulated time paused.

--race NAME[:HEURISTIC],NAME[:HEURISTIC][,...] opens a race of 2 to 4 of those searches in split
views, in lock-step (W opens one in the app), at --search-step N (ticks) or its finish.

A scene's scripts are Python and run with your rights: they run only with --trust-scripts or
when the scene lies in a trusted folder (the project's scenes/, a folder in SIM_TRUSTED_FOLDERS
or in the settings file's [scripts] trusted_folders; see the docs' Scripts page). Otherwise the
scene runs without them and says so in one line; in a window, a banner offers A to allow them.

SCENE may be a Moving AI map (MAP.map): its walls become few boxes, Start and End stand on
--scen FILE's line --index N, and Ctrl+S saves the scene to --save-as (default NAME.toml here).
With --scen and --agents K the first K agents are solved jointly (--solver, --time-limit) and
their plan plays: / pauses it, , and . step it, [ and ] jump 10 steps.

An output (--screenshot, --report, --save-as, --trace, --record-search) must be a new file or an
existing one of its own kind (an image, a JSON file, a JSON Lines file, a GIF), and neither the
scene nor another output; anything else is refused before the run (exit status 2). An output
that could not be written is one line on stderr and exit status 1, after the run.
"""


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Register `sim run`."""
    parser = subparsers.add_parser(
        "run",
        help="open a scene in a window, or run it headless",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "scene",
        nargs="?",
        type=Path,
        default=DEFAULT_SCENE,
        help="scene file (.toml), or a Moving AI map (.map) opened as a scene",
    )
    parser.add_argument(
        "--headless",
        action="store_true",
        help="render offscreen (p3tinydisplay) with a fixed time step; no display needed",
    )
    parser.add_argument(
        "--look",
        choices=LOOKS,
        default="auto",
        help="a window's look: shadows and anti-aliasing where the driver runs shaders (full), "
        "neither (plain), or shadows until the frame rate stays under "
        f"{LOOK_FALLBACK_FPS:.0f} fps, then plain at plain speed (auto, the default)",
    )
    parser.add_argument(
        "--frames",
        type=positive_int,
        metavar="N",
        help=f"stop after N frames (headless default: {HEADLESS_DEFAULT_FRAMES}; "
        "a window runs until closed)",
    )
    parser.add_argument(
        "--fps",
        type=positive_int,
        default=DEFAULT_FIXED_FPS,
        metavar="N",
        help=f"headless frames per simulated second, dt = 1/N (default {DEFAULT_FIXED_FPS})",
    )
    parser.add_argument(
        "--max-fps",
        type=positive_int,
        default=WINDOW_MAX_FPS,
        metavar="N",
        help=f"a window's frame-rate cap (default {WINDOW_MAX_FPS}); a low one shows a "
        "slow renderer: input and the world's fixed steps keep up",
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="save the last frame as an image; the extension picks the format: "
        + ", ".join(f".{ext}" for ext in IMAGE_EXTENSIONS),
    )
    parser.add_argument(
        "--report",
        type=Path,
        metavar="JSON",
        help="keep a JSON report of the scene, rewritten every simulated second and at exit",
    )
    parser.add_argument(
        "--trace",
        type=Path,
        metavar="JSONL",
        help="write each agent's position and heading, one JSON line per traced frame",
    )
    parser.add_argument(
        "--trace-every",
        type=positive_int,
        metavar="N",
        help="with --trace, trace every N-th frame (default 1: every frame)",
    )
    parser.add_argument(
        "--save-as",
        type=Path,
        metavar="TOML",
        help="Ctrl+S saves the edited scene to this file instead of over SCENE",
    )
    parser.add_argument(
        "--size",
        type=window_size,
        metavar="WxH",
        help="window or image size in pixels (default 1024x768, headless 800x600)",
    )
    parser.add_argument(
        "--search",
        type=_search_arg,
        metavar="NAME[:HEURISTIC]",
        help="open the search view on this search (e.g. jps, theta, astar:manhattan)",
    )
    parser.add_argument(
        "--search-step",
        type=_step_arg,
        metavar="N|end",
        help="with --search, show the search after N steps, or at its end (the default)",
    )
    parser.add_argument(
        "--record-search",
        type=Path,
        metavar="OUT.gif",
        help="with --search and --headless, write the search as an animated GIF",
    )
    parser.add_argument(
        "--race",
        type=_race_arg,
        metavar="NAME[:H],NAME[:H][,...]",
        help="open a race of 2 to 4 searches side by side (e.g. astar,jps,bidirectional)",
    )
    parser.add_argument(
        "--trust-scripts",
        action="store_true",
        help="run the scene's scripts (Python code) even if it is not in a trusted folder",
    )
    add_map_arguments(parser)
    parser.set_defaults(func=run)


def absolute(path: Path | None) -> Path | None:
    """`path` from the working folder as it is now (None stays None)."""
    return None if path is None else path.absolute()


def _search_arg(text: str) -> tuple[Any, str | None]:
    try:
        return parse_search(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _race_arg(text: str) -> tuple[Any, ...]:
    try:
        return parse_race(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _step_arg(text: str) -> str:
    # Kept as text: None must stay "not given", where "end" parses to None.
    try:
        parse_search_step(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _race_request(args: argparse.Namespace) -> tuple[tuple[Any, ...], int | None] | None:
    """What --race and --search-step ask: the entrants and the tick (None: the finish)."""
    if args.race is None:
        return None
    if args.search is not None or args.record_search is not None:
        raise SimError("--race shows a race, --search and --record-search one search: not both")
    step = None if args.search_step is None else parse_search_step(args.search_step)
    return args.race, step


def _search_request(args: argparse.Namespace) -> SearchRequest | None:
    """What --search, --search-step and --record-search ask (SimError when they do not fit)."""
    if args.search is None:
        if args.record_search is not None or args.search_step is not None:
            raise SimError("--search-step and --record-search need --search NAME")
        return None
    if args.record_search is not None and not args.headless:
        raise SimError("--record-search needs --headless")
    kind, heuristic = args.search
    step = None if args.search_step is None else parse_search_step(args.search_step)
    return SearchRequest(kind, heuristic, step, absolute(args.record_search))


def run(args: argparse.Namespace) -> int:
    """Load the scene, check the output paths, then open the app and run it."""
    if args.trace_every is not None and args.trace is None:
        raise SimError("--trace-every needs --trace FILE.jsonl")
    race = _race_request(args)
    request = None if race is not None else _search_request(args)
    opened = open_scene(args)
    if opened.scene is None:
        return opened.status or 0
    scene = opened.scene
    asked = (
        ("--screenshot", args.screenshot, OutputKind.IMAGE),
        ("--report", args.report, OutputKind.JSON),
        ("--save-as", args.save_as, OutputKind.SCENE),
        ("--trace", args.trace, OutputKind.JSONL),
        ("--record-search", args.record_search, OutputKind.GIF),
    )
    outputs = [Output(flag, path, kind) for flag, path, kind in asked if path is not None]
    check_outputs(args.scene, outputs)
    if opened.save_as is not None:
        check_scene_target("--save-as", opened.save_as)
    trust = decide(scene, asked=args.trust_scripts)
    if not trust.allowed and script_count(scene) and args.headless:
        warn(f"sim: {skipped_line(scene)}")
    # Panda3D is imported only now, so `sim plan` and argument errors never pay for it.
    from sim.app.composition import RunOptions, SimApp
    from sim.engine.showbase import DisplaySettings

    size = args.size or (HEADLESS_SIZE if args.headless else WINDOW_SIZE)
    frames = args.frames
    if frames is None and args.headless:
        frames = HEADLESS_DEFAULT_FRAMES
    title = f"gridpath-sim: {shown(scene.name)}"
    display = DisplaySettings(
        headless=args.headless,
        size=size,
        title=title,
        fixed_fps=args.fps,
        max_fps=args.max_fps,
        look=args.look,
    )
    options = RunOptions(
        scene=scene,
        display=display,
        frames=frames,
        # Absolute before any script runs: a script's os.chdir must not send them elsewhere.
        screenshot=absolute(args.screenshot),
        report=absolute(args.report),
        save_as=absolute(opened.save_as),
        trace=absolute(args.trace),
        trace_every=args.trace_every or 1,
        scripts=trust,
    )
    try:
        app = SimApp(options)
    except RuntimeError as error:
        raise SimError(str(error)) from error
    gif_failure = None
    try:
        if opened.plan is not None:
            app.mapf_playback = play_plan(
                opened.plan,
                world=app.world,
                root=app.base.render,
                corner=app.panels.legend_corner,
                hud_visible=lambda: app.hud.visible,
                captured=app.modes.captured,
            )
        if request is not None:
            gif_failure = _start_search(
                request,
                view=app.search_view,
                window=app.base.win,
                first_frame=app.first_frame,
                render_paused=app.render_paused,
            )
        if race is not None:
            problem = app.race.start(*race)
            if problem is not None:
                raise SimError(f"--race: {problem}")
        status = app.run()
    finally:
        app.destroy()
    for output in outputs:
        reason = app.failed_outputs.get(output.path.absolute())
        if output.kind is OutputKind.GIF:
            reason = gif_failure
        if reason is not None:
            print(
                shown(f"sim: {output.flag} {output.path}: not written: {reason}"), file=sys.stderr
            )
            status = EXIT_OUTPUT_FAILED
    return status


def _start_search(
    request: SearchRequest,
    *,
    view: SearchView,
    window: GraphicsOutput,
    first_frame: Callable[[], None],
    render_paused: Callable[[], None],
) -> str | None:
    """Open the view as asked (`start_search`); return why the GIF was not written, or None.

    Raises:
        SimError: when the search refuses the scene (one line, exit status 2).
    """
    from sim.app.search_control import start_search

    try:
        problem = start_search(
            view, request, window=window, first_frame=first_frame, render_paused=render_paused
        )
    except OSError as error:
        # Only the GIF is written here; the run goes on and says so at the end, as for others.
        return error.strerror or str(error)
    if problem is not None:
        raise SimError(f"--search {request.kind.algorithm.value}: {problem}")
    return None
