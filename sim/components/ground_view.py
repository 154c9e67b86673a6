"""How the ground reads at any zoom: blocked cells, grid lines that fade out, Start and End labels.

`BlockedCells` shades the cells obstacles block, but for those a wall stands on whole: the
wall hides them, and a 512 x 512 map's hundred thousand quads under its walls would cost a
frame all the same.

Grid lines a few pixels apart turn into a moire (a 512 x 512 map in a 600-pixel window has one
line per pixel), so `GridLines` scales the grid's opacity by how many pixels a cell spans at
the middle of the view: full at `FADE_FULL_PX` and more, gone (not drawn) at `FADE_GONE_PX`
and less. `EndLabels` writes "Start" and "End" over their cubes, on a dark card, drawn over
the scene and scaled every frame to `LABEL_HEIGHT_PX` pixels, so they stay legible from any
distance and in the top-down view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
from numpy.typing import NDArray
from panda3d.core import NodePath, Plane, Point3, TextNode, Vec3

from sim.components.grid_manager import GridManager
from sim.config import PALETTE, Tag
from sim.engine import Component, Gizmos, World
from sim.engine.camera import Ground
from sim.engine.markers import min_world_size

BLOCKED_KEY: Final = "blocked"
BLOCK_Z: Final = 0.01
BLOCK_COLOR: Final = PALETTE.blocked
GRID_KEY: Final = "grid"
GRID_LINE_Z: Final = 0.02  # lines sit just above the ground: polygon offsets do not apply to lines
GRID_COLOR: Final = (0.12, 0.14, 0.16, 1.0)
FADE_GONE_PX: Final = 3.0
FADE_FULL_PX: Final = 10.0
LABEL_HEIGHT_PX: Final = 16.0
# In text lines, up the screen from the cube's top (End) or down from its foot (Start): never
# over the cube, and never over each other when Start and End stand close.
LABEL_LIFT: Final = {Tag.START: -1.05, Tag.END: 0.7}
LABEL_TEXT_COLOR: Final = (1.0, 1.0, 1.0, 1.0)
# Cards in darker shades of the cubes' own green and red: the label says which is which even
# where the cube is hidden, and white text reads on both.
LABEL_CARDS: Final = {Tag.START: (0.06, 0.36, 0.12, 0.9), Tag.END: (0.5, 0.05, 0.05, 0.9)}
LABEL_CARD_MARGIN: Final = (0.25, 0.25, 0.12, 0.08)  # left, right, bottom, top, in text lines
LABEL_BIN_SORT: Final = 20  # over the scene's on-top gizmos
LABELLED: Final = {Tag.START: "Start", Tag.END: "End"}


def grid_bounds(grid: GridManager) -> Ground:
    """The grid's ground rectangle ``(x0, y0, x1, y1)``, world units (what top-down frames)."""
    x0, y0 = grid.origin
    size = grid.grid_cell_size
    return (x0, y0, x0 + grid.num_of_columns * size, y0 + grid.num_of_rows * size)


def grid_line_segments(grid: GridManager) -> NDArray[np.float32]:
    """Return the grid's lines as segments `(N, 2, 3)`: one line per row and column edge.

    The columns' lines (along +y, left to right) come first, then the rows' (along +x,
    bottom to top). Filled by whole columns of the array, with no Python per line: a grid
    may have thousands of lines.
    """
    x0, y0 = grid.origin
    size = grid.grid_cell_size
    columns, rows = grid.num_of_columns, grid.num_of_rows
    x1 = x0 + columns * size
    y1 = y0 + rows * size
    segments = np.empty((columns + 1 + rows + 1, 2, 3), dtype=np.float32)
    vertical, horizontal = segments[: columns + 1], segments[columns + 1 :]
    vertical[:, :, 0] = (x0 + size * np.arange(columns + 1))[:, np.newaxis]
    vertical[:, 0, 1], vertical[:, 1, 1] = y0, y1
    horizontal[:, 0, 0], horizontal[:, 1, 0] = x0, x1
    horizontal[:, :, 1] = (y0 + size * np.arange(rows + 1))[:, np.newaxis]
    segments[:, :, 2] = GRID_LINE_Z
    return segments


def fade_alpha(cell_px: float) -> float:
    """The grid lines' opacity when one cell spans `cell_px` pixels.

    >>> fade_alpha(20.0), fade_alpha(2.0), round(fade_alpha(6.5), 2)
    (1.0, 0.0, 0.5)
    """
    return min(max((cell_px - FADE_GONE_PX) / (FADE_FULL_PX - FADE_GONE_PX), 0.0), 1.0)


