"""The docked layout: the 3D viewport in its own display region, the panels beside it.

The window is split as an editor's is: a toolbar strip along the top (when one is added), a
left dock and a right dock down the sides, a status bar along the bottom, and the viewport in
what is left. The scene camera's display region covers only the viewport and its lens takes the
viewport's aspect, so the panels never cover the scene and the scene is never squeezed. Hiding
the panels (`visible = False`) gives the viewport the whole window.

`dock_frame` is the pure geometry (pixels, origin top-left); `DockedLayout` applies it to a
window and keeps it applied as the window is resized (`sync`, once a frame).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from panda3d.core import DisplayRegion, GraphicsOutput, Lens, NodePath

from sim.ui.dock import Dock, Rect

LEFT_SHARE = 0.18  # of the window's width, between LEFT_PX's bounds
LEFT_PX = (170, 260)
RIGHT_SHARE = 0.27
RIGHT_PX = (230, 380)
STATUS_PX = 26
# Below this the viewport would be a slit between the docks: the docks give way to it.
MIN_VIEWPORT_PX = 320
# The scene is what the window is for: the docks never take more than the rest of the width
# (at 800 x 600 their shares would leave it half; they narrow and scale their text instead).
MIN_VIEWPORT_SHARE = 0.6
# The docks' content is laid out in aspect2d units (2 to the window's height); a dock narrower
# than this many units scales its content down to fit rather than cutting it off.
LEFT_UNITS = 0.5
RIGHT_UNITS = 0.62
# A viewport narrower than this aspect keeps the width of view one this wide would have and sees
# more above and below instead, so docking the panels never crops the sides of a scene framed for
# a window: at 1.15 the widest shipped scenes (the crowds' crossing) stay whole in an 800x600
# window's docked viewport, and the scene stays as large as that allows.
FRAMED_ASPECT = 1.15
VIEWPORT_MARGIN_PX = 8  # between a notice at the viewport's top and the docks beside it


@dataclass(frozen=True, slots=True)
class DockFrame:
    """Where each part of the window lies, in pixels (see `dock_frame`)."""

    viewport: Rect
    left: Rect
    right: Rect
    status: Rect
    toolbar: Rect


def dock_frame(size: tuple[int, int], *, panels: bool = True, toolbar_px: int = 0) -> DockFrame:
    """Split a window of `size` pixels into toolbar, docks, status bar and viewport.

    The docks take a share of the width within bounds, so text keeps its size in wide windows
    and stays legible in small ones; where that would leave the viewport narrower than
    `MIN_VIEWPORT_SHARE` of the width (or `MIN_VIEWPORT_PX`), the docks shrink together.
    Without `panels` the viewport is the whole window and the other parts are empty.

    >>> frame = dock_frame((1280, 720))
    >>> frame.left, frame.viewport
    (Rect(left=0, top=0, width=204, height=694), Rect(left=204, top=0, width=769, height=694))
    >>> dock_frame((800, 600)).viewport.width
    480
    >>> dock_frame((1280, 720), panels=False).viewport
    Rect(left=0, top=0, width=1280, height=720)
    """
    width, height = size
    if not panels:
        empty = Rect(0, 0, 0, 0)
        return DockFrame(Rect(0, 0, width, height), empty, empty, empty, empty)
    left = _clamp(round(LEFT_SHARE * width), *LEFT_PX)
    right = _clamp(round(RIGHT_SHARE * width), *RIGHT_PX)
    spare = width - max(MIN_VIEWPORT_PX, math.ceil(MIN_VIEWPORT_SHARE * width))
    if left + right > spare:
        shrink = max(spare, 0) / (left + right)
        left, right = int(left * shrink), int(right * shrink)
    status = min(STATUS_PX, height // 4)
    toolbar = min(toolbar_px, height // 4)
    middle = height - status
    return DockFrame(
        viewport=Rect(left, toolbar, width - left - right, middle - toolbar),
        left=Rect(0, 0, left, middle),
        right=Rect(width - right, 0, right, middle),
        status=Rect(0, middle, width, status),
        toolbar=Rect(left, 0, width - left - right, toolbar),
    )


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def fit_lens(lens: Lens, aspect: float, min_fov_deg: float) -> None:
    """Give `lens` a viewport's `aspect`, seeing `min_fov_deg` across its narrower side.

    A viewport narrower than `FRAMED_ASPECT` sees as wide as one of that aspect would, and the
    more above and below: a scene framed for a window stays whole in a tall, narrow viewport.
    """
    if aspect >= FRAMED_ASPECT:
        lens.set_aspect_ratio(aspect)
        lens.set_min_fov(min_fov_deg)
        return
    half_tan = math.tan(math.radians(min_fov_deg) / 2) * FRAMED_ASPECT
    wide = math.degrees(2 * math.atan(half_tan))
    tall = math.degrees(2 * math.atan(half_tan / aspect))
    lens.set_fov(wide, tall)


class DockedLayout:
    """Keeps a window split as `dock_frame` says; the docks are `left`, `right` and `status`.

    Args:
        window: The window or offscreen buffer.
        region: The scene camera's display region (it is moved onto the viewport).
        lens: The scene camera's lens (it takes the viewport's aspect).
        aspect2d: The 2D layer the docks hang in (`base.aspect2d`).
    """

    def __init__(
        self, window: GraphicsOutput, region: DisplayRegion, lens: Lens, aspect2d: NodePath
    ) -> None:
        self._window, self._region, self._lens = window, region, lens
        # The lens's field of view across its narrower side, as the composition set it.
        self._min_fov = lens.get_min_fov()
        self._visible = True
        self._toolbar_px = 0
        self._applied: tuple[tuple[int, int], bool, int] | None = None
        self.left = Dock(aspect2d, "left-dock", min_units=LEFT_UNITS)
        self.right = Dock(aspect2d, "right-dock", min_units=RIGHT_UNITS)
        self.status = Dock(aspect2d, "status-bar", min_units=0.0)
        self.toolbar = Dock(aspect2d, "toolbar", min_units=0.0)
        # A notice that belongs to the scene (a banner) hangs from the viewport's top middle,
        # scaled down to the viewport's width when it is wider.
        self.viewport_top = aspect2d.attach_new_node("viewport-top")
        self.frame = dock_frame(self.window_size())
        self.sync()

    @property
    def visible(self) -> bool:
        """Whether the panels are shown (False: the viewport has the whole window)."""
        return self._visible

    @visible.setter
    def visible(self, shown: bool) -> None:
        self._visible = shown
        self.sync()

    def reserve_toolbar(self, height_px: int) -> Dock:
        """Give the toolbar a strip `height_px` tall across the top of the viewport."""
        self._toolbar_px = height_px
        self.sync()
        return self.toolbar

    def viewport_height(self) -> int:
        """The 3D view's height in pixels: what its lens spans (the panels take the rest)."""
        return self.frame.viewport.height

    def window_size(self) -> tuple[int, int]:
        """The window's size in pixels now."""
        return (max(self._window.get_x_size(), 1), max(self._window.get_y_size(), 1))

    def sync(self, *, force: bool = False) -> None:
        """Apply the layout if the window's size or the panels' visibility changed.

        Cheap when nothing changed, so it runs once a frame; `force` re-applies it anyway (after
        ShowBase has reset the lens for a resized window).
        """
        state = (self.window_size(), self._visible, self._toolbar_px)
        if state == self._applied and not force:
            return
        self._applied = state
        size = state[0]
        self.frame = dock_frame(size, panels=self._visible, toolbar_px=self._toolbar_px)
        viewport = self.frame.viewport
        width, height = size
        self._region.set_dimensions(
            viewport.left / width,
            viewport.right / width,
            1.0 - viewport.bottom / height,
            1.0 - viewport.top / height,
        )
        fit_lens(self._lens, max(viewport.width, 1) / max(viewport.height, 1), self._min_fov)
        for dock, rect in (
            (self.left, self.frame.left),
            (self.right, self.frame.right),
            (self.status, self.frame.status),
            (self.toolbar, self.frame.toolbar),
        ):
            dock.place(rect, size, shown=self._visible and rect.width > 0 and rect.height > 0)
        self.fit_viewport_top()

    def fit_viewport_top(self) -> None:
        """Keep `viewport_top` at the viewport's top middle, its content no wider than the view."""
        viewport, (width, height) = self.frame.viewport, self.window_size()
        middle = viewport.left + viewport.width / 2
        self.viewport_top.set_pos((2 * middle - width) / height, 0, 1 - 2 * viewport.top / height)
        self.viewport_top.set_scale(1.0)
        bounds = self.viewport_top.get_tight_bounds(self.viewport_top)
        if bounds is None:
            return
        low, high = bounds
        room = (viewport.width - 2 * VIEWPORT_MARGIN_PX) * 2 / height
        wide = high.x - low.x
        if wide > room > 0:
            self.viewport_top.set_scale(room / wide)

    def viewport_fractions(self) -> tuple[float, float, float, float]:
        """The viewport as (left, right, bottom, top), fractions of the window, y up."""
        viewport, (width, height) = self.frame.viewport, self.window_size()
        return (
            viewport.left / width,
            viewport.right / width,
            1.0 - viewport.bottom / height,
            1.0 - viewport.top / height,
        )

    def destroy(self) -> None:
        """Remove the docks and give the scene camera the whole window back."""
        for dock in (self.left, self.right, self.status, self.toolbar):
            dock.destroy()
        self.viewport_top.remove_node()
        self._region.set_dimensions(0.0, 1.0, 0.0, 1.0)
