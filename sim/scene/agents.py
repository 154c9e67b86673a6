"""Read an agent's settings (`[objects.agent]`, `[crowds.agent]`) and check whom agents chase.

Part of the scene schema (`sim.scene.file` builds the readers); every bad value ends in the usual
one-line `SceneError`, e.g. ``scenes/x.toml: crowds[1].agent.target: no object called 'exit'
in this scene``.

`target = "NAME"` may name any object of the scene: a Start, an End, an obstacle, an untagged
marker, or another agent (a chase: the chaser replans as its quarry moves to another cell). It
may not name the agent itself, which would stand still "chasing" its own position; for a crowd
that is a name of one of its own members. Without `target` an agent goes to the End-tagged
object, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sim.config import AgentConfig, AgentMode, Planner
from sim.navigation.areas import WALKABLE
from sim.scene import values
from sim.scene.spec import SceneSpec
from sim.scene.values import Reader, Table

AGENT_KEYS: Final = (
    "speed",
    "turn_rate",
    "replan_interval_s",
    "arrival_radius",
    "mode",
    "smoothing",
    "radius",
    "avoidance",
    "target",
    "planner",
    "acceleration",
    "angular_speed",
    "stopping_distance",
    "auto_braking",
    "avoidance_priority",
    "areas",
)
# An agent is no faster than crossing the whole world (MAX_COORDINATE) in a second.
MAX_SPEED: Final = values.MAX_COORDINATE
# A turn rate closes 1 - exp(-rate * dt) of the turn a frame; at 1000 a 60 fps frame leaves
# e^-16 of it, so a faster rate turns no faster, it only risks float overflow.
MAX_TURN_RATE: Final = 1000.0
# A replan interval of a day: any longer is "never" for any run, and a shorter one than a frame
# just replans every frame.
MAX_REPLAN_INTERVAL_S: Final = 86_400.0
# Reaching the fastest speed (MAX_SPEED) from rest in a millisecond: any more is "at once",
# which leaving the key out says.
MAX_ACCELERATION: Final = MAX_SPEED * 1000.0
MAX_ANGULAR_SPEED: Final = 360_000.0  # a thousand turns a second: no cap at any frame rate
PRIORITIES: Final = (0, 99)  # Unity's avoidance_priority range, both ends included

_speed = values.within(values.MIN_SIZE, MAX_SPEED)
_turn_rate = values.within(values.MIN_SIZE, MAX_TURN_RATE)
_replan_interval = values.within(values.MIN_SIZE, MAX_REPLAN_INTERVAL_S)
_mode = values.choice(AgentMode)
_planner = values.choice(Planner)
_acceleration = values.within(values.MIN_SIZE, MAX_ACCELERATION)
_angular_speed = values.within(values.MIN_SIZE, MAX_ANGULAR_SPEED)


def _distance(at: Reader, value: object) -> float:
    """A distance of 0 or more, world units (a stopping distance)."""
    result = values.number(at, value)
    if result < 0.0:
        raise at.error(f"must be >= 0, got {values.short(value)}")
    return values.coordinate(at, result)


def _priority(at: Reader, value: object) -> int:
    """Unity's avoidance priority: an integer within 0..99."""
    result = values.integer(at, value)
    low, high = PRIORITIES
    if not low <= result <= high:
        raise at.error(f"must be within {low}..{high}, got {values.short(value)}")
    return result


def _areas(at: Reader, value: object) -> tuple[str, ...]:
    """A list of area names (`area = "NAME"` of the terrain patches), at least one."""
    if not isinstance(value, list) or not value:
        raise at.error(f"expected a list of area names, got {values.describe(value)}")
    return tuple(values.non_empty_string(at.at(index), name) for index, name in enumerate(value))


MOTION_READERS: Final[dict[str, values.Read[Any]]] = {
    "acceleration": _acceleration,
    "angular_speed": _angular_speed,
    "stopping_distance": _distance,
    "auto_braking": values.boolean,
    "avoidance_priority": _priority,
    "areas": _areas,
}
"""The readers of the agent settings under Unity's names, by key (the inspector's too)."""


