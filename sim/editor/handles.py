"""Move arrows and a rotate ring on the selected object, dragged with the left button.

The handles lie flat over the selection, at its top, drawn over everything (no depth test) and
kept the same size on screen at any zoom: the x arrow (red) moves it along x only, the y arrow
(green) along y only, the ring (blue) turns it about its centre. The handle under the pointer
is highlighted. With snapping on (V) an arrow drops on cell centres and the ring turns in steps
of `TURN_DEG`, as Q / E do. Each drag is one undoable edit, made through the inspector as a
typed value would be (`Inspector.set_value`), so the grid, the planners and the history follow
as after the arrow keys or Q / E. Handles show only what the selection may change: no ring on
an object that turns by itself, nothing on an agent.

A hit is tested on screen: the pointer within `HIT_RADIUS` of a handle's outline as drawn (so a
handle seen edge-on from a low camera is still caught where it shows).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, Final

import numpy as np
from direct.task.Task import Task
from numpy.typing import NDArray
from panda3d.core import (
    Camera,
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexData,
    GeomVertexFormat,
    Lens,
    NodePath,
    Point2,
    Point3,
    Vec3,
)

from sim.editor.inspector import TURN_DEG
from sim.editor.inspector_fields import HEADING, POS, fields_of
from sim.engine import GameObject
from sim.engine.loop import FrameLoop, Phase
from sim.engine.picking import Picker

if TYPE_CHECKING:
    from sim.components.grid_manager import GridManager
    from sim.components.motion import SceneMotion
    from sim.editor.inspector import Inspector

SCREEN_SIZE: Final = 0.1
"""One handle unit as a share of the viewport's height, whatever the zoom."""
ARROW_START, ARROW_END, HEAD_LENGTH = 0.25, 1.6, 0.32
SHAFT_WIDTH, HEAD_WIDTH = 0.08, 0.28
RING_RADIUS, RING_WIDTH, RING_SEGMENTS = 1.0, 0.08, 64
"""The handles' shape in handle units: the arrows reach past the ring, so each has its end."""
HIT_RADIUS: Final = 0.035
"""How near the pointer must come to a handle as drawn, in half window heights (~10 px)."""
LIFT: Final = 0.02
"""Height over the selection's top the handles lie at, in world units."""
COLORS: Final = {
    "x": (0.95, 0.3, 0.28, 1.0),
    "y": (0.35, 0.85, 0.35, 1.0),
    "ring": (0.35, 0.6, 1.0, 1.0),
}
EDGE_COLOR: Final = (0.05, 0.06, 0.08, 1.0)
EDGE: Final = 0.05
"""A dark rim this wide (handle units) around each handle, so a red arrow reads on a red cube."""
HOVER_SCALE: Final = (1.6, 1.6, 1.6, 1.0)
TASK: Final = "handles"


class Handle(Enum):
    """Which handle: an arrow along x or y, or the ring."""

    X = "x"
    Y = "y"
    RING = "ring"


