"""MarkerBatch: many flat oriented markers (a disc and a nose) in one GeomNode, from numpy arrays.

Drawing a thousand agents as a thousand model nodes costs a thousand culls and state changes a
frame; one Geom whose vertex array numpy rewrites in place costs a few array operations and one
draw call, whatever the count (the gizmos' recipe: numpy straight into `modify_array`'s buffer).

Each marker is one square of two triangles lying flat at height `z`, turned to its heading
(Panda3D's: 0 faces +Y, counter-clockwise), textured with `marker_texture`: a disc filling the
square, its colour's at the centre shading to a darker rim (so discs in a packed crowd keep an
edge), with a dark nose inside pointing along the heading; the corners are cut away by an alpha
test. A texture instead of a polygon fan: software renderers (Mesa's llvmpipe, which Xvfb
uses) pay per triangle, and 2 triangles a marker draw 5,000 markers in a third of the time 13
did. Markers are unlit and take their vertex colour, so the centre shows the exact colour.

`min_world_size` gives, per point, the world length one window pixel spans there through a
camera's lens; callers enlarge radii with it so markers stay a few pixels across at any zoom.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from panda3d.core import (
    Geom,
    GeomEnums,
    GeomNode,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    InternalName,
    Lens,
    NodePath,
    OmniBoundingVolume,
    SamplerState,
    Texture,
    TransparencyAttrib,
    Vec3,
)

MARKER_Z = 0.07  # above the grid lines (0.02) and the routes (0.05, 0.06), below the cubes' tops
TEXTURE_SIZE = 128  # texels a side: a crisp disc edge up close, mipmapped for far away
PLAIN_BELOW = 16  # mipmap levels narrower than this many texels are a plain disc
FLAT_TO = 0.6  # the body keeps its full colour out to this fraction of the radius ...
RIM_SHADE = 0.45  # ... then darkens to this factor at the rim
NOSE_SHADE = 0.22  # the nose's factor: dark, so the heading reads at a glance
# The nose, in units of the marker's radius, heading 0 (+Y): tip, then the two back corners.
NOSE_SHAPE = ((0.0, 0.92), (-0.42, 0.1), (0.42, 0.1))
# A marker's square: corners in units of its radius, and their texture coordinates.
_CORNERS = np.array([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)])
_UV = ((_CORNERS + 1.0) / 2.0).astype(np.float32)
_QUAD_TRIANGLES = np.array([0, 1, 2, 0, 2, 3], dtype=np.uint32)


def _vertex_format() -> GeomVertexFormat:
    """Positions, colours and texture coordinates in three arrays: each one flat numpy write."""
    vertex, color, texcoord = (GeomVertexArrayFormat() for _ in range(3))
    vertex.add_column(InternalName.get_vertex(), 3, GeomEnums.NT_float32, GeomEnums.C_point)
    color.add_column(InternalName.get_color(), 4, GeomEnums.NT_uint8, GeomEnums.C_color)
    texcoord.add_column(InternalName.get_texcoord(), 2, GeomEnums.NT_float32, GeomEnums.C_texcoord)
    layout = GeomVertexFormat()
    for array in (vertex, color, texcoord):
        layout.add_array(array)
    return GeomVertexFormat.register_format(layout)


def marker_texture(size: int = TEXTURE_SIZE) -> Texture:
    """The marker's look as a white-and-grey RGBA texture, +v along the heading, mipmapped.

    A disc of radius 1 (the square's half side): white out to `FLAT_TO`, then shading down to
    `RIM_SHADE` at the rim, the nose `NOSE_SHADE`; alpha 0 outside the disc. The vertex colour
    multiplies it. Mipmap levels smaller than `PLAIN_BELOW` texels are a plain white disc:
    averaged down, the rim and nose would darken a far marker's few pixels away from its
    colour, and there is no heading to read at that size anyway.

    Args:
        size: Texels a side of the largest level, a power of two.
    """
    texture = Texture("marker")
    texture.setup_2d_texture(size, size, Texture.T_unsigned_byte, Texture.F_rgba8)
    level, side = 0, size
    while side >= 1:
        texels = _marker_texels(side, detailed=side >= PLAIN_BELOW)
        image = memoryview(texture.make_ram_mipmap_image(level))  # type: ignore[arg-type]
        np.frombuffer(image, dtype=np.uint8)[:] = texels.ravel()
        level, side = level + 1, side // 2
    # One mipmap level a pixel, not a blend of two: Mesa's llvmpipe samples half as many texels,
    # about 0.6 ms less a frame at 5,000 markers, and the levels differ too little to show.
    texture.set_minfilter(SamplerState.FT_linear_mipmap_nearest)
    texture.set_magfilter(SamplerState.FT_linear)
    texture.set_wrap_u(SamplerState.WM_clamp)
    texture.set_wrap_v(SamplerState.WM_clamp)
    return texture


def _marker_texels(side: int, *, detailed: bool) -> NDArray[np.uint8]:
    """One mipmap level, (side, side, 4) BGRA, sampled at the texel centres."""
    centres = (np.arange(side) + 0.5) / side * 2.0 - 1.0
    x, y = np.meshgrid(centres, centres)  # rows run along +v (+y), as Panda3D stores them
    distance = np.hypot(x, y)
    shade = np.ones_like(distance)
    if detailed:
        ramp = np.clip((distance - FLAT_TO) / (1.0 - FLAT_TO), 0.0, 1.0)
        shade = 1.0 - ramp * (1.0 - RIM_SHADE)
        (tip_x, tip_y), (_, base_y), (right_x, _) = NOSE_SHAPE
        # Inside the nose: above its base, and inside both of its slanted sides.
        slope = (tip_y - base_y) / (right_x - tip_x)
        in_nose = (y >= base_y) & (y <= tip_y - slope * np.abs(x - tip_x))
        shade = np.where(in_nose, NOSE_SHADE, shade)
    grey = np.round(shade * 255.0).astype(np.uint8)
    alpha = np.where(distance <= 1.0, 255, 0).astype(np.uint8)
    return np.stack([grey, grey, grey, alpha], axis=-1)  # grey: any channel order


class MarkerBatch:
    """Oriented flat markers under one GeomNode; `update` redraws all of them from arrays.

    Contract: after `update(...)` the node shows exactly the markers of that call whose
    `visible` is true, until the next call; nothing is kept between calls but buffers. There
    is no per-marker Python work: every step is a numpy operation over all markers.

    Args:
        parent: Node to attach the marker node to (usually the scene root).
        name: The GeomNode's name.
        z: Height of the markers above the ground, world units.

    Raises:
        ValueError: If `z` is not finite.
    """

    def __init__(self, parent: NodePath, *, name: str = "markers", z: float = MARKER_Z) -> None:
        if not math.isfinite(z):
            raise ValueError(f"z must be finite, got {z!r}.")
        self._z = z
        self._vdata = GeomVertexData(name, _vertex_format(), Geom.UH_dynamic)
        self._primitive = GeomTriangles(Geom.UH_dynamic)
        self._primitive.set_index_type(GeomEnums.NT_uint32)
        self._geom = Geom(self._vdata)
        self._geom.add_primitive(self._primitive)
        # The Geom joins the node with the first marker: a renderer given no vertices at all
        # (tinydisplay) reads past them.
        node = GeomNode(name)
        # The markers move every frame: an infinite bound spares Panda3D a pass over every
        # vertex to recompute one, and a crowd in view is never culled by a stale box.
        node.set_bounds(OmniBoundingVolume())
        node.set_final(True)
        self._node = parent.attach_new_node(node)
        self._node.set_light_off()
        self._node.set_two_sided(True)
        self._node.set_texture(marker_texture())
        self._node.set_transparency(TransparencyAttrib.M_binary)
        # A polygon offset lifts the flat markers off the ground in depth at any distance,
        # where their few hundredths of a unit above it would be lost in the depth buffer.
        self._node.set_depth_offset(1)
        self._count = 0
        self._indexed = -1  # how many markers the index and texcoord arrays hold

    @property
    def node(self) -> NodePath:
        """The markers' node (hide or show it, or reparent it, as any node)."""
        return self._node

    @property
    def count(self) -> int:
        """How many markers the last `update` drew."""
        return self._count

    def update(
        self,
        positions: ArrayLike,
        headings_deg: ArrayLike,
        radii: ArrayLike,
        colors: ArrayLike,
        visible: ArrayLike | None = None,
    ) -> None:
        """Redraw the markers: one per row, in row order; rows not `visible` are left out.

        Args:
            positions: (n, 2) world x, y of each marker's centre.
            headings_deg: (n,) headings, degrees counter-clockwise from +Y.
            radii: (n,) body radii, world units, >= 0 (or one number for all).
            colors: (n, 4) RGBA in 0..1 (or one colour for all); alpha is kept but markers
                are drawn opaque.
            visible: (n,) booleans, or None for all.

        Raises:
            ValueError: On wrong shapes or non-finite positions, headings or radii.
        """
        points = np.asarray(positions, dtype=np.float64)
        if points.size == 0:
            points = points.reshape(0, 2)
        if points.ndim != 2 or points.shape[1] != 2:
            raise ValueError(f"positions must have shape (n, 2), got {points.shape}.")
        n = len(points)
        heading = _per_row(headings_deg, n, "headings_deg")
        radius = _per_row(radii, n, "radii")
        rgba = _colors(colors, n)
        if not (np.isfinite(points).all() and np.isfinite(heading).all()):
            raise ValueError("positions and headings_deg must be finite.")
        if not (np.isfinite(radius).all() and (radius >= 0.0).all()):
            raise ValueError("radii must be finite and >= 0.")
        if visible is not None:
            shown = np.asarray(visible, dtype=bool)
            if shown.shape != (n,):
                raise ValueError(f"visible must have shape ({n},), got {shown.shape}.")
            if not shown.all():
                keep = np.flatnonzero(shown)
                points, heading, radius, rgba = (
                    points[keep],
                    heading[keep],
                    radius[keep],
                    rgba[keep],
                )
        self._write(points, heading, radius, rgba)

    def destroy(self) -> None:
        """Remove the marker node; the batch must not be used again."""
        self._node.remove_node()

    def _write(
        self,
        points: NDArray[np.float64],
        heading: NDArray[np.float64],
        radius: NDArray[np.float64],
        rgba: NDArray[np.float32],
    ) -> None:
        n = len(points)
        self._count = n
        geom_node = self._node.node()
        if n == 0:
            geom_node.remove_all_geoms()
            return
        if geom_node.get_num_geoms() == 0:
            geom_node.add_geom(self._geom)
        self._vdata.unclean_set_num_rows(n * len(_CORNERS))
        angle = np.radians(heading)
        cos, sin = np.cos(angle) * radius, np.sin(angle) * radius
        # The corners (+-1, +-1) turned by the heading sit at +-(cos - sin) and +-(cos + sin)
        # from the centre, so two sums place all four, written straight into the vertex array
        # (with a temporary (n, 4, 3) array and its copy the rewrite took 1.7 times as long).
        minus, plus = cos - sin, cos + sin
        x, y = points[:, 0], points[:, 1]
        # The arrays export the buffer protocol at run time; the stubs do not declare it.
        view = memoryview(self._vdata.modify_array(0))  # type: ignore[arg-type]
        xyz = np.frombuffer(view, dtype=np.float32).reshape(n, len(_CORNERS), 3)
        xyz[:, 0, 0], xyz[:, 0, 1] = x - minus, y - plus
        xyz[:, 1, 0], xyz[:, 1, 1] = x + plus, y - minus
        xyz[:, 2, 0], xyz[:, 2, 1] = x + minus, y + plus
        xyz[:, 3, 0], xyz[:, 3, 1] = x - plus, y + minus
        xyz[:, :, 2] = self._z
        colour = (np.clip(rgba, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
        view = memoryview(self._vdata.modify_array(1))  # type: ignore[arg-type]
        np.frombuffer(view, dtype=np.uint8).reshape(n, len(_CORNERS), 4)[:] = colour[:, None, :]
        self._index(n)

    def _index(self, n: int) -> None:
        """Make the triangles and texture coordinates cover `n` > 0 markers (when `n` changes)."""
        if n == self._indexed:
            return
        view = memoryview(self._vdata.modify_array(2))  # type: ignore[arg-type]
        np.frombuffer(view, dtype=np.float32)[:] = np.tile(_UV.ravel(), n)
        offsets = (np.arange(n, dtype=np.uint32) * len(_CORNERS))[:, None]
        indices = offsets + _QUAD_TRIANGLES[None, :]
        handle = self._primitive.modify_vertices()
        handle.unclean_set_num_rows(indices.size)
        view = memoryview(handle)  # type: ignore[arg-type]
        np.frombuffer(view, dtype=np.uint32)[:] = indices.ravel()
        self._indexed = n


def min_world_size(
    points: ArrayLike, *, camera: NodePath, lens: Lens, height_px: int
) -> NDArray[np.float64]:
    """World length one window pixel spans at each point, seen through `camera` and `lens`.

    Perspective: `2 * depth * tan(vfov / 2) / height_px`, with `depth` the point's distance
    along the camera's forward axis (points behind the near plane count as on it);
    orthographic: the film height over `height_px`, the same everywhere.

    Args:
        points: (n, 3) points in the space of `camera`'s scene root.
        camera: The camera's node.
        lens: Its lens.
        height_px: The window's height in pixels (> 0).

    Returns:
        (n,) world units per pixel.
    """
    xyz = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    root = camera.get_top()
    if not lens.is_perspective():
        return np.full(len(xyz), lens.get_film_size()[1] / height_px)
    eye = camera.get_pos(root)
    forward = root.get_relative_vector(camera, Vec3(0.0, 1.0, 0.0))
    along: NDArray[np.float64] = (xyz - np.array([eye.x, eye.y, eye.z])) @ np.array(
        [forward.x, forward.y, forward.z]
    )
    depth = np.maximum(along, lens.get_near())
    return depth * (2.0 * math.tan(math.radians(lens.get_vfov()) / 2.0) / height_px)


def _colors(colors: ArrayLike, n: int) -> NDArray[np.float32]:
    array = np.asarray(colors, dtype=np.float32)
    if array.shape not in ((4,), (n, 4)):
        raise ValueError(f"colors must have shape ({n}, 4) or (4,), got {array.shape}.")
    return np.broadcast_to(array, (n, 4))


def _per_row(values: ArrayLike, n: int, name: str) -> NDArray[np.float64]:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 0:
        return np.full(n, float(array))
    if array.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {array.shape}.")
    return array
