"""Why no path, live: walled.toml's regions and fix cells on screen, in the HUD and the report.

The End of scenes/walled.toml stands in a 3 x 3 room inside a ring of obstacles two cells
thick; the fewest cells to open are the two south of the room, (4, 15) and (5, 15).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.components import no_path
from sim.components.no_path import (
    FIX_COLOR,
    FIX_Z,
    GOAL_REGION_COLOR,
    KEYS,
    REGION_Z,
    START_REGION_COLOR,
)
from sim.navigation.regions.explain import explain_no_path
from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.pixels import blended, hide_end_labels, pixel, screenshot_rgb

pytestmark = pytest.mark.render

WALLED = SCENES_DIR / "walled.toml"
DEFAULT = SCENES_DIR / "default.toml"
EXPLANATION = {"start_region_cells": 221, "goal_region_cells": 9, "fix_cells": [[4, 15], [5, 15]]}
HUD_LINE = "  No path: remove these 2 cells (yellow) to join Start and End"
# Cells whose centres no cube hides from the scene's camera: one of Start's region, one of
# End's room (its north-west corner, clear of the End cube), and a fix cell (under the ring).
START_CELL, GOAL_CELL, FIX_CELL = (10, 2), (8, 14), (4, 15)
BLEND_TOLERANCE = 14  # 0..255 per channel: the software renderer's rounding, with margin


def test_walled_scene_shades_both_regions_and_the_fix_cells(open_app) -> None:
    app = open_app(WALLED)
    hide_end_labels(app)  # End's label covers End's room's top row
    for _ in range(3):
        app.step()
    app.save_screenshot(artifact("no-path-walled.png"))
    shown = screenshot_rgb(app.base.win).astype(float)
    assert set(KEYS) <= app.gizmos.keys()
    app.toggle_path()  # P hides the explanation with the path
    app.step()
    assert not set(KEYS) & app.gizmos.keys()
    bare = screenshot_rgb(app.base.win).astype(float)
    cases = (
        (START_CELL, REGION_Z, START_REGION_COLOR),
        (GOAL_CELL, REGION_Z, GOAL_REGION_COLOR),
        (FIX_CELL, FIX_Z, FIX_COLOR),
    )
    for cell, z, color in cases:
        px, py = pixel(app, cell, z)
        expected = blended(bare[py, px], color)
        assert np.abs(shown[py, px] - expected).max() <= BLEND_TOLERANCE, (
            f"cell {cell} at pixel {(px, py)}: {shown[py, px]} shown, {expected} expected"
            f" ({bare[py, px]} without the shading)"
        )


def test_walled_scene_explains_in_the_hud_and_the_report(open_app) -> None:
    app = open_app(WALLED, size=(160, 120))
    app.step()
    report = app.report()
    assert report["path"]["found"] is False
    assert report["path"]["explanation"] == EXPLANATION
    assert HUD_LINE in app.hud.text().splitlines()
    assert "  Start's region (blue): 221 cells, End's (purple): 9 cells" in app.hud.text()


def test_opening_the_ring_clears_the_explanation(open_app) -> None:
    app = open_app(WALLED, size=(160, 120))
    app.step()
    assert app.path.explanation is not None
    ring_south = app.world.find("ring_south")
    assert ring_south is not None
    app.world.destroy(ring_south)
    app.step()
    app.step()
    report = app.report()
    assert report["path"]["found"] is True
    assert report["path"]["explanation"] is None
    assert "No path" not in app.hud.text()
    assert not set(KEYS) & app.gizmos.keys()


def test_connected_scene_reports_a_null_explanation(open_app) -> None:
    app = open_app(DEFAULT, size=(160, 120))
    app.step()
    report = app.report()
    assert report["path"]["found"] is True
    assert report["path"]["explanation"] is None


def test_explanation_is_worked_out_only_when_grid_or_ends_change(open_app, monkeypatch) -> None:
    calls: list[tuple[int, int]] = []

    def counting(walkable, start, goal, *, diagonal=True):
        calls.append(start)
        return explain_no_path(walkable, start, goal, diagonal=diagonal)

    monkeypatch.setattr(no_path, "explain_no_path", counting)
    app = open_app(WALLED, size=(160, 120))
    for _ in range(150):  # 2.5 simulated seconds: the path replans on its 1 s interval too
        app.step()
    assert app.path.plans >= 3
    assert len(calls) == 1
    app.toggle_connectivity()  # a new grid version: worked out again, the same answer
    app.step()
    assert len(calls) == 2
    assert app.report()["path"]["explanation"] == EXPLANATION


def test_sim_run_writes_the_explanation_in_its_report(tmp_path: Path) -> None:
    report = tmp_path / "walled.json"
    run = ["run", str(WALLED), "--headless", "--frames", "3", "--size", "160x120"]
    done = subprocess.run(
        [sys.executable, "-m", "sim", *run, "--report", str(report)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text())["path"]["explanation"] == EXPLANATION
