"""SceneMotion: moves the scene's movers, rotators and doors each frame, by simulated time.

One component drives every object that moves by itself. It runs first in the frame (the app
spawns it before the GridManager), so in one frame the world moves, the grid re-rasterizes the
footprints that changed, and the agents react to the new grid. Where each object goes is a pure
function of the World's simulated time (`sim.scene.motion_paths`): frame rate and pauses
never change a path.

A dragged object is left to the drag: a mover's route then starts again from where it was
dropped (its origin moves there, its waypoints stay, and it sets off at once), and
`placement` gives that origin, not the mid-route position, to whoever saves the scene.

`configs` and `reconfigure` read and replace an object's settings mid-run (the inspector): the
motion carries on from where it is, with the new numbers (see `reconfigure`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from panda3d.core import NodePath, Point3

from sim.config import PALETTE, DoorConfig, MoverConfig, RotatorConfig, Tag
from sim.engine import Component, GameObject, Gizmos
from sim.scene.motion_paths import DOOR_OPEN, MoverRoute, door_height, heading_at
from sim.scene.spec import DEFAULT_COLORS

Vec3 = tuple[float, float, float]

# How far below the ground an open door's top goes, as a share of its height: wholly out of
# sight under the ground plane, and its top never within float32 noise of z = 0.
DOOR_SINK_MARGIN = 0.05
OPEN_DOOR_KEY = "open-doors"
OPEN_DOOR_Z = 0.025  # over the ground and the block shading, so the sunk door's place shows
OPEN_DOOR_THICKNESS = 2.5


@dataclass(slots=True)
class _Moving:
    """One object that moves by itself, and where its motion is anchored."""

    obj: GameObject
    origin: Vec3  # where its route starts (x, y) and its height when standing (z)
    heading: float  # its heading at time 0
    height: float  # the model's height, the node's z scale (cube models are 1 tall)
    mover: MoverConfig | None
    rotator: RotatorConfig | None
    door: DoorConfig | None
    route: MoverRoute | None = None
    route_start_s: float = 0.0  # the simulated time the route set off from `origin`
    # A rotator turns from `turn_h` at simulated time `turn_s`: (0, its heading at time 0)
    # until its rate is changed mid-run, which must not make it jump.
    turn_s: float = 0.0
    turn_h: float | None = None
    # The node's x, y as last written, read back in float32: anything else is a drag or a jump.
    written: tuple[float, float] | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class Motion:
    """How an object moves by itself: the scene file's three tables, each None if absent."""

    mover: MoverConfig | None = None
    rotator: RotatorConfig | None = None
    door: DoorConfig | None = None


