"""Every numeric scene key refuses what Panda3D's float32 cannot hold, in one line, exit 2.

Each case writes a small scene with one value replaced and runs `sim compare` and
`sim run --headless --frames 1` on it: both must end with status 2 and one line on stderr that
names the file and the key, and nothing may reach Panda3D first (a refused scene never opens a
window, so these stay unit tests).
"""

from __future__ import annotations

import copy
import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tomlkit
from numpy.typing import NDArray

from sim.commands.cli import main
from sim.components.grid_manager import GridManager
from sim.components.ground_view import GRID_LINE_Z, grid_line_segments
from sim.scene.file import MAX_GRID_LINES, load_scene

BASE: dict[str, Any] = {
    "version": 1,
    "grid": {"origin": [-5.0, -5.0], "rows": 10, "columns": 10, "cell_size": 1.0},
    "camera": {"target": [0.0, 0.0, 0.0], "distance": 20.0, "heading": 20.0, "pitch": -55.0},
    "objects": [
        {"name": "start", "tag": "Start", "model": "cube", "pos": [-3.5, -3.5, 0.0]},
        {"name": "end", "tag": "End", "model": "cube", "pos": [3.5, 3.5, 0.0]},
        {
            "name": "bot",
            "tag": "Agent",
            "model": "agent",
            "pos": [-3.5, -3.5, 0.0],
            "heading": 0.0,
            "agent": {
                "speed": 3.0,
                "turn_rate": 5.0,
                "replan_interval_s": 1.0,
                "arrival_radius": 0.25,
            },
        },
        {
            "name": "wall",
            "tag": "Obstacle",
            "model": "cube",
            "pos": [0.0, 0.0, 0.0],
            "scale": [1.0, 4.0, 1.0],
            "heading": 30.0,
            "color": [0.5, 0.5, 0.5],
        },
    ],
    "crowds": [
        {
            "count": 3,
            "area": [-4.0, 2.0, -2.0, 4.0],
            "seed": 1,
            "heading": 0.0,
            "color": [1.0, 0.5, 0.1],
            "agent": {
                "speed": 3.0,
                "turn_rate": 5.0,
                "replan_interval_s": 1.0,
                "arrival_radius": 0.25,
            },
        }
    ],
}

AGENT_KEYS = ("speed", "turn_rate", "replan_interval_s", "arrival_radius")
# Keys whose values are sizes, durations or rates: positive, with a lower bound too.
SIZES = [
    "grid.cell_size",
    "camera.distance",
    "objects[3].scale",
    *(f"objects[3].scale[{axis}]" for axis in range(3)),
    *(f"objects[2].agent.{key}" for key in AGENT_KEYS),
    *(f"crowds[0].agent.{key}" for key in AGENT_KEYS),
]
POINTS = [
    *(f"grid.origin[{axis}]" for axis in range(2)),
    *(f"camera.target[{axis}]" for axis in range(3)),
    *(f"objects[3].pos[{axis}]" for axis in range(3)),
    *(f"crowds[0].area[{corner}]" for corner in range(4)),
]
ANGLES = [
    "camera.heading",
    "camera.pitch",
    "objects[2].heading",
    "objects[3].heading",
    "crowds[0].heading",
]
COLORS = [*(f"objects[3].color[{part}]" for part in range(3)), "crowds[0].color[0]"]
INTEGERS = ["grid.rows", "grid.columns", "grid.connectivity", "crowds[0].count", "crowds[0].seed"]

HUGE = {"1e39": 1e39, "1e300": 1e300, "-1e39": -1e39}
TINY = {"5e-324": 5e-324}


def _cases() -> list[Any]:
    cases = []
    for key in SIZES:
        for name, value in (HUGE | TINY).items():
            cases.append(pytest.param(key, value, key, id=f"{key}={name}"))
    for key in POINTS + ANGLES + COLORS:
        for name, value in HUGE.items():
            cases.append(pytest.param(key, value, key, id=f"{key}={name}"))
    for key in INTEGERS:
        for name, value in {"10**39": 10**39, "-10**39": -(10**39), "1e39": 1e39}.items():
            # Too many rows or columns is the whole grid's budget, reported at `grid`.
            where = "grid" if key in ("grid.rows", "grid.columns") and value == 10**39 else key
            cases.append(pytest.param(key, value, where, id=f"{key}={name}"))
    return cases


def _set(document: dict[str, Any], path: str, value: object) -> None:
    """Set the value at a key path such as ``objects[3].scale[1]`` (the scale made a list)."""
    steps: list[str | int] = []
    for name, index in re.findall(r"([A-Za-z_]+)|\[(\d+)\]", path):
        steps.append(name or int(index))
    node: Any = document
    for step in steps[:-1]:
        node = node[step]
    node[steps[-1]] = value


def _write(tmp_path: Path, document: dict[str, Any]) -> str:
    path = tmp_path / "x.toml"
    path.write_text(tomlkit.dumps(document), encoding="utf-8")
    return str(path)


