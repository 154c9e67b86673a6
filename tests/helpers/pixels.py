"""Read a Panda3D window back as pixels and count colours in it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from panda3d.core import GraphicsOutput, Point3

from sim.components.ground_view import EndLabels

if TYPE_CHECKING:
    from sim.app.composition import SimApp

# An offscreen 320 x 240 window on the software renderer, for tests that open their own
# ShowBase (load it with load_prc_file_data).
OFFSCREEN_PRC = """
load-display p3tinydisplay TinyOffscreenGraphicsPipe
window-type offscreen
win-size 320 240
audio-library-name null
sync-video false
print-pipe-types false
notify-level-device fatal
model-cache-dir
"""


def screenshot_rgb(win: GraphicsOutput) -> NDArray[np.uint8]:
    """The last rendered frame of `win` as uint8 (height, width, 3), row 0 at the top."""
    texture = win.get_screenshot()
    flat = np.frombuffer(bytes(texture.get_ram_image_as("RGB")), np.uint8)
    return flat.reshape(texture.get_y_size(), texture.get_x_size(), 3)[::-1]


def rgb(color: Sequence[float]) -> tuple[int, int, int]:
    """A 0..1 colour (RGB or RGBA, as the app's constants are) as 0..255 RGB."""
    red, green, blue = (round(channel * 255) for channel in color[:3])
    return red, green, blue


def near(
    image: NDArray[np.uint8], color: tuple[int, int, int], tolerance: int
) -> NDArray[np.bool_]:
    """Pixels within `tolerance` of `color` (0..255 RGB) in every channel."""
    return np.abs(image.astype(int) - np.array(color)).max(axis=2) <= tolerance


def dominant(image: NDArray[np.uint8], channel: int, *, margin: int = 50) -> NDArray[np.bool_]:
    """Pixels whose `channel` (0 red, 1 green, 2 blue) beats both others by `margin`."""
    values = image.astype(int)
    others = [values[..., c] for c in range(3) if c != channel]
    return (values[..., channel] - np.maximum(*others)) > margin


def scene_pixels(app: SimApp) -> NDArray[np.uint8]:
    """The last frame with the colour legends blacked out: what the 3-D scene itself shows.

    The legends' swatches are the very colours the scene draws with, so a test counting a
    colour on the ground counts the scene, not its key.
    """
    image = screenshot_rgb(app.base.win).copy()
    height, width = image.shape[:2]
    aspect = width / height
    for legend in (app.colour_legend.root, app.legend.root if app.legend else None):
        bounds = (
            None
            if legend is None or legend.is_hidden()
            else legend.get_tight_bounds(app.base.aspect2d)
        )
        if bounds is None:
            continue
        low, high = bounds
        left = max(0, int((low.x / aspect + 1) / 2 * width) - 1)
        right = int((high.x / aspect + 1) / 2 * width) + 2
        top = max(0, int((1 - high.z) / 2 * height) - 1)
        bottom = int((1 - low.z) / 2 * height) + 2
        image[top:bottom, left:right] = 0
    return image


def pixel(app: SimApp, cell: tuple[int, int], z: float) -> tuple[int, int]:
    """A pixel inside `cell`, off the diagonal its quad's two triangles share.

    The software renderer draws a pixel on that edge for both triangles, blending it twice.
    """
    x, y = app.grid.cell_to_world(cell)
    found = app.screen_of_point(Point3(x + 0.3 * app.grid.grid_cell_size, y, z))
    assert found is not None, f"cell {cell} is off screen"
    return found


def blended(under: NDArray[np.float64], color: tuple[float, ...]) -> NDArray[np.float64]:
    """What a translucent quad of `color` over `under` (0..255 RGB) shows."""
    alpha = color[3]
    return under * (1.0 - alpha) + np.array(color[:3]) * 255.0 * alpha


def hide_end_labels(app: SimApp) -> None:
    """Hide Start's and End's labels, drawn over the scene on purpose, to read what is under."""
    labels = next(o for o in app.world.objects if o.name == "end-labels").get_component(EndLabels)
    assert labels is not None, "the scene has no Start and End labels"
    labels.node.hide()
