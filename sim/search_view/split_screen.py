"""The split screen of a race: one display region and camera a lane, over the viewport.

The viewport (the scene camera's own display region: the window less its docks) is split into
two halves (two lanes) or four quarters (three or four; the fourth
quarter of three is left to the background). Each region has its own camera, a child of the
scene's camera, so orbit, pan and zoom move every lane together; its lens is framed on the
grid as far as the scene camera shows it. Each camera has its own camera-mask bit
(`lane_mask`), so a node hidden from all cameras but shown to one bit (`NodePath.hide(mask)` /
`show(mask)`) is drawn in that lane only. The scene's own display region is switched off while
the viewport is split, so the window draws each lane once; its bounds are where the lanes go,
and they follow it when the window is resized.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from panda3d.core import BitMask32, Camera, DisplayRegion, GraphicsOutput, NodePath, PerspectiveLens

from sim.search_view.race import check_lane_count

LANE_MASK_BIT = 20  # lane i's camera sees camera-mask bit 20 + i (picking uses bit 1)
FRAME_MARGIN = 1.12  # room round the grid in each lane, and for the lane's label above it
REGION_SORT = 5  # the lanes draw after the scene's region (0), before the 2D overlay (10)


Bounds = tuple[float, float, float, float]  # (left, right, bottom, top), fractions, y up
WHOLE: Bounds = (0.0, 1.0, 0.0, 1.0)


def lane_regions(count: int, within: Bounds = WHOLE) -> list[Bounds]:
    """Each lane's display region as (left, right, bottom, top), fractions of the window.

    The lanes split `within` (the viewport's own bounds, the whole window by default).

    >>> lane_regions(2)
    [(0.0, 0.5, 0.0, 1.0), (0.5, 1.0, 0.0, 1.0)]
    >>> lane_regions(3)[2]
    (0.0, 0.5, 0.0, 0.5)
    >>> lane_regions(2, (0.2, 0.8, 0.0, 1.0))[1]
    (0.5, 0.8, 0.0, 1.0)
    """
    check_lane_count(count)
    if count == 2:
        halves = [(0.0, 0.5, 0.0, 1.0), (0.5, 1.0, 0.0, 1.0)]
    else:
        halves = [
            (0.0, 0.5, 0.5, 1.0),
            (0.5, 1.0, 0.5, 1.0),
            (0.0, 0.5, 0.0, 0.5),
            (0.5, 1.0, 0.0, 0.5),
        ][:count]
    left, right, bottom, top = within
    wide, tall = right - left, top - bottom
    return [
        (left + wide * a, left + wide * b, bottom + tall * c, bottom + tall * d)
        for a, b, c, d in halves
    ]


class SplitScreen:
    """The lanes' display regions and cameras over one window; see the module docstring.

    Args:
        window: The window or offscreen buffer.
        camera: The scene's camera node (its lens and pose are followed).
    """

    def __init__(self, window: GraphicsOutput, camera: NodePath[Camera]) -> None:
        self._window, self._camera = window, camera
        self._main: DisplayRegion = camera.node().get_display_region(0)
        self._regions: list[DisplayRegion] = []
        self._cameras: list[NodePath[Camera]] = []
        self.bounds: list[Bounds] = []
        self._within: Bounds = WHOLE

    def open(self, count: int) -> None:
        """Split the window into `count` lanes (closing any split before)."""
        self.close()
        self._within = self._viewport()
        self.bounds = lane_regions(count, self._within)
        for index, (left, right, bottom, top) in enumerate(self.bounds):
            node = Camera(f"race-camera-{index}", PerspectiveLens())
            node.set_camera_mask(lane_mask(index))
            camera = self._camera.attach_new_node(node)
            region = self._window.make_display_region(left, right, bottom, top)
            region.set_sort(REGION_SORT + index)
            region.set_clear_depth_active(True)
            region.set_camera(camera)
            self._regions.append(region)
            self._cameras.append(camera)
        self._main.set_active(False)
        self.follow_lens()

    def close(self) -> None:
        """Remove the lanes' regions and cameras and give the window back to the scene camera."""
        for region in self._regions:
            self._window.remove_display_region(region)
        for camera in self._cameras:
            camera.remove_node()
        self._regions, self._cameras, self.bounds = [], [], []
        self._main.set_active(True)

    def _viewport(self) -> Bounds:
        left, right, bottom, top = self._main.get_dimensions()
        return (left, right, bottom, top)

    def _follow_viewport(self) -> None:
        """Re-split the viewport if it moved (the window was resized, the docks hidden)."""
        within = self._viewport()
        if within == self._within or not self._regions:
            return
        self._within = within
        self.bounds = lane_regions(len(self._regions), within)
        for region, bounds in zip(self._regions, self.bounds, strict=True):
            region.set_dimensions(*bounds)

    def follow_lens(self, focus: NDArray[np.float64] | None = None) -> None:
        """Frame each lane's lens on what the scene camera shows of `focus` (world points).

        Each lane looks where the scene camera looks, zoomed so that the points (the grid's
        corners) fill its region as far as the scene camera shows them: a lane never shows
        more than the scene camera would, and zooming in zooms every lane.
        """
        self._follow_viewport()
        lens = self._camera.node().get_lens()
        tan_h = float(np.tan(np.radians(lens.get_hfov()) / 2))
        tan_v = float(np.tan(np.radians(lens.get_vfov()) / 2))
        reach_x, reach_y = self._reach(focus, tan_h, tan_v)
        for region, camera in zip(self._regions, self._cameras, strict=True):
            aspect = max(region.get_pixel_width(), 1) / max(region.get_pixel_height(), 1)
            half_v = max(reach_y * tan_v, reach_x * tan_h / aspect) * FRAME_MARGIN
            own = camera.node().get_lens()
            own.set_near_far(lens.get_near(), lens.get_far())
            own.set_fov(
                float(np.degrees(2 * np.arctan(half_v * aspect))),
                float(np.degrees(2 * np.arctan(half_v))),
            )

    def _reach(
        self, focus: NDArray[np.float64] | None, tan_h: float, tan_v: float
    ) -> tuple[float, float]:
        """How far the points reach from the middle of the scene camera's view.

        As fractions of its half-width and half-height, at most 1 each: what the scene camera
        does not show is not framed.
        """
        if focus is None or not len(focus):
            return 1.0, 1.0
        scene = self._camera.get_top()
        # Panda3D matrices act on row vectors: camera-space p' = [p, 1] @ M; y looks ahead.
        matrix = np.array(scene.get_mat(self._camera), dtype=np.float64).reshape(4, 4)
        local = np.concatenate([focus, np.ones((len(focus), 1))], axis=1) @ matrix
        ahead = local[:, 1]
        if np.any(ahead <= 1e-6):
            return 1.0, 1.0  # a point behind the camera: keep the scene camera's framing
        reach_x = float(np.max(np.abs(local[:, 0]) / ahead)) / tan_h
        reach_y = float(np.max(np.abs(local[:, 2]) / ahead)) / tan_v
        return min(reach_x, 1.0), min(reach_y, 1.0)


def lane_mask(index: int) -> BitMask32:
    """The camera-mask bit lane `index`'s camera sees its own search by."""
    return BitMask32.bit(LANE_MASK_BIT + index)
