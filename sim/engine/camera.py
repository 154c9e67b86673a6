"""An orbit camera: right-drag orbits, middle-drag (or shift+right-drag) pans, the wheel zooms.

`toggle_top_down` (7) switches to an orthographic view from straight above that frames a ground
rectangle, and back to the orbit where it was; panning and zooming work in it, orbiting does
not (there is nothing to orbit in a map view).

The left button is left alone for picking and dragging cubes. Handlers take the mouse position
explicitly (Panda3D's normalised -1..1 coordinates), so tests drive them without a window.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING

from direct.task.Task import Task
from panda3d.core import (
    Camera,
    Lens,
    NodePath,
    OrthographicLens,
    Point3,
    Vec3,
)

from sim.engine.loop import FrameLoop, Phase
from sim.engine.pointer import PointerTrail, with_any_modifiers

if TYPE_CHECKING:
    from sim.engine.events import EventSource

ORBIT_DEG_PER_UNIT = 120.0  # dragging across the whole window (2 units) turns 240 degrees
PAN_PER_UNIT = 0.6  # a full-width pan moves the target by 1.2 x the camera distance
ZOOM_STEP = 0.88  # one wheel notch brings the camera this much closer
MIN_PITCH_DEG, MAX_PITCH_DEG = -89.0, -5.0
MIN_DISTANCE, MAX_DISTANCE = 1.5, 2000.0
TOP_DOWN_FOV_DEG = 50.0  # the film spans what a 50-degree lens sees at the pose's distance
TOP_DOWN_MARGIN = 1.05  # the framed rectangle fills 95% of the window's shorter fit
TOP_DOWN_PITCH_DEG = -90.0
Ground = tuple[float, float, float, float]
"""A ground rectangle `(x0, y0, x1, y1)`, world units, for the top-down view to frame."""


@dataclass(frozen=True, slots=True)
class CameraPose:
    """Where the orbit camera looks from.

    Attributes:
        target: World point the camera orbits and looks at.
        distance: Camera distance from the target, world units.
        heading_deg: Rotation about +Z; 0 looks along +Y.
        pitch_deg: Tilt; negative looks down at the ground.
    """

    target: tuple[float, float, float]
    distance: float
    heading_deg: float
    pitch_deg: float


class DragMode(Enum):
    """What a mouse drag does to the camera."""

    ORBIT = "orbit"
    PAN = "pan"


class OrbitCamera:
    """Keeps `camera` on a sphere around a target; input handlers change the pose."""

    def __init__(self, camera: NodePath, home: CameraPose) -> None:
        self._camera = camera
        self._pivot = camera.get_parent().attach_new_node("camera-pivot")
        camera.reparent_to(self._pivot)
        self._home = home
        self._pose = home
        self._drag: DragMode | None = None
        self._drag_from = (0.0, 0.0)
        self._orbit_view: tuple[CameraPose, Lens] | None = None  # kept while top-down
        self._ortho = OrthographicLens()
        self._apply()

    @property
    def top_down(self) -> bool:
        """Whether the orthographic view from above is on."""
        return self._orbit_view is not None

    def toggle_top_down(self, ground: Ground) -> None:
        """Look straight down on `ground` through an orthographic lens, or go back to the orbit.

        The orbit's pose and lens are kept and come back as they were. The camera node must
        hold a Camera (ShowBase's `camera` holds `cam`).
        """
        lens_node = self._lens_node()
        if self._orbit_view is not None:
            pose, lens = self._orbit_view
            self._orbit_view = None
            lens_node.node().set_lens(lens)
            self._pose = pose
            self._drag = None
            self._apply()
            return
        perspective = lens_node.node().get_lens()
        self._orbit_view = (self._pose, perspective)
        x0, y0, x1, y1 = ground
        aspect = perspective.get_aspect_ratio() or 1.0
        film_height = max(y1 - y0, (x1 - x0) / aspect) * TOP_DOWN_MARGIN
        distance = film_height / (2.0 * math.tan(math.radians(TOP_DOWN_FOV_DEG) / 2.0))
        target = ((x0 + x1) / 2.0, (y0 + y1) / 2.0, 0.0)
        self._pose = CameraPose(target, distance, 0.0, TOP_DOWN_PITCH_DEG)
        self._drag = None
        lens_node.node().set_lens(self._ortho)
        self._apply()

    def _lens_node(self) -> NodePath[Camera]:
        found = self._camera.find("**/+Camera")
        if found.is_empty():
            raise ValueError(f"{self._camera.get_name()!r} holds no Camera: no lens to swap")
        return found  # type: ignore[return-value]

    @property
    def pose(self) -> CameraPose:
        """The current pose."""
        return self._pose

    @property
    def dragging(self) -> bool:
        """True while an orbit or pan drag is under way."""
        return self._drag is not None

    def begin_drag(self, mode: DragMode, mouse: tuple[float, float]) -> None:
        """Start orbiting or panning from the normalised mouse position `mouse`."""
        self._drag = mode
        self._drag_from = mouse

    def drag_to(self, mouse: tuple[float, float]) -> None:
        """Move the drag to `mouse`; does nothing when no drag is under way."""
        if self._drag is None:
            return
        dx, dy = mouse[0] - self._drag_from[0], mouse[1] - self._drag_from[1]
        self._drag_from = mouse
        if self._drag is DragMode.ORBIT:
            self._orbit(dx, dy)
        else:
            self._pan(dx, dy)

    def end_drag(self) -> None:
        """Finish the drag under way, if any."""
        self._drag = None

    def zoom(self, notches: int) -> None:
        """Move closer for positive `notches`, further away for negative ones."""
        distance = self._pose.distance * ZOOM_STEP**notches
        self._set(distance=min(max(distance, MIN_DISTANCE), MAX_DISTANCE))

    def look_at(self, target: tuple[float, float, float], distance: float) -> None:
        """Orbit `target` from `distance` (clamped), keeping the heading and pitch: framing."""
        self._drag = None
        self._set(target=target, distance=min(max(distance, MIN_DISTANCE), MAX_DISTANCE))

    def reset(self) -> None:
        """Go back to the pose the scene started with (leaving the top-down view)."""
        if self._orbit_view is not None:
            self._lens_node().node().set_lens(self._orbit_view[1])
            self._orbit_view = None
        self._pose = self._home
        self._drag = None
        self._apply()

    def _orbit(self, dx: float, dy: float) -> None:
        if self._orbit_view is not None:
            return
        heading = (self._pose.heading_deg - dx * ORBIT_DEG_PER_UNIT) % 360.0
        pitch = self._pose.pitch_deg + dy * ORBIT_DEG_PER_UNIT / 2
        self._set(heading_deg=heading, pitch_deg=min(max(pitch, MIN_PITCH_DEG), MAX_PITCH_DEG))

    def _pan(self, dx: float, dy: float) -> None:
        # Pan in the ground plane, so dragging never lifts the target off the ground.
        heading = math.radians(self._pose.heading_deg)
        right = Vec3(math.cos(heading), math.sin(heading), 0.0)
        forward = Vec3(-math.sin(heading), math.cos(heading), 0.0)
        scale = self._pose.distance * PAN_PER_UNIT
        target = Point3(*self._pose.target) - (right * dx + forward * dy) * scale
        self._set(target=(target.x, target.y, target.z))

    def _set(self, **changes: object) -> None:
        self._pose = replace(self._pose, **changes)  # type: ignore[arg-type]
        self._apply()

    def _apply(self) -> None:
        self._pivot.set_pos(*self._pose.target)
        self._pivot.set_hpr(self._pose.heading_deg, self._pose.pitch_deg, 0.0)
        self._camera.set_pos(0.0, -self._pose.distance, 0.0)
        self._camera.set_hpr(0.0, 0.0, 0.0)
        if self._orbit_view is not None:
            # The film spans what the orbit's lens would see from this distance, so the wheel
            # zooms as it does there; the aspect is the orbit lens's, which the window keeps.
            height = 2.0 * self._pose.distance * math.tan(math.radians(TOP_DOWN_FOV_DEG) / 2)
            aspect = self._orbit_view[1].get_aspect_ratio() or 1.0
            self._ortho.set_film_size(height * aspect, height)
            self._ortho.set_near_far(0.1, self._pose.distance * 2.0 + 100.0)


class OrbitCameraInput:
    """Binds the mouse to an OrbitCamera: right-drag orbits, middle or shift+right pans, wheel.

    `events` is anything with DirectObject's `accept` (ShowBase is one); a drag starts and ends
    where the pointer was at the press and the release (`PointerTrail.position`) and follows it
    once per frame in between, by the task this adds to `loop` in `Phase.INPUT`.
    """

    TASK_NAME = "camera-input"

    def __init__(
        self,
        camera: OrbitCamera,
        *,
        events: EventSource,
        pointer: PointerTrail,
        loop: FrameLoop,
    ) -> None:
        self._camera = camera
        self._pointer = pointer
        self._loop = loop
        # Whether a tool (paint mode erasing with it) has the right button instead.
        self.right_button_taken: Callable[[], bool] = lambda: False
        # Whatever else is held: only shift changes a drag (right-drag pans with it).
        for press in with_any_modifiers("mouse3"):
            mode = DragMode.PAN if press.startswith("shift-") else DragMode.ORBIT
            events.accept(press, self._begin, [mode, press])
        for press in with_any_modifiers("mouse2"):
            events.accept(press, self._begin, [DragMode.PAN, press])
        for release in with_any_modifiers("mouse3-up") + with_any_modifiers("mouse2-up"):
            events.accept(release, self._end, [release])
        for notches, wheel in ((1, "wheel_up"), (-1, "wheel_down")):
            for turn in with_any_modifiers(wheel):
                events.accept(turn, camera.zoom, [notches])
        loop.add_task(Phase.INPUT, self._follow_mouse, self.TASK_NAME)

    def mouse(self) -> tuple[float, float]:
        """The pointer in normalised window coordinates, or the centre when outside."""
        return self._pointer.now() or (0.0, 0.0)

    def _begin(self, mode: DragMode, press: str) -> None:
        # The right button's press belongs to the tool that took it: its place is the tool's.
        if "mouse3" in press and self.right_button_taken():
            return
        self._camera.begin_drag(mode, self._pointer.position(press) or (0.0, 0.0))

    def _end(self, release: str) -> None:
        if not self._camera.dragging:
            return
        at = self._pointer.position(release)
        if at is not None:
            self._camera.drag_to(at)
        self._camera.end_drag()

    def _follow_mouse(self, task: Task) -> int:
        at = self._pointer.now()
        if self._camera.dragging and at is not None:
            self._camera.drag_to(at)
        return int(task.cont)

    def detach(self) -> None:
        """Stop following the mouse."""
        self._loop.remove_task(self.TASK_NAME)
