"""Crowds that avoid each other, measured headless.

Small scenes written here, run with `sim run --trace` and read back: two agents head-on, four
meeting at a crossing, a line through a doorway. In every traced frame no two discs overlap
deeper than 10 % of their radii's sum; every agent arrives within the stated time (no
deadlock). The shipped crowd scenes run to the end the same way, stepped in the process, and
the same scene run twice traces the same frames.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.components.agent_controller import AgentState
from sim.crowd.disc_walls import Walls
from sim.scene.file import list_scenes

pytestmark = [pytest.mark.render, pytest.mark.timeout(300)]

OVERLAP_BOUND = 0.1  # of the two radii's sum
WALL_TOLERANCE = 1e-6  # cells: touching a wall is allowed, rounding may graze it
# The trace rounds positions to 5 decimals: two touching discs may read this much closer.
ROUNDING = 2e-5
SHIPPED = {path.stem: path for path in list_scenes()}
# Simulated seconds the shipped crowd scenes need at most until every agent has arrived
# (measured: crowd 50 s, crossing 45 s).
SHIPPED_BUDGET_S = {"crowd": 60.0, "crossing": 60.0}

HEADER = """version = 1
name = "{name}"

[grid]
origin = [0.0, 0.0]
rows = {rows}
columns = {columns}
cell_size = 1.0
"""


def place(name: str, tag: str, x: float, y: float, extra: str = "") -> str:
    head = f'[[objects]]\nname = "{name}"\ntag = "{tag}"\nmodel = "cube"\n'
    return f"{head}pos = [{x}, {y}, 0.0]\n{extra}"


def agent(name: str, x: float, y: float, target: str, heading: float = 0.0) -> str:
    return (
        f'[[objects]]\nname = "{name}"\ntag = "Agent"\nmodel = "agent"\npos = [{x}, {y}, 0.0]\n'
        f'heading = {heading}\n[objects.agent]\ntarget = "{target}"\n'
    )


def head_on() -> str:
    """Two agents on one line, each chasing a marker behind the other."""
    return "\n".join(
        [
            HEADER.format(name="Head-on", rows=9, columns=24),
            place("west", "Untagged", 1.5, 4.5, "scale = 0.3\n"),
            place("east", "Untagged", 22.5, 4.5, "scale = 0.3\n"),
            agent("going-east", 3.5, 4.5, "east", -90.0),
            agent("going-west", 20.5, 4.5, "west", 90.0),
        ]
    )


def crossing() -> str:
    """Four agents round a square, each chasing the marker beyond the one facing it."""
    lines = [HEADER.format(name="Crossing of four", rows=20, columns=20)]
    for name, x, y in (("n", 10.0, 19.0), ("s", 10.0, 1.0), ("e", 19.0, 10.0), ("w", 1.0, 10.0)):
        lines.append(place(f"mark-{name}", "Untagged", x, y, "scale = 0.3\n"))
    for name, x, y, target in (
        ("from-s", 10.0, 3.0, "mark-n"),
        ("from-n", 10.0, 17.0, "mark-s"),
        ("from-w", 3.0, 10.0, "mark-e"),
        ("from-e", 17.0, 10.0, "mark-w"),
    ):
        lines.append(agent(name, x, y, target))
    return "\n".join(lines)


def doorway() -> str:
    """Ten agents in a line, chasing a marker beyond a two-cell door in a wall."""
    lines = [
        HEADER.format(name="Doorway", rows=16, columns=30),
        place("wall-south", "Obstacle", 15.5, 3.5, "scale = [1.0, 7.0, 1.0]\n"),
        place("wall-north", "Obstacle", 15.5, 12.5, "scale = [1.0, 7.0, 1.0]\n"),
        place("exit", "Untagged", 26.5, 8.0, "scale = 0.3\n"),
    ]
    for index in range(10):
        lines.append(agent(f"walker-{index + 1}", 1.5 + 1.1 * index, 8.0, "exit", -90.0))
    return "\n".join(lines)


# name: (scene text, simulated seconds every agent must have arrived within)
SMALL = {
    "head-on": (head_on, 10.0),
    "crossing-of-four": (crossing, 10.0),
    "doorway": (doorway, 20.0),
}


def run(scene: Path, frames: int, folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run `scene` headless for `frames` frames; return its report and its trace's lines."""
    report, trace = folder / f"{scene.stem}.json", folder / f"{scene.stem}.jsonl"
    argv = [sys.executable, "-m", "sim", "run", str(scene), "--headless", "--size", "64x48"]
    argv += ["--frames", str(frames), "--report", str(report), "--trace", str(trace)]
    done = subprocess.run(
        argv, cwd=folder, capture_output=True, text=True, timeout=280, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    return json.loads(report.read_text()), lines


def deepest_overlap(positions: np.ndarray, radii: np.ndarray) -> float:
    """The deepest overlap of two discs in one frame, as a fraction of their radii's sum."""
    gap = positions[:, None, :] - positions[None, :, :]
    reach = radii[:, None] + radii[None, :]
    depth = (reach - np.hypot(gap[..., 0], gap[..., 1]) - ROUNDING) / reach
    np.fill_diagonal(depth, -1.0)
    return max(0.0, float(depth.max()))


@pytest.mark.parametrize("name", list(SMALL), ids=list(SMALL))
def test_small_scenes_pass_without_overlap_and_everyone_arrives(name, tmp_path):
    make, budget_s = SMALL[name]
    scene = tmp_path / f"{name}.toml"
    scene.write_text(make())
    report, (header, *frames) = run(scene, round(budget_s * 60), tmp_path)
    radii = np.array([entry["radius"] for entry in header["agents"]])
    worst = max(deepest_overlap(np.array(line["pos"]), radii) for line in frames)
    assert worst <= OVERLAP_BOUND, f"{name}: two discs overlapped by {worst:.3f} of their reach"
    for entry in report["agents"]:
        assert entry["reached_goal"], f"{entry['name']} is {entry['state']} at {entry['pos']}"
        assert entry["blocked_cell_frames"] == 0


@pytest.mark.parametrize("name", list(SHIPPED_BUDGET_S), ids=list(SHIPPED_BUDGET_S))
def test_shipped_crowd_scenes_arrive_apart_and_off_the_walls(open_app, name):
    app = open_app(SHIPPED[name], size=(64, 48))
    budget = round(SHIPPED_BUDGET_S[name] * 60)
    worst, wall_frames = 0.0, 0
    for _ in range(budget):
        app.step()
        crowd = app.crowd_sim
        worst = max(worst, deepest_overlap(crowd.positions, crowd.radii))
        cells = (crowd.positions - np.asarray(app.grid.origin)) / app.grid.grid_cell_size
        radii = crowd.radii / app.grid.grid_cell_size - WALL_TOLERANCE
        wall_frames += int(Walls(app.grid.walkable).hit(cells, radii).any())
        if all(agent.state is AgentState.ARRIVED for agent in app.agents):
            break
    waiting = [agent.game_object.name for agent in app.agents if not agent.reached_goal]
    assert not waiting, f"{len(waiting)} not arrived in {SHIPPED_BUDGET_S[name]} s: {waiting[:5]}"
    assert crowd.driven.all(), "every agent of these scenes is in a crowd"
    assert worst <= OVERLAP_BOUND
    assert wall_frames == 0


def test_the_same_scene_twice_traces_the_same_frames(tmp_path):
    traces = []
    for attempt in ("first", "second"):
        folder = tmp_path / attempt
        folder.mkdir()
        _, lines = run(SHIPPED["crossing"], 240, folder)
        traces.append(lines[1:])  # the header names the scene's path, the same in both
    assert traces[0] == traces[1]
