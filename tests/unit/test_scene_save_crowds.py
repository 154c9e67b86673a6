"""Ctrl+S on a scene with [[crowds]]: the crowd tables are kept as declared, never expanded."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from sim.scene.file import load_scene
from sim.scene.merge import MergeBase, ObjectState, without_crowds
from sim.scene.spec import ObjectSpec, SceneSpec
from sim.scene.writer import save_scene
from tests.helpers.scenes import GRID_10

CROWD_SCENE = """\
# two crowds that swap sides
version = 1
name = "Swap"

[grid]
origin = [0.0, 0.0]
rows = 20
columns = 20
cell_size = 1.0

[[objects]]
name = "west"
tag = "Untagged"
model = "cube"
pos = [1.5, 10.5, 0.0]

[[objects]]
name = "east"
tag = "End"
model = "cube"
pos = [18.5, 10.5, 0.0]

[[objects]]
name = "rock"
tag = "Obstacle"
model = "cube"
pos = [10.5, 3.5, 0.0]

# --- the crowds ---

[[crowds]]
name = "red"  # walks east
count = 12
area = [1.0, 6.0, 5.0, 14.0]
seed = 7
model = "agent"
heading = -90.0
color = [0.9, 0.2, 0.2]

[crowds.agent]
speed = 2.5
turn_rate = 6.0
replan_interval_s = 0.5
arrival_radius = 0.5
mode = "chase"
smoothing = false
radius = 0.3
avoidance = false
target = "east"

[[crowds]]
name = "blue"
count = 5
area = [15.0, 6.0, 19.0, 14.0]
agent = { target = "west", avoidance = true }
"""
ONLY_CROWDS = (
    GRID_10
    + """
# the crowd
[[crowds]]
count = 3
area = [1.0, 1.0, 4.0, 3.0]