class Handles:
    """The selection's handles and their drags; a pointer tool of the editor (`press` etc.).

    Args:
        inspector: The selection, and the edits a drag ends in.
        picker: Casts the pointer's ray (ground points at the handles' height).
        camera: The camera node the scene is seen through.
        root: The scene's root; the handles hang under it.
        grid: Keeps a moved object's centre on the grid.
        motion: What moves by itself (its fields are the inspector's to list).
        turns_itself: Whether the object of that name has a rotator (no ring then).
        snap: Whether snapping is on (the editor's V).
    """

    def __init__(
        self,
        *,
        inspector: Inspector,
        picker: Picker,
        camera: NodePath[Camera],
        root: NodePath,
        grid: GridManager,
        motion: SceneMotion | None = None,
        turns_itself: Callable[[str], bool] = lambda _name: False,
        snap: Callable[[], bool] = lambda: False,
    ) -> None:
        self._inspector, self._picker, self._camera = inspector, picker, camera
        self._snap = snap
        self._root, self._grid, self._motion = root, grid, motion
        self._turns_itself = turns_itself
        self._node = root.attach_new_node("handles")
        # Over everything, unlit, both faces: a tool, not part of the scene.
        self._node.set_bin("fixed", 60)
        self._node.set_depth_test(False)
        self._node.set_depth_write(False)
        self._node.set_light_off(1)
        self._node.set_two_sided(True)
        shapes: dict[Handle, Callable[[float], NDArray[np.float64]]] = {
            Handle.X: functools.partial(_arrow, 0.0),
            Handle.Y: functools.partial(_arrow, 90.0),
            Handle.RING: _ring,
        }
        self._parts = {handle: self._node.attach_new_node(handle.value) for handle in Handle}
        for handle, part in self._parts.items():
            # The rim first: in the fixed bin without depth, what is drawn later lies on top.
            rim = part.attach_new_node(_mesh(f"{handle.value}-rim", shapes[handle](EDGE)))
            rim.set_color(*EDGE_COLOR)
            face = part.attach_new_node(_mesh(handle.value, shapes[handle](0.0)))
            face.set_color(*COLORS[handle.value])
        self._outlines = {
            Handle.X: _segment(0.0),
            Handle.Y: _segment(90.0),
            Handle.RING: _circle(),
        }
        self._node.hide()
        self.hovered: Handle | None = None
        self._drag: Handle | None = None
        self._held: GameObject | None = None
        self._from_pos = Point3()
        self._from_heading = 0.0
        self._grab: Point3 = Point3()
        self._loop: FrameLoop | None = None

    @property
    def _lens(self) -> Lens:
        # Read each time: a view that swaps the camera's lens (top-down) keeps its handles.
        return self._camera.node().get_lens()

    # --- what is shown ---------------------------------------------------------------------

    @property
    def shown(self) -> frozenset[Handle]:
        """The handles the selection has now (none without one)."""
        obj = self._inspector.selected
        if obj is None:
            return frozenset()
        found = fields_of(obj, self._motion)
        handles = {Handle.X, Handle.Y} if POS in found else set()
        if HEADING in found and not self._turns_itself(obj.name):
            handles.add(Handle.RING)
        return frozenset(handles)

    @property
    def node(self) -> NodePath:
        """The handles' node (hidden without a selection that has handles)."""
        return self._node

    def attach(self, loop: FrameLoop) -> None:
        """Keep the handles on the selection once a frame, in `Phase.UI` (also while paused)."""
        self._loop = loop
        loop.add_task(Phase.UI, self._follow_task, TASK)

    def follow(self) -> None:
        """Put the handles on the selection, at their screen size; hide them without one."""
        shown = self.shown
        obj = self._inspector.selected
        if obj is None or not shown:
            self._node.hide()
            self._set_hover(None)
            return
        centre = self._centre(obj)
        self._node.set_pos(self._root, centre)
        self._node.set_scale(self._units_per_handle(centre))
        for handle, part in self._parts.items():
            if handle in shown:
                part.show()
            else:
                part.hide()
        self._node.show()

    def hit(self, mouse: tuple[float, float]) -> Handle | None:
        """The handle under `mouse` (normalised window coordinates), or None."""
        # The lens projects into the camera's display region (the docked viewport), not the
        # whole window: compare there, as the picker casts its rays there.
        seen = self._picker.in_view(mouse)
        if self._node.is_hidden() or seen is None:
            return None
        aspect = self._lens.get_aspect_ratio()
        radius = HIT_RADIUS / self._region_height()
        best: tuple[float, Handle] | None = None
        for handle in self.shown:
            points = self._on_screen(self._outlines[handle])
            if points is None:
                continue
            distance = distance_to_polyline((seen[0] * aspect, seen[1]), points * [aspect, 1])
            if distance <= radius and (best is None or distance < best[0]):
                best = (distance, handle)
        return None if best is None else best[1]

    def grab_points(self) -> dict[Handle, Point3]:
        """A point on each handle shown, in the root's frame: where a hand would grab it."""
        if self._node.is_hidden():
            return {}
        middle = (ARROW_START + ARROW_END - HEAD_LENGTH) / 2
        # The ring where no arrow crosses it: between -x and -y.
        corner = RING_RADIUS * math.sqrt(0.5)
        local = {Handle.X: (middle, 0.0), Handle.Y: (0.0, middle), Handle.RING: (-corner, -corner)}
        return {
            handle: self._root.get_relative_point(self._node, Point3(*local[handle], 0.0))
            for handle in self.shown
        }

    # --- the editor's pointer tool ---------------------------------------------------------

    @property
    def held(self) -> GameObject | None:
        """The object a handle drag moves or turns now, or None."""
        return self._held

    def press(self, mouse: tuple[float, float], *, shift: bool = False) -> bool:
        """The left button went down: start a drag when it is on a handle; whether it was."""
        self.follow()
        handle = None if shift else self.hit(mouse)
        obj = self._inspector.selected
        if handle is None or obj is None:
            return False
        grab = self._picker.ground_point(mouse, z=self._node.get_z(self._root))
        if grab is None:
            return False
        self._drag, self._held, self._grab = handle, obj, grab
        self._from_pos, self._from_heading = obj.node.get_pos(), obj.node.get_h()
        self._set_hover(handle)
        return True

    def move(self, mouse: tuple[float, float]) -> None:
        """The pointer moved: drag the held handle, or highlight the handle under it."""
        obj = self._held
        if self._drag is None or obj is None:
            self._set_hover(self.hit(mouse))
            return
        if not obj.alive:
            self._drag = self._held = None
            return
        point = self._picker.ground_point(mouse, z=self._grab.z)
        if point is None:
            return
        if self._drag is Handle.RING:
            centre = self._node.get_pos(self._root)
            turned = _angle(point - centre) - _angle(self._grab - centre)
            if self._snap():
                turned = round(turned / TURN_DEG) * TURN_DEG
            obj.node.set_h(self._from_heading + turned)
            return
        x, y, z = self._from_pos
        if self._drag is Handle.X:
            x = self._clamped(x + point.x - self._grab.x, along_x=True)
        else:
            y = self._clamped(y + point.y - self._grab.y, along_x=False)
        if self._snap():
            centre_x, centre_y = self._grid.cell_to_world(self._grid.clamped_cell((x, y)))
            x, y = (centre_x, y) if self._drag is Handle.X else (x, centre_y)
        obj.node.set_pos(x, y, z)

    def release(self, mouse: tuple[float, float] | None) -> None:
        """The left button came up: end the drag with one undoable edit (none if unchanged)."""
        if mouse is not None:
            self.move(mouse)
        handle, obj = self._drag, self._held
        self._drag = self._held = None
        if handle is None or obj is None or not obj.alive:
            return
        node = obj.node
        if handle is Handle.RING:
            heading = round(math.fmod(node.get_h(), 360.0), 4) + 0.0
            node.set_h(self._from_heading)
            if not math.isclose(heading, self._from_heading, abs_tol=1e-6):
                self._inspector.set_value(HEADING.key, heading)
            return
        pos = node.get_pos()
        node.set_pos(self._from_pos)
        if pos != self._from_pos:
            self._inspector.set_value(POS.key, [float(pos.x), float(pos.y), float(pos.z)])

    def detach(self) -> None:
        """Stop following the selection and remove the handles."""
        if self._loop is not None:
            self._loop.remove_task(TASK)
        self._node.remove_node()

    # --- helpers ---------------------------------------------------------------------------

    def _centre(self, obj: GameObject) -> Point3:
        """The middle of `obj`'s footprint, at its top (where the handles lie)."""
        bounds = obj.node.get_tight_bounds(self._root)
        x, y, _z = obj.world_pos
        if bounds is None:
            return Point3(x, y, LIFT)
        return Point3(x, y, bounds[1].z + LIFT)

    def _units_per_handle(self, centre: Point3) -> float:
        """World units per handle unit at `centre`, so an arrow is `SCREEN_SIZE` of the view."""
        if self._lens.is_orthographic():
            return float(self._lens.get_film_size().y) * SCREEN_SIZE
        depth = self._camera.get_relative_point(self._root, centre).y
        fov_y = math.radians(self._lens.get_fov().y)
        return max(depth, 1e-3) * 2.0 * math.tan(fov_y / 2.0) * SCREEN_SIZE

    def _region_height(self) -> float:
        """The camera's display region's height as a share of the window's (1 without one)."""
        node = self._camera.node()
        if node.get_num_display_regions() == 0:
            return 1.0
        _left, _right, bottom, top = node.get_display_region(0).get_dimensions()
        return max(top - bottom, 1e-9)

    def _on_screen(self, outline: NDArray[np.float64]) -> NDArray[np.float64] | None:
        """`outline` (handle units) in the display region's [-1, 1]; None if any is behind."""
        projected = []
        for x, y in outline:
            seen = self._camera.get_relative_point(self._node, Point3(x, y, 0.0))
            point = Point2()
            if not self._lens.project(seen, point):
                return None
            projected.append((point.x, point.y))
        return np.asarray(projected)

    def _clamped(self, value: float, *, along_x: bool) -> float:
        grid = self._grid
        low = grid.origin[0 if along_x else 1]
        cells = grid.num_of_columns if along_x else grid.num_of_rows
        high = low + cells * grid.grid_cell_size
        margin = 1e-3  # strictly inside, as a dropped cube stays
        return min(max(value, low + margin), high - margin)

    def _set_hover(self, handle: Handle | None) -> None:
        if handle is self.hovered:
            return
        if self.hovered is not None:
            self._parts[self.hovered].clear_color_scale()
        self.hovered = handle
        if handle is not None:
            self._parts[handle].set_color_scale(*HOVER_SCALE)

    def _follow_task(self, task: Task) -> int:
        self.follow()
        return int(task.cont)


