"""What the inspector edits on each object: its fields, their scene-file readers, their values.

A field is one value of the object's scene-file entry, named by its key there (``pos``,
``agent.speed``, ``door.period_s``) and read by the scene file's own reader for it, so a typed
value is checked exactly as the file's would be. The cubes the editor moves (Start, End,
obstacles, terrain patches) have position, scale and heading, a patch its terrain cost, an agent
its speed, radius and mode and its motion under Unity's names (acceleration, angular_speed,
stopping_distance, auto_braking, avoidance_priority) and the areas it walks on (typed as
names, one or more, or ``all``), and an object that moves by itself the settings of its
`[objects.mover]` (speed, wait, mode), `[objects.rotator]` (turn rate) and `[objects.door]`
(period, open share, phase). A mover's waypoints are not shown: a list of points is the scene
file's to edit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Final

from sim.components.agent_controller import AgentController
from sim.components.motion import Motion, SceneMotion
from sim.components.terrain import TerrainPatch
from sim.config import AgentMode
from sim.editor.drag import DRAGGABLE_TAGS
from sim.engine import GameObject
from sim.navigation.areas import WALKABLE
from sim.navigation.grid import MAX_COST, MIN_COST
from sim.scene import values
from sim.scene.agents import MAX_SPEED, MOTION_READERS
from sim.scene.merge import Setting, Settings
from sim.scene.motion import SETTING_READERS
from sim.scene.values import Read, Reader


@dataclass(frozen=True, slots=True)
class Field:
    """One value the inspector edits: its scene-file key and the scene file's reader for it."""

    key: str
    read: Read[Any]


POS = Field("pos", values.triple)
SCALE = Field("scale", values.scale)
HEADING = Field("heading", values.angle)
TERRAIN_COST = Field("terrain.cost", values.within(MIN_COST, MAX_COST))
ALL_AREAS: Final = "all"
"""What an agent's areas read when it may walk everywhere (no `areas` key)."""


def _typed_areas(at: Reader, value: object) -> tuple[str, ...] | None:
    """Areas as typed: one name or several (read as the file's list), or `ALL_AREAS`."""
    if value == ALL_AREAS:
        return None
    names: tuple[str, ...] = MOTION_READERS["areas"](
        at, [value] if isinstance(value, str) else value
    )
    return names


AGENT_FIELDS: Final = (
    Field("agent.speed", values.within(values.MIN_SIZE, MAX_SPEED)),
    Field("agent.radius", values.length),
    Field("agent.mode", values.choice(AgentMode)),
    *(Field(f"agent.{key}", read) for key, read in MOTION_READERS.items() if key != "areas"),
    Field("agent.areas", _typed_areas),
)
MOTION_FIELDS: Final = {
    table: tuple(
        Field(key, read) for key, read in SETTING_READERS.items() if key.startswith(f"{table}.")
    )
    for table in ("mover", "rotator", "door")
}
"""The fields of each motion table (``mover``, ``rotator``, ``door``), in the file's order."""


def fields_of(obj: GameObject, motion: SceneMotion | None = None) -> tuple[Field, ...]:
    """What the inspector edits on `obj`: what its scene file entry allows (none: nothing).

    `motion` moves the objects that move by themselves; without it their settings are not shown.
    """
    found: tuple[Field, ...] = ()
    if obj.tag in DRAGGABLE_TAGS:
        cost = (TERRAIN_COST,) if obj.get_component(TerrainPatch) is not None else ()
        found = (POS, SCALE, HEADING, *cost)
    elif obj.get_component(AgentController) is not None:
        found = AGENT_FIELDS
    configs = None if motion is None else motion.configs(obj)
    if configs is not None:
        for table, table_fields in MOTION_FIELDS.items():
            if getattr(configs, table) is not None:
                found += table_fields
    return found


def unknown_area(objects: Sequence[GameObject], areas: object) -> str | None:
    """Why `areas` (a tuple of names, or None: all) names an area no terrain patch has, if so.

    The scene file refuses such a name as it loads (`sim.scene.agents.check_areas`).
    """
    if not isinstance(areas, tuple):
        return None
    patches = (obj.get_component(TerrainPatch) for obj in objects if obj.alive)
    known = {WALKABLE} | {patch.area for patch in patches if patch is not None and patch.area}
    missing = next((name for name in areas if name not in known), None)
    if missing is None:
        return None
    return f"no terrain patch has area {values.short(missing)} (areas: {', '.join(sorted(known))})"


def is_motion_key(key: str) -> bool:
    """Whether `key` names a setting of a motion table (``"mover.speed"``)."""
    return key in SETTING_READERS


def motion_value(configs: Motion, key: str) -> Setting | None:
    """The setting `key` (``"door.phase_s"``) of `configs`, None if it has no such table.

    A mode is given as its enum member (a `str`).
    """
    table, name = key.split(".")
    config = getattr(configs, table)
    return None if config is None else getattr(config, name)


def with_motion_value(configs: Motion, key: str, value: object) -> Motion:
    """`configs` with the setting `key` set to `value` (already read); unchanged if it lacks it."""
    table, name = key.split(".")
    config = getattr(configs, table)
    if config is None or name not in {field.name for field in fields(config)}:
        return configs
    return replace(configs, **{table: replace(config, **{name: value})})


def live_settings(obj: GameObject, motion: SceneMotion | None = None) -> Settings:
    """The settings of `obj` the inspector edits, as they are now, by key (for saving).

    An agent's mode is its configured one: M switches every agent for a while, no edit. The
    motion settings are `motion`'s (none without it).
    """
    found: list[tuple[str, Setting]] = []
    patch = obj.get_component(TerrainPatch)
    if patch is not None:
        found.append((TERRAIN_COST.key, patch.cost))
    agent = obj.get_component(AgentController)
    if agent is not None:
        config = agent.config
        found += [
            ("agent.speed", config.speed),
            ("agent.radius", config.radius),
            ("agent.mode", str(config.mode)),
            ("agent.acceleration", config.acceleration),
            ("agent.angular_speed", config.angular_speed),
            ("agent.stopping_distance", config.stopping_distance),
            ("agent.auto_braking", config.auto_braking),
            ("agent.avoidance_priority", config.avoidance_priority),
            ("agent.areas", config.areas),
        ]
    configs = None if motion is None else motion.configs(obj)
    if configs is not None:
        for table_fields in MOTION_FIELDS.values():
            for field in table_fields:
                value = motion_value(configs, field.key)
                if value is not None:
                    found.append((field.key, str(value) if isinstance(value, str) else value))
    return tuple(found)
