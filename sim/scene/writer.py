"""Save an edited scene back to its TOML file, keeping what the user wrote.

tomlkit keeps every comment, blank line and key order, so only the edits change the text: a scene
saved unedited comes back byte for byte. The file is read again at each save and only the app's
edits are written onto it (`sim.scene.merge`), so what another program wrote there meanwhile
stays. The new text must pass the loader's checks, and it replaces the old file atomically
(temporary file, fsync, rename): a crash leaves one or the other.

Two saves of one scene at once (two windows, or a window and an editor) must not lose an edit.
Saves by this module hold a lock on the scene's folder from the read to the rename, so the
second reads what the first wrote and merges onto it (or is refused, when both changed the same
entry); and just before the rename the file is looked at again (inode, size, modification
time): if another program wrote it since it was read, the merge is made again on its new text.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import tempfile
import time
import tomllib
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final

import tomlkit
from tomlkit.container import Container
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Array, Comment, Item, Table, Whitespace

from sim.errors import SimError
from sim.navigation.maps.input_file import read_input_file
from sim.scene.file import MAX_SCENE_BYTES, load_scene, parse_scene
from sim.scene.merge import (
    DECIMALS,
    Merge,
    MergeBase,
    ObjectState,
    Setting,
    Vec3,
    merge_objects,
    same,
    same_angle,
    same_setting,
    spec_settings,
    without_crowds,
)
from sim.scene.spec import LinkSpec, ObjectSpec, SceneError, SceneSpec

__all__ = [
    "DECIMALS",
    "MergeBase",
    "ObjectState",
    "SceneSaveError",
    "check_scene_target",
    "save_scene",
]

_DEFAULT_SCALE: Final = (1.0, 1.0, 1.0)
# A save takes milliseconds; a temporary file this old was left by a run killed mid-save.
_STALE_TEMP_S: Final = 60.0
# Saves take milliseconds; one that waits this long for another's lock is told to try again.
_LOCK_WAIT_S: Final = 5.0
_LOCK_POLL_S: Final = 0.01
# Another program writing the file as often as this while it is merged is not going to stop.
_MERGE_TRIES: Final = 5


class SceneSaveError(SimError):
    """A scene could not be saved; str() is one line, ``<target>: could not save: <reason>``."""


def save_scene(
    source: Path,
    objects: Sequence[ObjectState],
    *,
    target: Path | None = None,
    base: MergeBase | None = None,
    links: Sequence[LinkSpec] = (),
) -> Path:
    """Write the scene read from `source`, with the app's edits in `objects`, to `target`.

    `source` is read again, as another program may have changed it since it was loaded, and the
    app's edits since `base` are written onto it (see `merge_objects`): an entry moved, turned
    or scaled in the app takes its new `pos`, `scale` or `heading` (values that differ from the
    base by more than float32 noise, or half the last written decimal); entries the app removed
    are removed, but a comment block after one stays; objects the app added are appended in
    the order given; a setting the inspector changed (a terrain cost, an agent's speed, radius
    or mode) is written into its table. All else is the file's as it is now: entries and values
    changed only there, and tag, model, color, the other agent settings and comments.
    `[[crowds]]` tables stay as the file declares them: the agents they expand into are never
    written one by one, so `objects` may hold them or not. Numbers are written rounded to
    `DECIMALS` places; the file's line ends (LF or CRLF) are kept.

    When a value (or an entry) changed both in the file and in the app, nothing is written,
    unless `target` is another file: there the app's edit wins, as the source keeps the other.

    Args:
        source: The scene file the app loaded.
        objects: Every object of the running scene; names must be unique.
        target: Where to write (``--save-as``); default `source`.
        base: What the app and `source` agreed on at the last load or save; after a save onto
            `source` it moves on to what was saved. None takes `source` as it is now as the
            base, so `objects` are all the truth (every difference is an app edit).
        links: The scene's `[[links]]` as the app has them, in the file's order: an entry whose
            ends the app moved (`sim.editor.link_ends`) takes its new `from` and `to`.

    Returns:
        `target`, which `load_scene` now reads with the merged objects in it.

    Raises:
        SceneSaveError: `source` is missing or no longer a valid scene, the same entry changed
            in both places (the message names it), the result would not load (a duplicate name,
            a non-finite value, an unknown model), `target` is another file that is no scene
            (`check_scene_target`), another save held the folder's lock too long, another
            program kept rewriting `source` while it was merged, or `target` cannot be written;
            `target` is then left as it was and no temporary file remains.
    """
    in_place = target is None or target.resolve() == source.resolve()
    target = source if target is None else target
    try:
        _check_names(objects)
        with _folder_lock(target.resolve().parent):
            refused = None if in_place else _not_a_scene(target)
            if refused is not None:
                raise SceneError(refused)
            base, ours, written = _merge_and_write(source, target, objects, base, in_place, links)
    except SceneError as error:
        reason = str(error).removeprefix(f"{target}: ")
        raise SceneSaveError(f"{target}: could not save: {reason}") from None
    except OSError as error:
        raise SceneSaveError(f"{target}: could not save: {error.strerror or error}") from None
    if in_place:
        base.advance(ours, written.listed_objects, written.crowd_members())
    return target


def check_scene_target(flag: str, path: Path) -> None:
    """Refuse to replace `path` unless it is new, empty, or loads as a scene.

    Any TOML passed for a scene before, so ``--save-as pyproject.toml`` replaced the project's
    settings: a file is a scene's to replace only if `load_scene` reads it. Other checks of the
    path (a folder, a link, a FIFO) are `sim.commands.args.check_outputs`'s.

    Raises:
        SimError: One line naming the flag, the path and why the file is no scene.
    """
    reason = _not_a_scene(path)
    if reason is not None:
        raise SimError(f"{flag} {path}: {reason}")


def _not_a_scene(path: Path) -> str | None:
    """Why a scene may not replace `path` (it exists and does not load as one), or None."""
    try:
        if not path.exists() or path.stat().st_size == 0:
            return None
    except OSError:
        return None  # not there to be replaced; writing it will say what is wrong
    try:
        load_scene(path)
    except SceneError as error:
        reason = str(error).removeprefix(f"{path}: ")
        return f"exists and is not a scene ({reason}); refusing to replace it"
    return None


class _ChangedMeanwhileError(Exception):
    """The source changed between its read and the rename; the merge must be made again."""


def _merge_and_write(
    source: Path,
    target: Path,
    objects: Sequence[ObjectState],
    base: MergeBase | None,
    in_place: bool,
    links: Sequence[LinkSpec] = (),
) -> tuple[MergeBase, list[ObjectState], SceneSpec]:
    """Read `source`, merge the app's edits onto it, write `target`; again if `source` changed.

    Returns:
        The base used, the app's objects as merged, and the scene as written.
    """
    for _ in range(_MERGE_TRIES):
        try:
            read_as = _identity(source)
        except OSError:
            read_as = None  # `_read` says what is wrong with it
        document, spec = _read(source)
        before = document.as_string()
        used = MergeBase.loaded(spec) if base is None else base
        ours = without_crowds(objects, used, spec)
        merge = merge_objects(used, ours, spec.listed_objects, ours_win=not in_place)
        _refuse_conflicts(merge)
        _merge(document, spec, merge.objects)
        _move_links(document, spec, links)
        text = _line_ends_like(before, document.as_string())
        written = parse_scene(tomllib.loads(text), source=str(target))
        like = target if target.exists() else source
        try:
            _write_atomic(target, text.encode("utf-8"), like=like, unless=(source, read_as or ()))
        except _ChangedMeanwhileError:
            continue
        return used, ours, written
    raise SceneError(f"{source}: another program kept writing it while it was saved; save again")


def _move_links(document: tomlkit.TOMLDocument, spec: SceneSpec, links: Sequence[LinkSpec]) -> None:
    """Write the `from` and `to` of each link whose ends the app moved (see `save_scene`)."""
    for index, (mine, filed) in enumerate(zip(links, spec.links, strict=False)):
        entry = document["links"][index]
        for key, ours, theirs in (("from", mine.start, filed.start), ("to", mine.end, filed.end)):
            if ours != theirs:
                entry[key] = [_rounded(ours[0]), _rounded(ours[1])]


def _identity(path: Path) -> tuple[int, int, int, int]:
    """What tells one version of a file from another: device, inode, size, modification time."""
    status = path.stat()
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (``flock``) while saving a scene into it.

    Every save by this module takes it, so two apps saving into one folder take turns from read
    to rename. A lock on the folder, not the file: the rename puts a new file in the old one's
    place, and a lock on the old one would no longer be the lock of the file saved. The kernel
    lets it go when its holder dies. A file system that cannot lock a folder saves without one
    (the check before the rename still stands).

    Raises:
        SceneError: Another save held it for `_LOCK_WAIT_S` seconds.
    """
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        yield  # the write will say what is wrong with the folder
        return
    try:
        deadline = time.monotonic() + _LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise SceneError(
                        f"{folder}: another program has been saving a scene here for "
                        f"{_LOCK_WAIT_S:g} s; save again"
                    ) from None
                time.sleep(_LOCK_POLL_S)
            except OSError:  # this file system cannot lock folders
                break
        yield
    finally:
        os.close(handle)  # closing lets the lock go


