"""The user's side of scripting: `Script` and the views it reaches the scene through.

A script sees its own object as a `ScriptObject` (`name`, `tag`, `position`, `heading`), the
other objects through a `ScriptWorld` (`find`, `find_with_tag`) and draws through
`ScriptGizmos`; each is a small typed view over the engine's GameObject, World and Gizmos, so
the user's API stays the same whatever the engine grows. `sim.scripting.runner` calls the hooks.
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final

import numpy as np

from sim.config import Tag
from sim.engine import GameObject, Gizmos, World
from sim.scene.values import MAX_ANGLE_DEG, MAX_COORDINATE

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

Vec3 = tuple[float, float, float]
Rgba = tuple[float, float, float, float]

WHITE: Final[Rgba] = (1.0, 1.0, 1.0, 1.0)
CIRCLE_SEGMENTS: Final = 48


class ScriptObject:
    """A scene object as a script sees it: its name and tag, and a pose it may change.

    Two views of the same object are equal (`==`), whichever lookup gave them.

    `position` and `heading` are in the world frame. Moving an Obstacle, Start or End changes
    the grid and the plans exactly as dragging it does; agents steer themselves, so an agent
    moved by a script is put back by its own controller.
    """

    __slots__ = ("_moved", "_object")

    def __init__(
        self, game_object: GameObject, moved: weakref.WeakSet[GameObject] | None = None
    ) -> None:
        self._object = game_object
        # Where the runner keeps the objects scripts have moved: saving leaves those where the
        # file puts them, as it does agents and movers.
        self._moved = moved

    @property
    def name(self) -> str:
        """The object's name, as the scene file gives it."""
        return self._object.name

    @property
    def tag(self) -> str:
        """The object's tag: "Obstacle", "Start", "End", "Agent", "Terrain" or "Untagged"."""
        return self._object.tag

    @property
    def alive(self) -> bool:
        """False once the object has been removed (the user deleted it, say)."""
        return self._object.alive and not self._object.node.is_empty()

    @property
    def position(self) -> Vec3:
        """Where the object stands: world `(x, y, z)`, units, Z up (z = 0 is on the ground).

        Raises:
            RuntimeError: When the object has been removed.
            ValueError: On setting anything but three numbers within +-`MAX_COORDINATE`, the
                scene file's range.
        """
        return self._live().world_pos

    @position.setter
    def position(self, value: Sequence[float]) -> None:
        x, y, z = _finite_numbers(value, 3, "position", MAX_COORDINATE)
        node = self._moved_object().node
        node.set_pos(node.get_top(), x, y, z)

    @property
    def heading(self) -> float:
        """Which way the object faces: degrees counter-clockwise about +Z (0 faces +Y).

        Raises:
            RuntimeError: When the object has been removed.
            ValueError: On setting anything but a number within +-`MAX_ANGLE_DEG`, the scene
                file's range (taken modulo 360, as the scene file reads it).
        """
        node = self._live().node
        return float(node.get_h(node.get_top()))

    @heading.setter
    def heading(self, value: float) -> None:
        (degrees,) = _finite_numbers((value,), 1, "heading", MAX_ANGLE_DEG)
        node = self._moved_object().node
        node.set_h(node.get_top(), math.fmod(degrees, 360.0) + 0.0)

    def _live(self) -> GameObject:
        if not self.alive:
            raise RuntimeError(f"object {self._object.name!r} has been removed")
        return self._object

    def _moved_object(self) -> GameObject:
        moving = self._live()
        if self._moved is not None:
            self._moved.add(moving)
        return moving

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScriptObject) and other._object is self._object

    def __hash__(self) -> int:
        return hash(self._object)

    def __repr__(self) -> str:
        return f"<ScriptObject {self.name!r} tag={self.tag!r}>"


