"""The crowd torture scenes in a real window: `sim run scenes/torture/X.toml --trace` under Xvfb.

Each scene runs as a user opens it (800x600, the window's fixed 1/60 s steps, whatever it
renders) until its report says every agent has arrived, within the scene's `[torture]` limit
(reports come a simulated second apart: within a second of it); its trace up to then shows that
no two discs overlapped deeper than 10 % of their radii's sum and that no disc entered a wall.
The doorway, the busiest, leaves a picture of its joint plan under way
(artifacts/torture-doorway.png).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.bench.crowd_suite import OVERLAP_TARGET, WALL_TOLERANCE, suite_scenes
from sim.crowd.disc_walls import Walls
from sim.scene.file import load_scene
from sim.scene.grid import scene_grid
from tests.helpers.paths import artifact
from tests.helpers.window import (
    RunningApp,
    needs_x,
    screenshot,
    send_close_request,
    wait_until,
    xvfb,
)

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(900)]

SCENES = {path.stem: path for path in suite_scenes()}
PICTURE_AT_S = 6.0  # the doorway's joint plan is under way by then on every seed


def traced(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The trace's header and its whole frame lines (a line cut by the close is dropped)."""
    lines = path.read_text().splitlines()
    header, frames = json.loads(lines[0]), []
    for line in lines[1:]:
        try:
            frames.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return header, frames


def all_arrived(app: RunningApp) -> bool:
    return all(agent["state"] == "arrived" for agent in app.report()["agents"])


@pytest.mark.parametrize("name", sorted(SCENES))
def test_the_torture_scene_runs_clean_in_a_window(tmp_path: Path, name: str) -> None:
    scene = load_scene(SCENES[name])
    assert scene.torture is not None
    limit_s = scene.torture.time_limit_s
    trace_path = tmp_path / "trace.jsonl"
    with xvfb() as display:
        app = RunningApp(display, SCENES[name], tmp_path, "--trace", str(trace_path))
        try:
            app.wait_for_window(timeout_s=60)
            if name == "doorway":
                wait_until(lambda: app.report()["sim_time_s"] >= PICTURE_AT_S, 120, app._why)
                screenshot(display, artifact("torture-doorway.png"))
            # The report is rewritten once a simulated second: wait for one that says so.
            wait_until(
                lambda: all_arrived(app) or app.report()["sim_time_s"] > limit_s + 1.0,
                30 * limit_s,
                app._why,
            )
            report = app.report()
            send_close_request(display, int(app.window))
            assert app.wait_exit(timeout_s=60) == 0
        finally:
            app.stop()
    assert all(agent["state"] == "arrived" for agent in report["agents"]), [
        agent["name"] for agent in report["agents"] if agent["state"] != "arrived"
    ]
    assert report["sim_time_s"] <= limit_s + 1.0  # reports come a simulated second apart
    header, frames = traced(trace_path)
    assert header["dt"] == pytest.approx(1.0 / 60.0)
    grid = scene_grid(scene)
    walls = Walls(grid.walkable)
    origin = np.asarray(header["grid"]["origin"])
    size = float(header["grid"]["cell_size"])
    radii = np.array([agent["radius"] for agent in header["agents"]])
    reach = radii[:, None] + radii[None, :]
    worst, wall_frames = 0.0, 0
    for frame in frames:
        if frame["t"] > report["sim_time_s"]:
            break
        pos = np.asarray(frame["pos"])
        gap = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1))
        np.fill_diagonal(gap, np.inf)
        worst = max(worst, float(((reach - gap) / reach).max()))
        hit = walls.hit((pos - origin) / size, radii / size - WALL_TOLERANCE)
        wall_frames += int(hit.any())
    assert frames
    assert frames[-1]["t"] >= report["sim_time_s"] - 1.0
    assert worst <= OVERLAP_TARGET
    assert wall_frames == 0
