"""sim.scripting without a window: loading scripts (and its one-line errors), the hooks' order,
a raising script switched off with its file and line, and the views a script sees."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import pytest
from panda3d.core import NodePath

from sim.config import Tag
from sim.engine import GameObject, Gizmos, World
from sim.scene.file import load_scene
from sim.scene.spec import SceneError
from sim.scripting import Script, ScriptObject, ScriptWorld
from sim.scripting.loader import load_scripts
from sim.scripting.runner import ScriptRunner
from tests.helpers.scenes import GRID_10

SCENE = (
    GRID_10
    + """
[[objects]]
name = "spinner"
tag = "Obstacle"
model = "cube"
pos = [2.0, 3.0, 0.0]

[[objects.scripts]]
file = "scripts/thing.py"
class = "{name}"
{params}
[[objects]]
name = "end"
tag = "End"
model = "cube"
pos = [7.0, 7.0, 0.0]
"""
)

RECORDER = """\
from sim.scripting import Script

calls = []


class Recorder(Script):
    def __init__(self, label="r", fail_in="", **kwargs):
        super().__init__(**kwargs)
        self.label, self.fail_in = label, fail_in

    def _hook(self, name):
        calls.append((self.label, name))
        if name == self.fail_in:
            1 / 0

    def awake(self):
        self._hook("awake")

    def start(self):
        self._hook("start")

    def update(self, dt):
        self._hook("update")

    def on_draw_gizmos(self, gizmos):
        self._hook("on_draw_gizmos")

    def on_destroy(self):
        self._hook("on_destroy")
"""


def scene_file(tmp_path: Path, source: str, name: str = "Thing", params: str = "") -> Path:
    (tmp_path / "scripts").mkdir(exist_ok=True)
    (tmp_path / "scripts" / "thing.py").write_text(textwrap.dedent(source))
    path = tmp_path / "scene.toml"
    path.write_text(SCENE.format(name=name, params=params))
    return path


def load_error(tmp_path: Path, source: str, name: str = "Thing", params: str = "") -> str:
    path = scene_file(tmp_path, source, name, params)
    scene = load_scene(path)
    with pytest.raises(SceneError) as caught:
        load_scripts(scene)
    message = str(caught.value)
    assert "\n" not in message
    return message.removeprefix(f"{path}: object 'spinner': scripts/thing.py")


# --- loading ------------------------------------------------------------------------------------

PLAIN = "from sim.scripting import Script\n\nclass Thing(Script):\n    pass\n"
WITH_INIT = """\
from sim.scripting import Script

class Thing(Script):
    def __init__(self, radius=1.0, **kwargs):
        super().__init__(**kwargs)
        if radius <= 0:
            raise ValueError(f"radius must be > 0, got {radius}")
        self.radius = radius
