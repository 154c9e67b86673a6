"""The window's look: the sun casts shadows on the ground, and the frame is anti-aliased.

A tower stands in an open grid seen from straight above. Three specks too small to be drawn mark
ground points: one where the tower's shadow falls (the sun shines toward -x, +y), one on its lit
side and one in the open; the report gives each speck's pixel, so the test reads the window's own
last frame there without knowing the camera's projection.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.helpers.paths import artifact
from tests.helpers.window import RunningApp, needs_x, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(120)]

SCENE = """
version = 1
name = "Shadow"

[grid]
origin = [-6, -6]
rows = 12
columns = 12
cell_size = 1.0

[camera]
target = [0, 0, 0]
distance = 22.0
heading = 0.0
pitch = -89.0

[[objects]]
name = "tower"
tag = "Obstacle"
model = "cube"
pos = [0, 0, 0]
scale = [2, 2, 5]

[[objects]]
name = "start"
tag = "Start"
model = "cube"
pos = [-5.5, -5.5, 0]

[[objects]]
name = "end"
tag = "End"
model = "cube"
pos = [-3.5, -5.5, 0]

[[objects]]
name = "in-shadow"
tag = "Untagged"
model = "cube"
pos = [-0.5, 2.5, 0]
scale = 0.001

[[objects]]
name = "lit-side"
tag = "Untagged"
model = "cube"
pos = [0.5, -2.5, 0]
scale = 0.001

[[objects]]
name = "open-ground"
tag = "Untagged"
model = "cube"
pos = [4.5, -4.5, 0]
scale = 0.001
"""


def _brightness(image: np.ndarray, pixel: list[int]) -> float:
    """The median brightness of the 5x5 pixels around `pixel` (x, y from the top left)."""
    x, y = pixel
    patch = image[y - 2 : y + 3, x - 2 : x + 3].astype(float).mean(axis=2)
    return float(np.median(patch))


def test_the_sun_casts_shadows_in_the_window(tmp_path: Path):
    scene = tmp_path / "shadow.toml"
    scene.write_text(SCENE)
    shot = artifact("window-shadows.png")
    with xvfb() as display:
        app = RunningApp(display, scene, tmp_path, "--look", "full", "--screenshot", str(shot))
        try:
            app.wait_for_window()
            wait_until(lambda: app.report()["frames"] > 10, 30)
            app.xdotool("key", "--window", app.window, "Escape")
            assert app.wait_exit() == 0
        finally:
            app.stop()
    report = app.report()
    assert report["window"]["shadows"] is True, "pandagl on Mesa runs shaders: shadows expected"
    assert report["window"]["multisamples"] > 0, "Mesa's GLX offers multisampled visuals"
    screen = {entry["name"]: entry["screen"] for entry in report["objects"]}
    image = np.asarray(Image.open(shot).convert("RGB"))
    shadow = _brightness(image, screen["in-shadow"])
    lit = _brightness(image, screen["lit-side"])
    open_ground = _brightness(image, screen["open-ground"])
    assert lit == pytest.approx(open_ground, rel=0.1), "the lit side should look like open ground"
    assert shadow < 0.8 * lit, f"no shadow beside the tower: {shadow:.0f} vs {lit:.0f} lit"
