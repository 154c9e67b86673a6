"""Read a Panda3D window back as pixels and count colours in it."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def screenshot_rgb(win) -> NDArray[np.uint8]:  # type: ignore[no-untyped-def]
    """The last rendered frame of `win` as uint8 (height, width, 3), row 0 at the top."""
    texture = win.get_screenshot()
    flat = np.frombuffer(bytes(texture.get_ram_image_as("RGB")), np.uint8)
    return flat.reshape(texture.get_y_size(), texture.get_x_size(), 3)[::-1]


def near(image: NDArray[np.uint8], rgb: tuple[int, int, int], tolerance: int) -> NDArray[np.bool_]:
    """Pixels within `tolerance` of `rgb` in every channel."""
    return np.abs(image.astype(int) - np.array(rgb)).max(axis=2) <= tolerance


def dominant(image: NDArray[np.uint8], channel: int, *, margin: int = 50) -> NDArray[np.bool_]:
    """Pixels whose `channel` (0 red, 1 green, 2 blue) beats both others by `margin`."""
    values = image.astype(int)
    others = [values[..., c] for c in range(3) if c != channel]
    return (values[..., channel] - np.maximum(*others)) > margin
