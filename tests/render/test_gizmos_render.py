"""Gizmos on screen: offscreen p3tinydisplay, pixels read back from the buffer."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from direct.showbase.ShowBase import ShowBase
from numpy.typing import NDArray
from panda3d.core import Filename, load_prc_file_data, unload_prc_file

from sim.engine import Gizmos
from tests.helpers.paths import artifact
from tests.helpers.pixels import OFFSCREEN_PRC, dominant, screenshot_rgb

pytestmark = pytest.mark.render

# The default camera sits at the origin looking down +Y; at y = 10 it sees about x, z in
# [-3.6, 3.6] x [-2.7, 2.7]. Red lines run across the lower half, the blue quad sits upper right,
# and an opaque green quad nearer the camera covers the left third of the lines.
# Gizmo colours are pure: their channel beats the other two by far more than shading does.
MARGIN = 100
RED, BLUE, GREEN = (1.0, 0.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0), (0.0, 1.0, 0.0, 1.0)
RED_LINES = [[(-3.0, 10.0, z), (3.0, 10.0, z)] for z in (-2.0, -1.5, -1.0)]
BLUE_QUAD = [[(0.5, 10.0, 0.5), (2.5, 10.0, 0.5), (2.5, 10.0, 2.0), (0.5, 10.0, 2.0)]]
GREEN_OCCLUDER = [[(-3.0, 8.0, -2.5), (-1.0, 8.0, -2.5), (-1.0, 8.0, 0.0), (-3.0, 8.0, 0.0)]]


@pytest.fixture
def showbase() -> Iterator[ShowBase]:
    page = load_prc_file_data("test_gizmos_render", OFFSCREEN_PRC)
    base = ShowBase()
    yield base
    base.destroy()
    unload_prc_file(page)


def render(base: ShowBase) -> NDArray[np.uint8]:
    """Render two frames (the first fills the buffer) and return RGB rows, top row first."""
    base.graphics_engine.render_frame()
    base.graphics_engine.render_frame()
    return screenshot_rgb(base.win)


def draw_scene(gizmos: Gizmos) -> None:
    """One frame's draw calls (per-frame keys must be drawn every frame to stay shown)."""
    gizmos.lines("path", RED_LINES, RED)
    gizmos.quads("cells", BLUE_QUAD, BLUE)
    gizmos.quads("occluder", GREEN_OCCLUDER, GREEN)


def test_lines_and_quads_show_and_hide(showbase: ShowBase) -> None:
    assert showbase.pipe.get_type().get_name() == "TinyOffscreenGraphicsPipe"
    gizmos = Gizmos(showbase.render)
    draw_scene(gizmos)
    gizmos.flush()

    image = render(showbase)
    showbase.win.get_screenshot().write(Filename.from_os_specific(str(artifact("gizmos.png"))))

    red, green, blue = (dominant(image, channel, margin=MARGIN) for channel in (0, 1, 2))
    width = image.shape[1]
    assert red.sum() > 200, "three lines ~170 px long each"
    assert red[image.shape[0] // 2 :].sum() == red.sum(), "lines lie in the lower half"
    assert blue[: image.shape[0] // 2, width // 2 :].sum() > 1000, "quad in the upper right"
    assert green.sum() > 1000
    assert red[:, : width // 4].sum() == 0, "depth test on: the nearer quad hides the lines"

    gizmos.set_visible("path", False)
    gizmos.set_visible("cells", False)
    draw_scene(gizmos)
    gizmos.flush()
    image = render(showbase)
    assert dominant(image, 0, margin=MARGIN).sum() == 0
    assert dominant(image, 2, margin=MARGIN).sum() == 0
    assert dominant(image, 1, margin=MARGIN).sum() > 1000, "the other key is unaffected"
    gizmos.destroy()


def test_static_lines_polyline_and_alpha_blending(showbase: ShowBase) -> None:
    gizmos = Gizmos(showbase.render)
    gizmos.static_lines("grid", [[(x, 10.0, -2.5), (x, 10.0, 2.5)] for x in (-2.0, 2.0)], RED)
    gizmos.polyline("path", [(-3.0, 10.0, 2.0), (0.0, 10.0, -2.0), (3.0, 10.0, 2.0)], GREEN)
    gizmos.quads("shade", [[(-1.0, 9.0, -1.0), (1.0, 9.0, -1.0), (1.0, 9.0, 1.0),
                            (-1.0, 9.0, 1.0)]], (0.0, 0.0, 1.0, 0.5))  # fmt: skip
    gizmos.flush()
    image = render(showbase)
    background = image[5, 5].astype(int)
    middle = image[image.shape[0] // 2 - 10, image.shape[1] // 2 + 20].astype(int)

    assert dominant(image, 0, margin=MARGIN).sum() > 150, "two vertical grid lines"
    assert dominant(image, 1, margin=MARGIN).sum() > 150, "a V-shaped path"
    assert middle[2] == pytest.approx((background[2] + 255) / 2, abs=3), "half blue over grey"
    assert middle[0] == pytest.approx(background[0] / 2, abs=3)

    for _ in range(3):  # a frame with no draw calls: the path goes, the grid stays
        gizmos.flush()
    image = render(showbase)
    assert dominant(image, 1, margin=MARGIN).sum() == 0
    assert dominant(image, 0, margin=MARGIN).sum() > 150
    assert gizmos.keys() == {"grid"}
    gizmos.destroy()
