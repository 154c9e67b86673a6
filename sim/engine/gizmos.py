"""Gizmos: Unity-like debug drawing with an immediate-mode API and retained-mode cost.

Every frame, components call `lines`/`polyline`/`quads` with a string key from `on_draw_gizmos`;
`flush()` (once per frame, after all of them) rebuilds a key's Geom only when its vertices
changed, so a path that stays put costs one array comparison per frame, not a rebuild. The grid
goes through `static_lines`: built once as long lines, never compared again (numpy straight
into the vertex array costs ~0.1 ms for 20,200 segments).

Depth: the gizmo node keeps depth test and write on, so cubes hide lines behind them. A depth
offset does not apply to lines under GL, so lines drawn *on* the ground z-fight with it: callers
lift them (pass z = 0.02) and the app gives the ground `set_depth_offset(-1)`.
Thickness is a render-mode thickness: GL honours it, p3tinydisplay draws 1-pixel lines anyway.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from panda3d.core import (
    Geom,
    GeomLines,
    GeomLinestrips,
    GeomNode,
    GeomTriangles,
    GeomVertexData,
    GeomVertexFormat,
    LColor,
    NodePath,
    TransparencyAttrib,
)

Rgba = tuple[float, float, float, float]

# On-top keys draw in the "fixed" bin (after the opaque and transparent bins) in this order.
ON_TOP_BIN_SORT = 10
# Each quad (corners 0..3 in order round its edge) becomes triangles 0-1-2 and 0-2-3.
_QUAD_TO_TRIANGLES = np.array([0, 1, 2, 0, 2, 3])


class _Kind(enum.Enum):
    LINES = "lines"
    POLYLINE = "polyline"
    QUADS = "quads"


@dataclass(frozen=True, slots=True)
class _Request:
    kind: _Kind
    vertices: NDArray[np.float32]
    color: Rgba
    thickness: float


@dataclass(slots=True)
class _Batch:
    node: NodePath[GeomNode]
    request: _Request
    static: bool
    rebuilds: int = 0
    drawn: bool = False


class Gizmos:
    """Batched debug lines and quads under a node "gizmos" (lighting off).

    Contract per frame: draw calls record requests; `flush()` makes the scene match them. A key
    drawn again in the same frame replaces its earlier request. A key not drawn before a flush
    is hidden (its Geom is kept, so drawing the same content again later costs no rebuild).
    Colour and thickness changes only touch render state; `rebuild_count` counts vertex builds.
    Coordinates are in the space of `parent`, world units, Z up.

    Args:
        parent: Node to attach the "gizmos" node to (usually the scene root).
    """

    def __init__(self, parent: NodePath) -> None:
        self._node = parent.attach_new_node("gizmos")
        self._node.set_light_off()
        self._batches: dict[str, _Batch] = {}
        self._requests: dict[str, _Request] = {}
        self._hidden: set[str] = set()
        self._on_top: dict[str, int] = {}  # key -> its order among the keys on top

    @property
    def node(self) -> NodePath:
        """The "gizmos" node; one child GeomNode per key, named after the key."""
        return self._node

    def lines(
        self, key: str, segments: ArrayLike, color: Sequence[float], *, thickness: float = 1.0
    ) -> None:
        """Draw separate segments this frame: `segments` has shape (N, 2, 3), [segment, end, xyz].

        Raises:
            ValueError: On a wrong shape, non-finite values, bad colour or thickness <= 0, or if
                `key` holds static lines.
        """
        vertices = _as_vertices(segments, (2, 3), "segments")
        self._submit(key, _Request(_Kind.LINES, vertices, _rgba(color), _thickness(thickness)))

    def polyline(
        self, key: str, points: ArrayLike, color: Sequence[float], *, thickness: float = 1.0
    ) -> None:
        """Draw one connected line through `points`, shape (N, 3); fewer than 2 draw nothing.

        Raises:
            ValueError: As for `lines`.
        """
        vertices = _as_vertices(points, (3,), "points")
        self._submit(key, _Request(_Kind.POLYLINE, vertices, _rgba(color), _thickness(thickness)))

    def quads(self, key: str, corners: ArrayLike, color: Sequence[float]) -> None:
        """Draw filled quads this frame: `corners` has shape (N, 4, 3), corners in edge order.

        Quads are two-sided; an alpha below 1 turns on alpha blending.

        Raises:
            ValueError: As for `lines`.
        """
        vertices = _as_vertices(corners, (4, 3), "corners")
        self._submit(key, _Request(_Kind.QUADS, vertices, _rgba(color), 1.0))

    def static_lines(
        self, key: str, segments: ArrayLike, color: Sequence[float], *, thickness: float = 1.0
    ) -> None:
        """Build segments (N, 2, 3) now and keep showing them, with no per-frame cost.

        They stay until `clear_static(key)`; calling again with the same key replaces them
        (rebuilding only if the vertices changed).

        Raises:
            ValueError: As for `lines`, or if `key` is in use for per-frame drawing.
        """
        vertices = _as_vertices(segments, (2, 3), "segments")
        request = _Request(_Kind.LINES, vertices, _rgba(color), _thickness(thickness))
        batch = self._batches.get(key)
        if key in self._requests or (batch is not None and not batch.static):
            raise ValueError(f"Gizmo key {key!r} is used for per-frame drawing, not static lines.")
        batch = self._apply(key, request, static=True)
        batch.drawn = True
        self._sync_visibility(key, batch)

    def clear_static(self, key: str) -> None:
        """Remove the static lines under `key`; an unknown key does nothing.

        Raises:
            ValueError: If `key` is used for per-frame drawing.
        """
        batch = self._batches.get(key)
        if batch is None:
            return
        if not batch.static:
            raise ValueError(f"Gizmo key {key!r} is used for per-frame drawing, not static lines.")
        batch.node.remove_node()
        del self._batches[key]

    def set_visible(self, key: str, visible: bool) -> None:
        """Show or hide `key` until told otherwise (a user toggle; works before it is drawn)."""
        if visible:
            self._hidden.discard(key)
        else:
            self._hidden.add(key)
        batch = self._batches.get(key)
        if batch is not None:
            self._sync_visibility(key, batch)

    def set_alpha_scale(self, key: str, alpha: float) -> None:
        """Scale drawn `key`'s opacity by `alpha` (0..1, clamped); an unknown key does nothing.

        For fading static lines in and out (the grid at a distance) without rebuilding them.
        """
        batch = self._batches.get(key)
        if batch is None:
            return
        alpha = min(max(float(alpha), 0.0), 1.0)
        if abs(batch.node.get_sa() - alpha) < 1e-4:
            return  # changing render state every frame would cost a state recomposition
        batch.node.set_alpha_scale(alpha)
        opaque = alpha >= 1.0 and batch.request.color[3] >= 1.0
        batch.node.set_transparency(
            TransparencyAttrib.M_none if opaque else TransparencyAttrib.M_alpha
        )

    def set_on_top(self, key: str, on_top: bool, *, order: int = 0) -> None:
        """Draw `key` over everything, depth test off, or in the scene again (the default).

        For highlights of what solid models hide, such as cells under a cube; works before
        `key` is drawn. Of the keys on top, a higher `order` draws later (over the others).
        """
        wanted = order if on_top else None
        if self._on_top.get(key) == wanted:
            return  # changing render state every frame would cost a state recomposition
        if wanted is None:
            del self._on_top[key]
        else:
            self._on_top[key] = wanted
        batch = self._batches.get(key)
        if batch is not None:
            _set_on_top(batch.node, self._on_top.get(key))

    def flush(self) -> None:
        """Make the scene match this frame's requests, then forget them; call once per frame.

        Changed vertices rebuild that key's Geom; unchanged ones are left alone; per-frame keys
        with no request this frame are hidden. Static keys are untouched.
        """
        for key, request in self._requests.items():
            self._apply(key, request, static=False).drawn = True
        for key, batch in self._batches.items():
            if not batch.static and key not in self._requests:
                batch.drawn = False
            self._sync_visibility(key, batch)
        self._requests.clear()

    def keys(self) -> set[str]:
        """Keys on screen after the last flush: drawn in it (or static) and not set invisible."""
        return {key for key, b in self._batches.items() if b.drawn and key not in self._hidden}

    def rebuild_count(self, key: str) -> int:
        """How many times `key`'s vertices have been built (0 for an unknown key)."""
        batch = self._batches.get(key)
        return 0 if batch is None else batch.rebuilds

    def destroy(self) -> None:
        """Remove the "gizmos" node and everything under it; the object must not be used again."""
        self._node.remove_node()
        self._batches.clear()
        self._requests.clear()

    def _submit(self, key: str, request: _Request) -> None:
        batch = self._batches.get(key)
        if batch is not None and batch.static:
            raise ValueError(f"Gizmo key {key!r} holds static lines; call clear_static first.")
        self._requests[key] = request

    def _apply(self, key: str, request: _Request, *, static: bool) -> _Batch:
        """Create or update `key`'s node for `request`; rebuild vertices only if they changed."""
        batch = self._batches.get(key)
        if batch is None:
            node = self._node.attach_new_node(GeomNode(key))
            batch = _Batch(node, request, static)
            self._batches[key] = batch
            self._rebuild(batch, request)
            self._set_state(batch.node, request)
            _set_on_top(node, self._on_top.get(key))
            return batch
        old = batch.request
        if old.kind is not request.kind or not np.array_equal(old.vertices, request.vertices):
            self._rebuild(batch, request)
        if (old.color, old.thickness) != (request.color, request.thickness):
            self._set_state(batch.node, request)
        batch.request = request
        return batch

    @staticmethod
    def _rebuild(batch: _Batch, request: _Request) -> None:
        geom_node = batch.node.node()
        geom_node.remove_all_geoms()
        geom = _build_geom(request.kind, request.vertices)
        if geom is not None:
            geom_node.add_geom(geom)
        batch.node.set_two_sided(request.kind is _Kind.QUADS)
        batch.rebuilds += 1

    @staticmethod
    def _set_state(node: NodePath[GeomNode], request: _Request) -> None:
        node.set_color(LColor(*request.color))
        if request.color[3] < 1.0:
            node.set_transparency(TransparencyAttrib.M_alpha)
        else:
            node.set_transparency(TransparencyAttrib.M_none)
        node.set_render_mode_thickness(request.thickness)

    def _sync_visibility(self, key: str, batch: _Batch) -> None:
        if batch.drawn and key not in self._hidden:
            batch.node.show()
        else:
            batch.node.hide()


