"""`sim generate`: write a generated map as Moving AI files, and a scene of it for the 3D app.

``sim generate maze|rooms|random OUT.map --size WxH --seed S [--corridor N] [--room N]
[--door N] [--density F] [--scen N] [--scene OUT.toml]`` draws the layout with
`sim.navigation.generate_layout`, writes OUT.map, with ``--scen N`` OUT.map.scen (N connected
pairs with our Dijkstra's optimal lengths, `random_scenarios`) and with ``--scene`` a scene of
the same layout (`sim.scene.layout`). A flag the kind does not take, a bad size or an output
path that must not be written is one line and exit status 2, before anything is written; a
file that could not be written is one line and exit status 1.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.bench.progress import Progress
from sim.commands.args import Output, OutputKind, check_outputs, scenario_count
from sim.errors import SimError, shown
from sim.files import write_bytes_atomic
from sim.navigation import LAYOUT_KINDS, LAYOUT_PARAMETERS, generate_layout, random_scenarios
from sim.navigation.maps.generators import blocked_rectangles, check_scenario_budget
from sim.navigation.maps.movingai_files import format_map, format_scenarios

EXIT_NOT_WRITTEN = 1
SCEN_SUFFIX = ".scen"
PROGRESS_UNITS = 1000  # a layout's progress comes as a share: per mille on the bar
SAMPLE_SIDE = 256  # the side of the sample a scene's size is estimated on: a fraction of a second
SCENE_ESTIMATE_MARGIN = 1.5  # how far past the limit an estimate must be to refuse on it alone

DESCRIPTION = """\
Generate a map and write it as a Moving AI .map file (`.` walkable, `@` blocked):
  maze    a perfect maze: corridors --corridor cells wide (default 1), walls 1 cell thick
  rooms   square rooms --room cells inside (default 8), doors --door cells wide (default 1),
          every room reachable
  random  each cell blocked with probability --density (default 0.25); not promised connected
The same --seed gives the same map. --scen N also writes OUT.map.scen: N random start/goal
pairs that are connected, with their optimal lengths (8-connected, no corner cutting) from our
Dijkstra, sorted by bucket. --scene OUT.toml writes a scene of the same layout for `sim run`:
blocked cells merged into obstacle cubes, Start and End far apart, one agent.