"""

LOAD_ERRORS: dict[str, tuple[str, str, str, str]] = {
    # case: (source, class, params, the message after "<scene>: object 'spinner': <file>")
    "syntax-error": ("x = 1\ndef broken(:\n", "Thing", "", " line 2: SyntaxError: "),
    "raises-at-import": (
        "import math\n\nvalue = math.sqrt(-1)\n",
        "Thing",
        "",
        " line 3: ValueError: math domain error",
    ),
    "imports-a-missing-module": (
        "import no_such_module_here\n",
        "Thing",
        "",
        " line 1: ModuleNotFoundError: No module named 'no_such_module_here'",
    ),
    "no-such-class": (PLAIN, "Thong", "", ": no class 'Thong' (its Script classes: Thing)"),
    "not-a-script": (
        "class Thing:\n    pass\n",
        "Thing",
        "",
        ": 'Thing' is not a Script subclass (write `class Name(Script):` after "
        "`from sim.scripting import Script`)",
    ),
    "not-a-class": ("Thing = 3\n", "Thing", "", ": 'Thing' is not a Script subclass"),
    "unknown-param": (
        WITH_INIT,
        "Thing",
        "[objects.scripts.params]\nradiuss = 2.0\n",
        # Passed on by the class to Script.__init__, which takes none: the line of that call.
        " line 5: Thing refused its params: TypeError: Script.__init__() got an unexpected "
        "keyword argument 'radiuss'",
    ),
    "param-for-a-class-that-takes-none": (
        PLAIN,
        "Thing",
        "[objects.scripts.params]\nradius = 2.0\n",
        ": Thing refused its params: TypeError: Script.__init__() got an unexpected keyword "
        "argument 'radius'",
    ),
    "param-refused-by-the-class": (
        WITH_INIT,
        "Thing",
        "[objects.scripts.params]\nradius = -2.0\n",
        " line 7: Thing refused its params: ValueError: radius must be > 0, got -2.0",
    ),
}


def test_a_missing_script_file_is_one_line(tmp_path: Path) -> None:
    path = scene_file(tmp_path, PLAIN)
    (tmp_path / "scripts" / "thing.py").unlink()
    with pytest.raises(SceneError) as caught:
        load_scripts(load_scene(path))
    assert str(caught.value) == (
        f"{path}: object 'spinner': scripts/thing.py: no such file "
        f"(looked for {tmp_path / 'scripts' / 'thing.py'})"
    )


@pytest.mark.parametrize("case", list(LOAD_ERRORS), ids=list(LOAD_ERRORS))
def test_a_script_that_does_not_load_is_one_line(tmp_path: Path, case: str) -> None:
    source, name, params, expected = LOAD_ERRORS[case]
    assert load_error(tmp_path, source, name, params).startswith(expected)


def test_scripts_are_built_with_their_params(tmp_path: Path) -> None:
    path = scene_file(tmp_path, WITH_INIT, params="[objects.scripts.params]\nradius = 2.5\n")
    (loaded,) = load_scripts(load_scene(path))
    assert loaded.object_name == "spinner"
    assert loaded.script.radius == 2.5  # type: ignore[attr-defined]
    assert loaded.script.enabled


def test_a_failed_import_leaves_no_module_behind(tmp_path: Path) -> None:
    import sys

    before = set(sys.modules)
    load_error(tmp_path, "raise RuntimeError('no')\n")
    assert set(sys.modules) == before


def test_each_load_imports_the_file_afresh(tmp_path: Path) -> None:
    path = scene_file(tmp_path, WITH_INIT)
    first = load_scripts(load_scene(path))[0].script
    (tmp_path / "scripts" / "thing.py").write_text(WITH_INIT.replace("radius=1.0", "radius=4.0"))
    second = load_scripts(load_scene(path))[0].script
    assert (first.radius, second.radius) == (1.0, 4.0)  # type: ignore[attr-defined]


# --- running ------------------------------------------------------------------------------------


class Running:
    """A bare world with the scene's objects and a runner, as the app wires them."""

    def __init__(self, tmp_path: Path, source: str, name: str, params: str = "") -> None:
        scene = load_scene(scene_file(tmp_path, source, name, params))
        self.loaded = load_scripts(scene)
        self.world = World(NodePath("root"))
        self.errors: list[str] = []
        self.runner = self.world.spawn("scene-scripts").add_component(
            ScriptRunner(on_error=self.errors.append)
        )
        self.objects = []
        for spec in scene.objects:
            obj = self.world.spawn(spec.name, tag=spec.tag)
            obj.node.set_pos(*spec.pos)
            self.objects.append(obj)
        self.runner.attach(self.loaded, self.objects)
        self.gizmos = Gizmos(self.world.root)

    def frame(self, dt: float = 0.1) -> None:
        self.world.step(dt)
        self.world.draw_gizmos(self.gizmos)
        self.gizmos.flush()


def recorded(running: Running) -> list[tuple[str, str]]:
    module = type(running.loaded[0].script).__module__
    import sys

    calls: list[tuple[str, str]] = sys.modules[module].calls
    return calls


def test_hooks_run_in_unitys_order(tmp_path: Path) -> None:
    running = Running(tmp_path, RECORDER, "Recorder")
    running.frame()
    running.frame()
    running.objects[0].destroy()
    running.frame()
    assert recorded(running) == [
        ("r", "awake"),
        ("r", "start"),
        ("r", "update"),
        ("r", "on_draw_gizmos"),
        ("r", "update"),
        ("r", "on_draw_gizmos"),
        ("r", "on_destroy"),
    ]
    assert running.errors == []


def test_an_object_put_back_gets_fresh_scripts(tmp_path: Path) -> None:
    params = '[objects.scripts.params]\nlabel = "first"\n'
    running = Running(tmp_path, RECORDER, "Recorder", params)
    running.frame()
    old = running.objects[0]
    old.destroy()
    running.frame()
    running.frame()  # nothing runs while it is gone
    back = running.world.spawn("spinner", tag=Tag.OBSTACLE)  # as an undo puts it back
    running.frame()
    assert recorded(running) == [
        ("first", "awake"),
        ("first", "start"),
        ("first", "update"),
        ("first", "on_draw_gizmos"),
        ("first", "on_destroy"),
        ("first", "awake"),  # a new instance, built with the scene's params again
        ("first", "start"),
        ("first", "update"),
        ("first", "on_draw_gizmos"),
    ]
    first, second = running.runner.scripts
    assert first is not second
    assert second.game_object == ScriptObject(back)
    assert running.errors == []


@pytest.mark.parametrize("hook", ["awake", "start", "update", "on_draw_gizmos"])
def test_a_script_that_raises_is_switched_off_with_its_file_and_line(
    tmp_path: Path, hook: str
) -> None:
    params = f'[objects.scripts.params]\nfail_in = "{hook}"\n'
    running = Running(tmp_path, RECORDER, "Recorder", params)
    for _ in range(4):
        running.frame()
    assert running.errors == [
        "script scripts/thing.py line 14 (object 'spinner'): ZeroDivisionError: division by zero"
    ]
    assert running.runner.errors == running.errors
    calls = recorded(running)
    assert calls[-1] == ("r", hook)  # nothing ran after the failure
    assert calls.count(("r", hook)) == 1
    assert not running.loaded[0].script.enabled


