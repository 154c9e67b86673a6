"""The inspector on objects that move by themselves: a mover's, rotator's and door's settings
shown, typed, refused, undone and saved, offscreen with the virtual mouse (scenes/traffic.toml)."""

from __future__ import annotations

import shutil
import tomllib

import pytest
from panda3d.core import KeyboardButton

from sim.config import MoverMode
from sim.scene.file import load_scene, parse_scene
from sim.scene.spec import SceneError
from tests.helpers.inspector import focus, select, type_into
from tests.helpers.paths import SCENES_DIR
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

CONTROL = KeyboardButton.control()
TRAFFIC = SCENES_DIR / "traffic.toml"
SLIDER = "slider_north"  # from (-3.5, 6.5) east to (4.5, 6.5) at 2 units/s, waits 0.5 s
MOVER_KEYS = ["mover.speed", "mover.wait_s", "mover.mode"]
ROTATOR_KEYS = ["rotator.deg_per_s"]
DOOR_KEYS = ["door.period_s", "door.open_fraction", "door.phase_s"]


@pytest.fixture
def traffic(open_app):
    app = open_app(TRAFFIC, size=(640, 480))
    mouse = Mouse(app)
    app.step()
    return app, mouse


def run(app, frames: int) -> None:
    for _ in range(frames):
        app.step()


def scene_file_message(name: str, key: str, value: str) -> str:
    """What loading the scene says of setting `key` (``"mover.speed"``) of `name` at `value`."""
    data = tomllib.loads(TRAFFIC.read_text(encoding="utf-8"))
    entry = next(entry for entry in data["objects"] if entry["name"] == name)
    table, setting = key.split(".")
    entry[table][setting] = tomllib.loads(f"value = {value}")["value"]
    with pytest.raises(SceneError) as error:
        parse_scene(data, source="traffic.toml")
    return str(error.value)


def test_selecting_a_mover_a_rotator_and_a_door_shows_their_settings(traffic):
    app, mouse = traffic
    mouse.key("space")  # paused, so what moves stays under the pointer
    select(app, mouse, SLIDER)
    keys = [field.key for field in app.inspector.fields]
    assert keys == ["pos", "scale", "heading", *MOVER_KEYS]
    app.step()
    assert "mover.speed" in app.inspector.panel.text
    assert "pingpong" in app.inspector.panel.text
    select(app, mouse, "turnstile")
    assert [field.key for field in app.inspector.fields][-1:] == ROTATOR_KEYS
    app.editor.selected = app.world.find("door")  # sunk now (open), so not under a click
    assert [field.key for field in app.inspector.fields][-3:] == DOOR_KEYS
    app.step()
    assert "door.open_fraction" in app.inspector.panel.text
    app.editor.selected = app.world.find("wall_middle")
    assert [field.key for field in app.inspector.fields] == ["pos", "scale", "heading"]


def speed_of(app, obj, frames: int = 30) -> float:
    """How fast `obj` goes along x over the next `frames` frames, in units per simulated second."""
    x, t = obj.xy[0], app.world.time_s
    run(app, frames)
    return (obj.xy[0] - x) / (app.world.time_s - t)


def test_a_typed_speed_changes_how_fast_the_mover_goes_and_undo_puts_it_back(traffic):
    app, mouse = traffic
    slider = app.world.find(SLIDER)
    assert speed_of(app, slider) == pytest.approx(2.0)
    mouse.key("space")
    select(app, mouse, SLIDER)
    focus(app, mouse, "mover.speed")
    here = slider.xy
    type_into(mouse, "4")
    mouse.key("escape")
    assert slider.xy == pytest.approx(here), "no jump"
    assert app.inspector.error is None
    assert app.motion.configs(slider).mover.speed == 4.0
    mouse.key("space")
    assert speed_of(app, slider) == pytest.approx(4.0)
    assert slider.xy[1] == pytest.approx(6.5), "on its route"
    mouse.key("z", holding=CONTROL)
    assert app.motion.configs(slider).mover.speed == 2.0
    assert speed_of(app, slider) == pytest.approx(2.0)


def test_a_typed_turn_rate_and_mode_apply_live(traffic):
    app, mouse = traffic
    mouse.key("space")
    turnstile = select(app, mouse, "turnstile")
    focus(app, mouse, "rotator.deg_per_s")
    type_into(mouse, "-90")
    heading, t = turnstile.node.get_h(), app.world.time_s
    mouse.key("escape")
    mouse.key("space")
    run(app, 30)
    turned = (heading - turnstile.node.get_h()) % 360
    assert turned == pytest.approx(90.0 * (app.world.time_s - t), abs=1e-3), "clockwise at 90"
    mouse.key("space")
    slider = select(app, mouse, SLIDER)
    focus(app, mouse, "mover.mode")
    type_into(mouse, "loop")
    assert app.motion.configs(slider).mover.mode is MoverMode.LOOP


