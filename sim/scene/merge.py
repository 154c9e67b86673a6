"""Three-way merge of a scene's objects: the app's edits onto the file as it is now.

The base is what the app and the file agreed on at the last load or save. An app edit is a value
the running scene changed since then (a cube moved, turned or scaled, an obstacle added or
removed, a component setting changed in the inspector); everything else comes from the file as
it is now, so what another program wrote there meanwhile stays. As in a version-control merge, a
value both sides changed differently is a conflict (the unit is one entry's `pos`, `scale`,
`heading` or one setting), and so are an entry removed on one side and edited on the other and a
name both sides added. Pure data: no TOML, no Panda3D.

Only the file's `[[objects]]` entries take part. The agents a `[[crowds]]` table expands into
are not entries of their own: the crowd table is kept as the file declares it, and its agents
are left out of both sides (`MergeBase.crowd_members`, `SceneSpec.crowd_members`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from sim.scene.spec import ObjectSpec, SceneSpec

DECIMALS: Final = 4
# Values come back from Panda3D as float32 (2**-24 relative error): a value this close to the
# file's is the file's value, which is then kept exactly as written.
_REL_TOL: Final = 1e-7
_ABS_TOL: Final = 0.5 * 10**-DECIMALS
Vec3 = tuple[float, float, float]
Setting = float | str | tuple[str, ...] | None  # None: an agent's areas left out (all)
Settings = tuple[tuple[str, Setting], ...]
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class ObjectState:
    """An object as it stands in the running scene (units and frames as in `ObjectSpec`).

    `settings` are the component settings the inspector edits, by their dotted scene-file key
    (``("terrain.cost", 3.0)``, ``("agent.mode", "patrol")``, ``("door.period_s", 6.0)``; see
    `spec_settings`). A key not given is one the app does not know, never an edit.
    """

    name: str
    tag: str
    model: str
    pos: Vec3
    scale: Vec3
    heading: float
    settings: Settings = ()

    @classmethod
    def from_spec(cls, spec: ObjectSpec) -> ObjectState:
        """The object as the scene file places it."""
        return cls(
            spec.name,
            str(spec.tag),
            spec.model,
            spec.pos,
            spec.scale,
            spec.heading,
            spec_settings(spec),
        )


def spec_settings(spec: ObjectSpec) -> Settings:
    """The settings of `spec` the inspector edits, by dotted key (modes by their names).

    A mover's waypoints are not among them: the inspector shows no lists of points.
    """
    found: list[tuple[str, Setting]] = []
    if spec.terrain_cost is not None:
        found.append(("terrain.cost", spec.terrain_cost))
    if spec.agent is not None:
        found += [
            ("agent.speed", spec.agent.speed),
            ("agent.radius", spec.agent.radius),
            ("agent.mode", str(spec.agent.mode)),
            ("agent.acceleration", spec.agent.acceleration),
            ("agent.angular_speed", spec.agent.angular_speed),
            ("agent.stopping_distance", spec.agent.stopping_distance),
            ("agent.auto_braking", spec.agent.auto_braking),
            ("agent.avoidance_priority", spec.agent.avoidance_priority),
            ("agent.areas", spec.agent.areas),
        ]
    if spec.mover is not None:
        mover = spec.mover
        found += [
            ("mover.speed", mover.speed),
            ("mover.wait_s", mover.wait_s),
            ("mover.mode", str(mover.mode)),
        ]
    if spec.rotator is not None:
        found.append(("rotator.deg_per_s", spec.rotator.deg_per_s))
    if spec.door is not None:
        door = spec.door
        found += [
            ("door.period_s", door.period_s),
            ("door.open_fraction", door.open_fraction),
            ("door.phase_s", door.phase_s),
        ]
    return tuple(found)


def same_setting(old: Setting | None, new: Setting | None) -> bool:
    """`same` for numbers, equality for names."""
    if isinstance(old, float | int) and isinstance(new, float | int):
        return same(old, new)
    return old == new


def same(old: float, new: float) -> bool:
    """Whether `new` is `old` up to float32 noise or half the last written decimal."""
    return math.isclose(old, new, rel_tol=_REL_TOL, abs_tol=_ABS_TOL)


def same_angle(old: float, new: float) -> bool:
    """`same`, where headings a whole number of turns apart are the same."""
    # math.remainder raises on inf; a non-finite heading is then left to the loader's checks.
    turn = math.remainder(new - old, 360.0) if math.isfinite(new) else new
    return same(old, new) or abs(turn) <= _ABS_TOL


def _same_vec(old: Vec3, new: Vec3) -> bool:
    return all(same(a, b) for a, b in zip(old, new, strict=True))


def _edited(old: ObjectState, new: ObjectState) -> bool:
    unchanged = _same_vec(old.pos, new.pos) and _same_vec(old.scale, new.scale)
    moved = not (unchanged and same_angle(old.heading, new.heading))
    return moved or bool(_edited_settings(old.settings, new.settings))


def _edited_settings(old: Settings, new: Settings) -> dict[str, Setting]:
    """The settings of `new` that differ from `old`'s (keys `old` lacks are not edits)."""
    before = dict(old)
    return {
        key: value for key, value in new if key in before and not same_setting(before[key], value)
    }


