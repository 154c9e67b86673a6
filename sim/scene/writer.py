"""Save an edited scene back to its TOML file, keeping what the user wrote.

tomlkit keeps every comment, blank line and key order, so only the edits change the text: a scene
saved unedited comes back byte for byte. The new text must pass the loader's checks, and it
replaces the old file atomically (temporary file, fsync, rename): a crash leaves one or the other.
"""

from __future__ import annotations

import math
import os
import stat
import tempfile
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import tomlkit
from tomlkit.container import Container
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Array, Comment, Item, Table, Whitespace

from sim.errors import SimError
from sim.scene.file import ObjectSpec, SceneError, SceneSpec, parse_scene

DECIMALS: Final = 4
# Values come back from Panda3D as float32 (2**-24 relative error): a value this close to the
# file's is the file's value, which is then kept exactly as written.
_REL_TOL: Final = 1e-7
_ABS_TOL: Final = 0.5 * 10**-DECIMALS
_DEFAULT_SCALE: Final = (1.0, 1.0, 1.0)
Vec3 = tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class ObjectState:
    """An object as it stands in the running scene (units and frames as in `ObjectSpec`)."""

    name: str
    tag: str
    model: str
    pos: Vec3
    scale: Vec3
    heading: float


class SceneSaveError(SimError):
    """A scene could not be saved; str() is one line, ``<target>: could not save: <reason>``."""


def save_scene(source: Path, objects: Sequence[ObjectState], *, target: Path | None = None) -> Path:
    """Write the scene read from `source`, with `objects` as its objects now, to `target`.

    `source` is read again, as it may have changed since it was loaded. Entries named in `objects`
    take its `pos`, `scale` and `heading` where these differ from the file's by more than float32
    noise (or half the last written decimal); all else in them stays (tag, model, color,
    [objects.agent], comments). Other entries are removed, but a comment block after one stays.
    Objects the file lacks are appended in the order given. Numbers are written rounded to
    `DECIMALS` places; the file's line ends (LF or CRLF) are kept.

    Args:
        source: The scene file the app loaded.
        objects: Every object of the running scene; names must be unique.
        target: Where to write (``--save-as``); default `source`.

    Returns:
        `target`, which `load_scene` now reads with `objects` in it.

    Raises:
        SceneSaveError: `source` is missing or no longer a valid scene, the result would not load
            (a duplicate name, a non-finite value, an unknown model), or `target` cannot be
            written; `target` is then left as it was and no temporary file remains.
    """
    target = source if target is None else target
    try:
        _check_names(objects)
        document, spec = _read(source)
        before = document.as_string()
        _merge(document, spec, objects)
        text = _line_ends_like(before, document.as_string())
        parse_scene(tomllib.loads(text), source=str(target))
        _write_atomic(target, text.encode("utf-8"), like=target if target.exists() else source)
    except SceneError as error:
        reason = str(error).removeprefix(f"{target}: ")
        raise SceneSaveError(f"{target}: could not save: {reason}") from None
    except OSError as error:
        raise SceneSaveError(f"{target}: could not save: {error.strerror or error}") from None
    return target


def _check_names(objects: Sequence[ObjectState]) -> None:
    twice = [name for name, count in Counter(obj.name for obj in objects).items() if count > 1]
    if twice:
        raise SceneError(f"two objects are called {twice[0]!r}")


def _read(source: Path) -> tuple[tomlkit.TOMLDocument, SceneSpec]:
    """The document for its layout, and the scene as the loader reads it (for comparisons)."""
    try:
        text = source.read_bytes().decode("utf-8")
        spec = parse_scene(tomllib.loads(text), source=str(source))
        return tomlkit.parse(text), spec
    except OSError as error:
        raise SceneError(f"{source}: cannot read file: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise SceneError(f"{source}: not UTF-8 text") from None
    except (ValueError, RecursionError, TOMLKitError) as error:
        raise SceneError(f"{source}: invalid TOML: {' '.join(str(error).split())}") from None


def _merge(document: tomlkit.TOMLDocument, spec: SceneSpec, objects: Sequence[ObjectState]) -> None:
    """Make the document's [[objects]] say `objects`: update, remove, then append."""
    entries = document.get("objects")
    if entries is None and objects:
        entries = AoT([], parsed=True)
        document.append("objects", entries)
    if entries is None:
        return
    if not isinstance(entries, AoT) or len(entries) != len(spec.objects):
        raise SceneError(f"{spec.path}: objects: only [[objects]] tables can be saved")
    wanted = {obj.name: obj for obj in objects}
    previous = _container_before_objects(document)
    removed: list[int] = []
    for index, (entry, old) in enumerate(zip(entries, spec.objects, strict=True)):
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
    for state in (obj for obj in objects if obj.name in wanted):
        entry = _new_entry(state)
        if previous is not None:  # the blank lines that ended the array now end the new entry
            _end_with(entry.value, _cut_tail(previous, comments=False))
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
    if not _same_angle(old.heading, state.heading):
        entry["heading"] = _rounded(state.heading)


def _new_entry(state: ObjectState) -> Table:
    entry = tomlkit.table()
    entry.update(name=state.name, tag=str(state.tag), model=state.model)
    entry["pos"] = [_rounded(value) for value in state.pos]
    scale = _merged(_DEFAULT_SCALE, state.scale)
    if scale != _DEFAULT_SCALE:
        entry["scale"] = list(scale)
    if not _same_angle(0.0, state.heading):
        entry["heading"] = _rounded(state.heading)
    return entry


def _rounded(value: float) -> float:
    return round(float(value), DECIMALS) + 0.0  # float() for numpy scalars; + 0.0 makes -0.0 0.0


def _same(old: float, new: float) -> bool:
    return math.isclose(old, new, rel_tol=_REL_TOL, abs_tol=_ABS_TOL)


def _same_angle(old: float, new: float) -> bool:
    # math.remainder raises on inf; a non-finite heading is then left to the loader's checks.
    turn = math.remainder(new - old, 360.0) if math.isfinite(new) else new
    return _same(old, new) or abs(turn) <= _ABS_TOL


def _merged(old: Vec3, new: Vec3) -> Vec3:
    """`new`, rounded, with each value that is the same as in `old` kept as `old` has it."""
    x, y, z = (a if _same(a, b) else _rounded(b) for a, b in zip(old, new, strict=True))
    return (x, y, z)


# --- the text between entries -------------------------------------------------------------------
# tomlkit files the blank lines and comments after an entry's last key under that entry (under its
# last sub-table, such as [objects.agent]); they are moved, not lost, when entries come and go.


def _container_before_objects(document: tomlkit.TOMLDocument) -> Container | None:
    """The table whose trailing lines precede the first [[objects]] header, if any."""
    before = None
    for key, item in document.body:
        if key is not None and key.key == "objects":
            break
        if isinstance(item, Table):
            before = item.value
    return before


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


def _write_atomic(target: Path, data: bytes, *, like: Path) -> None:
    """Write `data` to `target` so a reader sees the old file or the new one, never half.

    The new file gets the permissions of `like` (mkstemp alone would make it owner-only); a
    symlinked `target` stays a link to the new text.

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
        os.replace(temp_name, real)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