class SceneMotion(Component):
    """Moves every object handed to `add` along its mover route, rotation and door schedule.

    Args:
        dragged: The object being dragged now, or None (the drag controller's fact); SceneMotion
            leaves its position alone meanwhile.
    """

    def __init__(self, *, dragged: Callable[[], GameObject | None] = lambda: None) -> None:
        super().__init__()
        self._dragged = dragged
        self._moving: list[_Moving] = []
        self._by_object: dict[GameObject, _Moving] = {}

    def add(
        self,
        game_object: GameObject,
        *,
        mover: MoverConfig | None = None,
        rotator: RotatorConfig | None = None,
        door: DoorConfig | None = None,
    ) -> None:
        """Make `game_object` move by itself from where its node stands now (time 0's pose).

        An object with none of the three is ignored.
        """
        if mover is None and rotator is None and door is None:
            return
        node = game_object.node
        root = node.get_top()
        x, y, z = game_object.world_pos
        moving = _Moving(
            game_object,
            (x, y, z),
            float(node.get_h(root)),
            abs(float(node.get_sz(root))),
            mover,
            rotator,
            door,
        )
        if mover is not None:
            moving.route = MoverRoute.of((x, y), mover)
        if door is not None and _rgba(node) == DEFAULT_COLORS[Tag.OBSTACLE]:
            # A door in the obstacles' colour takes the doors' own, so it reads as a door; a
            # colour its scene gave it stays.
            node.set_color(*PALETTE.door_closed)
        self._moving.append(moving)
        self._by_object[game_object] = moving

    @property
    def movers(self) -> list[GameObject]:
        """The live objects with a mover or a rotator, in the order they were added."""
        return [
            moving.obj
            for moving in self._moving
            if moving.obj.alive and (moving.mover is not None or moving.rotator is not None)
        ]

    def placement(self, game_object: GameObject) -> tuple[Vec3, float] | None:
        """Where `game_object`'s motion is anchored: `(pos, heading)` to save, or None.

        None for an object that does not move by itself. A mover's `pos` is its route's origin
        (where it was dropped last, else the scene's); a door's height is the standing one; a
        rotator's heading is its heading at time 0. What a drag changed is kept.
        """
        moving = self._by_object.get(game_object)
        if moving is None:
            return None
        node = game_object.node
        x, y, z = game_object.world_pos
        if moving.route is not None:
            x, y = moving.origin[0], moving.origin[1]
        if moving.door is not None:
            z = moving.origin[2]
        heading = moving.heading if moving.rotator is not None else float(node.get_h())
        return ((x, y, z), heading)

    def configs(self, game_object: GameObject) -> Motion | None:
        """`game_object`'s motion settings now, or None if it does not move by itself."""
        moving = self._by_object.get(game_object)
        if moving is None:
            return None
        return Motion(moving.mover, moving.rotator, moving.door)

    def reconfigure(self, game_object: GameObject, motion: Motion) -> None:
        """Give `game_object` new settings from now on; it carries on without a jump.

        Only the tables it has change (a table cannot be added or removed here). A mover keeps
        its route's origin and goes on from where it is, on the same leg where the new route has
        it (`MoverRoute.resumed`); a rotator turns on from its heading now at the new rate
        (its heading at time 0, which a save writes, stays); a door follows the schedule of its
        new numbers, as if it had always had them.
        """
        moving = self._by_object.get(game_object)
        if moving is None:
            return
        now = 0.0 if self.world is None else self.world.time_s
        if moving.mover is not None and motion.mover is not None and moving.route is not None:
            route = MoverRoute.of((moving.origin[0], moving.origin[1]), motion.mover)
            moving.route_start_s = now - route.resumed(moving.route, now - moving.route_start_s)
            moving.route, moving.mover = route, motion.mover
        if moving.rotator is not None and motion.rotator is not None:
            moving.turn_h = _heading(moving, moving.rotator, now)
            moving.turn_s, moving.rotator = now, motion.rotator
        if moving.door is not None and motion.door is not None:
            moving.door = motion.door
        if game_object.alive:
            self._pose(moving, now, dragged=game_object is self._dragged())

    def start(self) -> None:
        """Pose everything for the first frame, before the GridManager first reads the obstacles."""
        self._pose_all()

    def update(self, dt: float) -> None:
        """Put every moving object where its motion has it at the World's time now."""
        self._pose_all()

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Outline on the ground where each open door sank, so an open door still shows."""
        segments = [_footprint(moving.obj) for moving in self._open_doors()]
        if segments:
            gizmos.lines(
                OPEN_DOOR_KEY,
                np.concatenate(segments),
                PALETTE.door_open,
                thickness=OPEN_DOOR_THICKNESS,
            )

    def open_doors(self) -> list[str]:
        """The names of the doors open now (outlined on the ground), in the order added."""
        return [moving.obj.name for moving in self._open_doors()]

    def _open_doors(self) -> list[_Moving]:
        now = 0.0 if self.world is None else self.world.time_s
        return [
            moving
            for moving in self._moving
            if moving.door is not None
            and moving.obj.alive
            and door_height(moving.door, now) == DOOR_OPEN
        ]

    def _pose_all(self) -> None:
        world = self.world
        if world is None:
            return
        now = world.time_s
        dragged = self._dragged()
        for moving in self._moving:
            if moving.obj.alive:
                self._pose(moving, now, dragged=moving.obj is dragged)

    def _pose(self, moving: _Moving, now: float, *, dragged: bool) -> None:
        node = moving.obj.node
        if moving.route is not None and moving.mover is not None and not dragged:
            here = (float(node.get_x()), float(node.get_y()))
            if moving.written is not None and here != moving.written:
                # Dropped (or put) somewhere else: the route starts over from there, now.
                moving.origin = (here[0], here[1], moving.origin[2])
                moving.route = MoverRoute.of(here, moving.mover)
                moving.route_start_s = now
            x, y = moving.route.position_at(now - moving.route_start_s)
            node.set_x(x)
            node.set_y(y)
            moving.written = (float(node.get_x()), float(node.get_y()))
        if moving.rotator is not None:
            node.set_h(_heading(moving, moving.rotator, now))
        if moving.door is not None:
            node.set_z(_door_z(moving.door, moving.origin[2], moving.height, now))


def _heading(moving: _Moving, rotator: RotatorConfig, now: float) -> float:
    """A rotator's heading at `now`: from its heading at time 0, or at its last new rate."""
    start = moving.heading if moving.turn_h is None else moving.turn_h
    return heading_at(start, rotator.deg_per_s, now - moving.turn_s)


def _rgba(node: NodePath) -> tuple[float, float, float, float]:
    red, green, blue, alpha = node.get_color()
    return (round(red, 4), round(green, 4), round(blue, 4), round(alpha, 4))


def _footprint(obj: GameObject) -> NDArray[np.float32]:
    """The four ground edges of `obj`'s unit-cube footprint (its node's x, y in -0.5..0.5)."""
    node = obj.node
    root = node.get_top()
    corners = [root.get_relative_point(node, Point3(x, y, 0.0)) for x, y in _SQUARE]
    points = np.array([(c.x, c.y, OPEN_DOOR_Z) for c in corners], dtype=np.float32)
    return np.stack([points, np.roll(points, -1, axis=0)], axis=1)


_SQUARE = ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5))


def _door_z(door: DoorConfig, base: float, height: float, now: float) -> float:
    """A door node's z: standing at `base`, part-way on a ramp, or wholly sunk (top below 0)."""
    share = door_height(door, now)
    if share <= 0.0:
        return -height * (1.0 + DOOR_SINK_MARGIN)
    top = base + height
    # Scaling the standing top keeps a door that stands on the ground above it until open.
    return top * share - height if top > 0.0 else base
