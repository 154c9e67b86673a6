"""A MAPF plan rendered: K agents of a benchmark instance played in a real 800 x 600 window.

`rendered_fps` runs ``sim run MAP.map --scen SCEN.scen --agents K`` in a child process (one
window a process, as a user gets it) on the display in ``$DISPLAY``, or on an Xvfb it starts
(`sim.bench.crowd_window.window_display`), with the plain look, for `FRAMES` frames of the
plan playing, and reads the frame rate the report's ``window.fps`` gives at the end: whole app
frames (the timeline, the agents' geometry and trails, the HUD, rendering) per wall-clock
second over the last second. The result is None when no window could be opened or the run
failed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

WINDOW = (800, 600)
FRAMES = 600
"""Frames the window runs: the first ones load the map; the plan plays on through the rest."""
SOLVE_LIMIT_S = 5.0
"""LaCAM*'s time limit before the window opens (its plan only needs to exist)."""
FPS_TARGET = 30.0
"""The frames per second 1,000 agents must render at."""
TARGET_AGENTS = 1000
CASES = (("Berlin_1_256", TARGET_AGENTS), ("warehouse-10-20-10-2-1", TARGET_AGENTS))
"""The instances timed by default: each map's random scenario file 1, first 1,000 agents."""


@dataclass(frozen=True, slots=True)
class WindowRow:
    """One rendered run: the map, how many agents, the frame rate (None: no window)."""

    map: str
    agents: int
    fps: float | None


def rendered_fps(
    map_path: Path, scen_path: Path, agents: int, *, frames: int = FRAMES
) -> float | None:
    """Frames per second of `agents` agents' plan played on `map_path` in an 800 x 600 window."""
    # Here, not at the top: the crowd's window helpers bring Panda3D, which `sim bench` loads
    # only for a window.
    from sim.bench.crowd_window import window_display

    env = dict(os.environ)
    with window_display(env) as display, tempfile.TemporaryDirectory() as folder:
        if display is None:
            return None
        env["DISPLAY"] = display
        report = Path(folder) / "report.json"
        argv = [
            sys.executable,
            "-m",
            "sim",
            "run",
            str(map_path),
            "--scen",
            str(scen_path),
            "--agents",
            str(agents),
            "--time-limit",
            f"{SOLVE_LIMIT_S:g}",
            "--look",
            "plain",
            "--size",
            f"{WINDOW[0]}x{WINDOW[1]}",
            "--frames",
            str(frames),
            "--report",
            str(report),
            "--save-as",
            str(Path(folder) / "scene.toml"),
        ]
        try:
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            return None
        if done.returncode != 0 or not report.is_file():
            return None
        try:
            return float(json.loads(report.read_text(encoding="utf-8"))["window"]["fps"])
        except (ValueError, KeyError, TypeError):
            return None


def window_rows(folder: Path) -> list[WindowRow]:
    """Each of `CASES` rendered from `folder` (the MAPF benchmark: maps/ and scen-random/)."""
    rows = []
    for name, agents in CASES:
        map_path = folder / "maps" / f"{name}.map"
        scen_path = folder / "scen-random" / f"{name}-random-1.scen"
        fps = rendered_fps(map_path, scen_path, agents) if map_path.is_file() else None
        rows.append(WindowRow(name, agents, fps))
    return rows


def window_lines(rows: list[WindowRow]) -> list[str]:
    """The target's verdict and one line per rendered run.

    >>> window_lines([WindowRow("m", 1000, 41.5), WindowRow("n", 1000, 33.0)])[0]
    '- 1,000 agents render at >= 30 fps in an 800 x 600 window: MET: 33.0 fps at worst (2 maps)'
    """
    measured = [row.fps for row in rows if row.fps is not None]
    if not measured:
        verdict = "n/a: no window could be opened"
    else:
        worst = min(measured)
        met = "MET" if worst >= FPS_TARGET and len(measured) == len(rows) else "MISSED"
        verdict = f"{met}: {worst:.1f} fps at worst ({len(measured)} maps)"
    head = f"- {TARGET_AGENTS:,} agents render at >= {FPS_TARGET:g} fps in an 800 x 600 window"
    lines = [f"{head}: {verdict}"]
    for row in rows:
        shown = "no window" if row.fps is None else f"{row.fps:.1f} fps"
        lines.append(f"  - {row.map}, {row.agents} agents (random-1): {shown}")
    return lines