class BlockedCells(Component):
    """Shades the blocked cells (`GridManager.show_obstacle_blocks` shows them) walls leave bare.

    Args:
        grid: The scene's grid.
        hidden: The `[row, col]` cells walls hide now (a new array whenever they change), or
            None: none.
    """

    def __init__(
        self, grid: GridManager, *, hidden: Callable[[], NDArray[np.bool_] | None]
    ) -> None:
        super().__init__()
        self._grid, self._hidden = grid, hidden
        self._built: tuple[int, NDArray[np.bool_] | None] | None = None
        self._quads: NDArray[np.float32] = np.empty((0, 4, 3), np.float32)

    def quads(self) -> NDArray[np.float32]:
        """The shaded cells' quads `(N, 4, 3)`, rebuilt when the grid or the walls change."""
        grid, hidden = self._grid, self._hidden()
        built = self._built
        if built is None or built[0] != grid.version or built[1] is not hidden:
            bare = ~grid.walkable if hidden is None else ~grid.walkable & ~hidden
            self._quads = grid.cell_quads(np.flatnonzero(bare), BLOCK_Z)
            self._built = (grid.version, hidden)
        return self._quads

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Draw the shaded cells (none drawn: the key hides)."""
        if self._grid.show_obstacle_blocks and len(self.quads()):
            gizmos.quads(BLOCKED_KEY, self.quads(), BLOCK_COLOR)


class GridLines(Component):
    """Draws the grid's lines (`GridManager.show_grid` shows them), fading with the cells' size.

    The lines are built once, as static lines; each frame their opacity follows the pixels a
    cell spans at the middle of the view (`fade_alpha`).
    """

    def __init__(
        self, grid: GridManager, *, camera: NodePath, window_height: Callable[[], int]
    ) -> None:
        super().__init__()
        self._grid, self._camera, self._height = grid, camera, window_height
        self.alpha = 1.0
        self._drawn = False

    def cell_px(self) -> float:
        """How many pixels a cell spans where the view's centre meets the ground (or the grid's)."""
        lens = self._camera.node().get_lens()  # type: ignore[attr-defined]
        point = self._view_centre()
        world_px = min_world_size(
            [point], camera=self._camera, lens=lens, height_px=max(self._height(), 1)
        )
        return float(self._grid.grid_cell_size / world_px[0])

    def _view_centre(self) -> tuple[float, float, float]:
        root = self._camera.get_top()
        eye = self._camera.get_pos(root)
        forward = root.get_relative_vector(self._camera, Vec3(0.0, 1.0, 0.0))
        hit = Point3()
        if forward.z < 0.0 and Plane(Vec3(0, 0, 1), Point3(0, 0, 0)).intersects_line(
            hit, eye, eye + forward
        ):
            return (hit.x, hit.y, 0.0)
        x0, y0, x1, y1 = grid_bounds(self._grid)
        return ((x0 + x1) / 2, (y0 + y1) / 2, 0.0)

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Draw the lines once; scale their opacity, and hide them where they would be a moire."""
        if not self._drawn:
            gizmos.static_lines(GRID_KEY, grid_line_segments(self._grid), GRID_COLOR)
            self._drawn = True
        self.alpha = fade_alpha(self.cell_px())
        gizmos.set_alpha_scale(GRID_KEY, self.alpha)
        gizmos.set_visible(GRID_KEY, self._grid.show_grid and self.alpha > 0.0)


class EndLabels(Component):
    """Labels every Start- and End-tagged object "Start" or "End", a fixed pixel size."""

    def __init__(
        self, *, parent: NodePath, camera: NodePath, window_height: Callable[[], int]
    ) -> None:
        super().__init__()
        self._camera, self._height = camera, window_height
        self._node = parent.attach_new_node("end-labels")
        self._node.set_light_off()
        self._node.set_depth_test(False)
        self._node.set_depth_write(False)
        self._node.set_bin("fixed", LABEL_BIN_SORT)
        self._labels: dict[int, NodePath] = {}

    @property
    def node(self) -> NodePath:
        """The node holding one label per labelled object."""
        return self._node

    def texts(self) -> list[str]:
        """The labels on screen now, in the order they were made."""
        return [
            label.get_child(0).node().get_text()  # type: ignore[attr-defined]
            for label in self._labels.values()
            if not label.is_hidden()
        ]

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Put each label over its object, scaled to `LABEL_HEIGHT_PX` pixels."""
        world = self.world
        if world is None:
            return
        lens = self._camera.node().get_lens()  # type: ignore[attr-defined]
        seen: set[int] = set()
        for tag, text in LABELLED.items():
            for obj in world.find_all_with_tag(tag):
                if not obj.alive:
                    continue
                seen.add(id(obj))
                label = self._labels.get(id(obj)) or self._make(id(obj), text, tag)
                x, y, z = obj.world_pos
                if tag == Tag.END:
                    z += abs(obj.node.get_sz(obj.node.get_top()))
                per_px = min_world_size(
                    [(x, y, z)], camera=self._camera, lens=lens, height_px=max(self._height(), 1)
                )[0]
                label.set_scale(LABEL_HEIGHT_PX * per_px)
                label.set_pos(x, y, z)
                label.show()
        for key, label in self._labels.items():
            if key not in seen:
                label.hide()

    def _make(self, key: int, text: str, tag: Tag) -> NodePath:
        node = TextNode(f"label-{text.lower()}")
        node.set_text(text)
        node.set_align(TextNode.A_center)
        node.set_text_color(*LABEL_TEXT_COLOR)
        node.set_card_color(*LABEL_CARDS[tag])
        node.set_card_as_margin(*LABEL_CARD_MARGIN)
        node.set_card_decal(True)
        # The pivot faces the camera; the text sits up the screen from it, in its own frame, so
        # seen from straight above it is beside the cube, not on it.
        label = self._node.attach_new_node(f"label-{key}")
        label.set_billboard_point_eye()
        label.attach_new_node(node).set_z(LABEL_LIFT[tag])
        self._labels[key] = label
        return label

    def on_destroy(self) -> None:
        """Remove the labels."""
        self._node.remove_node()


def add_ground_view(
    world: World, grid: GridManager, *, camera: NodePath, window_height: Callable[[], int]
) -> tuple[GridLines, EndLabels]:
    """Spawn the grid's lines and the Start and End labels."""
    lines = world.spawn("grid-lines").add_component(
        GridLines(grid, camera=camera, window_height=window_height)
    )
    labels = world.spawn("end-labels").add_component(
        EndLabels(parent=world.root, camera=camera, window_height=window_height)
    )
    return lines, labels