class ScriptWorld:
    """The scene's objects, as scripts look them up.

    Only the scene's own objects are found (those the file lists and those added since, such as
    obstacles the user drops in), never the app's machinery.

    Args:
        world: The engine's world.
        scene_objects: The objects the scene file made; tagged objects added later count too.
    """

    def __init__(self, world: World, scene_objects: Iterable[GameObject]) -> None:
        self._world = world
        self._scene: weakref.WeakSet[GameObject] = weakref.WeakSet(scene_objects)
        self.moved: weakref.WeakSet[GameObject] = weakref.WeakSet()
        """The objects a script has moved or turned, through any view of them."""

    @property
    def time_s(self) -> float:
        """Simulated seconds since the scene started (it stands still while paused)."""
        return self._world.time_s

    def find(self, name: str) -> ScriptObject | None:
        """The object called `name`, or None."""
        found = (obj for obj in self._objects() if obj.name == name)
        return next((ScriptObject(obj, self.moved) for obj in found), None)

    def find_with_tag(self, tag: str) -> ScriptObject | None:
        """The first object (in scene order) tagged `tag` ("End", "Obstacle", ...), or None."""
        found = self.find_all_with_tag(tag)
        return found[0] if found else None

    def find_all_with_tag(self, tag: str) -> list[ScriptObject]:
        """Every object tagged `tag`, in scene order."""
        return [
            ScriptObject(obj, self.moved)
            for obj in self._world.find_all_with_tag(tag)
            if self._is_scene(obj)
        ]

    def _objects(self) -> list[GameObject]:
        return [obj for obj in self._world.objects if self._is_scene(obj)]

    def _is_scene(self, game_object: GameObject) -> bool:
        # The app's own objects (the HUD, the grid, ...) are untagged and not the scene's.
        if not game_object.alive:
            return False
        return game_object.tag != Tag.UNTAGGED or game_object in self._scene


class ScriptGizmos:
    """Debug drawing for one script, redrawn every frame (what is not drawn again disappears).

    Points are world `(x, y, z)`; colours `(r, g, b)` or `(r, g, b, a)` in 0..1.

    Args:
        prefix: Keeps this script's drawings apart from every other's.
    """

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._gizmos: Gizmos | None = None
        self._drawn = 0

    def begin(self, gizmos: Gizmos) -> None:
        """Start a frame's drawing on `gizmos` (the runner calls it before `on_draw_gizmos`)."""
        self._gizmos, self._drawn = gizmos, 0

    def line(
        self,
        start: Sequence[float],
        end: Sequence[float],
        color: Sequence[float] = WHITE,
        *,
        thickness: float = 1.0,
    ) -> None:
        """Draw a line from `start` to `end` this frame."""
        points = _points([start, end], "line")
        self._target().lines(self._key(), [points], color, thickness=thickness)

    def polyline(
        self,
        points: ArrayLike,
        color: Sequence[float] = WHITE,
        *,
        thickness: float = 1.0,
    ) -> None:
        """Draw one connected line through `points` this frame."""
        self._target().polyline(
            self._key(), _points(points, "polyline"), color, thickness=thickness
        )

    def circle(
        self,
        center: Sequence[float],
        radius: float,
        color: Sequence[float] = WHITE,
        *,
        thickness: float = 1.0,
    ) -> None:
        """Draw a level circle of `radius` units around `center` this frame."""
        x, y, z = _finite_numbers(center, 3, "center", MAX_COORDINATE)
        (r,) = _finite_numbers((radius,), 1, "radius", MAX_COORDINATE)
        points = [
            (
                x + r * math.cos(2 * math.pi * i / CIRCLE_SEGMENTS),
                y + r * math.sin(2 * math.pi * i / CIRCLE_SEGMENTS),
                z,
            )
            for i in range(CIRCLE_SEGMENTS + 1)
        ]
        self.polyline(points, color, thickness=thickness)

    def _target(self) -> Gizmos:
        if self._gizmos is None:
            raise RuntimeError("draw from on_draw_gizmos(gizmos) only")
        return self._gizmos

    def _key(self) -> str:
        self._drawn += 1
        return f"{self._prefix}/{self._drawn}"