def test_one_failing_script_leaves_the_others_running(tmp_path: Path) -> None:
    params = '[objects.scripts.params]\nfail_in = "update"\nlabel = "bad"\n'
    params += '\n[[objects.scripts]]\nfile = "scripts/thing.py"\nclass = "Recorder"\n'
    running = Running(tmp_path, RECORDER, "Recorder", params)
    for _ in range(3):
        running.frame()
    updates = [label for label, hook in recorded(running) if hook == "update"]
    assert updates == ["bad", "r", "r", "r"]
    assert len(running.errors) == 1


def test_a_disabled_script_is_not_updated(tmp_path: Path) -> None:
    running = Running(tmp_path, RECORDER, "Recorder")
    running.frame()
    running.loaded[0].script.enabled = False
    running.frame()
    assert recorded(running).count(("r", "update")) == 1
    assert running.errors == []


MOVER = """\
from sim.scripting import Script


class Mover(Script):
    def update(self, dt):
        x, y, z = self.game_object.position
        self.game_object.position = (x + 1.0, y, z)
        self.game_object.heading += 90.0
        self.end = self.world.find_with_tag("End")
        self.by_name = self.world.find("end")
"""


def test_a_script_moves_and_turns_its_object_and_finds_others(tmp_path: Path) -> None:
    running = Running(tmp_path, MOVER, "Mover")
    running.frame()
    running.frame()
    spinner, end = running.objects
    assert spinner.world_pos == pytest.approx((4.0, 3.0, 0.0))
    assert spinner.heading == pytest.approx(180.0)
    script = running.loaded[0].script
    assert script.end == script.by_name == ScriptObject(end)  # type: ignore[attr-defined]
    assert script.end.position == pytest.approx((7.0, 7.0, 0.0))  # type: ignore[attr-defined]
    assert script.game_object.name == "spinner"
    assert script.game_object.tag == "Obstacle"


BAD_POSITION = """\
from sim.scripting import Script


class Thing(Script):
    def update(self, dt):
        self.game_object.position = (1.0, float("nan"), 0.0)
"""


def test_a_bad_position_is_a_clear_error_at_the_users_line(tmp_path: Path) -> None:
    running = Running(tmp_path, BAD_POSITION, "Thing")
    running.frame()
    (message,) = running.errors
    assert message.startswith("script scripts/thing.py line 6 (object 'spinner'): ValueError:")
    assert "position: expected 3 finite numbers" in message


def test_the_world_view_finds_scene_objects_not_the_apps_machinery() -> None:
    world = World(NodePath("root"))
    world.spawn("hud")  # the app's own, untagged
    marker = world.spawn("marker")  # the scene's, untagged
    wall = world.spawn("wall", tag=Tag.OBSTACLE)
    added = world.spawn("added", tag=Tag.OBSTACLE)  # dropped in later by the user
    view = ScriptWorld(world, [marker, wall])
    assert view.find("hud") is None
    assert view.find("marker") == ScriptObject(marker)
    assert view.find_with_tag(Tag.UNTAGGED) == ScriptObject(marker)
    assert view.find_all_with_tag(Tag.OBSTACLE) == [ScriptObject(wall), ScriptObject(added)]
    assert view.find("nobody") is None
    world.step(0.25)
    assert view.time_s == pytest.approx(0.25)


def test_a_removed_object_says_so() -> None:
    world = World(NodePath("root"))
    obj = world.spawn("gone", tag=Tag.OBSTACLE)
    view = ScriptObject(obj)
    world.destroy(obj)
    world.flush_destroyed()
    assert not view.alive
    with pytest.raises(RuntimeError, match="object 'gone' has been removed"):
        _ = view.position


def test_a_script_outside_a_scene_says_where_to_look() -> None:
    class Early(Script):
        pass

    with pytest.raises(RuntimeError, match="not on an object yet"):
        _ = Early().game_object


def test_gizmos_circle_is_drawn_on_a_key_of_the_scripts_own(tmp_path: Path) -> None:
    source = """\
    from sim.scripting import Script


    class Thing(Script):
        def on_draw_gizmos(self, gizmos):
            gizmos.circle((0.0, 0.0, 0.1), 2.0)
            gizmos.line((0, 0, 0), (1, 1, 0), (1, 0, 0))
    """
    running = Running(tmp_path, source, "Thing")
    running.frame()
    assert running.gizmos.keys() == {"script/0/spinner/1", "script/0/spinner/2"}
    assert running.errors == []
    (node,) = [n for n in running.gizmos.node.get_children() if n.name == "script/0/spinner/1"]
    bounds = node.get_tight_bounds()
    assert bounds is not None
    low, high = bounds
    assert (high.x - low.x) == pytest.approx(4.0, abs=1e-3)
    assert math.isclose(low.z, 0.1, abs_tol=1e-5)


def test_game_object_views_compare_by_object() -> None:
    world = World(NodePath("root"))
    a, b = world.spawn("a"), world.spawn("b")
    assert ScriptObject(a) == ScriptObject(a)
    assert ScriptObject(a) != ScriptObject(b)
    assert len({ScriptObject(a), ScriptObject(a), ScriptObject(b)}) == 2
    assert isinstance(a, GameObject)