def _scene_with(tmp_path: Path, key: str, value: object) -> str:
    document = copy.deepcopy(BASE)
    _set(document, key, value)
    return _write(tmp_path, document)


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    lines = captured.err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {captured.err!r}"
    return lines[0]


COMMANDS = {
    "compare": ["compare"],
    "run": ["run", "--headless", "--frames", "1"],
}


def test_the_base_scene_is_valid(tmp_path: Path):
    assert len(load_scene(_write(tmp_path, BASE)).objects) == 7


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("key", "value", "where"), _cases())
def test_a_number_out_of_range_is_one_line_and_status_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    key: str,
    value: object,
    where: str,
):
    path = _scene_with(tmp_path, key, value)
    status = main([*COMMANDS[command], path])
    line = _one_error_line(capsys)
    assert status == 2
    assert line.startswith(f"sim: {path}: {where}: ")


@pytest.mark.parametrize(
    ("area", "problem"),
    [
        pytest.param([0.0, 0.0, 1.0, 5e-324], "too narrow", id="flat"),
        pytest.param([0.0, 0.0, 5e-324, 1.0], "too narrow", id="thin"),
    ],
)
def test_a_crowd_area_needs_room(tmp_path: Path, capsys, area: list[float], problem: str):
    path = _scene_with(tmp_path, "crowds[0].area", area)
    assert main(["compare", path]) == 2
    line = _one_error_line(capsys)
    assert line.startswith(f"sim: {path}: crowds[0].area: ")


def test_crowds_together_are_bounded(tmp_path: Path, capsys):
    document = copy.deepcopy(BASE)
    crowd = document["crowds"][0]
    document["crowds"] = [{**crowd, "name": f"c{index}", "count": 10_000} for index in range(3)]
    path = _write(tmp_path, document)
    assert main(["compare", path]) == 2
    assert _one_error_line(capsys).startswith(f"sim: {path}: crowds[1].count: ")


# --- angles: reduced to one turn before they reach Panda3D ----------------------------------------


@pytest.mark.parametrize(
    ("written", "read"),
    [(-90.0, -90.0), (270.0, 270.0), (720.5, 0.5), (-1000.0, -280.0), (-720.0, 0.0), (1e6, 280.0)],
)
def test_a_heading_is_kept_within_one_turn(tmp_path: Path, written: float, read: float):
    scene = load_scene(_scene_with(tmp_path, "objects[3].heading", written))
    heading = scene.objects[3].heading
    assert heading == pytest.approx(read)
    assert math.copysign(1.0, heading) == math.copysign(1.0, read) or read == 0.0


def test_camera_angles_are_kept_within_one_turn(tmp_path: Path):
    document = copy.deepcopy(BASE)
    document["camera"] |= {"heading": 3600.0 + 20.0, "pitch": -360.0 - 55.0}
    camera = load_scene(_write(tmp_path, document)).camera
    assert (camera.heading, camera.pitch) == (20.0, -55.0)


# --- the grid's budget: cells, and rows + columns ---------------------------------------------


def test_a_grid_one_cell_wide_and_16_million_long_is_refused(tmp_path: Path, capsys):
    document = copy.deepcopy(BASE)
    document["grid"] |= {"rows": 1, "columns": 16_777_216}
    path = _write(tmp_path, document)
    assert main(["compare", path]) == 2
    line = _one_error_line(capsys)
    assert line.startswith(f"sim: {path}: grid: 1 rows x 16,777,216 columns ")
    assert f"{MAX_GRID_LINES:,}" in line


def test_the_thinnest_grid_the_budget_allows_loads(tmp_path: Path):
    document = copy.deepcopy(BASE)
    document["grid"] |= {"rows": 1, "columns": MAX_GRID_LINES - 1}
    grid = load_scene(_write(tmp_path, document)).grid
    assert (grid.rows, grid.columns) == (1, MAX_GRID_LINES - 1)


def test_a_grid_wider_than_the_world_is_refused(tmp_path: Path, capsys):
    document = copy.deepcopy(BASE)
    document["grid"] |= {"columns": 4096, "cell_size": 1e6}
    path = _write(tmp_path, document)
    assert main(["compare", path]) == 2
    assert _one_error_line(capsys).startswith(f"sim: {path}: grid: ")


@pytest.mark.parametrize(
    ("origin", "cell_size", "refused"),
    [
        pytest.param([999_999.0, 0.0], 1e-3, True, id="millimetre-cells-a-million-out"),
        pytest.param([999_000.0, 0.0], 0.4, True, id="below-8-float32-steps"),
        pytest.param([999_000.0, 0.0], 0.5, False, id="8-float32-steps"),
        pytest.param([0.0, 0.0], 1e-3, False, id="millimetre-cells-near-0"),
    ],
)
def test_cells_must_be_wider_than_float32_steps_where_they_lie(
    tmp_path: Path, capsys, origin: list[float], cell_size: float, refused: bool
):
    document = copy.deepcopy(BASE)
    document["grid"] |= {"origin": origin, "cell_size": cell_size}
    path = _write(tmp_path, document)
    if refused:
        assert main(["compare", path]) == 2
        line = _one_error_line(capsys)
        assert line.startswith(f"sim: {path}: grid: cells of {cell_size} units are too small")
    else:
        assert load_scene(path).grid.cell_size == cell_size


