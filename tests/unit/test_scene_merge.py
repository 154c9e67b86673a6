"""Ctrl+S while another program edits the file: the app's edits go onto the file as it is now."""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from sim.scene.file import list_scenes, load_scene
from sim.scene.merge import MergeBase, ObjectState, merge_objects
from sim.scene.spec import SceneSpec
from sim.scene.writer import SceneSaveError, save_scene

DEFAULT_SCENE = next(path for path in list_scenes() if path.stem == "default")

END_POS = 'name = "end"\ntag = "End"\nmodel = "cube"\npos = [7.5, 7.5, 0.0]'
PILLAR = 'name = "pillar"  # 1 x 1, tall\ntag = "Obstacle"\nmodel = "cube"\npos = [5.5, -5.5, 0.0]'
BARREL_TEXT = """
[[objects]]
name = "barrel"  # added in a text editor
tag = "Obstacle"
model = "cube"
pos = [-8.5, 0.5, 0.0]
"""
CRATE = ObjectState("crate", "Obstacle", "cube", (2.5, -1.25, 0.0), (1.0, 1.0, 1.0), 0.0)


@dataclasses.dataclass
class Session:
    """A scene file and the app that loaded it: the base of every save."""

    path: Path
    loaded: SceneSpec
    base: MergeBase

    def app(self, *, without: tuple[str, ...] = (), **changes: dict[str, Any]) -> list[ObjectState]:
        """The app's objects: the loaded ones with `changes` by name, minus `without`."""
        return [
            dataclasses.replace(ObjectState.from_spec(obj), **changes.get(obj.name, {}))
            for obj in self.loaded.objects
            if obj.name not in without
        ]

    def save(self, objects: list[ObjectState], *, target: Path | None = None) -> Path:
        return save_scene(self.path, objects, target=target, base=self.base)

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def edit(self, old: str, new: str) -> None:
        """Another program changes the file: `old` (found once) becomes `new`."""
        text = self.text()
        assert text.count(old) == 1, old
        self.path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def session(tmp_path: Path) -> Session:
    folder = tmp_path / "scenes"
    folder.mkdir()
    path = Path(shutil.copy(DEFAULT_SCENE, folder / DEFAULT_SCENE.name))
    loaded = load_scene(path)
    return Session(path, loaded, MergeBase.loaded(loaded))


def changed_lines(old: str, new: str) -> list[str]:
    diff = difflib.ndiff(old.splitlines(), new.splitlines())
    return [line for line in diff if line.startswith(("- ", "+ "))]


def pos_of(path: Path, name: str) -> tuple[float, float, float]:
    found = load_scene(path).find(name)
    assert found is not None, name
    return found.pos


# --- the file's own edits stay ------------------------------------------------------------------


def test_obstacle_added_on_disk_survives_a_drag_in_the_app(session: Session) -> None:
    session.path.write_text(session.text() + BARREL_TEXT, encoding="utf-8")

    session.save(session.app(pillar={"pos": (6.5, -4.5, 0.0)}))

    assert pos_of(session.path, "barrel") == (-8.5, 0.5, 0.0)
    assert pos_of(session.path, "pillar") == (6.5, -4.5, 0.0)
    assert session.text().endswith(BARREL_TEXT)


def test_end_moved_on_disk_and_not_in_the_app_stays(session: Session) -> None:
    session.edit(END_POS, END_POS.replace("[7.5, 7.5, 0.0]", "[3.5, 8.5, 0.0]"))

    session.save(session.app(pillar={"pos": (6.5, -4.5, 0.0)}))

    assert pos_of(session.path, "end") == (3.5, 8.5, 0.0)
    assert pos_of(session.path, "pillar") == (6.5, -4.5, 0.0)


def test_entry_removed_on_disk_and_untouched_in_the_app_stays_removed(session: Session) -> None:
    session.edit(PILLAR, PILLAR.replace('"pillar"', '"pillar2"'))  # "pillar" is gone from the file

    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))

    names = [obj.name for obj in load_scene(session.path).objects]
    assert "pillar" not in names
    assert "pillar2" in names


def test_agent_moved_on_disk_stays(session: Session) -> None:
    # The app saves agents at their authored spawn: a spawn moved in the file is the file's edit.
    old = "pos = [-6.5, -7.5, 0.0]  # beside Start"
    session.edit(old, old.replace("-6.5", "-5.5"))

    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))

    assert pos_of(session.path, "agent") == (-5.5, -7.5, 0.0)


def test_disk_and_app_changes_to_other_values_of_one_entry_both_stay(session: Session) -> None:
    session.edit(END_POS + "\nscale = 0.8", END_POS + "\nscale = 0.6\nheading = 10.0")

    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))

    end = load_scene(session.path).find("end")
    assert end is not None
    assert (end.pos, end.scale, end.heading) == ((6.5, 6.5, 0.0), (0.6, 0.6, 0.6), 10.0)


