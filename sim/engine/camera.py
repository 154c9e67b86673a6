"""An orbit camera: right-drag orbits, middle-drag (or shift+right-drag) pans, the wheel zooms.

The left button is left alone for picking and dragging cubes. Handlers take the mouse position
explicitly (Panda3D's normalised -1..1 coordinates), so tests drive them without a window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING

from direct.task.Task import Task
from panda3d.core import NodePath, Point3, Vec3

from sim.engine.loop import FrameLoop, Phase
from sim.engine.pointer import PointerTrail, with_any_modifiers

if TYPE_CHECKING:
    from sim.engine.events import EventSource

ORBIT_DEG_PER_UNIT = 120.0  # dragging across the whole window (2 units) turns 240 degrees
PAN_PER_UNIT = 0.6  # a full-width pan moves the target by 1.2 x the camera distance
ZOOM_STEP = 0.88  # one wheel notch brings the camera this much closer
MIN_PITCH_DEG, MAX_PITCH_DEG = -89.0, -5.0
MIN_DISTANCE, MAX_DISTANCE = 1.5, 2000.0


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
        self._apply()

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
        """Go back to the pose the scene started with."""
        self._pose = self._home
        self._drag = None
        self._apply()

    def _orbit(self, dx: float, dy: float) -> None:
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
        self._camera.begin_drag(mode, self._pointer.position(press) or (0.0, 0.0))

    def _end(self, release: str) -> None:
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
