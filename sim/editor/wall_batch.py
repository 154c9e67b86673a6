"""Many standing cubes drawn as a few static meshes: a 512 x 512 map's boxes at full frame rate.

Each obstacle is its own node, so that picking, dragging, undo and saving see it; but a renderer
pays for every node it walks, and a Moving AI map holds thousands of boxes (8room_000: 9,614;
maze512-1-0: 39,764). From `BATCH_MIN` standing cubes on, `WallBatch` moves them under one
hidden node (the renderer skips the lot at that node; rays still hit them: collisions ignore
what is hidden) and draws them instead as static meshes, one per `TILE_CELLS`-square tile of
the grid so that a zoomed-in view culls the rest: cubes square on the cells as merged walls
(`sim.editor.wall_mesh`), any other cube as its box without the bottom. The meshes are rebuilt
whenever the grid's mask changes. What moves stays itself: obstacles that move by themselves,
and the cube being dragged, which leaves the batch for the drag and rejoins it on the drop.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np
from numpy.typing import NDArray
from panda3d.core import (
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    GeomVertexWriter,
    InternalName,
    LODNode,
    NodePath,
    Point3,
    RenderState,
    SamplerState,
    Texture,
    TextureAttrib,
    TransparencyAttrib,
)

from sim.components.grid_manager import GridManager
from sim.components.ground_view import BlockedCells
from sim.config import Tag
from sim.editor.wall_mesh import CellFrame, cell_rectangles, covered_mask, wall_quads
from sim.engine import Component, GameObject, Gizmos, World
from sim.engine.world import detach_all

if TYPE_CHECKING:
    from sim.editor.drag import DragController
    from sim.editor.paint import PaintTool

BATCH_MIN: Final = 256
"""Standing cubes from which they are drawn as one mesh (fewer draw as themselves)."""
TILE_CELLS: Final = 64
"""A tile's side in cells: 64 tiles for a 512 x 512 map, each culled as a whole."""
FULL_DETAIL_CELLS: Final = 160.0
"""Cells from a tile's centre within which the camera sees its walls whole (sides and tops).

Farther, a cell spans under about 5 pixels of a 768-pixel view (the 50-degree lens): the
sides are slivers, and the tops alone, one textured quad per tile, stand in for the walls.
"""
# The unit cube of models/cube.egg without its bottom (it stands on the ground): x, y in
# [-0.5, 0.5], z in [0, 1]; per face its outward normal and its corners, counter-clockwise
# seen from outside.
_FACES: Final = (
    ((0, 0, 1), ((-0.5, -0.5, 1), (0.5, -0.5, 1), (0.5, 0.5, 1), (-0.5, 0.5, 1))),
    ((0, -1, 0), ((-0.5, -0.5, 0), (0.5, -0.5, 0), (0.5, -0.5, 1), (-0.5, -0.5, 1))),
    ((1, 0, 0), ((0.5, -0.5, 0), (0.5, 0.5, 0), (0.5, 0.5, 1), (0.5, -0.5, 1))),
    ((0, 1, 0), ((0.5, 0.5, 0), (-0.5, 0.5, 0), (-0.5, 0.5, 1), (0.5, 0.5, 1))),
    ((-1, 0, 0), ((-0.5, 0.5, 0), (-0.5, -0.5, 0), (-0.5, -0.5, 1), (-0.5, 0.5, 1))),
)
_CORNERS: Final = np.array([corner for _n, corners in _FACES for corner in corners], np.float64)
_NORMALS: Final = np.array([n for n, _c in _FACES], np.float64)
_QUAD_TRIANGLES: Final = np.array([0, 1, 2, 0, 2, 3], np.uint32)
_TILE_UV: Final = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))


@dataclass(frozen=True, slots=True)
class _Solid:
    """Walls of one height and colour on whole cells: where, from `z0` to `z1`, what colour."""

    cells: NDArray[np.bool_]
    z0: float
    z1: float
    color: NDArray[np.float64]


