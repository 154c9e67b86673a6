"""A scene from `sim generate --scene` opens in the app: its grid blocks exactly the map's cells.

The app rasterizes the obstacle cubes read back from Panda3D (float32), so this checks what
`sim.scene.grid` computes without Panda3D, on the live grid. A screenshot of each goes to
artifacts/ for a person to look at.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.app.report import validate_report
from sim.commands.cli import main
from sim.navigation import read_map
from tests.helpers.paths import artifact
from tests.helpers.reports import as_read

pytestmark = pytest.mark.render

FRAMES = 5


@pytest.mark.parametrize(
    ("kind", "flags"),
    [("maze", ["--corridor", "1"]), ("rooms", ["--room", "8", "--door", "2"])],
    ids=["maze", "rooms"],
)
def test_generated_scene_opens_with_the_map_as_its_grid(
    open_app, tmp_path: Path, kind: str, flags: list[str]
) -> None:
    out, scene = tmp_path / f"{kind}.map", tmp_path / f"{kind}.toml"
    argv = ["generate", kind, str(out), "--size", "64x64", "--seed", "3", *flags]
    assert main([*argv, "--scene", str(scene)]) == 0
    layout = read_map(out).walkable
    app = open_app(scene, size=(400, 300))
    for _ in range(FRAMES):
        app.step()
    report = as_read(app.report())
    assert validate_report(report) == []
    assert report["errors"] == []
    assert (report["grid"]["rows"], report["grid"]["columns"]) == (64, 64)
    assert report["grid"]["blocked_cells"] == int((~layout).sum())
    assert report["path"]["found"]
    for row, col in report["path"]["cells"]:
        assert layout[63 - row, col]  # the map's first row is the grid's last
    on_screen = {entry["name"]: entry["screen"] for entry in report["objects"]}
    assert on_screen["start"] is not None
    assert on_screen["end"] is not None
    # Cell by cell, the live grid is the map upside down (the map's first row is north).
    assert np.array_equal(app.grid.walkable[::-1], layout)
    assert app.save_screenshot(artifact(f"generated-{kind}.png"))