class MergeBase:
    """What the app and the file agreed on at the last load or save: the merge's common ancestor.

    The two sides are kept apart, because after a save they need not match: a value changed only
    in the file is written as the file has it, while the app still shows its own. The app's side
    is the objects the app handed in (agents at their authored spawn), the file's side the
    entries as they were read or written. `crowd_members` names the agents the file's
    `[[crowds]]` made at the load or any save since, which are on neither side: the app runs
    the crowds it loaded until it loads again, also when the file's crowds have shrunk.
    """

    def __init__(
        self,
        app: Iterable[ObjectState],
        file: Iterable[ObjectSpec],
        crowd_members: frozenset[str] = frozenset(),
    ) -> None:
        self.app: dict[str, ObjectState] = {}
        self.file: dict[str, ObjectSpec] = {}
        self.crowd_members: frozenset[str] = frozenset()
        self.advance(app, file, crowd_members)

    @classmethod
    def loaded(cls, scene: SceneSpec) -> MergeBase:
        """The base of a scene just loaded: both sides are the file's [[objects]] entries."""
        listed = scene.listed_objects
        return cls(map(ObjectState.from_spec, listed), listed, scene.crowd_members())

    def advance(
        self,
        app: Iterable[ObjectState],
        file: Iterable[ObjectSpec],
        crowd_members: frozenset[str] = frozenset(),
    ) -> None:
        """After a save: the app's objects as saved, the file's entries and crowds as written."""
        self.app = {obj.name: obj for obj in app}
        self.file = {obj.name: obj for obj in file}
        self.crowd_members |= crowd_members


def without_crowds(
    objects: Iterable[ObjectState], base: MergeBase, scene: SceneSpec
) -> list[ObjectState]:
    """The app's `objects` less the crowds' agents, of the file at `base` or as `scene` has it.

    A crowd's agents are saved as their crowd table, never one by one: what the app did to one
    of them (it cannot drag agents) is not written, and an agent of a crowd the file has since
    shrunk is not written back as an [[objects]] entry.
    """
    crowds = base.crowd_members | scene.crowd_members()
    return [obj for obj in objects if obj.name not in crowds]


@dataclass(frozen=True, slots=True)
class Merge:
    """The outcome: what the file should hold, or the names that stop it.

    `objects` lists the file's entries that stay (in file order, with the app's edits) and then
    the app's new objects (in the app's order). The merge may only be written when both name
    tuples are empty.
    """

    objects: tuple[ObjectState, ...]
    changed_both: tuple[str, ...]  # changed (or removed) in the file and in the app
    added_both: tuple[str, ...]  # a name each side added for a different object