class WallBatch(Component):
    """Draws the standing cubes (`standing(obj)`) as static meshes once there are `BATCH_MIN`.

    Args:
        grid: The scene's grid: a new `mask_version` means an obstacle changed, so a rebuild.
        parent: Where the meshes hang, and where the cubes' own nodes hang (the scene root).
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
        self._parent = parent
        self._node = parent.attach_new_node("wall-batch")
        # One hidden parent for the batched cubes' own nodes: the cull traversal stops here
        # instead of visiting (and skipping) each of ten thousand hidden siblings every frame.
        self._held = parent.attach_new_node("wall-batch-cubes")
        self._held.hide()
        # What the mesh was built for: the mask version, how many obstacles, the dragged one.
        self._built: tuple[int, int, int | None] | None = None
        self._members: list[GameObject] = []
        self._covered: NDArray[np.bool_] | None = None
        self.rebuilds = 0

    @property
    def node(self) -> NodePath:
        """The node holding the meshes, one GeomNode per tile."""
        return self._node

    @property
    def held(self) -> NodePath:
        """The hidden node the batched cubes' own nodes hang under."""
        return self._held

    @property
    def size(self) -> int:
        """How many cubes the mesh draws now (0 below `BATCH_MIN`)."""
        return len(self._members)

    def covered(self) -> NDArray[np.bool_] | None:
        """`[row, col]` cells the walls stand on whole (a new array per rebuild), or None."""
        return self._covered

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
        # Counters, not the list: copying ten thousand obstacles each frame costs a millisecond.
        key = (
            self._grid.mask_version,
            world.tag_version(Tag.OBSTACLE),
            None if dragged is None else id(dragged),
        )
        if key == self._built:
            return
        self._built = key
        obstacles = world.find_all_with_tag(Tag.OBSTACLE)
        cubes = [
            obj for obj in obstacles if obj.alive and obj is not dragged and self._standing(obj)
        ]
        if len(cubes) < BATCH_MIN:
            cubes = []
        self._regroup(cubes)
        self._rebuild(cubes)

    def _regroup(self, cubes: list[GameObject]) -> None:
        """Move the cubes that join under the hidden node, and those that leave back out."""
        joining = {id(obj) for obj in cubes}
        staying = {id(obj) for obj in self._members}
        leaving = [obj for obj in self._members if obj.alive and id(obj) not in joining]
        joined = [obj for obj in cubes if id(obj) not in staying]
        # In bulk: one by one, each detach searches its parent's ten thousand children.
        detach_all([obj.node for obj in leaving + joined])
        for obj in leaving:
            obj.node.reparent_to(self._parent)
        for obj in joined:
            obj.node.reparent_to(self._held)
        self._members = cubes

    def _rebuild(self, cubes: list[GameObject]) -> None:
        self._node.node().remove_all_children()
        self._covered = None
        self.rebuilds += 1
        if not cubes:
            return
        count = len(cubes)
        placed = np.empty((count, 7))  # x, y, z, scale x, y, z, heading (rad)
        colors = np.empty((count, 4), np.float32)
        for index, obj in enumerate(cubes):
            node = obj.node
            root = node.get_top()
            x, y, z = obj.world_pos
            scale = node.get_scale(root)
            placed[index] = (x, y, z, scale.x, scale.y, scale.z, math.radians(node.get_h(root)))
            colors[index] = tuple(node.get_color())
        grid = self._grid
        frame = CellFrame(grid.origin, grid.grid_cell_size, grid.num_of_rows, grid.num_of_columns)
        on, cells = cell_rectangles(placed, frame)
        covered = np.zeros((frame.rows, frame.columns), bool)
        # Boxes square on the cells, of one height and colour, are one solid of merged walls.
        keys = np.column_stack([placed[on][:, [2, 5]], colors[on]]).round(6)
        groups, which = np.unique(keys, axis=0, return_inverse=True)
        solids = []
        for index, group in enumerate(groups):
            solid = covered_mask(cells[on][which.ravel() == index], frame.rows, frame.columns)
            if group[0] <= 0.0 < group[1]:
                covered |= solid
            solids.append(_Solid(solid, group[0], group[0] + group[1], group[2:6]))
        self._covered = covered
        self._add_tiles(frame, solids)
        if not on.all():
            quads, outward = _box_quads(placed[~on])
            loose = GeomNode("walls-loose")
            loose.add_geom(_quads_geom(quads, outward, np.repeat(colors[~on], len(_FACES), 0)))
            self._node.attach_new_node(loose)

    def _add_tiles(self, frame: CellFrame, solids: list[_Solid]) -> None:
        """Per tile, a LODNode: the walls' quads near by, their tops as textures far away."""
        near: dict[tuple[int, int], list[tuple[NDArray[Any], ...]]] = {}
        across = -(-frame.columns // TILE_CELLS)
        for solid in solids:
            corners, normals, cells = wall_quads(
                solid.cells, frame, solid.z0, solid.z1, tile=TILE_CELLS
            )
            colors = np.broadcast_to(solid.color.astype(np.float32), (len(corners), 4))
            tile_of = (cells[:, 0] // TILE_CELLS) * across + cells[:, 1] // TILE_CELLS
            order = np.argsort(tile_of, kind="stable")
            tiles, firsts = np.unique(tile_of[order], return_index=True)
            bounds = np.append(firsts, order.size)
            for number, tile_id in enumerate(tiles):
                part = order[bounds[number] : bounds[number + 1]]
                key = divmod(int(tile_id), across)
                near.setdefault(key, []).append((corners[part], normals[part], colors[part]))
        for (tile_row, tile_column), pieces in sorted(near.items()):
            rows = slice(tile_row * TILE_CELLS, (tile_row + 1) * TILE_CELLS)
            columns = slice(tile_column * TILE_CELLS, (tile_column + 1) * TILE_CELLS)
            lod = LODNode(f"walls-{tile_row}-{tile_column}")
            tile = self._node.attach_new_node(lod)
            full = GeomNode("near")
            full.add_geom(
                _quads_geom(*(np.concatenate(part) for part in zip(*pieces, strict=True)))
            )
            tile.attach_new_node(full)
            lod.add_switch(FULL_DETAIL_CELLS * frame.size, 0.0)
            far = tile.attach_new_node("far")
            for solid in solids:
                tops = solid.cells[rows, columns]
                if tops.any():
                    far.attach_new_node(_tops_node(tops, frame, rows, columns, solid))
            lod.add_switch(math.inf, FULL_DETAIL_CELLS * frame.size)
            x0 = frame.origin[0] + (columns.start + TILE_CELLS / 2) * frame.size
            y0 = frame.origin[1] + (rows.start + TILE_CELLS / 2) * frame.size
            lod.set_center(Point3(x0, y0, 0.0))

    def on_destroy(self) -> None:
        """Give the cubes their own nodes back and drop the meshes."""
        self._regroup([])
        self._held.remove_node()
        self._node.remove_node()


def _box_quads(placed: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each placed box's five faces as quads `(5 N, 4, 3)` and their normals `(5 N, 3)`."""
    count = len(placed)
    cos, sin = np.cos(placed[:, 6])[:, None], np.sin(placed[:, 6])[:, None]
    local = _CORNERS[None, :, :] * placed[:, None, 3:6]
    xyz = np.empty((count, len(_CORNERS), 3))
    xyz[..., 0] = placed[:, None, 0] + local[..., 0] * cos - local[..., 1] * sin
    xyz[..., 1] = placed[:, None, 1] + local[..., 0] * sin + local[..., 1] * cos
    xyz[..., 2] = placed[:, None, 2] + local[..., 2]
    normals = np.empty((count, len(_NORMALS), 3))
    normals[..., 0] = _NORMALS[None, :, 0] * cos - _NORMALS[None, :, 1] * sin
    normals[..., 1] = _NORMALS[None, :, 0] * sin + _NORMALS[None, :, 1] * cos
    normals[..., 2] = _NORMALS[None, :, 2]
    return xyz.reshape(-1, 4, 3), normals.reshape(-1, 3)


def _quads_geom(
    corners: NDArray[np.float64], normals: NDArray[np.float64], colors: NDArray[np.float32]
) -> Geom:
    """One static Geom of `len(corners)` flat quads (4 vertices, 2 triangles each), by numpy."""
    count = len(corners)
    rows = np.empty((count, 4, 10), np.float32)  # as `_format`: position, normal, colour
    rows[..., 0:3] = corners
    rows[..., 3:6] = normals[:, None, :]
    rows[..., 6:10] = colors[:, None, :]
    vdata = GeomVertexData("walls", _format(), Geom.UH_static)
    vdata.unclean_set_num_rows(count * 4)
    view = memoryview(vdata.modify_array(0))  # type: ignore[arg-type]
    np.frombuffer(view, dtype=np.float32)[:] = rows.ravel()
    triangles = GeomTriangles(Geom.UH_static)
    triangles.set_index_type(Geom.NT_uint32)
    indices = (_QUAD_TRIANGLES[None, :] + 4 * np.arange(count, dtype=np.uint32)[:, None]).ravel()
    handle = triangles.modify_vertices()
    handle.unclean_set_num_rows(indices.size)
    np.frombuffer(memoryview(handle), dtype=np.uint32)[:] = indices  # type: ignore[arg-type]
    geom = Geom(vdata)
    geom.add_primitive(triangles)
    return geom


def _tops_node(
    tops: NDArray[np.bool_], frame: CellFrame, rows: slice, columns: slice, solid: _Solid
) -> GeomNode:
    """One quad over a tile at the walls' top height, textured with which cells are walls.

    The texture is white where a wall stands and clear elsewhere, one texel a cell; the quad's
    vertex colour is the walls', so it is lit as their tops are. Mipmaps fade thin walls out
    gradually where a cell spans under a pixel, instead of a moire.
    """
    height, width = tops.shape
    texels = np.zeros((height, width, 4), np.uint8)
    texels[tops] = 255
    texture = Texture("wall-tops")
    texture.setup_2d_texture(width, height, Texture.T_unsigned_byte, Texture.F_rgba8)
    texture.set_ram_image(texels.tobytes())
    texture.set_magfilter(SamplerState.FT_nearest)
    texture.set_minfilter(SamplerState.FT_linear_mipmap_linear)
    texture.set_wrap_u(SamplerState.WM_clamp)
    texture.set_wrap_v(SamplerState.WM_clamp)
    vdata = GeomVertexData("wall-tops", GeomVertexFormat.get_v3n3c4t2(), Geom.UH_static)
    vertex, normal = GeomVertexWriter(vdata, "vertex"), GeomVertexWriter(vdata, "normal")
    color, uv = GeomVertexWriter(vdata, "color"), GeomVertexWriter(vdata, "texcoord")
    x0 = frame.origin[0] + columns.start * frame.size
    y0 = frame.origin[1] + rows.start * frame.size
    x1, y1 = x0 + width * frame.size, y0 + height * frame.size
    for (x, y), (u, v) in zip(((x0, y0), (x1, y0), (x1, y1), (x0, y1)), _TILE_UV, strict=True):
        vertex.add_data3(x, y, solid.z1)
        normal.add_data3(0.0, 0.0, 1.0)
        color.add_data4(*(float(channel) for channel in solid.color))
        uv.add_data2(u, v)
    triangles = GeomTriangles(Geom.UH_static)
    triangles.add_vertices(0, 1, 2)
    triangles.add_vertices(0, 2, 3)
    geom = Geom(vdata)
    geom.add_primitive(triangles)
    node = GeomNode("far")
    node.add_geom(
        geom,
        RenderState.make(
            TextureAttrib.make(texture), TransparencyAttrib.make(TransparencyAttrib.M_alpha)
        ),
    )
    return node


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
    syncs it after each edit, and the cube being dragged is watched while it moves. The
    blocked cells' shading comes with it, leaving out the cells its walls stand on (they hide
    them).
    """
    grid.settled = paint.standing_cube
    grid.watched = lambda: () if drag.dragged is None else (drag.dragged,)
    batch = world.spawn("wall-batch").add_component(
        WallBatch(
            grid,
            parent=world.root,
            standing=paint.standing_cube,
            dragged=lambda: drag.dragged,
            busy=lambda: paint.stroking,
        )
    )
    world.spawn("blocked-cells").add_component(BlockedCells(grid, hidden=batch.covered))
    return batch
