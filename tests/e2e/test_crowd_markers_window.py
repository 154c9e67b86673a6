"""A real window draws each agent of a walking crowd where the crowd is.

`sim run` opens a walking crowd in a real 800 x 600 pandagl window under Xvfb (Mesa's llvmpipe,
where the markers' texture filtering and alpha test are not p3tinydisplay's), runs a fixed number
of frames and writes its last frame and its report together; every agent's marker must show in
the agent's colour at the pixel the report gives for it, and the open ground must not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from sim.config import PALETTE
from tests.helpers.paths import artifact
from tests.helpers.window import RunningApp, needs_x, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(180)]

FRAMES = 90
# A marker is at least 6 pixels across; its centre pixel may be a rim's shade or the nose.
REACH_PX = 2
HUE_COS = 0.95  # an RGB pointing within ~18 degrees of the agent colour's RGB is its hue
MIN_BRIGHTNESS = 60

SCENE = """
version = 1
name = "Window crowd"

[grid]
origin = [-10, -10]
rows = 20
columns = 20
cell_size = 1.0

[camera]
target = [0, 0, 0]
distance = 30.0
heading = 0.0
pitch = -89.0

[[objects]]
name = "start"
tag = "Start"
model = "cube"
pos = [-9.5, -9.5, 0]

[[objects]]
name = "end"
tag = "End"
model = "cube"
pos = [9.5, 9.5, 0]

[[crowds]]
count = 40
area = [-8, -8, -2, -2]
seed = 3
"""


def agent_coloured(image: np.ndarray) -> np.ndarray:
    """Pixels whose colour has the agents' hue (orange), lit or shaded."""
    target = np.asarray(PALETTE.agent[:3], dtype=float)
    pixels = image.astype(float)
    length = np.linalg.norm(pixels, axis=-1) * np.linalg.norm(target)
    cos = (pixels @ target) / np.maximum(length, 1e-9)
    return (cos >= HUE_COS) & (pixels.max(axis=-1) >= MIN_BRIGHTNESS)


def test_the_window_draws_each_agent_where_it_is(tmp_path: Path) -> None:
    scene = tmp_path / "crowd.toml"
    scene.write_text(SCENE)
    shot = artifact("window-crowd-markers.png")
    with xvfb() as display:
        app = RunningApp(
            display, scene, tmp_path, "--frames", str(FRAMES), "--screenshot", str(shot)
        )
        try:
            assert app.wait_exit(timeout_s=150) == 0
        finally:
            app.stop()
    report = app.report()
    agents = [entry for entry in report["objects"] if entry["tag"] == "Agent"]
    assert len(agents) == 40
    image = np.asarray(Image.open(shot).convert("RGB"))
    orange = agent_coloured(image)
    missing = []
    for agent in agents:
        assert agent["screen"] is not None, f"{agent['name']} is out of view"
        x, y = agent["screen"]
        patch = orange[y - REACH_PX : y + REACH_PX + 1, x - REACH_PX : x + REACH_PX + 1]
        if not patch.any():
            missing.append((agent["name"], agent["pos"][:2], (x, y)))
    assert not missing, f"no marker at these agents' pixels ({shot}): {missing}"
    # Spawned round (-5, -5), the crowd walks up the diagonal to End: checked against pixels
    # where it is, not where it was.
    mean_x, mean_y = np.mean([entry["pos"][:2] for entry in agents], axis=0)
    assert mean_x + mean_y > -8.0, f"the crowd did not walk: mean at ({mean_x}, {mean_y})"
    # Far from every agent (the grid's opposite corner to the spawn area) nothing is orange.
    end_x, end_y = next(entry["screen"] for entry in report["objects"] if entry["name"] == "end")
    start_x, start_y = next(e["screen"] for e in report["objects"] if e["name"] == "start")
    corner_x, corner_y = start_x + (end_x - start_x) // 4, end_y + (start_y - end_y) // 4
    assert not orange[corner_y - 10 : corner_y + 11, corner_x - 10 : corner_x + 11].any()
