"""Drag Start, End, obstacles and terrain patches across the ground; add and remove cubes.

Every input source (a real mouse, xdotool, a VirtualMouse, a test calling the handlers) goes
through the same three handlers: `on_press`, `on_move` and `on_release`, with the mouse in
Panda3D's normalised window coordinates (-1..1, +y up).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from panda3d.core import Point3

from sim.components.grid_manager import GridManager, Point
from sim.config import Tag
from sim.engine import Component, GameObject
from sim.engine.picking import Picker

DRAGGABLE_TAGS = frozenset({Tag.START, Tag.END, Tag.OBSTACLE, Tag.TERRAIN})
REMOVABLE_TAGS = frozenset({Tag.OBSTACLE})
HOVER_BRIGHTEN = (1.45, 1.45, 1.45, 1.0)
EDGE_MARGIN = 1e-3  # keeps a dropped cube's centre strictly inside the grid


class DragController(Component):
    """Moves the picked cube to the ground point under the cursor while the left button is held.

    The cube keeps the offset between its position and the point where it was grabbed, so it
    does not jump under the cursor; its centre is clamped to the grid, and with `snap` on it
    lands on cell centres. `on_drop(cube, grabbed_at)` is called after a drag ends, with where
    the cube stood when it was grabbed (for undo); `add_obstacle(x, y)` makes a new obstacle
    cube (shift+click on empty ground).

    `dragged` is the one fact of whether a drag is in progress: the app hands `in_progress` to
    whatever follows the scene (`ReplanGate`), which holds its work back during a drag and
    catches up on the drop.
    """

    def __init__(
        self,
        picker: Picker,
        grid: GridManager,
        *,
        add_obstacle: Callable[[float, float], GameObject],
        on_drop: Callable[[GameObject, Point], None],
    ) -> None:
        super().__init__()
        self._picker = picker
        self._grid = grid
        self._add_obstacle = add_obstacle
        self._on_drop = on_drop
        self.snap = False
        self.hovered: GameObject | None = None
        self.dragged: GameObject | None = None
        # What the last hover pick saw (`Picker.sight` and the grid's mask): None casts anew.
        self._sight: tuple[object, ...] | None = None
        self._grab_offset = (0.0, 0.0)
        self._grabbed_at: Point = (0.0, 0.0)

    @property
    def in_progress(self) -> bool:
        """Whether a cube is being dragged now."""
        return self.dragged is not None

    def on_press(self, mouse: tuple[float, float], *, shift: bool = False) -> None:
        """Left button down: grab the cube under the cursor, or add one with shift on ground."""
        self._sight = None
        hit = self._picker.pick(mouse)
        if hit is not None and hit.tag in DRAGGABLE_TAGS:
            ground = self._picker.ground_point(mouse)
            if ground is not None:
                x, y = hit.xy
                self._grab_offset = (x - ground.x, y - ground.y)
            else:
                self._grab_offset = (0.0, 0.0)
            self.dragged = hit
            self._grabbed_at = hit.xy
            self._set_hover(hit)
            return
        if shift:
            ground = self._picker.ground_point(mouse)
            if ground is not None and self._grid.world_to_cell(ground.x, ground.y) is not None:
                cell = self._grid.clamped_cell((ground.x, ground.y))
                self._add_obstacle(*self._grid.cell_to_world(cell))

    def on_move(self, mouse: tuple[float, float]) -> None:
        """The cursor moved (or a frame passed): drag the held cube, or update the hover.

        The hover casts again only when the pointer, the camera or the grid's obstacles moved:
        an object moving by itself under a still pointer is hovered once the pointer moves.
        """
        if self.dragged is None:
            sight = (*self._picker.sight(mouse), self._grid.mask_version)
            if sight == self._sight:
                return
            self._sight = sight
            hit = self._picker.pick(mouse)
            self._set_hover(hit if hit is not None and hit.tag in DRAGGABLE_TAGS else None)
            return
        if not self.dragged.alive:
            self.dragged = None
            return
        ground = self._picker.ground_point(mouse)
        if ground is not None:
            x, y = self._placed(ground)
            self.dragged.node.set_x(x)
            self.dragged.node.set_y(y)

    def on_release(self, mouse: tuple[float, float] | None) -> None:
        """Left button up: drop the held cube where the cursor is (None: where it already is)."""
        if self.dragged is None:
            return
        if mouse is not None:
            self.on_move(mouse)
        dropped, self.dragged = self.dragged, None
        self._sight = None
        if dropped.alive:
            self._on_drop(dropped, self._grabbed_at)

    def cancel(self) -> GameObject | None:
        """Put the held cube back where it was grabbed, with no drop (a click); return it."""
        held, self.dragged = self.dragged, None
        if held is not None and held.alive:
            held.node.set_x(self._grabbed_at[0])
            held.node.set_y(self._grabbed_at[1])
        return held

    def removable_hovered(self) -> GameObject | None:
        """The obstacle under the cursor, unhighlighted, for removal; None for Start, End, none.

        The cube being dragged is never removable.
        """
        target = self.hovered
        if target is None or target.tag not in REMOVABLE_TAGS or target is self.dragged:
            return None
        self._set_hover(None)
        self._sight = None
        return target

    def forget(self, obj: GameObject) -> None:
        """`obj` is leaving the scene: no longer hovered or held (its highlight is cleared)."""
        self._sight = None
        if self.hovered is obj:
            self._set_hover(None)
        if self.dragged is obj:
            self.dragged = None

    def _placed(self, ground: Point3) -> Point:
        x = ground.x + self._grab_offset[0]
        y = ground.y + self._grab_offset[1]
        grid = self._grid
        x0, y0 = grid.origin
        x1 = x0 + grid.num_of_columns * grid.grid_cell_size
        y1 = y0 + grid.num_of_rows * grid.grid_cell_size
        x = min(max(x, x0 + EDGE_MARGIN), x1 - EDGE_MARGIN)
        y = min(max(y, y0 + EDGE_MARGIN), y1 - EDGE_MARGIN)
        if self.snap:
            return grid.cell_to_world(grid.clamped_cell((x, y)))
        return (x, y)

    def _set_hover(self, target: GameObject | None) -> None:
        if target is self.hovered:
            return
        if self.hovered is not None and self.hovered.alive:
            self.hovered.node.clear_color_scale()
        self.hovered = target
        if target is not None:
            target.node.set_color_scale(*HOVER_BRIGHTEN)

    def on_destroy(self) -> None:
        """Leave no highlight behind."""
        self._set_hover(None)


def unique_name(prefix: str, taken: Iterable[str]) -> str:
    """The first of `prefix-1`, `prefix-2`, ... not in `taken`.

    >>> unique_name("obstacle", ["obstacle-1", "wall"])
    'obstacle-2'
    """
    used = set(taken)
    number = 1
    while f"{prefix}-{number}" in used:
        number += 1
    return f"{prefix}-{number}"
