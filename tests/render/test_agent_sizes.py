"""Agents with a size, measured from `sim run --trace`.

In every shipped scene no agent's disc ever overlaps a blocked cell or leaves the grid in any
traced frame; in `scenes/sizes.toml` the small agent squeezes through the one-cell gap and the
large one takes the wide gap. The trace's format is checked as a reader sees it: the header,
one line per traced frame, `--trace-every`, and a killed run's whole lines.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from sim.app.report import validate_report
from sim.app.trace import FRAME_KEYS, HEADER_KEYS
from sim.scene.file import list_scenes, load_scene
from sim.scene.grid import scene_grid
from tests.helpers.paths import DEFAULT_SCENE

pytestmark = [pytest.mark.render, pytest.mark.timeout(300)]

SCENES = list_scenes()
SIZES = next(path for path in SCENES if path.stem == "sizes")
FRAMES = 600
# The trace rounds positions to 5 decimals: a disc that touches a wall may read this far over.
ROUNDING = 1e-5


def run(argv: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim", "run", "--headless", "--size", "160x120", *argv],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )


def read_trace(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    header, *frames = (json.loads(line) for line in path.read_text().splitlines())
    return header, frames


def overlap(
    blocked: NDArray[np.bool_], origin: tuple[float, float], cell: float, pos: Any, radius: float
) -> float:
    """How far (world units) the disc at `pos` reaches into a blocked cell or off the grid."""
    rows, cols = blocked.shape
    x = (pos[0] - origin[0]) / cell
    y = (pos[1] - origin[1]) / cell
    r = radius / cell
    worst = max(r - x, r - y, x + r - cols, y + r - rows, 0.0)
    reach = int(np.ceil(r)) + 1
    row, col = int(np.floor(y)), int(np.floor(x))
    for near_row in range(max(row - reach, 0), min(row + reach + 1, rows)):
        for near_col in range(max(col - reach, 0), min(col + reach + 1, cols)):
            if blocked[near_row, near_col]:
                gap_x = max(near_col - x, x - (near_col + 1), 0.0)
                gap_y = max(near_row - y, y - (near_row + 1), 0.0)
                worst = max(worst, r - float(np.hypot(gap_x, gap_y)))
    return worst * cell


def on_link(
    pos: list[float], radius: float, start: tuple[float, float], end: tuple[float, float]
) -> bool:
    """Whether the disc at `pos` touches the straight way between a link's two ends."""
    point, a, b = np.array(pos), np.array(start), np.array(end)
    along = b - a
    share = float(np.clip(np.dot(point - a, along) / max(float(np.dot(along, along)), 1e-12), 0, 1))
    return float(np.hypot(*(point - (a + share * along)))) <= radius


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each shipped scene run headless for `FRAMES` frames with a trace, by scene name."""
    folder = tmp_path_factory.mktemp("traces")
    paths = {}
    for scene in SCENES:
        trace = folder / f"{scene.stem}.jsonl"
        done = run([str(scene), "--frames", str(FRAMES), "--trace", str(trace)], folder)
        assert done.returncode == 0, done.stderr
        paths[scene.stem] = trace
    return paths


# The check below reads the grid from the scene file, which holds only while nothing moves; in a
# scene that moves by itself (motion or scripts) the live `blocked_cell_frames` (which must stay
# 0) checks it.
STILL_SCENES = [
    path for path in SCENES if not any(obj.moves or obj.scripts for obj in load_scene(path).objects)
]


@pytest.mark.parametrize("scene", STILL_SCENES, ids=[path.stem for path in STILL_SCENES])
def test_no_agent_disc_ever_overlaps_a_blocked_cell(traces, scene):
    header, frames = read_trace(traces[scene.stem])
    grid = header["grid"]
    origin, cell = tuple(grid["origin"]), grid["cell_size"]
    blocked = ~scene_grid(load_scene(scene)).walkable
    assert blocked.shape == (grid["rows"], grid["columns"])
    radii = [agent["radius"] for agent in header["agents"]]
    links = load_scene(scene).links
    assert len(frames) == FRAMES
    for line in frames:
        for name, pos, radius in zip(header["agents"], line["pos"], radii, strict=True):
            if any(on_link(pos, radius, link.start, link.end) for link in links):
                continue  # crossing a link: in the air over a wall, or blinking through it
            over = overlap(blocked, origin, cell, pos, radius)
            assert over <= ROUNDING, (
                f"frame {line['frame']}: {name['name']} at {pos} over by {over}"
            )


def crossings(frames: list[dict[str, Any]], index: int) -> list[float]:
    """The y of agent `index` while its centre is inside the wall's column (x 0..1)."""
    return [line["pos"][index][1] for line in frames if 0.0 <= line["pos"][index][0] <= 1.0]