@dataclass(frozen=True, slots=True)
class AgentReader:
    """Reads `[objects.agent]` and `[crowds.agent]`; missing keys take `default`'s values.

    Whether a `target` names an object of the scene is checked once the whole scene is read
    (`check_targets`), as the object may come later in the file.
    """

    default: AgentConfig

    def __call__(self, at: Reader, value: object) -> AgentConfig:
        """Read one agent table at key path `at`."""
        table = Table(at, value, AGENT_KEYS)
        default = self.default
        return AgentConfig(
            speed=table.get("speed", _speed, default.speed),
            turn_rate=table.get("turn_rate", _turn_rate, default.turn_rate),
            replan_interval_s=table.get(
                "replan_interval_s", _replan_interval, default.replan_interval_s
            ),
            arrival_radius=table.get("arrival_radius", values.length, default.arrival_radius),
            mode=table.get("mode", _mode, default.mode),
            smoothing=table.get("smoothing", values.boolean, default.smoothing),
            radius=table.get("radius", values.length, default.radius),
            avoidance=table.get("avoidance", values.boolean, default.avoidance),
            target=table.get("target", values.non_empty_string, default.target),
            planner=table.get("planner", _planner, default.planner),
            acceleration=table.get("acceleration", _acceleration, default.acceleration),
            angular_speed=table.get("angular_speed", _angular_speed, default.angular_speed),
            stopping_distance=table.get("stopping_distance", _distance, default.stopping_distance),
            auto_braking=table.get("auto_braking", values.boolean, default.auto_braking),
            avoidance_priority=table.get(
                "avoidance_priority", _priority, default.avoidance_priority
            ),
            areas=table.get("areas", _areas, default.areas),
        )


def object_path(at: Reader, scene: SceneSpec, index: int) -> Reader:
    """The key path of the scene's `index`-th object: ``objects[i]``, or ``crowds[j]``.

    An agent a crowd expanded into has no table of its own; its crowd's table stands for it.
    """
    listed = len(scene.listed_objects)
    if index < listed:
        return at.at("objects").at(index)
    index -= listed
    for crowd_index, crowd in enumerate(scene.crowds):
        if index < crowd.count:
            return at.at("crowds").at(crowd_index)
        index -= crowd.count
    return at


def check_areas(at: Reader, scene: SceneSpec) -> None:
    """Refuse an agent whose `areas` name an area no terrain patch of the scene has.

    `walkable` (`sim.navigation.areas.WALKABLE`, the ground no named patch covers) is always
    an area.

    Raises:
        SceneError: At the first such name, in file order, naming its `agent.areas[i]` key.
    """
    known = {obj.terrain_area for obj in scene.objects if obj.terrain_area is not None}
    known.add(WALKABLE)
    for index, obj in enumerate(scene.objects):
        areas = () if obj.agent is None or obj.agent.areas is None else obj.agent.areas
        for position, area in enumerate(areas):
            if area not in known:
                key = object_path(at, scene, index).at("agent").at("areas").at(position)
                names = ", ".join(values.short(name) for name in sorted(known))
                raise key.error(f"no terrain patch has area {values.short(area)} (areas: {names})")


def check_targets(at: Reader, scene: SceneSpec) -> None:
    """Refuse an agent whose `target` names no object of the scene, or the agent itself.

    Args:
        at: The file's reader (no key path).
        scene: The scene read so far, every object and crowd in it.

    Raises:
        SceneError: At the first such agent, in file order, naming its `agent.target` key.
    """
    names: set[str] | None = None  # built only when some agent has a target
    for index, obj in enumerate(scene.objects):
        target = None if obj.agent is None else obj.agent.target
        if target is None:
            continue
        if names is None:
            names = {other.name for other in scene.objects}
        key = object_path(at, scene, index).at("agent").at("target")
        if target not in names:
            raise key.error(f"no object called {values.short(target)} in this scene")
        if target == obj.name:
            whose = (
                "this agent's own name"
                if index < len(scene.listed_objects)
                else ("the name of one of this crowd's own agents")
            )
            raise key.error(f"{values.short(target)} is {whose}: an agent cannot chase itself")