def merge_objects(
    base: MergeBase,
    ours: Sequence[ObjectState],
    theirs: Sequence[ObjectSpec],
    *,
    ours_win: bool = False,
) -> Merge:
    """Apply the app's edits since `base` onto the file's entries now.

    Args:
        base: What both sides agreed on at the last load or save.
        ours: Every object of the running scene; names are unique.
        theirs: The file's entries now.
        ours_win: Settle values and removals both sides changed the app's way instead of
            reporting them (for a save to another file, which destroys nothing); a name both
            sides added for different objects is still reported.

    Returns:
        The merge; see `Merge`.
    """
    by_name = {obj.name: obj for obj in ours}
    kept: list[ObjectState] = []
    changed_both: list[str] = []
    added_both: list[str] = []
    for entry in theirs:
        mine, old_mine = by_name.get(entry.name), base.app.get(entry.name)
        old_entry = base.file.get(entry.name)
        if old_mine is None:
            if mine is None:  # the file's own entry; the app never had it
                kept.append(ObjectState.from_spec(entry))
            else:
                added_both.append(entry.name)
        elif mine is None:  # removed in the app
            if entry != old_entry and not ours_win:
                changed_both.append(entry.name)
        else:
            merged = _merge_values(old_mine, mine, old_entry, entry, ours_win=ours_win)
            if merged is None:
                changed_both.append(entry.name)
            else:
                kept.append(merged)
    in_file = {entry.name for entry in theirs}
    added: list[ObjectState] = []
    for mine in ours:
        if mine.name in in_file:
            continue
        old_mine = base.app.get(mine.name)
        if old_mine is not None and not _edited(old_mine, mine):
            continue  # removed from the file and left alone in the app: it stays removed
        if old_mine is None or ours_win:  # new in the app, or its edit wins
            added.append(mine)
        else:  # edited in the app, removed from the file
            changed_both.append(mine.name)
    return Merge(tuple(kept + added), tuple(changed_both), tuple(added_both))


class _ConflictError(Exception):
    """A value both sides changed differently."""


def _merge_values(
    old_mine: ObjectState,
    mine: ObjectState,
    old_entry: ObjectSpec | None,
    entry: ObjectSpec,
    *,
    ours_win: bool,
) -> ObjectState | None:
    """The file's entry with the values the app changed, or None on a conflict.

    `old_entry` is None when the file had no such entry at the base (it was removed there and
    added again): every value of it then counts as changed in the file.
    """

    def pick(
        same_value: Callable[[V, V], bool], base: V, ours: V, theirs: V, file_changed: bool
    ) -> V:
        if same_value(base, ours):  # not an app edit
            return theirs
        if not file_changed or ours_win or same_value(theirs, ours):
            return ours
        raise _ConflictError

    old = old_entry
    try:
        pos = pick(
            _same_vec, old_mine.pos, mine.pos, entry.pos, old is None or old.pos != entry.pos
        )
        scale = pick(
            _same_vec,
            old_mine.scale,
            mine.scale,
            entry.scale,
            old is None or old.scale != entry.scale,
        )
        heading = pick(
            same_angle,
            old_mine.heading,
            mine.heading,
            entry.heading,
            old is None or old.heading != entry.heading,
        )
        settings = _merge_settings(old_mine, mine, old_entry, entry, ours_win=ours_win)
    except _ConflictError:
        return None
    return ObjectState(entry.name, str(entry.tag), entry.model, pos, scale, heading, settings)


def _merge_settings(
    old_mine: ObjectState,
    mine: ObjectState,
    old_entry: ObjectSpec | None,
    entry: ObjectSpec,
    *,
    ours_win: bool,
) -> Settings:
    """The file's settings with the app's edits, each setting a unit of its own.

    Raises:
        _ConflictError: If a setting changed differently in both (and `ours_win` is False).
    """
    theirs = dict(spec_settings(entry))
    old_theirs = {} if old_entry is None else dict(spec_settings(old_entry))
    for key, ours in _edited_settings(old_mine.settings, mine.settings).items():
        if key not in theirs:  # the file no longer has the component: nothing to set
            continue
        changed = key not in old_theirs or not same_setting(old_theirs[key], theirs[key])
        if changed and not ours_win and not same_setting(theirs[key], ours):
            raise _ConflictError
        theirs[key] = ours
    return tuple(theirs.items())