def _refuse_conflicts(merge: Merge) -> None:
    """Raise a one-line SceneError naming each entry both sides changed, or added."""
    reasons = []
    if merge.changed_both:  # only ever when saving in place, where --save-as is the way out
        reasons.append(
            f"{_listed(merge.changed_both)} changed in the file and in the app;"
            " use --save-as FILE to keep the app's"
        )
    if merge.added_both:
        reasons.append(
            f"{_listed(merge.added_both)} added in the file and in the app; rename it in the file"
        )
    if reasons:
        raise SceneError("; ".join(reasons))


def _listed(names: Sequence[str]) -> str:
    """`'a'`, `'a' and 'b'`, `'a', 'b' and 'c'`."""
    quoted = [repr(name) for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def _check_names(objects: Sequence[ObjectState]) -> None:
    twice = [name for name, count in Counter(obj.name for obj in objects).items() if count > 1]
    if twice:
        raise SceneError(f"two objects are called {twice[0]!r}")


def _read(source: Path) -> tuple[tomlkit.TOMLDocument, SceneSpec]:
    """The document for its layout, and the scene as the loader reads it (for comparisons)."""
    try:
        # The file may have been swapped for a FIFO or a huge file since it was loaded.
        text = read_input_file(source, MAX_SCENE_BYTES).decode("utf-8")
        spec = parse_scene(tomllib.loads(text), source=str(source))
        return tomlkit.parse(text), spec
    except OSError as error:
        raise SceneError(f"{source}: cannot read file: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise SceneError(f"{source}: not UTF-8 text") from None
    except (ValueError, RecursionError, TOMLKitError) as error:
        raise SceneError(f"{source}: invalid TOML: {' '.join(str(error).split())}") from None


def _merge(document: tomlkit.TOMLDocument, spec: SceneSpec, objects: Sequence[ObjectState]) -> None:
    """Make the document's [[objects]] hold `objects`: update, remove, then append.

    Entries named in `objects` take its values where they differ from `spec`'s, the others are
    removed, and objects the document lacks are appended in the order given. Other tables,
    [[crowds]] among them, are left as they are.
    """
    entries = document.get("objects")
    if entries is None and objects:
        entries = AoT([], parsed=True)
        document.append("objects", entries)
    if entries is None:
        return
    listed = spec.listed_objects
    if not isinstance(entries, AoT) or len(entries) != len(listed):
        raise SceneError(f"{spec.path}: objects: only [[objects]] tables can be saved")
    wanted = {obj.name: obj for obj in objects}
    previous = _container_before_objects(document)
    removed: list[int] = []
    for index, (entry, old) in enumerate(zip(entries, listed, strict=True)):
        state = wanted.pop(old.name, None)
        if state is None:
            removed.append(index)
            tail = _cut_tail(entry.value, comments=True)
            if previous is not None:  # a comment block after a deleted entry heads the next ones
                _end_with(previous, tail)
        else:
            _update(entry, old, state)
            previous = entry.value
    for index in reversed(removed):
        del entries[index]
    # A comment block after the last entry heads what follows the array, if anything does (a
    # [[crowds]] table): it moves on with the blank lines, so new entries come before it.
    followed = _followed_by_more(document)
    for state in (obj for obj in objects if obj.name in wanted):
        entry = _new_entry(state)
        if previous is not None:  # the blank lines that ended the array now end the new entry
            _end_with(entry.value, _cut_tail(previous, comments=followed))
            ended = _deepest(previous).as_string().endswith("\n")  # no newline at the end of file?
            _end_with(previous, [tomlkit.nl()] * (1 if ended else 2))
        entries.append(entry)
        previous = entry.value
    if not entries:  # tomlkit would write an empty array of tables as `objects = []` on top
        document.remove("objects")


def _update(entry: Table, old: ObjectSpec, state: ObjectState) -> None:
    pos = _merged(old.pos, state.pos)
    if pos != old.pos:
        entry["pos"] = list(pos)
    scale = _merged(old.scale, state.scale)
    if scale != old.scale:
        one = "scale" in entry and not isinstance(entry["scale"], Array) and len(set(scale)) == 1
        entry["scale"] = scale[0] if one else list(scale)
    if not same_angle(old.heading, state.heading):
        entry["heading"] = _rounded(state.heading)
    old_settings = dict(spec_settings(old))
    for key, value in state.settings:
        if key in old_settings and not same_setting(old_settings[key], value):
            _set_setting(entry, key, value)


def _set_setting(entry: Table, key: str, value: Setting) -> None:
    """Write setting `key` ("agent.speed") into its sub-table, made when the entry has none."""
    table_name, name = key.split(".")
    if value is None:  # an agent's areas back to all: the file says so by leaving the key out
        if table_name in entry and name in entry[table_name]:
            del entry[table_name][name]
        return
    written = _written(value)
    if table_name in entry and name in entry[table_name]:
        entry[table_name][name] = written  # in place: a comment after it stays
        return
    # A new key (or table) goes before the blank lines and the comment heading what follows.
    tail = _cut_tail(entry.value, comments=True)
    if table_name not in entry:
        entry[table_name] = tomlkit.table()
    entry[table_name][name] = written
    _deepest(entry.value).body.extend((None, item) for item in tail)


def _written(value: float | str | tuple[str, ...]) -> object:
    """A setting as the file writes it: names and flags as they are, numbers rounded."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, str | bool | int):  # a bool or an int (a priority) is no float
        return value
    return _rounded(value)


def _new_entry(state: ObjectState) -> Table:
    entry = tomlkit.table()
    entry.update(name=state.name, tag=str(state.tag), model=state.model)
    entry["pos"] = [_rounded(value) for value in state.pos]
    scale = _merged(_DEFAULT_SCALE, state.scale)
    if scale != _DEFAULT_SCALE:
        entry["scale"] = list(scale)
    if not same_angle(0.0, state.heading):
        entry["heading"] = _rounded(state.heading)
    return entry


def _rounded(value: float) -> float:
    return round(float(value), DECIMALS) + 0.0  # float() for numpy scalars; + 0.0 makes -0.0 0.0


def _merged(old: Vec3, new: Vec3) -> Vec3:
    """`new`, rounded, with each value that is the same as in `old` kept as `old` has it."""
    x, y, z = (a if same(a, b) else _rounded(b) for a, b in zip(old, new, strict=True))
    return (x, y, z)


# --- the text between entries -------------------------------------------------------------------
# tomlkit files the blank lines and comments after an entry's last key under that entry (under its
# last sub-table, such as [objects.agent]); they are moved, not lost, when entries come and go.


def _container_before_objects(document: tomlkit.TOMLDocument) -> Container | None:
    """The table whose trailing lines precede the first [[objects]] header, if any.

    That is the last table of an array of tables ([[crowds]]) when one comes right before.
    """
    before = None
    for key, item in document.body:
        if key is not None and key.key == "objects":
            break
        if isinstance(item, Table):
            before = item.value
        elif isinstance(item, AoT) and item.body:
            before = item.body[-1].value
    return before


def _followed_by_more(document: tomlkit.TOMLDocument) -> bool:
    """Whether another table comes after the [[objects]] array in the document."""
    keys = [key.key for key, _ in document.body if key is not None]
    return bool(keys) and keys[-1] != "objects"


def _deepest(container: Container) -> Container:
    while container.body and isinstance(container.body[-1][1], Table):
        container = container.body[-1][1].value
    return container


def _cut_tail(container: Container, *, comments: bool) -> list[Item]:
    """Remove and return the blank lines that end `container`.

    With `comments`, also the comment lines among them from the first blank line on: a comment
    right under a key belongs to its entry, one after a blank line heads what follows.
    """
    body = _deepest(container).body
    kinds = (Whitespace, Comment) if comments else (Whitespace,)
    cut = len(body)
    while cut and isinstance(body[cut - 1][1], kinds):
        cut -= 1
    while cut < len(body) and isinstance(body[cut][1], Comment):
        cut += 1
    tail = [item for _, item in body[cut:]]
    del body[cut:]
    return tail


def _end_with(container: Container, items: list[Item]) -> None:
    """Replace the blank lines that end `container` with `items`."""
    _cut_tail(container, comments=False)
    _deepest(container).body.extend((None, item) for item in items)


# --- writing ----------------------------------------------------------------------------------


def _line_ends_like(original: str, text: str) -> str:
    """`text` with CRLF line ends if `original` had only those (new lines come with LF)."""
    if "\r\n" in original and "\n" not in original.replace("\r\n", ""):
        return text.replace("\r\n", "\n").replace("\n", "\r\n")
    return text


def _write_atomic(
    target: Path, data: bytes, *, like: Path, unless: tuple[Path, tuple[int, ...]] | None = None
) -> None:
    """Write `data` to `target` so a reader sees the old file or the new one, never half.

    With `unless` (a path and its `_identity` when it was read), the rename happens only if that
    path is still the same file, unchanged: otherwise `_ChangedMeanwhileError` is raised and
    `target` is as it was.

    The data reaches the disk (fsync) before the rename, and the rename itself is synced through
    the folder. The new file gets the permissions of `like` (mkstemp alone would make it
    owner-only); a symlinked `target` stays a link to the new text. Temporary files of this
    target that a killed run left behind are removed once the new file is in place; their
    names (``.<name>.<random>.tmp``) are never read as a scene.

    Raises:
        OSError: The folder is not writable or the disk is full; `target` is as it was.
    """
    mode, real = stat.S_IMODE(like.stat().st_mode), target.resolve()
    handle, temp_name = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, mode)
        if unless is not None and _identity(unless[0]) != unless[1]:
            raise _ChangedMeanwhileError
        os.replace(temp_name, real)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    _sync_folder(real.parent)
    _remove_stale_temps(real)


def _sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable; the file itself is already safe, so failing is fine.

    Some file systems cannot sync a folder; the new file's data is on disk all the same.
    """
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _remove_stale_temps(real: Path) -> None:
    """Remove temporary files of `real` older than a save takes: a killed run left them.

    A younger one may belong to a save another app is making right now, so it stays.
    """
    pattern = re.compile(rf"\.{re.escape(real.name)}\.[a-z0-9_]{{8}}\.tmp")
    now = time.time()
    try:
        temps = [path for path in real.parent.iterdir() if pattern.fullmatch(path.name)]
    except OSError:
        return
    for path in temps:
        with contextlib.suppress(OSError):  # gone already, or not ours to remove: harmless
            if now - path.lstat().st_mtime > _STALE_TEMP_S:
                path.unlink()
