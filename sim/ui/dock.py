"""A dock: one strip of the window beside the viewport, on an opaque backdrop.

Its content is laid out in its own units, top-left anchored: x runs right from 0 to `width`, y
up, so content hangs below 0 down to `-height`. Those are aspect2d units (2 to the window's
height), scaled down only when the dock is narrower than its content needs (`min_units`), so
text keeps its size in every window that has room for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from direct.gui.DirectGui import DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import NodePath, TextNode

# Darker than the scene's background and the ground, and opaque: text on it reads the same
# whatever the camera shows beside it.
BACKDROP_COLOR = (0.075, 0.085, 0.105, 1.0)
EDGE_COLOR = (0.26, 0.29, 0.35, 1.0)
HINT_COLOR = (0.62, 0.66, 0.72, 1.0)
EDGE_UNITS = 0.004  # the line between a dock and the viewport


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle of the window in pixels, origin top-left, y down."""

    left: int
    top: int
    width: int
    height: int

    @property
    def right(self) -> int:
        """One past the last column."""
        return self.left + self.width

    @property
    def bottom(self) -> int:
        """One past the last row."""
        return self.top + self.height

    def contains(self, x: float, y: float) -> bool:
        """Whether pixel `(x, y)` lies inside."""
        return self.left <= x < self.right and self.top <= y < self.bottom


class Dock:
    """A strip of the window with a backdrop and anchors for the widgets placed in it.

    Anchors (children of the dock, so they move and hide with it): `top_left` (the dock's own
    origin), `top_right` for widgets built right-aligned, `bottom_left` for widgets that grow
    upward. Widgets that re-lay themselves out on a resize register with `on_resize`.

    Args:
        aspect2d: The 2D layer (`base.aspect2d`).
        name: The dock's node name.
        min_units: The width its content needs, aspect2d units; narrower docks scale it down.
    """

    def __init__(self, aspect2d: NodePath, name: str, *, min_units: float) -> None:
        self._min_units = min_units
        self.root = aspect2d.attach_new_node(name)
        # A DirectFrame, not a bare card: it takes the clicks that land on the dock, so a click
        # beside a panel's buttons never reaches the scene editor under it.
        self._backdrop = DirectFrame(parent=self.root, frameColor=BACKDROP_COLOR)
        self._edge = DirectFrame(parent=self.root, frameColor=EDGE_COLOR, state="disabled")
        self.top_left = self.root.attach_new_node(f"{name}-top-left")
        self.top_right = self.root.attach_new_node(f"{name}-top-right")
        self.bottom_left = self.root.attach_new_node(f"{name}-bottom-left")
        self.width = 0.0
        self.height = 0.0
        self.scale = 1.0
        self._listeners: list[Callable[[float, float], None]] = []

    def on_resize(self, listener: Callable[[float, float], None]) -> None:
        """Call `listener(width, height)` now and whenever the dock's size changes."""
        self._listeners.append(listener)
        listener(self.width, self.height)

    @property
    def shown(self) -> bool:
        """Whether the dock is drawn."""
        return not self.root.is_hidden()

    def place(self, rect: Rect, window: tuple[int, int], *, shown: bool) -> None:
        """Put the dock on `rect`, pixels of a window `window` pixels big; hidden unless `shown`."""
        if not shown:
            self.root.hide()
            return
        self.root.show()
        width_px, height_px = window
        units_per_px = 2.0 / height_px
        units_wide = rect.width * units_per_px
        scale = 1.0 if self._min_units <= 0 else min(1.0, units_wide / self._min_units)
        size = (units_wide / scale, rect.height * units_per_px / scale)
        # aspect2d: x from -width/height to +width/height, y from -1 to 1, y up.
        self.root.set_pos((2 * rect.left - width_px) / height_px, 0, 1 - 2 * rect.top / height_px)
        self.root.set_scale(scale)
        width, height = size
        self._backdrop["frameSize"] = (0.0, width, -height, 0.0)
        self._edge["frameSize"] = self._edge_frame(rect, window, width, height, scale)
        self.top_right.set_x(width)
        self.bottom_left.set_z(-height)
        changed = (width, height) != (self.width, self.height)
        self.width, self.height, self.scale = width, height, scale
        if changed:
            for listener in self._listeners:
                listener(width, height)

    def _edge_frame(
        self, rect: Rect, window: tuple[int, int], width: float, height: float, scale: float
    ) -> tuple[float, float, float, float]:
        """The edge line on the dock's side that faces the viewport."""
        edge = EDGE_UNITS / scale
        if rect.left == 0 and rect.width < window[0]:  # the left dock: its right side
            return (width - edge, width, -height, 0.0)
        if rect.right >= window[0] and rect.left > 0:  # the right dock: its left side
            return (0.0, edge, -height, 0.0)
        if rect.top > 0:  # the status bar: its top
            return (0.0, width, -edge, 0.0)
        return (0.0, width, -height, -height + edge)  # the toolbar: its bottom

    def destroy(self) -> None:
        """Remove the dock and everything placed in it."""
        self._listeners.clear()
        self._backdrop.destroy()
        self._edge.destroy()
        self.root.remove_node()