[crowds.agent]
speed = 2.0
"""
)
CRATE = ObjectState("crate", "Obstacle", "cube", (12.5, 16.5, 0.0), (1.0, 1.0, 1.0), 0.0)
CRATE_TEXT = (
    '[[objects]]\nname = "crate"\ntag = "Obstacle"\nmodel = "cube"\npos = [12.5, 16.5, 0.0]\n'
)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    scene = tmp_path / "swap.toml"
    scene.write_text(CROWD_SCENE, encoding="utf-8")
    return scene


def states(spec: SceneSpec, **changes: dict[str, Any]) -> list[ObjectState]:
    """Every object of the running scene, crowd agents too, as the editor hands them in."""
    return [
        dataclasses.replace(ObjectState.from_spec(obj), **changes.get(obj.name, {}))
        for obj in spec.objects
    ]


def test_scene_keeps_its_crowds_as_declared(path: Path) -> None:
    spec = load_scene(path)

    assert [crowd.name for crowd in spec.crowds] == ["red", "blue"]
    assert [obj.name for obj in spec.listed_objects] == ["west", "east", "rock"]
    assert len(spec.objects) == 3 + 12 + 5
    assert spec.crowd_members() == {f"red-{n}" for n in range(1, 13)} | {
        f"blue-{n}" for n in range(1, 6)
    }


def test_unchanged_crowd_scene_is_saved_byte_for_byte(path: Path) -> None:
    save_scene(path, states(load_scene(path)))

    assert path.read_text(encoding="utf-8") == CROWD_SCENE


def test_edited_crowd_scene_round_trips_every_crowd_key(path: Path) -> None:
    old = load_scene(path)
    target = path.with_name("saved.toml")

    save_scene(path, [*states(old, rock={"pos": (9.5, 4.5, 0.0)}), CRATE], target=target)

    new = load_scene(target)
    assert new.crowds == old.crowds
    assert new.objects[4:] == old.objects[3:]  # the same agents, after the listed objects
    assert _found(new, "rock").pos == (9.5, 4.5, 0.0)
    assert new.find("crate") is not None
    assert dataclasses.replace(new, path=old.path, objects=old.objects) == old


def test_crowd_agents_are_never_written_one_by_one(path: Path) -> None:
    old = load_scene(path)
    moved: dict[str, dict[str, Any]] = {
        "red-1": {"pos": (3.5, 3.5, 0.0)},
        "blue-2": {"heading": 45.0},
    }

    save_scene(path, [*states(old, **moved), CRATE])

    text = path.read_text(encoding="utf-8")
    assert "red-1" not in text
    assert "blue-2" not in text
    assert text.count("[[crowds]]") == 2
    assert load_scene(path).crowds == old.crowds


def test_crowd_agents_left_out_of_the_app_objects_change_nothing(path: Path) -> None:
    old = load_scene(path)

    save_scene(path, [ObjectState.from_spec(obj) for obj in old.listed_objects])

    assert path.read_text(encoding="utf-8") == CROWD_SCENE


def test_new_obstacle_goes_before_the_crowds_and_their_heading_comment(path: Path) -> None:
    save_scene(path, [*states(load_scene(path)), CRATE])

    text = path.read_text(encoding="utf-8")
    head, tail = CROWD_SCENE.split("# --- the crowds ---\n")
    assert text == head + CRATE_TEXT + "\n# --- the crowds ---\n" + tail


def test_obstacle_added_to_a_scene_of_crowds_only_comes_after_them(tmp_path: Path) -> None:
    path = tmp_path / "only.toml"
    path.write_text(ONLY_CROWDS, encoding="utf-8")

    save_scene(path, [*states(load_scene(path)), CRATE])

    assert path.read_text(encoding="utf-8") == ONLY_CROWDS + "\n" + CRATE_TEXT
    assert [obj.name for obj in load_scene(path).listed_objects] == ["crate"]


def test_crowd_shrunk_on_disk_does_not_come_back_as_objects(path: Path) -> None:
    loaded = load_scene(path)
    base = MergeBase.loaded(loaded)
    path.write_text(CROWD_SCENE.replace("count = 12", "count = 4"), encoding="utf-8")

    save_scene(path, [*states(loaded), CRATE], base=base)

    saved = load_scene(path)
    assert [obj.name for obj in saved.listed_objects] == ["west", "east", "rock", "crate"]
    assert saved.crowds[0].count == 4
    assert "red-5" not in path.read_text(encoding="utf-8")
    # The base moved on: the next save is of the shrunk crowd, and changes nothing.
    before = path.read_text(encoding="utf-8")
    save_scene(path, [*states(loaded), CRATE], base=base)
    assert path.read_text(encoding="utf-8") == before


def test_crowd_member_name_reused_by_the_file_is_the_file_entry(path: Path) -> None:
    loaded = load_scene(path)
    base = MergeBase.loaded(loaded)
    # Another program shrinks blue to 4 agents and lists a marker called blue-5.
    text = CROWD_SCENE.replace("count = 5", "count = 4")
    marker = (
        '\n[[objects]]\nname = "blue-5"\ntag = "Untagged"\nmodel = "cube"\npos = [9.5, 9.5, 0.0]\n'
    )
    text = text.replace("\n# --- the crowds ---", marker + "\n# --- the crowds ---")
    path.write_text(text, encoding="utf-8")

    save_scene(path, states(loaded, rock={"pos": (9.5, 2.5, 0.0)}), base=base)

    saved = load_scene(path)
    assert _found(saved, "blue-5").pos == (9.5, 9.5, 0.0)
    assert _found(saved, "rock").pos == (9.5, 2.5, 0.0)


def test_merge_base_holds_listed_objects_only(path: Path) -> None:
    spec = load_scene(path)

    base = MergeBase.loaded(spec)

    assert list(base.app) == list(base.file) == ["west", "east", "rock"]
    assert base.crowd_members == spec.crowd_members()
    kept = without_crowds(states(spec), base, spec)
    assert [obj.name for obj in kept] == ["west", "east", "rock"]


def test_saving_a_copy_of_a_shipped_crowd_scene_keeps_its_crowds(tmp_path: Path) -> None:
    shipped = Path(__file__).resolve().parents[2] / "scenes" / "crossing.toml"
    path = Path(shutil.copy(shipped, tmp_path / shipped.name))
    old = load_scene(path)
    assert old.crowds, "crossing.toml declares its groups as [[crowds]]"

    save_scene(path, [*states(old), CRATE])

    new = load_scene(path)
    assert new.crowds == old.crowds
    assert new.objects[: len(old.listed_objects)] == old.listed_objects


def _found(scene: SceneSpec, name: str) -> ObjectSpec:
    """The object `name` of `scene`, which the test knows is there."""
    spec = scene.find(name)
    assert spec is not None, name
    return spec
