from __future__ import annotations

import dataclasses
import difflib
import errno
import os
import re
import shutil
import stat
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.config import Tag
from sim.scene.file import list_scenes, load_scene
from sim.scene.spec import DEFAULT_COLORS, ObjectSpec, SceneSpec
from sim.scene.writer import ObjectState, SceneSaveError, save_scene

SHIPPED = list_scenes()
SHIPPED_IDS = [path.stem for path in SHIPPED]
DEFAULT_SCENE = next(path for path in SHIPPED if path.stem == "default")

CRATE = ObjectState("crate", "Obstacle", "cube", (2.5, -1.25, 0.0), (2.0, 1.0, 1.5), 30.0)
CRATE_TEXT = """
[[objects]]
name = "crate"
tag = "Obstacle"
model = "cube"
pos = [2.5, -1.25, 0.0]
scale = [2.0, 1.0, 1.5]
heading = 30.0
"""
AGENT_TABLE = """
[objects.agent]
speed = 3.0
turn_rate = 5.0
replan_interval_s = 1.0
arrival_radius = 0.25
mode = "chase"
smoothing = true
"""


def copy_scene(tmp_path: Path, source: Path = DEFAULT_SCENE) -> Path:
    """A copy of a shipped scene in its own folder, so the folder's listing can be checked."""
    folder = tmp_path / "scenes"
    folder.mkdir()
    return Path(shutil.copy(source, folder / source.name))


def state(obj: ObjectSpec, **changes: Any) -> ObjectState:
    unchanged = ObjectState(obj.name, obj.tag.value, obj.model, obj.pos, obj.scale, obj.heading)
    return dataclasses.replace(unchanged, **changes)


def states(spec: SceneSpec) -> list[ObjectState]:
    return [state(obj) for obj in spec.objects]


def comments(text: str) -> list[str]:
    """Every comment in the text, whole-line or after a value, in order."""
    return [line[line.index("#") :] for line in text.splitlines() if "#" in line]


def comment_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("#")]


def changed_lines(old: str, new: str) -> list[str]:
    """The lines removed ("- ...") and added ("+ ...") between two texts."""
    diff = difflib.ndiff(old.splitlines(), new.splitlines())
    return [line for line in diff if line.startswith(("- ", "+ "))]


def float32(value: float) -> float:
    """What Panda3D hands back for `value`: it stores positions as float32."""
    return float(struct.unpack("f", struct.pack("f", value))[0])


def assert_only(folder: Path, *names: str) -> None:
    """No temporary file was left behind."""
    assert sorted(path.name for path in folder.iterdir()) == sorted(names)


# --- adding, moving, removing ---------------------------------------------------------------


