"""A mover's, rotator's and door's settings changed mid-run (the inspector): the motion carries
on without a jump, and Ctrl+S writes the new numbers into the right table (no window)."""

from __future__ import annotations

import dataclasses

import pytest
from panda3d.core import NodePath

from sim.components.motion import Motion, SceneMotion
from sim.config import DoorConfig, MoverConfig, MoverMode, RotatorConfig, Tag
from sim.engine import GameObject, World
from sim.scene.file import load_scene
from sim.scene.merge import Setting, merge_objects, spec_settings
from sim.scene.motion_paths import MoverRoute, door_is_open
from sim.scene.writer import SceneSaveError, save_scene
from tests.helpers.paths import SCENES_DIR
from tests.helpers.scenes import app_states, copied

TRAFFIC = SCENES_DIR / "traffic.toml"
DT = 1 / 60
ROUTE = MoverConfig(((4.0, 0.0), (4.0, 4.0)), speed=2.0, wait_s=0.5)


# --- MoverRoute.resumed -----------------------------------------------------------------------


@pytest.mark.parametrize("t", [0.3, 1.0, 1.9, 2.2, 3.7, 5.5, 8.1, 11.0, 25.3])
@pytest.mark.parametrize(
    "changes",
    [{"speed": 5.0}, {"speed": 0.5}, {"wait_s": 0.0}, {"wait_s": 3.0}, {"mode": MoverMode.LOOP}],
)
def test_a_resumed_route_goes_on_from_the_same_place(t: float, changes: dict) -> None:
    old = MoverRoute.of((0.0, 0.0), ROUTE)
    new = MoverRoute.of((0.0, 0.0), dataclasses.replace(ROUTE, **changes))
    resumed = new.resumed(old, t)
    assert new.position_at(resumed) == pytest.approx(old.position_at(t), abs=1e-9)


def test_a_resumed_route_keeps_the_leg_and_its_direction() -> None:
    old = MoverRoute.of((0.0, 0.0), ROUTE)  # pingpong: 0,0 -> 4,0 -> 4,4 -> 4,0 -> 0,0
    new = MoverRoute.of((0.0, 0.0), dataclasses.replace(ROUTE, speed=4.0))
    t = 5.5  # on the way back from (4, 4) to (4, 0), at (4, 3)
    assert old.position_at(t) == pytest.approx((4.0, 3.0))
    resumed = new.resumed(old, t)
    assert new.position_at(resumed + 0.25) == pytest.approx((4.0, 2.0)), "still going south"


def test_a_wait_goes_on_but_no_longer_than_the_new_wait() -> None:
    old = MoverRoute.of((0.0, 0.0), ROUTE)  # reaches (4, 0) at 2 s, waits until 2.5 s
    shorter = MoverRoute.of((0.0, 0.0), dataclasses.replace(ROUTE, wait_s=0.1))
    resumed = shorter.resumed(old, 2.3)
    assert shorter.position_at(resumed) == pytest.approx((4.0, 0.0))
    assert resumed == pytest.approx(2.1)
    longer = MoverRoute.of((0.0, 0.0), dataclasses.replace(ROUTE, wait_s=2.0))
    assert longer.resumed(old, 2.3) == pytest.approx(2.3)


def test_a_route_not_yet_set_off_stays_at_its_start() -> None:
    old = MoverRoute.of((0.0, 0.0), ROUTE)
    new = MoverRoute.of((0.0, 0.0), dataclasses.replace(ROUTE, speed=1.0))
    assert new.resumed(old, 0.0) == 0.0
    assert new.resumed(old, -2.0) == -2.0


# --- SceneMotion.reconfigure ------------------------------------------------------------------


def moving_world(**configs: object) -> tuple[World, SceneMotion, GameObject]:
    world = World(NodePath("root"))
    motion = world.spawn("motion").add_component(SceneMotion())
    node = world.root.attach_new_node("thing")
    node.set_pos(1.0, 1.0, 0.0)
    node.set_h(10.0)
    node.set_scale(1.0, 1.0, 2.0)
    thing = world.add(GameObject(node, tag=str(Tag.OBSTACLE)))
    motion.add(thing, **configs)  # type: ignore[arg-type]
    return world, motion, thing


def test_reconfigure_reads_back_and_unknown_objects_have_no_configs() -> None:
    world, motion, thing = moving_world(rotator=RotatorConfig(30.0))
    assert motion.configs(thing) == Motion(rotator=RotatorConfig(30.0))
    other = world.add(GameObject(world.root.attach_new_node("other")))
    assert motion.configs(other) is None
    motion.reconfigure(other, Motion(rotator=RotatorConfig(5.0)))  # nothing to change
    assert motion.configs(other) is None


def test_a_faster_mover_goes_on_from_where_it_is_at_its_new_speed() -> None:
    mover = MoverConfig(((9.0, 1.0),), speed=1.0)
    world, motion, thing = moving_world(mover=mover)
    for _ in range(60):
        world.step(DT)
    here = thing.xy
    assert here[0] == pytest.approx(2.0, abs=1e-4)
    motion.reconfigure(thing, Motion(mover=dataclasses.replace(mover, speed=3.0)))
    assert thing.xy == pytest.approx(here, abs=1e-5), "no jump"
    for _ in range(30):
        world.step(DT)
    assert thing.xy[0] - here[0] == pytest.approx(1.5, abs=1e-3), "3 units/s for half a second"
    placement = motion.placement(thing)
    assert placement is not None
    assert placement[0][:2] == (1.0, 1.0), "the route's origin, which is saved, stays"


