"""Read the tables that make an object move by itself: `[objects.mover]`, `.rotator`, `.door`.

Part of the scene schema (`sim.scene.file` calls `read_motion` for each object); every bad value
ends in the usual one-line `SceneError`, e.g. ``scenes/x.toml: objects[4].mover.speed: must be >
0, got 0``. What the values mean over time is `sim.scene.motion_paths`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sim.config import DoorConfig, MoverConfig, MoverMode, RotatorConfig, Tag
from sim.scene import values
from sim.scene.values import Read, Reader, Table

MOVER_KEYS: Final = ("waypoints", "speed", "mode", "wait_s")
ROTATOR_KEYS: Final = ("deg_per_s",)
DOOR_KEYS: Final = ("period_s", "open_fraction", "phase_s")
MOTION_KEYS: Final = ("mover", "rotator", "door")
"""The object keys this module reads, for the object table's list of known keys."""

# Which tags each table may sit on: a moving End wanders; Start stays put (agents patrol to it
# and reset on it); an agent moves by its own controller.
MOVER_TAGS: Final = (Tag.OBSTACLE, Tag.TERRAIN, Tag.END)
ROTATOR_TAGS: Final = (Tag.OBSTACLE,)
DOOR_TAGS: Final = (Tag.OBSTACLE,)

# A route of more stops than this is a data file, not a scene; each stop is checked per frame.
MAX_WAYPOINTS: Final = 10_000
# No faster than crossing the whole world in a second, as for agents.
MAX_MOVER_SPEED: Final = values.MAX_COORDINATE
# Waits, periods and phases of more than a day are "never" for any run.
MAX_DURATION_S: Final = 86_400.0
# A turn rate past this turns more than a whole turn between two frames at any frame rate:
# the heading is noise. The same bound as for angles.
MAX_DEG_PER_S: Final = values.MAX_ANGLE_DEG

_speed = values.within(values.MIN_SIZE, MAX_MOVER_SPEED)
_period = values.within(values.MIN_SIZE, MAX_DURATION_S)
_mode = values.choice(MoverMode)
_DEFAULT_MODE: Final[MoverMode] = MoverMode.PINGPONG


def read_motion(
    at: Reader, table: Table, tag: Tag
) -> tuple[MoverConfig | None, RotatorConfig | None, DoorConfig | None]:
    """Read an object's motion tables; a table on a tag that cannot carry it is an error.

    Args:
        at: The object's key path (``objects[3]``).
        table: The object's table.
        tag: The object's tag, already read.
    """
    _check_tag(at, table, "mover", tag, MOVER_TAGS)
    _check_tag(at, table, "rotator", tag, ROTATOR_TAGS)
    _check_tag(at, table, "door", tag, DOOR_TAGS)
    return (
        table.get("mover", _mover, None),
        table.get("rotator", _rotator, None),
        table.get("door", _door, None),
    )


def _check_tag(at: Reader, table: Table, key: str, tag: Tag, allowed: Sequence[Tag]) -> None:
    if key in table and tag not in allowed:
        raise at.at(key).error(
            f"only allowed on objects tagged {_listed(allowed)}, not {tag.value!r}"
        )


def _listed(tags: Sequence[Tag]) -> str:
    """`'A'`, `'A' or 'B'`, `'A', 'B' or 'C'`."""
    quoted = [repr(tag.value) for tag in tags]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _mover(at: Reader, value: object) -> MoverConfig:
    table = Table(at, value, MOVER_KEYS)
    return MoverConfig(
        waypoints=table.get("waypoints", _waypoints),
        speed=table.get("speed", _speed),
        mode=table.get("mode", _mode, _DEFAULT_MODE),
        wait_s=table.get("wait_s", _wait, 0.0),
    )


def _waypoints(at: Reader, value: object) -> tuple[tuple[float, float], ...]:
    if not isinstance(value, list | tuple):
        raise at.error(f"expected an array of [x, y] points, got {values.describe(value)}")
    if not value:
        raise at.error("expected at least one [x, y] point, got an empty array")
    if len(value) > MAX_WAYPOINTS:
        raise at.error(f"at most {MAX_WAYPOINTS:,} points, got {len(value):,}")
    return tuple(values.pair(at.at(index), point) for index, point in enumerate(value))


def _wait(at: Reader, value: object) -> float:
    result = values.number(at, value)
    if result < 0:
        raise at.error(f"must be >= 0, got {values.short(value)}")
    if result > MAX_DURATION_S:
        raise at.error(f"must be at most {values.plain(MAX_DURATION_S)}, got {values.short(value)}")
    return result


def _rotator(at: Reader, value: object) -> RotatorConfig:
    return RotatorConfig(deg_per_s=Table(at, value, ROTATOR_KEYS).get("deg_per_s", _turn_rate))


def _turn_rate(at: Reader, value: object) -> float:
    result = values.number(at, value)
    if result == 0:
        raise at.error("must not be 0 (the sign is the direction: + counter-clockwise)")
    if abs(result) > MAX_DEG_PER_S:
        raise at.error(f"must lie within +-{MAX_DEG_PER_S:.0f}, got {values.short(value)}")
    return result


def _door(at: Reader, value: object) -> DoorConfig:
    table = Table(at, value, DOOR_KEYS)
    return DoorConfig(
        period_s=table.get("period_s", _period),
        open_fraction=table.get("open_fraction", _fraction),
        phase_s=table.get("phase_s", _phase, 0.0),
    )


def _fraction(at: Reader, value: object) -> float:
    result = values.number(at, value)
    if not 0.0 < result < 1.0:
        raise at.error(f"must lie strictly between 0 and 1, got {values.short(value)}")
    return result


def _phase(at: Reader, value: object) -> float:
    result = values.number(at, value)
    if abs(result) > MAX_DURATION_S:
        raise at.error(f"must lie within +-{MAX_DURATION_S:.0f}, got {values.short(value)}")
    return result


SETTING_READERS: Final[dict[str, Read[object]]] = {
    "mover.speed": _speed,
    "mover.wait_s": _wait,
    "mover.mode": _mode,
    "rotator.deg_per_s": _turn_rate,
    "door.period_s": _period,
    "door.open_fraction": _fraction,
    "door.phase_s": _phase,
}
"""The reader of each single-value motion setting, by its dotted key (``"mover.speed"``).

For editors that change one setting at a time (the inspector): a bad value gets the message
the scene file would. The waypoints are a list, read only from the file.
"""
