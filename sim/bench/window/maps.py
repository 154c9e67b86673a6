"""Moving AI maps in the window: seconds to open a 512 x 512 map, then its frames per second.

`rendered_map` runs ``python -m sim.commands.map_window MAP`` in a child process (one window a
process, as a user gets it) on the display in ``$DISPLAY``, or on an Xvfb it starts
(`sim.bench.crowd_window.window_display`). The child opens the map as ``sim run MAP.map`` does
(Start and End from the scenario beside it), in a window of ``sim run``'s default size and
look (auto: shadows until the frame rate stays low, then plain), with no frame-rate cap; it
times the opening (the map read and merged, the scene built, the first frame drawn), lets the
look settle as the crowd's window bench does, then counts whole app frames over `SECONDS` of
wall clock, and the process's CPU time per frame beside them (the machine's load moves the
frame rate, far less the CPU a frame takes). ``sim bench --window`` runs `CASES`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sim.bench.maps import movingai_dir
from sim.bench.results import write_map_window_section
from sim.errors import SimError
from sim.files import write_json_atomic

WINDOW: Final = (1024, 768)
"""``sim run``'s default window size."""
SECONDS: Final = 5.0
FPS_TARGET: Final = 30.0
OPEN_TARGET_S: Final = 10.0
CASES: Final = ("8room_000", "maze512-1-0", "random512-40-0")
"""The maps timed by default: rooms, a maze and random blocks, each 512 x 512."""


@dataclass(frozen=True, slots=True)
class MapWindowRow:
    """One map in the window: None figures when no window could be opened or the run failed.

    Attributes:
        map: The map's name.
        open_s: Wall-clock seconds from reading the map to the first frame drawn.
        fps: Whole app frames per wall-clock second once settled.
        cpu_ms: The process's CPU milliseconds per frame over the same frames.
        shadows: Whether the auto look still had its shadows.
    """

    map: str
    open_s: float | None = None
    fps: float | None = None
    cpu_ms: float | None = None
    shadows: bool | None = None


def rendered_map(map_path: Path, *, seconds: float = SECONDS) -> MapWindowRow:
    """Open `map_path` in a window and time it (see the module's docstring)."""
    # Here, not at the top: the crowd's window helpers bring Panda3D, which `sim bench` loads
    # only for a window.
    from sim.bench.crowd_window import window_display

    name = map_path.name.removesuffix(".map")
    env = dict(os.environ)
    with window_display(env) as display:
        if display is None:
            return MapWindowRow(name)
        env["DISPLAY"] = display
        argv = [sys.executable, "-m", "sim.commands.map_window", str(map_path), str(seconds)]
        try:
            done = subprocess.run(
                argv, env=env, capture_output=True, text=True, timeout=seconds * 6 + 180
            )
        except subprocess.TimeoutExpired:
            return MapWindowRow(name)
    if done.returncode != 0 or not done.stdout.strip():
        return MapWindowRow(name)
    try:
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        return MapWindowRow(
            name,
            float(figures["open_s"]),
            float(figures["fps"]),
            float(figures["cpu_ms"]),
            bool(figures["shadows"]),
        )
    except (ValueError, KeyError, TypeError):
        return MapWindowRow(name)


def window_rows(folder: Path, names: tuple[str, ...] = CASES) -> list[MapWindowRow]:
    """Each of `names` opened from `folder` (the Moving AI maps); a missing map: no figures."""
    rows = []
    for name in names:
        path = folder / f"{name}.map"
        rows.append(rendered_map(path) if path.is_file() else MapWindowRow(name))
    return rows


def window_lines(rows: list[MapWindowRow]) -> list[str]:
    """The targets' verdicts and one line per map.

    >>> lines = window_lines([MapWindowRow("m", 4.2, 41.5, 12.0, False)])
    >>> lines[0]
    '- a 512 x 512 map renders >= 30 fps in a 1024 x 768 window: MET: 41.5 fps at worst (1 maps)'
    >>> lines[1]
    '- a 512 x 512 map opens in <= 10 s: MET: 4.2 s at worst (1 maps)'
    >>> lines[2]
    '  - m: opened in 4.2 s, 41.5 fps, 12.0 ms CPU a frame, plain look'
    """
    size = f"{WINDOW[0]} x {WINDOW[1]}"
    fps = [row.fps for row in rows if row.fps is not None]
    opened = [row.open_s for row in rows if row.open_s is not None]
    if not fps:
        fps_verdict = open_verdict = "n/a: no window could be opened"
    else:
        whole = len(fps) == len(rows)
        met = "MET" if min(fps) >= FPS_TARGET and whole else "MISSED"
        fps_verdict = f"{met}: {min(fps):.1f} fps at worst ({len(fps)} maps)"
        met = "MET" if max(opened) <= OPEN_TARGET_S and whole else "MISSED"
        open_verdict = f"{met}: {max(opened):.1f} s at worst ({len(opened)} maps)"
    lines = [
        f"- a 512 x 512 map renders >= {FPS_TARGET:g} fps in a {size} window: {fps_verdict}",
        f"- a 512 x 512 map opens in <= {OPEN_TARGET_S:g} s: {open_verdict}",
    ]
    for row in rows:
        if row.fps is None or row.open_s is None or row.cpu_ms is None:
            lines.append(f"  - {row.map}: no window")
            continue
        look = "shadows on" if row.shadows else "plain look"
        lines.append(
            f"  - {row.map}: opened in {row.open_s:.1f} s, {row.fps:.1f} fps, "
            f"{row.cpu_ms:.1f} ms CPU a frame, {look}"
        )
    return lines


def to_json(rows: list[MapWindowRow]) -> list[dict[str, object]]:
    """The rows as ``sim bench --window --json`` writes them."""
    return [
        {
            "map": row.map,
            "open_s": row.open_s,
            "fps": row.fps,
            "cpu_ms": row.cpu_ms,
            "shadows": row.shadows,
        }
        for row in rows
    ]


def run(args: argparse.Namespace, commit: str) -> int:
    """``sim bench --window`` alone: time `CASES` (or ``--maps``), print, write what was asked.

    Returns 0; 1 when ``--json`` could not be written.

    Raises:
        SimError: one line when no map was found.
    """
    folder = movingai_dir()
    names = tuple(args.maps) if args.maps else CASES
    if not any((folder / f"{name}.map").is_file() for name in names):
        raise SimError(f"bench: none of {', '.join(names)} in {folder} (set MOVINGAI_DIR)")
    rows = window_rows(folder, names)
    lines = window_lines(rows)
    print("\n".join(lines), flush=True)
    if args.write_results:
        command = " ".join(["sim bench --window", *(["--maps", *names] if args.maps else [])])
        print(f"wrote {write_map_window_section(lines, command + ' --write-results', commit)}")
    if args.json is not None:
        try:
            write_json_atomic(args.json, {"window_maps": to_json(rows)})
        except OSError as error:
            print(
                f"sim: --json {args.json}: not written: {error.strerror or error}", file=sys.stderr
            )
            return 1
    return 0
