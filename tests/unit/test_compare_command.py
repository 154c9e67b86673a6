"""`sim compare SCENE` through `cli.main`, and scene_grid against the live GridManager."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
from panda3d.core import NodePath

from sim.commands.cli import main
from sim.components.grid_manager import GridManager
from sim.engine import GameObject, World
from sim.scene.file import list_scenes, load_scene, parse_scene
from sim.scene.grid import obstacle_box, scene_endpoints, scene_grid
from sim.scene.spec import SceneSpec
from tests.helpers.paths import DEFAULT_SCENE, ODD_SCENES, SCENES_DIR

SCENE_FILES = list_scenes(SCENES_DIR) + list_scenes(ODD_SCENES)
TINY_SCENE = """\
version = 1
name = "tiny"

[grid]
origin = [0.0, 0.0]
rows = 1
columns = 5
cell_size = 2.0
{connectivity}

[[objects]]
name = "start"
tag = "Start"
model = "cube"
pos = [1.0, 1.0, 0.0]
{end}
"""
END_OBJECT = """
[[objects]]
name = "end"
tag = "End"
model = "cube"
pos = [9.0, 1.0, 0.0]
"""


def live_walkable(scene: SceneSpec) -> np.ndarray:
    """The walkable mask the app's GridManager computes for `scene` on a bare World."""
    world = World(NodePath("root"))
    spec = scene.grid
    manager = world.spawn("grid-manager").add_component(
        GridManager(
            origin=spec.origin,
            num_of_rows=spec.rows,
            num_of_columns=spec.columns,
            grid_cell_size=spec.cell_size,
            rule=spec.rule,
            show_grid=False,
            show_obstacle_blocks=False,
        )
    )
    for obj in scene.objects:
        node = world.root.attach_new_node(obj.name)
        node.set_pos(*obj.pos)
        node.set_scale(*obj.scale)
        node.set_h(obj.heading)
        world.add(GameObject(node, tag=str(obj.tag)))
    manager.sync_obstacles()
    return manager.walkable.copy()


def awkward_scene(seed: int) -> SceneSpec:
    """A scene of obstacles on odd positions, sizes and headings (float32 edge cases)."""
    rng = random.Random(seed)
    objects = [
        {
            "name": f"box{number}",
            "tag": "Obstacle",
            "model": "cube",
            "pos": [rng.uniform(-6, 6), round(rng.uniform(-6, 6), 1) + 0.05, 0.0],
            "scale": [rng.choice([0.1, 0.3, 1.0, 2.5]), rng.uniform(0.05, 4.0), 1.0],
            "heading": rng.choice([0.0, 90.0, 370.0, -45.0, 33.3, 180.0, rng.uniform(-720, 720)]),
        }
        for number in range(25)
    ]
    data = {
        "version": 1,
        "grid": {"origin": [-6.1, -5.9], "rows": 23, "columns": 31, "cell_size": 0.4},
        "objects": objects,
    }
    return parse_scene(data, source=f"awkward-{seed}.toml")


@pytest.mark.parametrize("path", SCENE_FILES, ids=lambda path: path.stem)
def test_scene_grid_equals_the_live_grid(path: Path) -> None:
    scene = load_scene(path)
    grid = scene_grid(scene)
    assert grid.walkable.tobytes() == live_walkable(scene).tobytes()
    assert (grid.origin, grid.cell_size) == (scene.grid.origin, scene.grid.cell_size)


@pytest.mark.parametrize("seed", range(4))
def test_scene_grid_equals_the_live_grid_on_awkward_obstacles(seed: int) -> None:
    scene = awkward_scene(seed)
    walkable = scene_grid(scene).walkable
    assert 0 < walkable.sum() < walkable.size
    assert walkable.tobytes() == live_walkable(scene).tobytes()


def test_scene_grid_reads_positions_in_single_precision_like_panda3d() -> None:
    # 2.500005 rounds to 2.5 in double precision (edges on cell lines: one cell), but Panda3D
    # keeps 2.50000501 in float32, which rounds to 2.50001: the box pokes into a second cell.
    data = {
        "version": 1,
        "grid": {"origin": [0.0, 0.0], "rows": 3, "columns": 5, "cell_size": 1.0},
        "objects": [
            {"name": "edge", "tag": "Obstacle", "model": "cube", "pos": [2.500005, 1.5, 0.0]}
        ],
    }
    scene = parse_scene(data, source="edge.toml")
    walkable = scene_grid(scene).walkable
    assert (~walkable).sum() == 2
    assert walkable.tobytes() == live_walkable(scene).tobytes()


def test_obstacle_box_keeps_the_rounded_single_precision_transform() -> None:
    scene = awkward_scene(0)
    for obj in scene.objects:
        box = obstacle_box(obj)
        assert 0.0 <= box.heading_deg < 360.0
        assert box.x == round(box.x, 5)
        assert box.size_y == round(box.size_y, 5)


def test_scene_endpoints_move_out_of_obstacles() -> None:
    scene = load_scene(ODD_SCENES / "start_inside_obstacle.toml")
    ends = scene_endpoints(scene, scene_grid(scene))
    assert ends.start_moved
    assert not ends.goal_moved
    assert ends.start is not None
    assert scene_grid(scene).walkable[ends.start]


def test_scene_endpoints_need_start_and_end() -> None:
    scene = load_scene(ODD_SCENES / "only_start.toml")
    with pytest.raises(ValueError, match=r"'only start' .* has no End object"):
        scene_endpoints(scene, scene_grid(scene))