def test_the_same_change_on_both_sides_is_no_conflict(session: Session) -> None:
    session.edit(END_POS, END_POS.replace("[7.5, 7.5, 0.0]", "[6.5, 6.5, 0.0]"))
    edited = session.text()

    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))

    assert session.text() == edited


def test_comments_and_layout_of_both_sides_are_kept(session: Session) -> None:
    session.edit(PILLAR, "# a note written while the app ran\n" + PILLAR)
    session.edit("\nspeed = 3.0\n", "\nspeed = 3.0   # faster later\n")
    edited = session.text()

    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))

    assert changed_lines(edited, session.text()) == [
        "- pos = [7.5, 7.5, 0.0]",
        "+ pos = [6.5, 6.5, 0.0]",
    ]


# --- the app's edits go in ----------------------------------------------------------------------


def test_obstacle_removed_in_the_app_and_untouched_on_disk_is_removed(session: Session) -> None:
    session.path.write_text(session.text() + BARREL_TEXT, encoding="utf-8")

    session.save(session.app(without=("pillar",)))

    names = [obj.name for obj in load_scene(session.path).objects]
    assert "pillar" not in names
    assert names[-1] == "barrel"


def test_obstacle_added_in_the_app_is_appended_after_the_files_own(session: Session) -> None:
    session.path.write_text(session.text() + BARREL_TEXT, encoding="utf-8")

    session.save([*session.app(), CRATE])

    assert [obj.name for obj in load_scene(session.path).objects][-2:] == ["barrel", "crate"]


# --- conflicts: nothing is written ----------------------------------------------------------------

CONFLICTS: dict[str, tuple[str, str, dict[str, Any], tuple[str, ...], str]] = {
    # id: (text on disk, what it becomes, the app's edits, removed in the app, the message)
    "end-moved-in-both": (
        END_POS,
        END_POS.replace("[7.5, 7.5, 0.0]", "[3.5, 8.5, 0.0]"),
        {"end": {"pos": (6.5, 6.5, 0.0)}},
        (),
        "'end' changed in the file and in the app; use --save-as",
    ),
    "heading-changed-in-both": (
        "heading = 35.0",
        "heading = 30.0",
        {"slanted_wall": {"heading": 20.0}},
        (),
        "'slanted_wall' changed in the file and in the app",
    ),
    "removed-on-disk-edited-in-app": (
        PILLAR,
        PILLAR.replace('"pillar"', '"pillar_moved"'),
        {"pillar": {"pos": (6.5, -4.5, 0.0)}},
        (),
        "'pillar' changed in the file and in the app",
    ),
    "removed-in-app-edited-on-disk": (
        PILLAR,
        PILLAR.replace("[5.5, -5.5, 0.0]", "[4.5, -5.5, 0.0]"),
        {},
        ("pillar",),
        "'pillar' changed in the file and in the app",
    ),
}


@pytest.mark.parametrize(
    ("old", "new", "edits", "removed", "message"), CONFLICTS.values(), ids=CONFLICTS
)
def test_a_value_changed_on_both_sides_is_refused_and_nothing_written(
    session: Session,
    old: str,
    new: str,
    edits: dict[str, dict[str, Any]],
    removed: tuple[str, ...],
    message: str,
) -> None:
    session.edit(old, new)
    edited = session.path.read_bytes()
    objects = session.app(without=removed, **edits)

    with pytest.raises(SceneSaveError, match=re.escape(message)) as raised:
        session.save(objects)

    assert str(raised.value).startswith(f"{session.path}: could not save: ")
    assert "--save-as" in str(raised.value)
    assert "\n" not in str(raised.value)
    assert session.path.read_bytes() == edited
    assert sorted(p.name for p in session.path.parent.iterdir()) == [session.path.name]


def test_every_conflicting_entry_is_named(session: Session) -> None:
    session.edit(END_POS, END_POS.replace("[7.5, 7.5, 0.0]", "[3.5, 8.5, 0.0]"))
    session.edit("heading = 35.0", "heading = 30.0")
    objects = session.app(end={"pos": (6.5, 6.5, 0.0)}, slanted_wall={"heading": 20.0})

    with pytest.raises(SceneSaveError, match="'end' and 'slanted_wall' changed in the file"):
        session.save(objects)


def test_a_name_added_on_both_sides_is_refused(session: Session) -> None:
    session.path.write_text(session.text() + BARREL_TEXT, encoding="utf-8")
    edited = session.path.read_bytes()
    barrel = dataclasses.replace(CRATE, name="barrel")

    with pytest.raises(SceneSaveError, match="'barrel' added in the file and in the app"):
        session.save([*session.app(), barrel])

    assert session.path.read_bytes() == edited


# --- the base moves on with each save ----------------------------------------------------------