class Stack:
    """Panels one under another in a dock, each as tall as it says, with a hint when all are empty.

    Each panel hangs from its own slot node (`add`); `arrange`, once a frame, moves every slot
    under the panels shown above it, so panels opened together never overlap.

    Args:
        dock: The dock the panels sit in.
        hint: What the dock says while no panel in it is shown ("" for nothing).
        hint_scale: The hint's text height, the dock's units.
        foot: How much of the dock's foot is taken by what stands there (legends), the dock's
            units, now; the panels fit in what is left.
    """

    GAP = 0.03  # between two shown panels, the dock's units

    def __init__(
        self,
        dock: Dock,
        *,
        hint: str = "",
        hint_scale: float = 0.032,
        foot: Callable[[], float] = lambda: 0.0,
    ) -> None:
        self._dock, self._hint_scale, self._foot = dock, hint_scale, foot
        self._slots: list[tuple[NodePath, Callable[[], float], float]] = []
        self._hint = OnscreenText(
            parent=dock.top_left,
            text=hint,
            pos=(0.04, -0.08),
            scale=hint_scale,
            fg=HINT_COLOR,
            align=TextNode.A_left,
            mayChange=True,
        )
        dock.on_resize(self._wrap_hint)

    @property
    def hinting(self) -> bool:
        """Whether the hint shows now (no panel in the dock is shown)."""
        return not self._hint.is_hidden()

    def add(
        self,
        height: Callable[[], float],
        *,
        right_aligned: bool = False,
        width: float | None = None,
    ) -> NodePath:
        """A slot for a panel `height()` tall now (0 while hidden); the node to hang it from.

        `right_aligned`: the slot hangs from the dock's top-right corner, for panels laid out
        leftward from x = 0. `width`: how wide the panel was laid out (the dock's width then,
        by default); should the window shrink the dock below it, the panel shrinks to fit.
        """
        anchor = self._dock.top_right if right_aligned else self._dock.top_left
        slot = anchor.attach_new_node(f"slot-{len(self._slots)}")
        self._slots.append((slot, height, self._dock.width if width is None else width))
        return slot

    def arrange(self) -> None:
        """Move each slot under the panels shown above it; show the hint if none is.

        Panels taller together than the dock are all scaled down alike until they fit, so
        none runs off its foot.
        """
        tops, top = [], 0.0
        for _, height, _ in self._slots:
            tops.append(top)
            tall = height()
            if tall > 0:
                top += tall + self.GAP
        room = self._dock.height - self._foot()
        fit = min(1.0, max(room, 0.0) / top) if top > 0 else 1.0
        for (slot, _, wide), slot_top in zip(self._slots, tops, strict=True):
            slot.set_z(-slot_top * fit)
            slot.set_scale(min(fit, self._dock.width / wide) if wide > 0 else fit)
        if top > 0:
            self._hint.hide()
        else:
            self._hint.show()

    def _wrap_hint(self, width: float, height: float) -> None:
        self._hint.textNode.set_wordwrap(max(width - 0.08, 0.1) / self._hint_scale)

    def destroy(self) -> None:
        """Remove the hint and the slots (the panels in them are their owners' to destroy)."""
        self._hint.destroy()
        for slot, _, _ in self._slots:
            slot.remove_node()