def test_a_rotator_turns_on_from_its_heading_now_and_saves_its_heading_at_time_0() -> None:
    world, motion, thing = moving_world(rotator=RotatorConfig(30.0))
    for _ in range(60):
        world.step(DT)
    assert thing.node.get_h() == pytest.approx(40.0, abs=1e-3)
    motion.reconfigure(thing, Motion(rotator=RotatorConfig(-90.0)))
    assert thing.node.get_h() == pytest.approx(40.0, abs=1e-3)
    for _ in range(30):
        world.step(DT)
    assert thing.node.get_h() == pytest.approx(355.0, abs=1e-3)
    placement = motion.placement(thing)
    assert placement is not None
    assert placement[1] == pytest.approx(10.0)


def test_a_door_follows_the_schedule_of_its_new_numbers() -> None:
    door = DoorConfig(period_s=4.0, open_fraction=0.5)
    world, motion, thing = moving_world(door=door)
    for _ in range(60):
        world.step(DT)
    new = DoorConfig(period_s=10.0, open_fraction=0.5, phase_s=1.5)
    motion.reconfigure(thing, Motion(door=new))
    opened = []
    for _ in range(90):
        world.step(DT)  # poses at the time after the step
        sunk = thing.node.get_z() < -2.0  # 2 tall: wholly below the ground
        assert sunk == door_is_open(new, world.time_s)
        opened.append(sunk)
    assert not opened[0], "closed at 1 s, as the new numbers say"
    assert opened[-1], "open from 1.5 s on"


# --- saving -----------------------------------------------------------------------------------


def test_the_motion_settings_are_the_inspectors_settings() -> None:
    loaded = load_scene(TRAFFIC)
    settings = {obj.name: dict(spec_settings(obj)) for obj in loaded.listed_objects}
    assert settings["end"] == {"mover.speed": 1.1, "mover.wait_s": 2.0, "mover.mode": "pingpong"}
    assert settings["turnstile"] == {"rotator.deg_per_s": 45.0}
    assert settings["door"] == {
        "door.period_s": 6.0,
        "door.open_fraction": 0.6,
        "door.phase_s": 3.2,
    }
    assert settings["wall_middle"] == {}


def test_changed_motion_settings_are_written_into_their_tables_and_nothing_else(tmp_path):
    path, loaded, base = copied(TRAFFIC, tmp_path)
    before = path.read_text(encoding="utf-8")
    changes: dict[str, dict[str, Setting]] = {
        "slider_north": {"mover.speed": 4.0, "mover.mode": "loop"},
        "turnstile": {"rotator.deg_per_s": -30.0},
        "door": {"door.open_fraction": 0.25},
    }
    save_scene(path, app_states(loaded, **changes), base=base)
    saved = load_scene(path)
    slider, turnstile, door = (saved.find(name) for name in changes)
    assert slider is not None
    assert slider.mover is not None
    assert (slider.mover.speed, slider.mover.mode) == (4.0, MoverMode.LOOP)
    assert turnstile is not None
    assert turnstile.rotator == RotatorConfig(-30.0)
    assert door is not None
    assert door.door == DoorConfig(6.0, 0.25, 3.2)
    after = path.read_text(encoding="utf-8")
    removed = [line for line in before.splitlines() if line not in after.splitlines()]
    added = [line for line in after.splitlines() if line not in before.splitlines()]
    assert sorted(removed) == sorted(
        ["deg_per_s = 45.0", "open_fraction = 0.6  # open 3.6 s, closed 2.4 s"]
    ), "slider_north's speed 2.0 stays in the other sliders' tables"
    assert sorted(added) == sorted(
        [
            "speed = 4.0",
            'mode = "loop"',
            "deg_per_s = -30.0",
            "open_fraction = 0.25  # open 3.6 s, closed 2.4 s",
        ]
    )
    # Every other entry is byte for byte the file's.
    untouched = before[: before.index('name = "turnstile"')]
    assert after.startswith(untouched)
    assert after.count("speed = 2.0") == before.count("speed = 2.0") - 1


def test_unchanged_motion_settings_write_nothing(tmp_path):
    path, loaded, base = copied(TRAFFIC, tmp_path)
    before = path.read_bytes()
    save_scene(path, app_states(loaded), base=base)
    assert path.read_bytes() == before


def test_a_motion_setting_changed_on_disk_and_differently_in_the_app_is_a_conflict(tmp_path):
    path, loaded, base = copied(TRAFFIC, tmp_path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("period_s = 6.0", "period_s = 8.0"), encoding="utf-8")
    on_disk = load_scene(path).listed_objects
    ours = app_states(loaded, door={"door.period_s": 5.0})
    assert merge_objects(base, ours, on_disk).changed_both == ("door",)
    with pytest.raises(SceneSaveError):
        save_scene(path, ours, base=base)
    # The same edit on one side only merges: the file's new period, the app's new phase.
    merged = merge_objects(base, app_states(loaded, door={"door.phase_s": 0.5}), on_disk)
    [door] = [obj for obj in merged.objects if obj.name == "door"]
    assert dict(door.settings)["door.period_s"] == 8.0
    assert dict(door.settings)["door.phase_s"] == 0.5
    assert dict(door.settings)["door.open_fraction"] == 0.6