def test_a_second_save_keeps_a_disk_change_the_app_never_showed(session: Session) -> None:
    session.edit(END_POS, END_POS.replace("[7.5, 7.5, 0.0]", "[3.5, 8.5, 0.0]"))
    session.save(session.app(pillar={"pos": (6.5, -4.5, 0.0)}))

    session.save(session.app(pillar={"pos": (6.5, -3.5, 0.0)}))  # the app still shows End at 7.5

    assert pos_of(session.path, "end") == (3.5, 8.5, 0.0)
    assert pos_of(session.path, "pillar") == (6.5, -3.5, 0.0)


def test_after_a_save_its_edits_are_the_base(session: Session) -> None:
    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))
    session.edit("pos = [6.5, 6.5, 0.0]", "pos = [2.5, 6.5, 0.0]")

    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))  # End not touched since the save

    assert pos_of(session.path, "end") == (2.5, 6.5, 0.0)


def test_a_refused_save_leaves_the_base(session: Session) -> None:
    session.edit(END_POS, END_POS.replace("[7.5, 7.5, 0.0]", "[3.5, 8.5, 0.0]"))
    with pytest.raises(SceneSaveError):
        session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))
    session.edit("pos = [3.5, 8.5, 0.0]", "pos = [7.5, 7.5, 0.0]")  # the other program undoes

    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))

    assert pos_of(session.path, "end") == (6.5, 6.5, 0.0)


# --- save-as --------------------------------------------------------------------------------------


def test_save_as_merges_onto_the_source_now_and_the_app_wins_conflicts(
    session: Session, tmp_path: Path
) -> None:
    session.edit(END_POS, END_POS.replace("[7.5, 7.5, 0.0]", "[3.5, 8.5, 0.0]"))
    session.path.write_text(session.text() + BARREL_TEXT, encoding="utf-8")
    source = session.path.read_bytes()
    target = tmp_path / "mine.toml"

    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}), target=target)

    assert session.path.read_bytes() == source
    assert pos_of(target, "end") == (6.5, 6.5, 0.0)
    assert pos_of(target, "barrel") == (-8.5, 0.5, 0.0)


def test_save_as_twice_keeps_the_apps_edits(session: Session, tmp_path: Path) -> None:
    # The source never gets the edits, so the base stays the loaded scene.
    target = tmp_path / "mine.toml"
    session.save([*session.app(end={"pos": (6.5, 6.5, 0.0)}), CRATE], target=target)

    session.save([*session.app(end={"pos": (6.5, 6.5, 0.0)}), CRATE], target=target)

    assert pos_of(target, "end") == (6.5, 6.5, 0.0)
    assert pos_of(target, "crate") == CRATE.pos


def test_save_as_still_refuses_a_name_added_on_both_sides(session: Session, tmp_path: Path) -> None:
    session.path.write_text(session.text() + BARREL_TEXT, encoding="utf-8")
    barrel = dataclasses.replace(CRATE, name="barrel")

    with pytest.raises(SceneSaveError, match="'barrel' added in the file"):
        session.save([*session.app(), barrel], target=tmp_path / "mine.toml")

    assert not (tmp_path / "mine.toml").exists()


# --- the merge alone ------------------------------------------------------------------------------


def test_float32_noise_is_not_an_app_edit(session: Session) -> None:
    noisy = [
        dataclasses.replace(obj, pos=(obj.pos[0] * (1 + 3e-8), obj.pos[1], obj.pos[2]))
        for obj in session.app()
    ]
    moved = dataclasses.replace(session.loaded.objects[1], pos=(3.5, 8.5, 0.0))
    theirs = (session.loaded.objects[0], moved, *session.loaded.objects[2:])

    merge = merge_objects(session.base, noisy, theirs)

    assert merge.objects[1].pos == (3.5, 8.5, 0.0)
    assert not merge.changed_both


# --- writing ------------------------------------------------------------------------------------


def test_a_stale_temporary_file_is_never_read_and_is_cleaned_up(session: Session) -> None:
    folder = session.path.parent
    stale = folder / f".{session.path.name}.k1ll3d_x.tmp"
    stale.write_text('version = 1\nname = "half written', encoding="utf-8")
    an_hour_ago = time.time() - 3600
    os.utime(stale, (an_hour_ago, an_hour_ago))
    fresh = folder / f".{session.path.name}.s4v1ng_x.tmp"  # another app saving right now
    fresh.write_text("", encoding="utf-8")

    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))

    assert pos_of(session.path, "end") == (6.5, 6.5, 0.0)
    assert list_scenes(folder) == [session.path]
    assert sorted(p.name for p in folder.iterdir()) == sorted([session.path.name, fresh.name])


def test_data_is_synced_before_the_rename(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    fsync, replace = os.fsync, os.replace

    def record_fsync(fd: int) -> None:
        calls.append("fsync")
        fsync(fd)

    def record_replace(src: str, dst: Path) -> None:
        calls.append("replace")
        replace(src, dst)

    monkeypatch.setattr(os, "fsync", record_fsync)
    monkeypatch.setattr(os, "replace", record_replace)

    session.save(session.app(end={"pos": (6.5, 6.5, 0.0)}))

    assert calls[:2] == ["fsync", "replace"]
