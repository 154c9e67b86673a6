"""Areas: terrain patches name an area, agents list where they may walk; planners keep to it."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.commands.cli import main
from sim.navigation import find_path
from sim.navigation.areas import AreaLayer
from sim.navigation.raster import Footprint
from sim.scene.file import parse_scene
from sim.scene.spec import SceneError

ROWS, COLUMNS = 8, 20


def _patch(name: str, box: tuple[float, float, float, float], area: str) -> str:
    """A terrain patch over world box (x0, y0, x1, y1) of `area`."""
    x0, y0, x1, y1 = box
    return (
        f'[[objects]]\nname = "{name}"\ntag = "Terrain"\nmodel = "cube"\n'
        f"pos = [{(x0 + x1) / 2}, {(y0 + y1) / 2}, 0.0]\nscale = [{x1 - x0}, {y1 - y0}, 0.02]\n"
        f'[objects.terrain]\ncost = 1.0\narea = "{area}"\n'
    )


# A road along the bottom two rows, cut by a grass strip at x 8..12; a loop of road rows 2..5
# over x 6..14 goes round the cut. An agent of the roads alone must take the loop.
PATCHES = [
    _patch("road", (0.0, 0.0, 20.0, 2.0), "road"),
    _patch("loop", (6.0, 2.0, 14.0, 6.0), "road"),
    _patch("cut", (8.0, 0.0, 12.0, 2.0), "grass"),
]
START, GOAL = (1.5, 0.5), (18.5, 0.5)


def scene_text(areas: list[str] | None) -> str:
    agent = "" if areas is None else f"areas = {json.dumps(areas)}\n"
    grid = f"[grid]\norigin = [0.0, 0.0]\nrows = {ROWS}\ncolumns = {COLUMNS}\ncell_size = 1.0\n"
    objects = [
        *PATCHES,
        f'[[objects]]\nname = "end"\ntag = "End"\nmodel = "cube"\npos = [{GOAL[0]}, {GOAL[1]}, 0]\n'
        "scale = 0.3\n",
        f'[[objects]]\nname = "car"\ntag = "Agent"\nmodel = "agent"\n'
        f"pos = [{START[0]}, {START[1]}, 0]\nheading = -90.0\n"
        f"[objects.agent]\nradius = 0.3\n{agent}",
    ]
    return "version = 1\n" + grid + "\n".join(objects)


def road_only() -> np.ndarray:
    """The oracle's mask, by hand: the road cells not under the grass."""
    allowed = np.zeros((ROWS, COLUMNS), dtype=bool)
    allowed[0:2, :] = True
    allowed[2:6, 6:14] = True
    allowed[0:2, 8:12] = False
    return allowed


def run(tmp_path: Path, areas: list[str] | None, frames: int) -> tuple[list[Any], dict[str, Any]]:
    scene = tmp_path / "areas.toml"
    scene.write_text(scene_text(areas))
    trace, report = tmp_path / "t.jsonl", tmp_path / "r.json"
    argv = ["run", str(scene), "--headless", "--frames", str(frames)]
    assert main([*argv, "--trace", str(trace), "--report", str(report)]) == 0
    lines = [json.loads(line) for line in trace.read_text().splitlines()[1:]]
    return lines, json.loads(report.read_text())


def test_the_first_plan_is_the_oracles_on_the_masked_grid(tmp_path):
    _, report = run(tmp_path, ["road"], 1)
    oracle = find_path(road_only(), (0, 1), (0, 18))
    assert oracle.found
    assert report["agents"][0]["path_cost"] == pytest.approx(oracle.cost, abs=1e-5)


def test_an_agent_never_enters_a_cell_outside_its_areas(tmp_path):
    lines, report = run(tmp_path, ["road"], 600)
    allowed = road_only()
    cells = {(int(y), int(x)) for line in lines for x, y in line["pos"]}
    assert all(allowed[cell] for cell in cells)
    assert report["agents"][0]["state"] == "arrived"
    assert max(y for line in lines for _, y in line["pos"]) > 2.0  # it took the loop


def test_without_areas_it_walks_straight_over_the_grass(tmp_path):
    lines, _ = run(tmp_path, None, 600)
    assert max(y for line in lines for _, y in line["pos"]) < 1.0


def test_an_unknown_area_is_one_line(tmp_path):
    with pytest.raises(SceneError) as caught:
        parse_scene(tomllib.loads(scene_text(["road", "mud"])), source="x.toml")
    assert str(caught.value) == (
        "x.toml: objects[4].agent.areas[1]: no terrain patch has area 'mud' "
        "(areas: 'grass', 'road', 'walkable')"
    )


def test_an_unknown_area_exits_2(tmp_path, capsys):
    scene = tmp_path / "bad.toml"
    scene.write_text(scene_text(["lava"]))
    assert main(["run", str(scene), "--headless", "--frames", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "agent.areas[0]: no terrain patch has area 'lava'" in err[0]


def test_a_cell_is_closed_to_an_agent_lacking_any_of_its_areas():
    layer = AreaLayer((1, 3))
    layer.put("road", Footprint(0, 0, np.ones((1, 3), dtype=bool)), "road")
    layer.put("grass", Footprint(0, 1, np.ones((1, 1), dtype=bool)), "grass")
    roads = layer.allowed(frozenset({"road"}))
    assert roads is not None
    assert roads.tolist() == [[True, False, True]]
    assert layer.allowed(frozenset({"road"})) is roads  # one mask per set of areas
    layer.remove("grass")
    again = layer.allowed(frozenset({"road"}))
    assert again is not None
    assert again.tolist() == [[True, True, True]]
