"""Agents that plan together (``planner = "mapf"``), run headless from the shipped scenes.

Each scene of scenes/mapf/ runs with `sim run --trace` and is read back: every agent arrives
within the stated time, no two ever stand in one cell at a step boundary (where the plan puts
each agent on a cell centre) and no two come closer than `NEAREST` cells in any frame (a shared
cell or a swap would bring them to 0). The same scene run twice traces the same frames, the
same scenes with ``planner = "independent"`` still run as before, and a door that opens after
the start makes the group plan again and arrive.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.helpers.paths import REPO_ROOT

pytestmark = [pytest.mark.render, pytest.mark.timeout(300)]

MAPF_SCENES = REPO_ROOT / "scenes" / "mapf"
# Simulated seconds every agent arrives within (measured: corridor 10.7 s, alcove 3.5 s,
# doorway 11.7 s, at the default speed's step of 1/3 s).
BUDGET_S = {"corridor": 15.0, "alcove": 6.0, "doorway": 16.0}
# Two agents one behind the other, or turning a corner one after the other, stay at least
# sqrt(0.5) cells apart mid-step; a shared cell or a swap would bring them to 0.
NEAREST = 0.7
ON_CENTRE = 1e-4  # cells: a traced position this close to a cell centre stands on it


def run(scene: Path, frames: int, folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run `scene` headless for `frames` frames; return its report and its traced frames."""
    report, trace = folder / f"{scene.stem}.json", folder / f"{scene.stem}.jsonl"
    argv = [sys.executable, "-m", "sim", "run", str(scene), "--headless", "--size", "64x48"]
    argv += ["--frames", str(frames), "--report", str(report), "--trace", str(trace)]
    done = subprocess.run(
        argv, cwd=folder, capture_output=True, text=True, timeout=280, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    return json.loads(report.read_text()), lines[1:]


def nearest_pair(positions: np.ndarray) -> float:
    gap = positions[:, None, :] - positions[None, :, :]
    distance = np.hypot(gap[..., 0], gap[..., 1])
    np.fill_diagonal(distance, np.inf)
    return float(distance.min())


def cells_at_boundaries(frames: list[dict[str, Any]]) -> list[list[tuple[int, int]]]:
    """The agents' cells in each frame where every agent stands on a cell centre."""
    found = []
    for frame in frames:
        positions = np.array(frame["pos"])
        cells = np.floor(positions)
        if np.abs(positions - (cells + 0.5)).max() <= ON_CENTRE:
            found.append([(int(x), int(y)) for x, y in cells])
    return found


@pytest.mark.parametrize("name", list(BUDGET_S), ids=list(BUDGET_S))
def test_every_agent_arrives_without_sharing_a_cell(name, tmp_path):
    report, frames = run(MAPF_SCENES / f"{name}.toml", round(BUDGET_S[name] * 60), tmp_path)
    assert report["mapf"]["solved"], report["mapf"]
    for entry in report["agents"]:
        assert entry["planner"] == "mapf"
        assert entry["reached_goal"], f"{entry['name']} is {entry['state']} at {entry['pos']}"
        assert entry["blocked_cell_frames"] == 0
    closest = min(nearest_pair(np.array(frame["pos"])) for frame in frames)
    assert closest >= NEAREST, f"two agents came {closest:.3f} cells close"
    boundaries = cells_at_boundaries(frames)
    assert len(boundaries) > report["mapf"]["makespan"] // 2
    for cells in boundaries:
        assert len(set(cells)) == len(cells)


def test_the_same_scene_twice_traces_the_same_frames(tmp_path):
    traces = []
    for attempt in ("first", "second"):
        folder = tmp_path / attempt
        folder.mkdir()
        traces.append(run(MAPF_SCENES / "corridor.toml", 240, folder)[1])
    assert traces[0] == traces[1]


@pytest.mark.parametrize("name", list(BUDGET_S), ids=list(BUDGET_S))
def test_planning_alone_the_scenes_still_run(name, tmp_path):
    text = (MAPF_SCENES / f"{name}.toml").read_text()
    scene = tmp_path / f"{name}.toml"
    scene.write_text(text.replace('planner = "mapf"', 'planner = "independent"'))
    report, frames = run(scene, 120, tmp_path)
    assert report["mapf"] is None
    assert {entry["planner"] for entry in report["agents"]} == {"independent"}
    assert len(frames) == 120


DOOR = """
[[objects]]
name = "corridor-door"
tag = "Obstacle"
model = "cube"
pos = [9.0, 2.5, 0.0]
scale = [0.9, 0.9, 1.0]

[objects.door]
period_s = 100.0
open_fraction = 0.9
phase_s = 2.0
"""


def test_a_door_that_opens_makes_the_group_plan_again_and_arrive(tmp_path):
    text = (MAPF_SCENES / "corridor.toml").read_text()
    head, crowds = text.split("[[crowds]]", 1)
    scene = tmp_path / "closed-corridor.toml"
    # The door is shut until t = 2 s: no plan then (the rooms are apart), one once it opens.
    scene.write_text(f"{head}{DOOR}\n[[crowds]]{crowds}")
    report, frames = run(scene, round((2.0 + BUDGET_S["corridor"]) * 60), tmp_path)
    assert report["mapf"]["solved"]
    assert report["mapf"]["replans"] >= 1
    for entry in report["agents"]:
        assert entry["reached_goal"], f"{entry['name']} is {entry['state']} at {entry['pos']}"
        assert entry["replans_by_cause"]["path_cut"] >= 1
    still = [frame["pos"] for frame in frames if frame["t"] < 1.9]
    assert still[0] == still[-1], "nobody moves while no plan exists"


def test_an_agent_removed_mid_plan_leaves_the_group_and_the_rest_arrive(open_app):
    app = open_app(MAPF_SCENES / "corridor.toml", size=(64, 48))
    for _ in range(30):
        app.step()
    gone = next(agent for agent in app.agents if agent.game_object.name == "eastbound-1")
    app.world.destroy(gone.game_object)
    app.agents.remove(gone)  # the app's list reads every agent's node, which is gone now
    for _ in range(round(BUDGET_S["corridor"] * 60)):
        app.step()
        if all(agent.reached_goal for agent in app.agents):
            break
    assert len(app.agents) == 5
    assert all(agent.reached_goal for agent in app.agents)
    assert app.report()["mapf"]["agents"] == 5
