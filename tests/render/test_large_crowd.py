"""The documented maximum crowd, 10,000 agents on a 2000 x 2000 grid, runs and exits.

Before the crowd's work was bounded its first frame took over 10 minutes (smoothing each
agent's whole path with line-of-sight walks); now a frame takes about a second, the first a
few (the field and its tables), on a 2-core machine.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.reports import read_report

pytestmark = pytest.mark.render

SIDE = 2000
CROWD = 10_000
WALLS = 4  # across the grid, each with a gap at alternate ends
TIMEOUT_S = 120.0  # generous: measured 20 to 30 s with other tests sharing the machine


def write_crowd_scene(path: Path) -> None:
    """Start and End in opposite corners, walls with gaps between, the crowd beside Start."""
    lines = [
        "version = 1",
        'name = "Largest crowd"',
        "[grid]",
        "origin = [0.0, 0.0]",
        f"rows = {SIDE}",
        f"columns = {SIDE}",
        "cell_size = 1.0",
    ]
    for name, tag, at in (("start", "Start", 1.5), ("end", "End", SIDE - 1.5)):
        lines += ["[[objects]]", f'name = "{name}"', f'tag = "{tag}"', 'model = "cube"']
        lines.append(f"pos = [{at}, {at}, 0.0]")
    length = SIDE * 0.8
    for index in range(WALLS):
        x = length / 2 if index % 2 == 0 else SIDE - length / 2
        y = (index + 1) * SIDE / (WALLS + 1) + 0.5
        lines += ["[[objects]]", f'name = "wall{index}"', 'tag = "Obstacle"', 'model = "cube"']
        lines += [f"pos = [{x}, {y}, 0.0]", f"scale = [{length}, 1.0, 1.0]"]
    lines += ["[[crowds]]", f"count = {CROWD}", f"area = [2.0, 2.0, {SIDE / 10}, {SIDE / 10}]"]
    path.write_text("\n".join(lines) + "\n")


def test_ten_thousand_agents_on_the_largest_grid_run_three_frames_and_exit(tmp_path):
    scene, report = tmp_path / "crowd.toml", tmp_path / "r.json"
    write_crowd_scene(scene)
    command = [sys.executable, "-m", "sim", "run", str(scene), "--headless", "--frames", "3"]
    command += ["--report", str(report)]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    data = read_report(report)
    assert data["frames"] == 3
    agents = data["agents"]
    assert len(agents) == CROWD
    assert all(agent["blocked_cell_frames"] == 0 for agent in agents)
    # Plans are spread over frames: some agents are on their way, the rest wait their turn.
    assert any(agent["replans"] > 0 and agent["path_found"] for agent in agents)