def _angle(offset: Vec3) -> float:
    """The heading of `offset` in the ground plane, degrees counter-clockwise from +x."""
    return math.degrees(math.atan2(offset.y, offset.x))


def _rotated(points: NDArray[np.float64], degrees: float) -> NDArray[np.float64]:
    turn = math.radians(degrees)
    cos, sin = math.cos(turn), math.sin(turn)
    return np.asarray(points @ np.array([[cos, sin], [-sin, cos]]), dtype=np.float64)


def _arrow(degrees: float, grow: float = 0.0) -> NDArray[np.float64]:
    """An arrow's triangles (n, 3, 2) along +x turned by `degrees`, `grow` wider all round."""
    start, shaft_end = ARROW_START - grow, ARROW_END - HEAD_LENGTH
    half = SHAFT_WIDTH / 2 + grow
    shaft = [
        [(start, -half), (shaft_end, -half), (shaft_end, half)],
        [(start, -half), (shaft_end, half), (start, half)],
    ]
    back, head_half = shaft_end - grow, HEAD_WIDTH / 2 + 2 * grow
    head = [[(back, -head_half), (ARROW_END + 2 * grow, 0.0), (back, head_half)]]
    return _rotated(np.asarray(shaft + head, dtype=np.float64), degrees)


def _ring(grow: float = 0.0) -> NDArray[np.float64]:
    """The ring's triangles (n, 3, 2): an annulus of `RING_SEGMENTS` quads, `grow` wider."""
    angles = np.linspace(0.0, 2.0 * math.pi, RING_SEGMENTS + 1)
    half = RING_WIDTH / 2 + grow
    inner = np.stack([np.cos(angles), np.sin(angles)], axis=1) * (RING_RADIUS - half)
    outer = np.stack([np.cos(angles), np.sin(angles)], axis=1) * (RING_RADIUS + half)
    first = np.stack([inner[:-1], outer[:-1], outer[1:]], axis=1)
    second = np.stack([inner[:-1], outer[1:], inner[1:]], axis=1)
    return np.concatenate([first, second])