# ---- sim compare ----------------------------------------------------------------------------


def cost_column(lines: list[str], label: str, heuristic: str) -> float:
    """Read the cost of one table row (the costs are right-aligned under the header)."""
    header = lines[1]
    end = header.index("cost (units)") + len("cost (units)")
    rows = [line for line in lines[2:] if line.startswith(f"{label} ") and f" {heuristic} " in line]
    assert len(rows) == 1, (label, heuristic, lines)
    return float(rows[0][:end].split()[-1])


def test_compare_default_scene(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["compare", str(DEFAULT_SCENE), "--repeat", "1"])
    captured = capsys.readouterr()
    assert (status, captured.err) == (0, "")
    lines = captured.out.splitlines()
    assert lines[0] == (
        "Default: 20 x 20 grid, cell size 1, 8-connected, Start (2, 2) -> End (17, 17) (row, col)"
    )
    assert lines[1].split()[:6] == ["algorithm", "heuristic", "expanded", "ms", "cost", "(units)"]
    assert len(lines) == 2 + 18 + 1
    assert [line.split()[0] for line in lines[2:20]] == ["A*"] * 4 + ["weighted"] * 4 + [
        "greedy"
    ] * 4 + ["Dijkstra", "BFS", "DFS", "JPS", "bidirectional", "Theta*"]
    dijkstra = cost_column(lines, "Dijkstra", "-")
    for heuristic in ("octile", "euclidean", "chebyshev"):
        assert cost_column(lines, "A*", heuristic) == dijkstra
    assert cost_column(lines, "DFS", "-") > dijkstra
    assert "*" in next(line for line in lines if line.startswith("DFS")).split()
    assert lines[-1].startswith("* not a shortest path")


def test_compare_costs_are_in_world_units(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = tmp_path / "tiny.toml"
    scene.write_text(TINY_SCENE.format(connectivity="connectivity = 4", end=END_OBJECT))
    assert main(["compare", str(scene), "--repeat", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[0]
        == "tiny: 1 x 5 grid, cell size 2, 4-connected, Start (0, 0) -> End (0, 4) (row, col)"
    )
    assert cost_column(lines, "Dijkstra", "-") == 8.0  # 4 steps of 2 units
    assert cost_column(lines, "DFS", "-") == 8.0


def test_compare_connectivity_overrides_the_scene(capsys: pytest.CaptureFixture[str]) -> None:
    scene = str(DEFAULT_SCENE)
    assert main(["compare", scene, "--connectivity", "4", "--weight", "2", "--repeat", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert ", 4-connected," in lines[0]
    assert lines[6].startswith("weighted A* x2 ")
    # 4-connected and no costs: breadth-first finds a shortest path, so it is not marked.
    assert "*" not in next(line for line in lines if line.startswith("BFS")).split()


def test_compare_notes_a_start_inside_an_obstacle(capsys: pytest.CaptureFixture[str]) -> None:
    scene = ODD_SCENES / "start_inside_obstacle.toml"
    assert main(["compare", str(scene), "--repeat", "1"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.endswith("; Start stood in an obstacle: nearest free cell used")


def test_compare_walled_in_end_prints_no_path_rows(capsys: pytest.CaptureFixture[str]) -> None:
    scene = ODD_SCENES / "end_walled_in.toml"
    assert main(["compare", str(scene), "--repeat", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert len(rows) == 18  # the 15, JPS, bidirectional and Theta*
    assert all("no path (unreachable)" in row for row in rows)


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


def test_missing_scene_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.toml"
    assert main(["compare", str(missing)]) == 2
    assert one_error_line(capsys) == f"sim: {missing}: cannot read file: No such file or directory"


def test_scene_without_end_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = tmp_path / "no_end.toml"
    scene.write_text(TINY_SCENE.format(connectivity="", end=""))
    assert main(["compare", str(scene)]) == 2
    assert one_error_line(capsys) == (
        f"sim: {scene}: needs a Start and an End object to compare searches"
    )


def test_scene_fully_covered_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cover = '\n[[objects]]\nname = "lid"\ntag = "Obstacle"\nmodel = "cube"\npos = [5.0, 1.0, 0.0]\n'
    cover += "scale = [10.0, 2.0, 1.0]\n"
    scene = tmp_path / "covered.toml"
    scene.write_text(TINY_SCENE.format(connectivity="", end=END_OBJECT + cover))
    assert main(["compare", str(scene)]) == 2
    assert "obstacles cover every cell" in one_error_line(capsys)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        pytest.param(
            ["--weight", "0.5"], "--weight: expected a finite number >= 1, got '0.5'", id="low"
        ),
        pytest.param(["--weight", "abc"], "--weight: expected a number >= 1, got 'abc'", id="text"),
        pytest.param(["--weight", "inf"], "--weight: expected a finite number >= 1", id="inf"),
        pytest.param(["--connectivity", "6"], "--connectivity: invalid choice: 6", id="conn"),
        pytest.param(["--repeat", "0"], "--repeat: expected a number >= 1, got 0", id="repeat"),
    ],
)
def test_bad_options_are_one_line_exit_2(
    option: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = str(DEFAULT_SCENE)
    assert main(["compare", scene, *option]) == 2
    line = one_error_line(capsys)
    assert line.startswith("sim compare: argument ")
    assert message in line


def test_weight_must_be_finite() -> None:
    from sim.commands.compare import weight_value

    assert weight_value("1") == 1.0
    assert math.isclose(weight_value("2.5"), 2.5)