def test_added_obstacle_is_appended_and_the_rest_is_untouched(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    old_text, old = path.read_text(encoding="utf-8"), load_scene(path)

    assert save_scene(path, [*states(old), CRATE]) == path

    new_text, new = path.read_text(encoding="utf-8"), load_scene(path)
    color = DEFAULT_COLORS[Tag.OBSTACLE]
    crate = ObjectSpec("crate", Tag.OBSTACLE, "cube", CRATE.pos, CRATE.scale, 30.0, color)
    assert new.objects == (*old.objects, crate)
    assert dataclasses.replace(new, objects=old.objects) == old  # version, name, grid, camera
    assert comment_lines(new_text) == comment_lines(old_text)
    assert new_text == old_text + CRATE_TEXT


def test_new_object_leaves_out_default_scale_and_heading(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    old_text = path.read_text(encoding="utf-8")
    plain = ObjectState("box", "Obstacle", "cube", (-1.0, 1.0, 0.0), (1.0, 1.0, 1.0), 0.0)

    save_scene(path, [*states(load_scene(path)), plain])

    added = path.read_text(encoding="utf-8").removeprefix(old_text)
    assert (
        added
        == '\n[[objects]]\nname = "box"\ntag = "Obstacle"\nmodel = "cube"\npos = [-1.0, 1.0, 0.0]\n'
    )


def test_new_objects_keep_the_given_order(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    old = load_scene(path)
    added = [dataclasses.replace(CRATE, name=name) for name in ("c", "a", "b")]

    save_scene(path, [*added[:1], *states(old), *added[1:]])

    assert [obj.name for obj in load_scene(path).objects[-3:]] == ["c", "a", "b"]


def test_written_numbers_are_rounded_to_4_decimals(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    old_text = path.read_text(encoding="utf-8")
    tiny = ObjectState(
        "tiny", "Obstacle", "cube", (1.234567, -0.00001, 0.0), (1.0, 1.0, 1.0), 7.77777
    )

    save_scene(path, [*states(load_scene(path)), tiny])

    added = path.read_text(encoding="utf-8").removeprefix(old_text).splitlines()
    assert added[-2:] == ["pos = [1.2346, 0.0, 0.0]", "heading = 7.7778"]


# name -> changes to ObjectState, the key lines allowed to change, and the values to read back
MOVES: dict[str, tuple[str, dict[str, Any], set[str]]] = {
    "pos": ("long_wall", {"pos": (3.25, -1.5, 0.0)}, {"pos"}),
    "pos-keeps-inline-comment": ("agent", {"pos": (-5.0, -7.0, 0.0)}, {"pos"}),
    "pos-rounded-to-4-decimals": ("pillar", {"pos": (5.123456, -5.5, 0.0)}, {"pos"}),
    "heading-changed": ("slanted_wall", {"heading": -80.0}, {"heading"}),
    "heading-added": ("long_wall", {"heading": 12.5}, {"heading"}),
    "scale-array": ("start", {"scale": (0.5, 0.6, 0.7)}, {"scale"}),
    "scale-one-number": ("end", {"scale": (1.5, 1.5, 1.5)}, {"scale"}),
    "scale-one-number-to-array": ("end", {"scale": (1.5, 2.0, 1.5)}, {"scale"}),
    "scale-added-before-agent-table": ("agent", {"scale": (1.2, 1.2, 1.2)}, {"scale"}),
    "all-three": (
        "block_north",
        {"pos": (4.5, 5.5, 0.0), "scale": (3.0, 2.0, 1.2), "heading": 15.0},
        {"pos", "scale", "heading"},
    ),
}


@pytest.mark.parametrize(("name", "changes", "keys"), MOVES.values(), ids=MOVES.keys())
def test_moved_object_is_saved(
    tmp_path: Path, name: str, changes: dict[str, Any], keys: set[str]
) -> None:
    path = copy_scene(tmp_path)
    old_text, old = path.read_text(encoding="utf-8"), load_scene(path)
    objects = [state(obj, **changes) if obj.name == name else state(obj) for obj in old.objects]

    save_scene(path, objects)

    new_text, new = path.read_text(encoding="utf-8"), load_scene(path)
    moved, before = new.find(name), old.find(name)
    assert moved is not None
    assert before is not None
    wanted = dataclasses.replace(before, **changes)
    assert moved.pos == pytest.approx(wanted.pos, abs=1e-4)
    assert moved.scale == pytest.approx(wanted.scale, abs=1e-4)
    assert moved.heading == pytest.approx(wanted.heading, abs=1e-4)
    kept = dataclasses.replace(moved, pos=before.pos, scale=before.scale, heading=before.heading)
    assert kept == before  # tag, model, color, agent
    assert [obj for obj in new.objects if obj.name != name] == [
        obj for obj in old.objects if obj.name != name
    ]
    assert {line[2:].split(" = ")[0] for line in changed_lines(old_text, new_text)} == keys
    assert comments(new_text) == comments(old_text)


def test_uniform_scale_stays_one_number(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    objects = [
        state(obj, scale=(1.5, 1.5, 1.5)) if obj.name == "end" else state(obj)
        for obj in load_scene(path).objects
    ]

    save_scene(path, objects)

    assert "\nscale = 1.5\n" in path.read_text(encoding="utf-8")


REMOVALS = {
    "first-obstacle": "long_wall",  # right under the "# --- obstacles" comment
    "middle-obstacle": "block_south",
    "last-obstacle": "pillar",
}


@pytest.mark.parametrize("name", REMOVALS.values(), ids=REMOVALS.keys())
def test_removed_obstacle_is_gone_and_the_rest_kept(tmp_path: Path, name: str) -> None:
    path = copy_scene(tmp_path)
    old_text, old = path.read_text(encoding="utf-8"), load_scene(path)

    save_scene(path, [state(obj) for obj in old.objects if obj.name != name])

    new_text, new = path.read_text(encoding="utf-8"), load_scene(path)
    assert new.find(name) is None
    assert new.objects == tuple(obj for obj in old.objects if obj.name != name)
    assert AGENT_TABLE in new_text
    assert comment_lines(new_text) == comment_lines(old_text)
    assert all(line.startswith("- ") for line in changed_lines(old_text, new_text))
    assert "\n\n\n" not in new_text
    assert new_text.endswith("\n")
    assert not new_text.endswith("\n\n")


def test_comment_block_after_a_removed_entry_stays(tmp_path: Path) -> None:
    # "# --- obstacles" follows the agent's table; it heads the obstacles, so it outlives the agent.
    path = copy_scene(tmp_path)
    old_text, old = path.read_text(encoding="utf-8"), load_scene(path)

    save_scene(path, [state(obj) for obj in old.objects if obj.tag is not Tag.AGENT])

    new_text = path.read_text(encoding="utf-8")
    assert comment_lines(new_text) == comment_lines(old_text)
    assert "\n\n\n" not in new_text
    assert load_scene(path).objects == tuple(obj for obj in old.objects if obj.tag is not Tag.AGENT)


def test_removing_every_object_then_adding_one(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    old_text = path.read_text(encoding="utf-8")

    save_scene(path, [])
    empty_text = path.read_text(encoding="utf-8")
    save_scene(path, [CRATE])

    assert [line for line in empty_text.splitlines() if not line.startswith("#")] == [
        line
        for line in old_text.splitlines()[: old_text.splitlines().index("[[objects]]")]
        if not line.startswith("#")
    ]
    assert comment_lines(empty_text) == comment_lines(old_text)
    assert path.read_text(encoding="utf-8") == empty_text + CRATE_TEXT
    assert [obj.name for obj in load_scene(path).objects] == ["crate"]


def test_adding_to_a_file_without_final_newline(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n"), encoding="utf-8")

    save_scene(path, [*states(load_scene(path)), CRATE])

    assert "color = [0.55, 0.5, 0.65]\n" + CRATE_TEXT in path.read_text(encoding="utf-8")


def test_crlf_file_stays_crlf(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))

    save_scene(path, [state(obj, heading=5.0) for obj in load_scene(path).objects] + [CRATE])

    data = path.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")
    assert load_scene(path).find("crate") is not None


# --- unchanged scenes, save-as, round trips ---------------------------------------------------


@pytest.mark.parametrize("shipped", SHIPPED, ids=SHIPPED_IDS)
def test_unchanged_scene_is_saved_byte_for_byte(tmp_path: Path, shipped: Path) -> None:
    path = copy_scene(tmp_path, shipped)

    save_scene(path, states(load_scene(path)))

    assert path.read_bytes() == shipped.read_bytes()


@pytest.mark.parametrize("shipped", SHIPPED, ids=SHIPPED_IDS)
def test_float32_noise_and_full_turns_are_not_edits(tmp_path: Path, shipped: Path) -> None:
    path = copy_scene(tmp_path, shipped)
    objects = [
        state(
            obj,
            pos=tuple(float32(value) for value in obj.pos),
            scale=tuple(float32(value) for value in obj.scale),
            heading=float32(obj.heading + 360.0),
        )
        for obj in load_scene(path).objects
    ]

    save_scene(path, objects)

    assert path.read_bytes() == shipped.read_bytes()


def test_save_as_writes_a_new_file_and_leaves_the_source(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    old_bytes, old = path.read_bytes(), load_scene(path)
    target = tmp_path / "elsewhere.toml"

    assert save_scene(path, [*states(old), CRATE], target=target) == target

    assert path.read_bytes() == old_bytes
    new = load_scene(target)
    assert new.objects == (*old.objects, new.find("crate"))
    assert new.name == old.name


@pytest.mark.parametrize("shipped", SHIPPED, ids=SHIPPED_IDS)
def test_round_trip_of_shipped_scene(tmp_path: Path, shipped: Path) -> None:
    path = copy_scene(tmp_path, shipped)
    spec = load_scene(path)
    target = tmp_path / "saved.toml"

    save_scene(path, states(spec), target=target)

    assert dataclasses.replace(load_scene(target), path=spec.path) == spec


def test_permissions_are_kept(tmp_path: Path) -> None:
    # mkstemp makes owner-only files; the scene must not become one after a save.
    path = copy_scene(tmp_path)
    path.chmod(0o640)
    target = tmp_path / "copy.toml"

    save_scene(path, [*states(load_scene(path)), CRATE])
    save_scene(path, states(load_scene(path)), target=target)

    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_symlinked_scene_stays_a_link(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    link = tmp_path / "link.toml"
    link.symlink_to(path)

    save_scene(link, [*states(load_scene(link)), CRATE])

    assert link.is_symlink()
    assert load_scene(path).find("crate") is not None


def test_numpy_values_are_written_as_plain_numbers(tmp_path: Path) -> None:
    # tomlkit refuses numpy scalars, and values read from Panda3D or numpy arrays may be some.
    path = copy_scene(tmp_path)
    values: dict[str, Any] = {
        "pos": tuple(np.array(CRATE.pos, dtype=np.float32)),
        "scale": tuple(np.array(CRATE.scale, dtype=np.float32)),
        "heading": np.float32(CRATE.heading),
    }

    save_scene(path, [*states(load_scene(path)), dataclasses.replace(CRATE, **values)])

    assert path.read_text(encoding="utf-8").endswith(CRATE_TEXT)


# --- failures ---------------------------------------------------------------------------------


def disk_full(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


INTERRUPTIONS = {
    "write": "fsync",  # the data may not be on disk
    "permissions": "chmod",
    "rename": "replace",
}


@pytest.mark.parametrize("step", INTERRUPTIONS.values(), ids=INTERRUPTIONS.keys())
def test_interrupted_save_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    path = copy_scene(tmp_path)
    old_bytes, objects = path.read_bytes(), [*states(load_scene(path)), CRATE]
    monkeypatch.setattr(os, step, disk_full)

    with pytest.raises(SceneSaveError, match=r"could not save: No space left on device$"):
        save_scene(path, objects)

    monkeypatch.undo()
    assert path.read_bytes() == old_bytes
    assert_only(path.parent, path.name)


def test_read_only_folder_is_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # We run as root, where chmod 0o555 does not stop writes: make mkstemp refuse instead.
    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, "Permission denied")

    path = copy_scene(tmp_path)
    old_bytes, objects = path.read_bytes(), [*states(load_scene(path)), CRATE]
    monkeypatch.setattr(tempfile, "mkstemp", refuse)

    with pytest.raises(
        SceneSaveError, match=f"^{re.escape(str(path))}: could not save: Permission denied$"
    ):
        save_scene(path, objects)

    assert path.read_bytes() == old_bytes


def test_missing_folder_for_save_as(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    objects = states(load_scene(path))
    target = tmp_path / "missing" / "x.toml"

    with pytest.raises(
        SceneSaveError, match=r"x\.toml: could not save: No such file or directory$"
    ):
        save_scene(path, objects, target=target)


SPOILED_SOURCES: dict[str, bytes | None] = {
    "deleted": None,
    "not-toml": b"version = 1\n[grid\n",
    "not-a-scene": b"version = 2\n",
    "not-utf8": b"version = 1\n\xff\n",
}


@pytest.mark.parametrize("content", SPOILED_SOURCES.values(), ids=SPOILED_SOURCES.keys())
def test_source_spoiled_since_load_is_named(tmp_path: Path, content: bytes | None) -> None:
    path = copy_scene(tmp_path)
    objects = states(load_scene(path))
    if content is None:
        path.unlink()
    else:
        path.write_bytes(content)

    with pytest.raises(SceneSaveError, match=rf"^{re.escape(str(path))}: could not save: \S"):
        save_scene(path, objects)


def test_missing_source_is_named_when_saving_as(tmp_path: Path) -> None:
    path = copy_scene(tmp_path)
    objects = states(load_scene(path))
    path.unlink()
    target = tmp_path / "copy.toml"
    expected = f"{target}: could not save: {path}: cannot read file: No such file or directory"

    with pytest.raises(SceneSaveError, match=f"^{re.escape(expected)}$"):
        save_scene(path, objects, target=target)


BAD_OBJECTS = {
    "duplicate-name": (
        dataclasses.replace(CRATE, name="pillar"),
        "two objects are called 'pillar'",
    ),
    "non-finite-pos": (dataclasses.replace(CRATE, pos=(float("nan"), 0.0, 0.0)), "must be finite"),
    "infinite-heading": (dataclasses.replace(CRATE, heading=float("inf")), "must be finite"),
    "zero-scale": (dataclasses.replace(CRATE, scale=(0.0, 1.0, 1.0)), "must be > 0"),
    "unknown-model": (dataclasses.replace(CRATE, model="teapot"), "no model 'teapot'"),
    "unknown-tag": (dataclasses.replace(CRATE, tag="Wall"), "expected one of"),
}


@pytest.mark.parametrize(("bad", "problem"), BAD_OBJECTS.values(), ids=BAD_OBJECTS.keys())
def test_object_the_loader_would_reject_is_not_saved(
    tmp_path: Path, bad: ObjectState, problem: str
) -> None:
    path = copy_scene(tmp_path)
    old_bytes, objects = path.read_bytes(), [*states(load_scene(path)), bad]

    with pytest.raises(
        SceneSaveError, match=rf"^{re.escape(str(path))}: could not save: .*{problem}"
    ):
        save_scene(path, objects)

    assert path.read_bytes() == old_bytes
    assert_only(path.parent, path.name)
