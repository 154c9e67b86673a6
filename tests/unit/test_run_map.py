"""`sim run MAP.map`: the map's scene (merged walls, Start and End) and bad input, no window."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from sim.commands.cli import main
from sim.commands.dispatch import build_parser
from sim.commands.run_map import open_scene
from sim.config import Tag
from sim.navigation.maps.generators import generate_layout
from sim.navigation.maps.movingai import read_map
from sim.navigation.maps.movingai_files import format_map
from sim.scene.file import load_scene, parse_scene
from sim.scene.grid import scene_grid
from sim.scene.layout import grid_cell, map_scene_text
from tests.helpers.paths import movingai_dir

MAP = "type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n"


def scen(*lines: tuple[int, int, int, int], name: str = "tiny.map") -> str:
    rows = [f"0\t{name}\t4\t3\t{sx}\t{sy}\t{gx}\t{gy}\t1" for sx, sy, gx, gy in lines]
    return "version 1\n" + "\n".join(rows) + "\n"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    (tmp_path / "tiny.map").write_text(MAP)
    (tmp_path / "tiny.scen").write_text(scen((0, 0, 3, 2), (3, 0, 0, 2)))
    return tmp_path


def opened(*argv: str):
    return open_scene(build_parser().parse_args(["run", *argv]))


def blocked_of(walkable: np.ndarray) -> np.ndarray:
    """The map's blocked cells where the scene's grid has them (map row 0 north)."""
    expected = np.zeros(walkable.shape, bool)
    for row, col in zip(*np.nonzero(~walkable), strict=True):
        expected[grid_cell((int(row), int(col)), walkable.shape[0])] = True
    return expected


def test_start_and_end_stand_on_the_scenario_line_asked(tiny: Path) -> None:
    scene = opened(str(tiny / "tiny.map"), "--scen", str(tiny / "tiny.scen"), "--index", "1").scene
    start, end = scene.objects_with_tag(Tag.START)[0], scene.objects_with_tag(Tag.END)[0]
    # x = -2 + col + 0.5, y = 1.5 - row - 0.5 on the 4 x 3 map centred on the origin.
    assert (start.pos[:2], end.pos[:2]) == ((1.5, 1.0), (-1.5, -1.0))


def test_a_map_without_a_scenario_has_no_start_or_end(tiny: Path) -> None:
    scene = opened(str(tiny / "tiny.map")).scene
    assert scene.objects_with_tag(Tag.START) == ()
    assert scene.objects_with_tag(Tag.END) == ()


def test_the_scenario_beside_the_map_gives_start_and_end(tiny: Path) -> None:
    (tiny / "tiny.map.scen").write_text(scen((1, 0, 2, 2)))
    scene = opened(str(tiny / "tiny.map")).scene
    assert scene.objects_with_tag(Tag.START)[0].pos[:2] == (-0.5, 1.0)


def test_saving_goes_to_a_scene_file_never_the_map(tiny: Path) -> None:
    assert opened(str(tiny / "tiny.map")).save_as == Path("tiny.toml")
    given = opened(str(tiny / "tiny.map"), "--save-as", str(tiny / "x.toml")).save_as
    assert given == tiny / "x.toml"


@pytest.mark.parametrize("kind", ["maze", "rooms", "random"], ids=["maze", "rooms", "random"])
def test_merged_walls_cover_exactly_the_blocked_cells(kind: str) -> None:
    walkable = generate_layout(kind, 48, 64, seed=3)
    text = map_scene_text(walkable, name="m", endpoints=None)
    scene = parse_scene(tomllib.loads(text), source="m.toml")
    assert (~scene_grid(scene).walkable == blocked_of(walkable)).all()


@pytest.mark.parametrize("with_ends", [False, True], ids=["no-ends", "start-and-end"])
def test_the_map_scene_is_what_its_saved_text_reads_back_as(tiny: Path, with_ends: bool) -> None:
    argv = [str(tiny / "tiny.map")] + (["--scen", str(tiny / "tiny.scen")] if with_ends else [])
    opened_map = opened(*argv)
    scene = opened_map.scene
    assert scene is not None
    assert opened_map.keep is not None
    # The text beside it is what saving merges onto: it must read back as this very scene.
    assert scene.path.is_file()
    assert scene.path.parent == Path(opened_map.keep.name)
    assert load_scene(scene.path) == scene
    assert len(scene.objects_with_tag(Tag.START)) == int(with_ends)


@pytest.mark.parametrize("name", ["Paris_0_512", "32room_000", "AR0011SR"])
def test_a_512_map_has_far_fewer_boxes_than_blocked_cells(name: str) -> None:
    path = movingai_dir() / f"{name}.map"
    if not path.is_file():
        pytest.skip(f"shared Moving AI maps not found ({path})")
    walkable = read_map(path).walkable
    assert walkable.shape == (512, 512)
    scene = opened(str(path)).scene
    boxes = len(scene.objects_with_tag(Tag.OBSTACLE))
    assert boxes * 20 < int((~walkable).sum())
    assert (~scene_grid(scene).walkable == blocked_of(walkable)).all()


def test_format_map_round_trips_through_the_map_scene(tmp_path: Path) -> None:
    walkable = generate_layout("rooms", 20, 30, seed=2)
    (tmp_path / "r.map").write_text(format_map(walkable))
    scene = opened(str(tmp_path / "r.map")).scene
    assert (~scene_grid(scene).walkable == blocked_of(walkable)).all()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--agents", "3"], "holds 2 agents, fewer than the 3"),
        (["--index", "5"], "--index 5"),
        (["--solver", "cbs"], "--solver and --time-limit go with --agents"),
    ],
    ids=["agents-beyond-the-file", "index-beyond-the-file", "solver-without-agents"],
)
def test_bad_input_is_one_line_and_exit_2(tiny: Path, capsys, extra, message) -> None:
    argv = ["run", str(tiny / "tiny.map"), "--scen", str(tiny / "tiny.scen"), *extra]
    assert main([*argv, "--headless"]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_a_scenario_of_another_map_is_refused(tiny: Path, capsys) -> None:
    (tiny / "other.scen").write_text(scen((0, 0, 3, 2), name="other.map"))
    argv = ["run", str(tiny / "tiny.map"), "--scen", str(tiny / "other.scen"), "--agents", "1"]
    assert main([*argv, "--headless"]) == 2
    assert "other.map" in capsys.readouterr().err


def test_map_flags_with_a_scene_file_are_refused(tiny: Path, capsys) -> None:
    assert main(["run", "scenes/default.toml", "--agents", "2", "--headless"]) == 2
    assert "only with a .map file" in capsys.readouterr().err


def test_agents_need_a_scenario_file(tiny: Path, capsys) -> None:
    assert main(["run", str(tiny / "tiny.map"), "--agents", "2", "--headless"]) == 2
    assert "--agents needs --scen" in capsys.readouterr().err


@pytest.mark.parametrize(
    "limit", ["0", "-1", "soon", "nan"], ids=["zero", "negative", "word", "nan"]
)
def test_a_time_limit_must_be_positive_seconds(tiny: Path, limit: str, capsys) -> None:
    argv = ["run", str(tiny / "tiny.map"), "--scen", str(tiny / "tiny.scen"), "--agents", "2"]
    assert main([*argv, "--time-limit", limit, "--headless"]) == 2
    assert "--time-limit" in capsys.readouterr().err


def test_an_unsolved_instance_is_one_line_and_exit_1(tmp_path: Path, capsys) -> None:
    # Two agents trading ends of a corridor one cell wide: no plan exists.
    (tmp_path / "line.map").write_text("type octile\nheight 1\nwidth 3\nmap\n...\n")
    rows = ["0\tline.map\t3\t1\t0\t0\t2\t0\t1", "0\tline.map\t3\t1\t2\t0\t0\t0\t1"]
    (tmp_path / "line.scen").write_text("version 1\n" + "\n".join(rows) + "\n")
    shot = tmp_path / "shot.png"
    argv = ["run", str(tmp_path / "line.map"), "--scen", str(tmp_path / "line.scen")]
    argv += ["--agents", "2", "--time-limit", "1", "--headless", "--screenshot", str(shot)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "did not solve 2 agents" in err
    assert err.count("\n") == 1
    assert not shot.exists()