@pytest.mark.parametrize(
    ("name", "key", "typed", "in_file"),
    [
        (SLIDER, "mover.speed", "0", "0"),
        (SLIDER, "mover.wait_s", "-1", "-1"),
        (SLIDER, "mover.mode", "zigzag", '"zigzag"'),
        ("turnstile", "rotator.deg_per_s", "0", "0"),
        ("door", "door.open_fraction", "1.5", "1.5"),
        ("door", "door.period_s", "0", "0"),
    ],
)
def test_a_bad_value_is_refused_with_the_scene_files_message(traffic, name, key, typed, in_file):
    app, mouse = traffic
    app.editor.selected = obj = app.world.find(name)
    app.step()  # the inspector takes the new selection when it draws
    before = app.motion.configs(obj)
    focus(app, mouse, key)
    type_into(mouse, typed)
    assert app.motion.configs(obj) == before, "nothing changes"
    assert app.editor.history.undo_depth == 0
    # The file's message names the entry by its place: "traffic.toml: objects[9].mover.speed: ".
    problem = scene_file_message(name, key, in_file).split(f".{key}: ", 1)[1]
    message = f"{name}: {key}: {problem}"
    assert app.inspector.error == message
    app.step()
    assert app.inspector.panel.error == message


def test_saved_motion_settings_come_back_on_reload_and_the_rest_is_byte_identical(
    open_app, tmp_path
):
    scene = tmp_path / "traffic.toml"
    shutil.copy(TRAFFIC, scene)
    saved = tmp_path / "saved.toml"
    app = open_app(scene, save_as=saved)
    mouse = Mouse(app)
    app.step()
    mouse.key("space")
    select(app, mouse, SLIDER)
    focus(app, mouse, "mover.speed")
    type_into(mouse, "4")
    focus(app, mouse, "mover.wait_s")
    type_into(mouse, "1.25")
    mouse.key("escape")
    mouse.key("space")
    run(app, 20)  # mid-route: the saved pos is still the route's origin
    app.editor.selected = app.world.find("door")
    app.step()
    focus(app, mouse, "door.phase_s")
    type_into(mouse, "1")
    focus(app, mouse, "door.period_s")
    type_into(mouse, "9")
    mouse.key("z", holding=CONTROL)  # the period goes back, and is not saved
    mouse.key("escape")
    mouse.key("s", holding=CONTROL)
    loaded = {obj.name: obj for obj in load_scene(saved).objects}
    slider, door = loaded[SLIDER], loaded["door"]
    assert slider.mover is not None
    assert (slider.mover.speed, slider.mover.wait_s) == (4.0, 1.25)
    assert slider.pos == (-3.5, 6.5, 0.0)
    assert door.door is not None
    assert (door.door.period_s, door.door.phase_s) == (6.0, 1.0)
    before, after = TRAFFIC.read_text(encoding="utf-8"), saved.read_text(encoding="utf-8")
    changed = [
        (old, new)
        for old, new in zip(before.splitlines(), after.splitlines(), strict=True)
        if old != new
    ]
    comment = "  # open at 3.2..6.8 s, 9.2..12.8 s, ...; at 0 the open part of -2.8..0.8 s"
    assert changed == [
        ("phase_s = 3.2" + comment, "phase_s = 1.0" + comment),  # the comment stays
        ("speed = 2.0", "speed = 4.0"),
        ("wait_s = 0.5", "wait_s = 1.25"),
    ]


def test_a_removed_mover_comes_back_with_the_speed_the_inspector_gave_it(traffic):
    app, mouse = traffic
    mouse.key("space")
    slider = select(app, mouse, SLIDER)
    focus(app, mouse, "mover.speed")
    type_into(mouse, "4")
    mouse.key("escape")
    mouse.move(app.screen_of(slider))
    mouse.key("x")
    assert not slider.alive
    mouse.key("z", holding=CONTROL)
    back = app.world.find(SLIDER)
    assert back is not None
    assert app.motion.configs(back).mover.speed == 4.0
    mouse.key("z", holding=CONTROL)
    assert app.motion.configs(back).mover.speed == 2.0, "and its speed edit is undone on it"