def _segment(degrees: float) -> NDArray[np.float64]:
    """An arrow's outline for hit tests: its axis from start to tip."""
    return _rotated(np.array([(ARROW_START, 0.0), (ARROW_END, 0.0)]), degrees)


def _circle() -> NDArray[np.float64]:
    """The ring's outline for hit tests: its middle circle, closed."""
    angles = np.linspace(0.0, 2.0 * math.pi, 33)
    return np.stack([np.cos(angles), np.sin(angles)], axis=1) * RING_RADIUS


def _mesh(name: str, triangles: NDArray[np.float64]) -> GeomNode:
    """A flat GeomNode of `triangles` (n, 3, 2) in the z = 0 plane."""
    data = GeomVertexData(name, GeomVertexFormat.get_v3(), Geom.UH_static)
    flat = triangles.reshape(-1, 2)
    vertices = np.zeros((len(flat), 3), dtype=np.float32)
    vertices[:, :2] = flat
    data.unclean_set_num_rows(len(vertices))
    memoryview(data.modify_array(0)).cast("B")[:] = vertices.tobytes()  # type: ignore[arg-type]
    primitive = GeomTriangles(Geom.UH_static)
    primitive.add_next_vertices(len(vertices))
    geom = Geom(data)
    geom.add_primitive(primitive)
    node = GeomNode(name)
    node.add_geom(geom)
    return node


def distance_to_polyline(point: tuple[float, float], line: NDArray[np.float64]) -> float:
    """The shortest distance from `point` to the polyline through `line`'s points (n, 2).

    >>> distance_to_polyline((0.0, 1.0), np.array([(-1.0, 0.0), (1.0, 0.0)]))
    1.0
    """
    starts, ends = line[:-1], line[1:]
    along = ends - starts
    length2 = np.maximum((along**2).sum(axis=1), 1e-12)
    p = np.asarray(point)
    t = np.clip(((p - starts) * along).sum(axis=1) / length2, 0.0, 1.0)
    nearest = starts + along * t[:, None]
    return float(np.sqrt(((nearest - p) ** 2).sum(axis=1)).min())