def test_the_small_agent_squeezes_through_the_narrow_gap_the_large_one_takes_the_wide(traces):
    header, frames = read_trace(traces["sizes"])
    names = [agent["name"] for agent in header["agents"]]
    assert header["agents"] == [{"name": "small", "radius": 0.25}, {"name": "large", "radius": 0.9}]
    small, large = crossings(frames, names.index("small")), crossings(frames, names.index("large"))
    assert small, "the small agent never went through the wall"
    assert large, "the large agent never went through the wall"
    assert all(-1.0 <= y <= 0.0 for y in small), "the narrow gap is y -1..0"
    assert all(3.0 <= y <= 6.0 for y in large), "the wide gap is y 3..6"
    # Both arrive, one on End and the other against it: agents avoid each other and gather
    # round their goal instead of stacking on it.
    end = np.array((7.5, -0.5))
    last = [np.array(pos) for pos in frames[-1]["pos"]]
    assert min(np.hypot(*(pos - end)) for pos in last) <= 0.25 + ROUNDING
    apart = float(np.hypot(*(last[0] - last[1])))
    reach = 0.25 + 0.9
    assert reach * 0.9 - ROUNDING <= apart <= reach * 1.1 + ROUNDING, "touching, not stacked"


def test_the_trace_has_a_header_and_a_line_per_frame(traces):
    header, frames = read_trace(traces["default"])
    assert tuple(header) == HEADER_KEYS
    assert header["scene"].endswith("default.toml")
    assert header["dt"] == pytest.approx(1 / 60, abs=1e-9)
    assert header["grid"] == {"origin": [-10.0, -10.0], "cell_size": 1.0, "rows": 20, "columns": 20}
    assert header["agents"] == [{"name": "agent", "radius": 0.4}]
    assert [line["frame"] for line in frames] == list(range(1, FRAMES + 1))
    for line in frames:
        assert tuple(line) == FRAME_KEYS
        assert line["t"] == pytest.approx(line["frame"] / 60, abs=1e-6)
        assert len(line["pos"]) == len(line["heading"]) == 1


def test_trace_every_keeps_every_nth_frame(tmp_path):
    trace = tmp_path / "t.jsonl"
    done = run(
        [str(DEFAULT_SCENE), "--frames", "30", "--trace", str(trace), "--trace-every", "7"],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    _, frames = read_trace(trace)
    assert [line["frame"] for line in frames] == [7, 14, 21, 28]


def test_sizes_report_lists_each_agents_radius_and_path_cost(tmp_path):
    report = tmp_path / "r.json"
    done = run([str(SIZES), "--frames", "60", "--report", str(report)], tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_text())
    assert validate_report(data) == []
    agents = {agent["name"]: agent for agent in data["agents"]}
    assert agents["small"]["radius"] == 0.25
    assert agents["large"]["radius"] == 0.9
    # The large agent's way round is longer than the small one's straight line.
    assert agents["large"]["path_cost"] > agents["small"]["path_cost"] > 0.0


def test_a_killed_run_leaves_every_line_but_the_last_whole(tmp_path):
    trace = tmp_path / "t.jsonl"
    argv = [sys.executable, "-m", "sim", "run", "--headless", "--size", "160x120"]
    process = subprocess.Popen(
        [*argv, str(DEFAULT_SCENE), "--frames", "1000000", "--trace", str(trace)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if trace.exists() and trace.read_text().count("\n") > 20:
                break
            time.sleep(0.1)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    whole = trace.read_text().split("\n")[:-1]  # what follows the last newline may be cut
    assert len(whole) > 20
    header = json.loads(whole[0])
    assert tuple(header) == HEADER_KEYS
    for number, line in enumerate(whole[1:], start=1):
        assert json.loads(line)["frame"] == number


def test_a_trace_that_cannot_be_written_exits_1_in_one_line(tmp_path):
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    trace = tmp_path / "t.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sim",
            "run",
            "--headless",
            "--size",
            "160x120",
            str(DEFAULT_SCENE),
            "--frames",
            "120",
            "--trace",
            str(trace),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=200,
        check=False,
        preexec_fn=limit,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert lines == [f"sim: --trace {trace}: not written: File too large"]
