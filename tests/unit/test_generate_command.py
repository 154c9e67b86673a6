"""`sim generate` through `cli.main`: files written, `sim plan` passes on them, the scene's grid
is the map, and bad flags or output paths are one line with exit status 2."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from sim.commands import generate as generate_command
from sim.commands.cli import main
from sim.config import Tag
from sim.navigation import find_path, generate_layout, read_map, read_scenarios
from sim.scene.file import load_scene
from sim.scene.grid import scene_endpoints, scene_grid


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_writes_the_map_scenarios_and_scene(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.map"
    argv = ["generate", "maze", str(out), "--size", "31x21", "--seed", "4", "--corridor", "2"]
    status = main([*argv, "--scen", "20", "--scene", str(tmp_path / "m.toml")])
    assert status == 0
    printed = capsys.readouterr().out
    assert printed.startswith("maze 31x21, seed 4: wrote ")
    layout = generate_layout("maze", 21, 31, seed=4, corridor=2)
    assert np.array_equal(read_map(out).walkable, layout)
    scenarios = read_scenarios(tmp_path / "m.map.scen")
    assert len(scenarios) == 20
    assert {s.map_name for s in scenarios} == {"m.map"}
    assert (tmp_path / "m.toml").is_file()


def test_same_seed_writes_the_same_bytes(tmp_path: Path) -> None:
    texts = []
    for name in ("a.map", "b.map"):
        argv = ["generate", "rooms", str(tmp_path / name), "--size", "40x30", "--seed", "9"]
        assert main([*argv, "--room", "5", "--door", "2", "--scen", "15"]) == 0
        scen = (tmp_path / f"{name}.scen").read_text().replace(name, "x.map")
        texts.append(((tmp_path / name).read_bytes(), scen))
    assert texts[0] == texts[1]


@pytest.mark.parametrize(
    ("kind", "flags"),
    [("maze", ["--corridor", "1"]), ("rooms", ["--room", "6"]), ("random", ["--density", "0.3"])],
    ids=["maze", "rooms", "random"],
)
def test_sim_plan_passes_on_the_generated_scenarios(
    kind: str, flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"{kind}.map"
    argv = ["generate", kind, str(out), "--size", "48x40", "--seed", "2", *flags, "--scen", "30"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["plan", str(out), "--scen", f"{out}.scen"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "30 passed, 0 failed"


@pytest.mark.parametrize(
    ("kind", "flags"),
    [
        ("maze", ["--corridor", "1"]),
        ("maze", ["--corridor", "3"]),
        ("rooms", []),
        ("random", ["--density", "0.35"]),
    ],
    ids=["maze-1", "maze-3", "rooms", "random"],
)
def test_the_scene_has_the_map_as_its_grid(kind: str, flags: list[str], tmp_path: Path) -> None:
    out, scene_path = tmp_path / "g.map", tmp_path / "g.toml"
    argv = ["generate", kind, str(out), "--size", "45x37", "--seed", "6", *flags]
    assert main([*argv, "--scene", str(scene_path)]) == 0
    layout = read_map(out).walkable
    scene = load_scene(scene_path)
    assert (scene.grid.rows, scene.grid.columns, scene.grid.cell_size) == (37, 45, 1.0)
    grid = scene_grid(scene)
    # The map's first row is the scene's north edge: the last row of the grid (+y).
    assert np.array_equal(grid.walkable[::-1], layout)
    endpoints = scene_endpoints(scene, grid)
    assert not endpoints.start_moved  # on walkable cells, not moved off a wall
    assert not endpoints.goal_moved
    assert endpoints.start is not None
    assert endpoints.goal is not None
    path = find_path(grid.walkable, endpoints.start, endpoints.goal)
    assert path.found
    assert len(scene.objects_with_tag(Tag.AGENT)) == 1
    assert len(scene.objects_with_tag(Tag.OBSTACLE)) < (~layout).sum()


def test_rerun_replaces_its_own_files(tmp_path: Path) -> None:
    out = tmp_path / "m.map"
    for seed in ("1", "2"):
        argv = ["generate", "random", str(out), "--size", "20x20", "--seed", seed, "--scen", "5"]
        assert main([*argv, "--scene", str(tmp_path / "m.toml")]) == 0
    assert np.array_equal(read_map(out).walkable, generate_layout("random", 20, 20, seed=2))


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["maze", "--size", "20x20", "--seed", "1", "--room", "4"],
            "--room does not apply to maze",
        ),
        (["maze", "--size", "20x20", "--seed", "1", "--density", "0.2"], "(it takes --corridor)"),
        (
            ["rooms", "--size", "20x20", "--seed", "1", "--corridor", "2"],
            "it takes --room and --door",
        ),
        (["random", "--size", "20x20", "--seed", "1", "--door", "2"], "--door does not apply"),
        (["maze", "--size", "0x5", "--seed", "1"], "each side must be at least 1 cell, got '0x5'"),
        (["maze", "--size", "abc", "--seed", "1"], "expected WIDTHxHEIGHT such as 64x64"),
        (["maze", "--size", "20x20", "--seed", "-3"], "expected a number >= 0, got -3"),
        (["maze", "--size", "20x20"], "the following arguments are required: --seed"),
        (["random", "--size", "9x9", "--seed", "1", "--density", "1.5"], "from 0 to below 1"),
        (["random", "--size", "9x9", "--seed", "1", "--density", "nan"], "from 0 to below 1"),
        (["maze", "--size", "20x20", "--seed", "1", "--corridor", "0"], "expected a positive"),
        (["rooms", "--size", "20x20", "--seed", "1", "--room", "3", "--door", "4"], "door must be"),
        (["rooms", "--size", "9x30", "--seed", "1"], "rooms of 8 needs each side 10 to 4096 cells"),
        (["hex", "--size", "9x9", "--seed", "1"], "invalid choice: 'hex'"),
        (["random", "--size", "5000x9", "--seed", "1"], "each side 2 to 4096 cells, got 5000x9"),
    ],
    ids=[
        "room-on-maze",
        "density-on-maze",
        "corridor-on-rooms",
        "door-on-random",
        "size-zero",
        "size-text",
        "seed-negative",
        "seed-missing",
        "density-over-1",
        "density-nan",
        "corridor-zero",
        "door-wider-than-room",
        "too-small-for-rooms",
        "kind",
        "too-large",
    ],
)
def test_bad_flags_are_one_line_and_write_nothing(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.map"
    status = main(["generate", flags[0], str(out), *flags[1:], "--scen", "3"])
    assert status == 2
    assert message in one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


def test_random_map_without_pairs_refuses_scenarios(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["generate", "random", str(tmp_path / "m.map"), "--size", "2x2", "--seed", "0"]
    # At 0.99 a 2 x 2 map is all walls for seed 0; no pair can be drawn, and nothing is written.
    assert not generate_layout("random", 2, 2, seed=0, density=0.99).any()
    assert main([*argv, "--density", "0.99", "--scen", "4"]) == 2
    assert "--scen: the map has fewer than 2 connected walkable cells" in one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("existing", "flag", "message"),
    [
        ("map", "out", "exists and is not a Moving AI map; refusing to replace it"),
        ("scen", "scen", "exists and is not a Moving AI scenario file; refusing to replace it"),
        ("scene", "scene", "exists and is not a scene; refusing to replace it"),
    ],
    ids=["map", "scen", "scene"],
)
def test_a_file_of_another_kind_is_not_replaced(
    existing: str, flag: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = {
        "map": tmp_path / "m.map",
        "scen": tmp_path / "m.map.scen",
        "scene": tmp_path / "s.toml",
    }
    paths[existing].write_text("precious = [notes\n")
    argv = ["generate", "maze", str(paths["map"]), "--size", "9x9", "--seed", "1"]
    assert main([*argv, "--scen", "2", "--scene", str(paths["scene"])]) == 2
    assert message in one_line_error(capsys)
    assert paths[existing].read_text() == "precious = [notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [paths[existing].name]


def test_outputs_that_must_not_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.map"
    base = ["generate", "maze", str(out), "--size", "9x9", "--seed", "1"]
    assert main([*base, "--scene", str(out)]) == 2
    assert "--scene" in one_line_error(capsys)
    (tmp_path / "folder.map").mkdir()
    assert (
        main(["generate", "maze", str(tmp_path / "folder.map"), "--size", "9x9", "--seed", "1"])
        == 2
    )
    assert "is a folder" in one_line_error(capsys)
    os.symlink(tmp_path / "elsewhere.map", tmp_path / "link.map")
    (tmp_path / "elsewhere.map").write_text("type octile\n")
    assert (
        main(["generate", "maze", str(tmp_path / "link.map"), "--size", "9x9", "--seed", "1"]) == 2
    )
    assert "is a symbolic link" in one_line_error(capsys)
    assert main([*base[:2], str(tmp_path / "no" / "m.map"), *base[3:]]) == 2
    assert "does not exist" in one_line_error(capsys)
    assert not out.exists()


def test_a_file_that_cannot_be_written_is_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(path: Path, data: bytes) -> None:
        if path.suffix == ".scen":
            raise OSError(28, "No space left on device")
        path.write_bytes(data)

    monkeypatch.setattr(generate_command, "write_bytes_atomic", full_disk)
    out = tmp_path / "m.map"
    assert main(["generate", "maze", str(out), "--size", "9x9", "--seed", "1", "--scen", "2"]) == 1
    line = one_line_error(capsys)
    assert line == f"sim: --scen {out}.scen: not written: No space left on device"
    assert out.is_file()