An output must be a new file or an existing one of its own kind (a Moving AI map, a scenario
file, a scene); anything else is refused before anything is written (exit status 2).
"""


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Register the ``generate`` sub-command; its `func` is `run`."""
    parser = subparsers.add_parser(
        "generate",
        help="generate a maze, rooms or random map as Moving AI files (and a scene)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("kind", choices=LAYOUT_KINDS, help="the kind of map")
    parser.add_argument("out", type=Path, metavar="OUT.map", help="the map file to write")
    parser.add_argument(
        "--size", type=map_size, required=True, metavar="WxH", help="columns x rows, e.g. 64x64"
    )
    parser.add_argument("--seed", type=seed, required=True, metavar="S", help="random seed, >= 0")
    parser.add_argument(
        "--corridor", type=scenario_count, metavar="N", help="maze: corridor width (default 1)"
    )
    parser.add_argument(
        "--room", type=scenario_count, metavar="N", help="rooms: cells inside a room (default 8)"
    )
    parser.add_argument(
        "--door", type=scenario_count, metavar="N", help="rooms: door width (default 1)"
    )
    parser.add_argument(
        "--density",
        type=density,
        metavar="F",
        help="random: chance a cell is blocked, 0 to below 1 (default 0.25)",
    )
    parser.add_argument(
        "--scen", type=scenario_count, metavar="N", help="also write OUT.map.scen, N scenarios"
    )
    parser.add_argument(
        "--scene", type=Path, metavar="OUT.toml", help="also write a scene of the map"
    )
    parser.set_defaults(func=run)


def map_size(text: str) -> tuple[int, int]:
    """Parse `WxH` into (width, height), each a whole number >= 1 (argparse type)."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 64x64, got {text!r}")
    width, height = (int(part) for part in parts)
    if width < 1 or height < 1:
        raise argparse.ArgumentTypeError(f"each side must be at least 1 cell, got {text!r}")
    return width, height


def seed(text: str) -> int:
    """Parse a random seed, a whole number >= 0 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {value}")
    return value


def density(text: str) -> float:
    """Parse a density, a number from 0 to below 1 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= value < 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a number from 0 to below 1, got {text}")
    return value


def run(args: argparse.Namespace) -> int:
    """Run ``sim generate``; return 0 when every file was written, 1 if one was not."""
    kind: str = args.kind
    parameters = _parameters(args, kind)
    map_path: Path = args.out
    scen_path = map_path.with_name(map_path.name + SCEN_SUFFIX)
    outputs = [Output("generate", map_path, OutputKind.MAP)]
    if args.scen is not None:
        outputs.append(Output("--scen", scen_path, OutputKind.SCEN))
    if args.scene is not None:
        outputs.append(Output("--scene", args.scene, OutputKind.SCENE))
    check_outputs(None, outputs)
    if args.scene is not None:
        # Imported here: `sim generate` without --scene need not load the scene schema.
        from sim.scene.writer import check_scene_target

        check_scene_target("--scene", args.scene)
    width, height = args.size
    # The budgets are checked before the map is drawn (a 4096 x 4096 maze takes a minute).
    if args.scen is not None:
        try:
            check_scenario_budget(args.scen, height, width)
        except ValueError as error:
            raise SimError(f"--scen: {error}") from None
    if args.scene is not None:
        _check_scene_estimate(args.scene, kind, args, parameters)
    drawing = Progress(PROGRESS_UNITS, kind)
    try:
        walkable = generate_layout(
            kind,
            height,
            width,
            seed=args.seed,
            progress=lambda share: drawing.advance(round(share * PROGRESS_UNITS) - drawing.done),
            **parameters,
        )
    except ValueError as error:
        raise SimError(f"generate: {error}") from None
    finally:
        drawing.close()
    # Every file's bytes are made before any is written: a refusal leaves nothing half done.
    # Moving AI files are Latin-1 (what their readers decode), scenes UTF-8.
    texts = {map_path: format_map(walkable).encode("latin-1")}
    notes = [f"{map_path} ({int((~walkable).sum())} of {walkable.size} cells blocked)"]
    if args.scen is not None:
        progress = Progress(args.scen, "scenarios")
        try:
            scenarios = random_scenarios(
                walkable,
                args.scen,
                seed=args.seed,
                map_name=map_path.name,
                progress=progress.advance,
            )
        except ValueError as error:
            raise SimError(f"--scen: {error}") from None
        finally:
            progress.close()
        texts[scen_path] = format_scenarios(scenarios).encode("latin-1")
        notes.append(f"{scen_path} ({len(scenarios)} scenarios)")
    if args.scene is not None:
        texts[args.scene] = _scene_text(args.scene, walkable, kind, args).encode("utf-8")
        notes.append(f"{args.scene} ({len(blocked_rectangles(walkable))} obstacles)")
    status = 0
    for output in outputs:
        try:
            write_bytes_atomic(output.path, texts[output.path])
        except OSError as error:
            _say(f"sim: {output.flag} {output.path}: not written: {error.strerror or error}")
            status = EXIT_NOT_WRITTEN
    if status == 0:
        print(shown(f"{kind} {width}x{height}, seed {args.seed}: wrote " + ", ".join(notes)))
    return status


def _parameters(args: argparse.Namespace, kind: str) -> dict[str, Any]:
    """The kind's own flags that were given; a flag of another kind is a SimError."""
    takes = LAYOUT_PARAMETERS[kind]
    given = {
        name: getattr(args, name)
        for name in ("corridor", "room", "door", "density")
        if getattr(args, name) is not None
    }
    for name in given:
        if name not in takes:
            flags = " and ".join(f"--{parameter}" for parameter in takes)
            raise SimError(f"generate: --{name} does not apply to {kind} (it takes {flags})")
    return given


def _check_scene_estimate(
    path: Path, kind: str, args: argparse.Namespace, parameters: dict[str, Any]
) -> None:
    """Refuse a scene clearly past the size a scene may have, before the map is drawn.

    The scene's size is measured on a sample of the same kind, flags and seed, at most
    `SAMPLE_SIDE` a side, and scaled by area; only a scene `SCENE_ESTIMATE_MARGIN` times over
    the limit is refused here, so a borderline one is still measured exactly once it is made.
    """
    from sim.scene.file import MAX_SCENE_BYTES
    from sim.scene.layout import layout_scene_text

    width, height = args.size
    least = 2 + max((value for value in parameters.values() if isinstance(value, int)), default=0)
    sample_side = max(SAMPLE_SIDE, 8 * least)
    sample_width, sample_height = min(width, sample_side), min(height, sample_side)
    if (sample_width, sample_height) == (width, height):
        return  # small enough to make and measure
    try:
        sample = generate_layout(kind, sample_height, sample_width, seed=args.seed, **parameters)
        sample_bytes = len(layout_scene_text(sample, name=kind).encode())
    except ValueError:
        return  # no sample to measure (a random one without 2 connected cells): made in full
    scale = (width * height) / (sample_width * sample_height)
    estimate = sample_bytes * scale
    if estimate <= MAX_SCENE_BYTES * SCENE_ESTIMATE_MARGIN:
        return
    fits = math.isqrt(int(MAX_SCENE_BYTES / (sample_bytes / (sample_width * sample_height))))
    raise SimError(
        f"--scene {path}: a scene of this {width}x{height} {kind} would take about "
        f"{estimate / 2**20:.0f} MB (measured on a {sample_width}x{sample_height} one), over "
        f"the {MAX_SCENE_BYTES // 2**20} MB a scene may; at most about {fits}x{fits} fits"
    )


def _scene_text(path: Path, walkable: Any, kind: str, args: argparse.Namespace) -> str:
    """The scene's text, checked to load as `sim run` loads it."""
    # Imported here: `sim generate` without --scene need not load the scene schema.
    from sim.scene.file import MAX_SCENE_BYTES, parse_scene
    from sim.scene.layout import layout_scene_text
    from sim.scene.spec import SceneError

    width, height = args.size
    command = "sim generate " + shlex.join(_command_words(args, kind))
    try:
        text = layout_scene_text(
            walkable,
            name=f"{kind} {width}x{height} seed {args.seed}",
            comment=f"gridpath-sim scene of a generated map, made by:\n  {command}",
        )
    except ValueError as error:
        raise SimError(f"--scene {path}: {error}") from None
    size = len(text.encode())
    if size > MAX_SCENE_BYTES:
        raise SimError(
            f"--scene {path}: the scene would take {size / 2**20:.1f} MB, over the "
            f"{MAX_SCENE_BYTES // 2**20} MB a scene may; generate a smaller map"
        )
    try:
        parse_scene(tomllib.loads(text), source=str(path))
    except SceneError as error:  # a layout this module turns into a bad scene: a bug of ours
        raise SimError(f"--scene {path}: the scene made does not load: {error}") from None
    return text


def _command_words(args: argparse.Namespace, kind: str) -> Sequence[str]:
    width, height = args.size
    words = [kind, str(args.out), "--size", f"{width}x{height}", "--seed", str(args.seed)]
    for name in ("corridor", "room", "door", "density"):
        if getattr(args, name) is not None:
            words += [f"--{name}", str(getattr(args, name))]
    return [*words, "--scene", str(args.scene)]


def _say(line: str) -> None:
    print(shown(line), file=sys.stderr, flush=True)
