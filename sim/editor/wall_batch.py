"""Many standing cubes drawn as one mesh: a 512 x 512 map's ten thousand boxes at full frame rate.

Each obstacle is its own node, so that picking, dragging, undo and saving see it; but a renderer
pays for every node it draws, and a Moving AI map holds thousands of boxes (8room_000: 9,614).
From `BATCH_MIN` standing cubes on, `WallBatch` hides their own models (rays still hit them:
collisions ignore what is hidden) and draws them all as one Geom of coloured boxes, rebuilt
whenever the grid's mask changes. What moves stays itself: obstacles that move by themselves,
and the cube being dragged, which leaves the batch for the drag and rejoins it on the drop.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import numpy as np
from numpy.typing import NDArray
from panda3d.core import (
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    InternalName,
    NodePath,
)

from sim.components.grid_manager import GridManager
from sim.config import Tag
from sim.engine import Component, GameObject, Gizmos, World

if TYPE_CHECKING:
    from sim.editor.drag import DragController
    from sim.editor.paint import PaintTool

BATCH_MIN: Final = 256
"""Standing cubes from which they are drawn as one mesh (fewer draw as themselves)."""
# The unit cube of models/cube.egg: x, y in [-0.5, 0.5], z in [0, 1]; per face its outward
# normal and its corners, counter-clockwise seen from outside.
_FACES: Final = (
    ((0, 0, -1), ((-0.5, -0.5, 0), (-0.5, 0.5, 0), (0.5, 0.5, 0), (0.5, -0.5, 0))),
    ((0, 0, 1), ((-0.5, -0.5, 1), (0.5, -0.5, 1), (0.5, 0.5, 1), (-0.5, 0.5, 1))),
    ((0, -1, 0), ((-0.5, -0.5, 0), (0.5, -0.5, 0), (0.5, -0.5, 1), (-0.5, -0.5, 1))),
    ((1, 0, 0), ((0.5, -0.5, 0), (0.5, 0.5, 0), (0.5, 0.5, 1), (0.5, -0.5, 1))),
    ((0, 1, 0), ((0.5, 0.5, 0), (-0.5, 0.5, 0), (-0.5, 0.5, 1), (0.5, 0.5, 1))),
    ((-1, 0, 0), ((-0.5, 0.5, 0), (-0.5, -0.5, 0), (-0.5, -0.5, 1), (-0.5, 0.5, 1))),
)
_CORNERS: Final = np.array([corner for _n, corners in _FACES for corner in corners], np.float64)
_NORMALS: Final = np.repeat(np.array([n for n, _c in _FACES], np.float64), 4, axis=0)
_TRIANGLES: Final = np.array(
    [[4 * f, 4 * f + 1, 4 * f + 2, 4 * f, 4 * f + 2, 4 * f + 3] for f in range(6)], np.uint32
).ravel()


class WallBatch(Component):
    """Draws the standing cubes (`standing(obj)`) as one mesh once there are `BATCH_MIN`.

    Args:
        grid: The scene's grid: a new `mask_version` means an obstacle changed, so a rebuild.
        parent: Where the mesh hangs (the scene root).
        standing: Whether an object is a cube that stays put (not moving by itself).
        dragged: The object being dragged now, if any.
        busy: Whether a paint stroke is under way: the mesh is rebuilt once, when it ends (the
            stroke's new walls show as themselves meanwhile).
    """

    def __init__(
        self,
        grid: GridManager,
        *,
        parent: NodePath,
        standing: Callable[[GameObject], bool],
        dragged: Callable[[], GameObject | None],
        busy: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__()
        self._grid, self._standing, self._dragged, self._busy = grid, standing, dragged, busy
        self._node = parent.attach_new_node(GeomNode("wall-batch"))
        # What the mesh was built for: the mask version, how many obstacles, the dragged one.
        self._built: tuple[int, int, int | None] | None = None
        self._members: list[GameObject] = []
        self.rebuilds = 0

    @property
    def node(self) -> NodePath[GeomNode]:
        """The mesh's node."""
        return self._node

    @property
    def size(self) -> int:
        """How many cubes the mesh draws now (0 below `BATCH_MIN`)."""
        return len(self._members)

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Rebuild the mesh when an obstacle changed, came or went, or a drag began or ended.

        During a drag only the dragged cube moves: the mesh built without it at the drag's
        start stands until the drop.
        """
        world = self.world
        if world is None or self._busy():
            return
        dragged = self._dragged()
        if dragged is not None and self._built is not None and self._built[2] == id(dragged):
            return
        obstacles = world.find_all_with_tag(Tag.OBSTACLE)
        key = (self._grid.mask_version, len(obstacles), None if dragged is None else id(dragged))
        if key == self._built:
            return
        self._built = key
        cubes = [
            obj for obj in obstacles if obj.alive and obj is not dragged and self._standing(obj)
        ]
        if len(cubes) < BATCH_MIN:
            cubes = []
        for obj in self._members:
            if obj.alive:
                obj.node.show()
        self._members = cubes
        for obj in cubes:
            obj.node.hide()
        self._rebuild(cubes)

    def _rebuild(self, cubes: list[GameObject]) -> None:
        geom_node = self._node.node()
        geom_node.remove_all_geoms()
        self.rebuilds += 1
        if not cubes:
            return
        count = len(cubes)
        placed = np.empty((count, 8))  # x, y, z, scale x, y, z, heading (rad), unused
        colors = np.empty((count, 4), np.float32)
        for index, obj in enumerate(cubes):
            node = obj.node
            root = node.get_top()
            x, y, z = obj.world_pos
            scale = node.get_scale(root)
            placed[index, :7] = (x, y, z, scale.x, scale.y, scale.z, math.radians(node.get_h(root)))
            colors[index] = tuple(node.get_color())
        geom_node.add_geom(_boxes_geom(placed, colors))

    def on_destroy(self) -> None:
        """Give the cubes their own models back and drop the mesh."""
        for obj in self._members:
            if obj.alive:
                obj.node.show()
        self._node.remove_node()


def _boxes_geom(placed: NDArray[np.float64], colors: NDArray[np.float32]) -> Geom:
    """One Geom of `len(placed)` boxes (24 vertices, 12 triangles each), filled by numpy."""
    count = len(placed)
    cos, sin = np.cos(placed[:, 6])[:, None], np.sin(placed[:, 6])[:, None]
    local = _CORNERS[None, :, :] * placed[:, None, 3:6]
    xyz = np.empty((count, 24, 3))
    xyz[..., 0] = placed[:, None, 0] + local[..., 0] * cos - local[..., 1] * sin
    xyz[..., 1] = placed[:, None, 1] + local[..., 0] * sin + local[..., 1] * cos
    xyz[..., 2] = placed[:, None, 2] + local[..., 2]
    normals = np.empty((count, 24, 3))
    normals[..., 0] = _NORMALS[None, :, 0] * cos - _NORMALS[None, :, 1] * sin
    normals[..., 1] = _NORMALS[None, :, 0] * sin + _NORMALS[None, :, 1] * cos
    normals[..., 2] = _NORMALS[None, :, 2]
    rows = np.empty((count, 24, 10), np.float32)  # as `_format`: position, normal, colour
    rows[..., 0:3] = xyz
    rows[..., 3:6] = normals
    rows[..., 6:10] = colors[:, None, :]
    vdata = GeomVertexData("walls", _format(), Geom.UH_static)
    vdata.unclean_set_num_rows(count * 24)
    view = memoryview(vdata.modify_array(0))  # type: ignore[arg-type]
    np.frombuffer(view, dtype=np.float32)[:] = rows.ravel()
    triangles = GeomTriangles(Geom.UH_static)
    triangles.set_index_type(Geom.NT_uint32)
    indices = (_TRIANGLES[None, :] + 24 * np.arange(count, dtype=np.uint32)[:, None]).ravel()
    handle = triangles.modify_vertices()
    handle.unclean_set_num_rows(indices.size)
    np.frombuffer(memoryview(handle), dtype=np.uint32)[:] = indices  # type: ignore[arg-type]
    geom = Geom(vdata)
    geom.add_primitive(triangles)
    return geom


def _format() -> GeomVertexFormat:
    """Position, normal and colour, all float32, in one array (numpy fills it in one go)."""
    array = GeomVertexArrayFormat()
    array.add_column(InternalName.get_vertex(), 3, Geom.NT_float32, Geom.C_point)
    array.add_column(InternalName.get_normal(), 3, Geom.NT_float32, Geom.C_normal)
    array.add_column(InternalName.get_color(), 4, Geom.NT_float32, Geom.C_color)
    return GeomVertexFormat.register_format(GeomVertexFormat(array))


def add_wall_batch(
    world: World, grid: GridManager, *, paint: PaintTool, drag: DragController
) -> WallBatch:
    """Spawn the batch of the cubes `paint` counts as standing, the one `drag` holds apart.

    The grid stops looking at those cubes every frame too (`GridManager.settled`): the editor
    syncs it after each edit, and the cube being dragged is watched while it moves.
    """
    grid.settled = paint.standing_cube
    grid.watched = lambda: () if drag.dragged is None else (drag.dragged,)
    return world.spawn("wall-batch").add_component(
        WallBatch(
            grid,
            parent=world.root,
            standing=paint.standing_cube,
            dragged=lambda: drag.dragged,
            busy=lambda: paint.stroking,
        )
    )
