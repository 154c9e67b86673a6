"""Read a Panda3D window back as pixels and count colours in it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from panda3d.core import GraphicsOutput


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