def _grid_lines_one_by_one(manager: GridManager) -> NDArray[np.float32]:
    """The grid lines as they were built before: one Python tuple per line."""
    x0, y0 = manager.origin
    size = manager.grid_cell_size
    x1 = x0 + manager.num_of_columns * size
    y1 = y0 + manager.num_of_rows * size
    xs = x0 + size * np.arange(manager.num_of_columns + 1)
    ys = y0 + size * np.arange(manager.num_of_rows + 1)
    vertical = [((x, y0, GRID_LINE_Z), (x, y1, GRID_LINE_Z)) for x in xs]
    horizontal = [((x0, y, GRID_LINE_Z), (x1, y, GRID_LINE_Z)) for y in ys]
    return np.asarray(vertical + horizontal, dtype=np.float32)


@pytest.mark.parametrize(
    ("rows", "columns", "origin", "cell_size"),
    [(4, 10, (0.0, 0.0), 0.5), (1, 1, (-3.25, 7.0), 1.0), (7, 3, (1e5, -2e5), 0.3)],
)
def test_grid_lines_are_the_same_as_built_line_by_line(
    rows: int, columns: int, origin: tuple[float, float], cell_size: float
):
    manager = GridManager(
        origin=origin, num_of_rows=rows, num_of_columns=columns, grid_cell_size=cell_size
    )
    segments = grid_line_segments(manager)
    assert segments.dtype == np.float32
    np.testing.assert_array_equal(segments, _grid_lines_one_by_one(manager))


# --- the edges of every range run headless --------------------------------------------------------

# Generous: these scenes load and run in seconds; the bound only turns a hang into a failure.
RUN_TIMEOUT_S = 300


def _largest(document: dict[str, Any]) -> None:
    """Every value at the top of its range (the crowd small, so the run stays short)."""
    document["grid"] |= {"origin": [-1e6, -1e6], "rows": 2000, "columns": 2000, "cell_size": 1e3}
    document["camera"] |= {"target": [1e6, 1e6, 1e6], "distance": 1e6, "heading": 1e6}
    document["camera"]["pitch"] = -1e6
    for obj in document["objects"]:
        obj["heading"] = -1e6
    document["objects"][1]["pos"] = [1e6, 1e6, 0.0]
    document["objects"][3] |= {"pos": [1e6, -1e6, 1e6], "scale": [1e6, 1e6, 1e6]}
    document["objects"][2]["agent"] = {
        "speed": 1e6,
        "turn_rate": 1000.0,
        "replan_interval_s": 86_400.0,
        "arrival_radius": 1e6,
    }
    document["crowds"][0] |= {"area": [-1e6, -1e6, 1e6, 1e6], "heading": 1e6, "seed": 2**63 - 1}


def _smallest(document: dict[str, Any]) -> None:
    """Every size, rate and duration at the bottom of its range."""
    document["grid"] |= {"origin": [0.0, 0.0], "cell_size": 1e-3}
    document["camera"] |= {"target": [0.0, 0.0, 0.0], "distance": 1e-3}
    for index, pos in enumerate([[5e-4, 5e-4], [9.5e-3, 9.5e-3], [5e-4, 5e-4], [5e-3, 5e-3]]):
        document["objects"][index]["pos"] = [*pos, 0.0]
    document["objects"][3]["scale"] = 1e-3
    slow = dict.fromkeys(AGENT_KEYS, 1e-3)
    document["objects"][2]["agent"] = slow
    document["crowds"][0] |= {"area": [1e-3, 1e-3, 2e-3, 2e-3], "agent": slow}


def _thin(rows: int, columns: int) -> Any:
    def edit(document: dict[str, Any]) -> None:
        document["grid"] |= {"rows": rows, "columns": columns}

    return edit


@pytest.mark.render
@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(_largest, id="largest"),
        pytest.param(_smallest, id="smallest"),
        pytest.param(_thin(1, MAX_GRID_LINES - 1), id="thinnest-wide"),
        pytest.param(_thin(MAX_GRID_LINES - 1, 1), id="thinnest-tall"),
    ],
)
def test_a_scene_at_the_edges_of_the_ranges_runs_headless(tmp_path: Path, edit: Any):
    document = copy.deepcopy(BASE)
    edit(document)
    scene, report = _write(tmp_path, document), tmp_path / "report.json"
    argv = ["run", "--headless", "--frames", "2", "--report", str(report), scene]
    done = subprocess.run(
        [sys.executable, "-m", "sim", *argv],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr
    grid = json.loads(report.read_text())["grid"]
    assert (grid["rows"], grid["columns"]) == (
        document["grid"]["rows"],
        document["grid"]["columns"],
    )