class Script:
    """Base class of a user's behaviour on a scene object (Unity's MonoBehaviour).

    Subclass it, override the hooks you need and name the class in the scene (see
    docs/scripting.md). The scene's `params` are the class's keyword arguments; `Script.__init__`
    takes none, so a subclass may define ``__init__(self, radius=1.0, **kwargs)`` and call
    ``super().__init__(**kwargs)``. Hooks, once the scene runs:

    - `awake()` once, for every script before any starts;
    - `start()` once, right before its first `update`;
    - `update(dt)` every frame, `dt` simulated seconds (none while the scene is paused or the
      user drags the object);
    - `on_draw_gizmos(gizmos)` every frame, only to draw;
    - `on_destroy()` once, when the object is removed or the app closes.

    A hook that raises switches the script off (`enabled` turns False); the error, with the
    script's file, line and object, shows on screen and in the report's `errors`.

    Attributes:
        enabled: While False, `start`, `update` and `on_draw_gizmos` are skipped.
    """

    enabled: bool = True
    # Set by `bind` when the runner takes the script; class defaults keep a subclass that forgets
    # to call super().__init__() working.
    _object: ScriptObject | None = None
    _world: ScriptWorld | None = None

    def __init__(self) -> None:
        self.enabled = True
        self._object = None
        self._world = None

    @property
    def game_object(self) -> ScriptObject:
        """The object this script is on.

        Raises:
            RuntimeError: Before the scene runs (in `__init__`).
        """
        if self._object is None:
            raise RuntimeError(f"{type(self).__name__} is not on an object yet (use awake/start)")
        return self._object

    @property
    def world(self) -> ScriptWorld:
        """The scene's objects: `find(name)`, `find_with_tag(tag)`, `time_s`.

        Raises:
            RuntimeError: Before the scene runs (in `__init__`).
        """
        if self._world is None:
            raise RuntimeError(f"{type(self).__name__} is not in a scene yet (use awake/start)")
        return self._world

    def awake(self) -> None:
        """Set up the script's own state. Default: nothing."""

    def start(self) -> None:
        """Set up what depends on other objects, before the first update. Default: nothing."""

    def update(self, dt: float) -> None:
        """Advance by `dt` simulated seconds. Default: nothing."""

    def on_draw_gizmos(self, gizmos: ScriptGizmos) -> None:
        """Draw this frame's debug lines with `gizmos`; must not change the scene."""

    def on_destroy(self) -> None:
        """Release what awake or start took; the object can still be read. Default: nothing."""

    def __repr__(self) -> str:
        owner = "unattached" if self._object is None else repr(self._object.name)
        return f"<{type(self).__name__} on {owner}>"


def bind(script: Script, game_object: ScriptObject, world: ScriptWorld) -> None:
    """Put `script` on `game_object` in `world` (the runner does it once, before `awake`)."""
    script._object, script._world = game_object, world


def _finite_numbers(
    value: Iterable[float], size: int, what: str, limit: float
) -> tuple[float, ...]:
    """`value` as `size` floats within +-`limit`, or a ValueError naming `what`.

    The limits are the scene file's: past them Panda3D's float32 loses the value (1e39 is no
    float32 at all) and the run would crash where the script set it.
    """
    try:
        # One more than wanted is enough to refuse: a script may hand over an endless iterator.
        numbers = tuple(float(item) for item in itertools.islice(value, size + 1))
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{what}: expected {size} numbers, got {_short(value)}") from None
    if len(numbers) != size or not all(math.isfinite(n) for n in numbers):
        raise ValueError(f"{what}: expected {size} finite numbers, got {_short(value)}")
    if any(abs(n) > limit for n in numbers):
        raise ValueError(f"{what}: must lie within +-{limit:.0f}, got {_short(value)}")
    return numbers


def _points(value: ArrayLike, what: str) -> NDArray[np.float64]:
    """`value` as an array of coordinates within +-`MAX_COORDINATE` (Gizmos checks its shape)."""
    try:
        points = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{what}: expected points (x, y, z), got {_short(value)}") from None
    if not (np.isfinite(points).all() and (np.abs(points) <= MAX_COORDINATE).all()):
        raise ValueError(f"{what}: points must lie within +-{MAX_COORDINATE:.0f}")
    return points


def _short(value: object) -> str:
    """`value`'s repr, cut: a script may hand over anything, of any size."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