def _set_on_top(node: NodePath, order: int | None) -> None:
    """Draw `node` after the scene with no depth test (at `order`), or in the scene (None)."""
    if order is not None:
        node.set_depth_test(False)
        node.set_depth_write(False)
        node.set_bin("fixed", ON_TOP_BIN_SORT + order)
    else:
        node.clear_depth_test()
        node.clear_depth_write()
        node.clear_bin()


def _build_geom(kind: _Kind, vertices: NDArray[np.float32]) -> Geom | None:
    """Pack vertices straight into a v3 GeomVertexData (no per-vertex Python); None if empty."""
    if kind is _Kind.QUADS:
        vertices = vertices[:, _QUAD_TO_TRIANGLES, :]
    flat = np.ascontiguousarray(vertices.reshape(-1, 3), dtype=np.float32)
    count = len(flat)
    if count == 0 or (kind is _Kind.POLYLINE and count < 2):
        return None
    vdata = GeomVertexData("gizmo", GeomVertexFormat.get_v3(), Geom.UH_static)
    vdata.unclean_set_num_rows(count)
    # The array exports the buffer protocol at run time; the stubs do not declare __buffer__.
    rows = memoryview(vdata.modify_array(0))  # type: ignore[arg-type]
    np.frombuffer(rows, dtype=np.float32)[:] = flat.ravel()
    primitive_type = {
        _Kind.LINES: GeomLines,
        _Kind.POLYLINE: GeomLinestrips,
        _Kind.QUADS: GeomTriangles,
    }[kind]
    primitive = primitive_type(Geom.UH_static)
    primitive.add_consecutive_vertices(0, count)
    primitive.close_primitive()
    geom = Geom(vdata)
    geom.add_primitive(primitive)
    return geom


def _as_vertices(data: ArrayLike, tail: tuple[int, ...], what: str) -> NDArray[np.float32]:
    """Copy `data` to float32 of shape (N, *tail), so later edits by the caller cannot leak in."""
    array = np.array(data, dtype=np.float32)
    if array.size == 0:
        array = array.reshape((0, *tail))
    if array.ndim != 1 + len(tail) or array.shape[1:] != tail:
        expected = ", ".join(["N", *map(str, tail)])
        raise ValueError(f"{what} must have shape ({expected}), got {array.shape}.")
    if not np.isfinite(array).all():
        raise ValueError(f"{what} contain NaN or infinite values.")
    return array


def _rgba(color: Sequence[float]) -> Rgba:
    values = tuple(float(c) for c in color)
    if len(values) == 3:
        values = (*values, 1.0)
    if len(values) != 4 or not all(0.0 <= c <= 1.0 for c in values):
        raise ValueError(f"color must be 3 or 4 numbers in [0, 1], got {tuple(color)!r}.")
    return values[0], values[1], values[2], values[3]


def _thickness(thickness: float) -> float:
    if not (math.isfinite(thickness) and thickness > 0.0):
        raise ValueError(f"thickness must be a finite number > 0, got {thickness!r}.")
    return float(thickness)
