"""`[[objects.scripts]]` in scene files: what is read, the one-line errors, and saving them."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.scene.file import load_scene
from sim.scene.spec import SceneError, SceneSpec
from sim.scene.writer import ObjectState, save_scene
from tests.helpers.paths import SCENES_DIR
from tests.helpers.scenes import GRID_10

HEAD = (
    GRID_10
    + """
[[objects]]
name = "spinner"
tag = "Obstacle"
model = "cube"
pos = [2.0, 2.0, 0.0]
"""
)
SCRIPT = "from sim.scripting import Script\n\n\nclass Spin(Script):\n    pass\n"
TABLE = '[[objects.scripts]]\nfile = "scripts/spin.py"\nclass = "Spin"\n'


def write_scene(tmp_path: Path, tables: str) -> Path:
    (tmp_path / "scripts").mkdir(exist_ok=True)
    (tmp_path / "scripts" / "spin.py").write_text(SCRIPT)
    path = tmp_path / "scene.toml"
    path.write_text(HEAD + tables)
    return path


def load_text(tmp_path: Path, tables: str) -> SceneSpec:
    return load_scene(write_scene(tmp_path, tables))


def test_a_script_is_read_relative_to_the_scene_file(tmp_path: Path) -> None:
    tables = TABLE + "[objects.scripts.params]\nradius = 3.0\ncenter = [1, 2]\n"
    (spinner,) = load_text(tmp_path, tables).objects
    (script,) = spinner.scripts
    assert script.file == "scripts/spin.py"
    assert script.path_in(tmp_path / "scene.toml") == tmp_path / "scripts" / "spin.py"
    assert script.class_name == "Spin"
    assert dict(script.params) == {"radius": 3.0, "center": [1, 2]}


def test_scripts_keep_their_file_order_and_default_to_no_params(tmp_path: Path) -> None:
    second = TABLE.replace('"Spin"', '"Other"')
    (spinner,) = load_text(tmp_path, TABLE + second).objects
    assert [script.class_name for script in spinner.scripts] == ["Spin", "Other"]
    assert [dict(script.params) for script in spinner.scripts] == [{}, {}]


def test_an_object_without_scripts_has_none(tmp_path: Path) -> None:
    (spinner,) = load_text(tmp_path, "").objects
    assert spinner.scripts == ()


def test_an_object_with_scripts_can_still_be_hashed(tmp_path: Path) -> None:
    tables = TABLE + "[objects.scripts.params]\ncenter = [1, 2]\n"
    (spinner,) = load_text(tmp_path, tables).objects
    assert hash(spinner) == hash(spinner)


def test_a_missing_script_file_is_left_to_the_loader(tmp_path: Path) -> None:
    # sim compare and saves read scenes too; only opening the scene runs (and needs) the file.
    (spinner,) = load_text(tmp_path, TABLE.replace("spin.py", "gone.py")).objects
    assert spinner.scripts[0].file == "scripts/gone.py"


def test_the_shipped_scripted_scene_names_its_two_scripts() -> None:
    scene = load_scene(SCENES_DIR / "scripted.toml")
    classes = {obj.name: [s.class_name for s in obj.scripts] for obj in scene.objects}
    assert classes["orbiter"] == ["Orbit"]
    assert classes["beacon"] == ["Beacon"]
    for obj in scene.objects:
        for script in obj.scripts:
            assert script.path_in(scene.path).is_file()


PREFIX = "objects[0].scripts"
BAD: dict[str, tuple[str, str]] = {
    "not-an-array": ('scripts = "spin.py"\n', f"{PREFIX}: expected an array of tables"),
    "missing-file": (
        '[[objects.scripts]]\nclass = "Spin"\n',
        f"{PREFIX}[0].file: missing required key",
    ),
    "missing-class": (
        '[[objects.scripts]]\nfile = "scripts/spin.py"\n',
        f"{PREFIX}[0].class: missing required key",
    ),
    "not-python": (
        TABLE.replace("spin.py", "spin.txt"),
        f"{PREFIX}[0].file: expected a Python file ending in .py, got 'scripts/spin.txt'",
    ),
    "class-not-a-name": (
        TABLE.replace('"Spin"', '"my spin"'),
        f"{PREFIX}[0].class: expected a Python class name, got 'my spin'",
    ),
    "class-a-keyword": (
        TABLE.replace('"Spin"', '"class"'),
        f"{PREFIX}[0].class: expected a Python class name, got 'class'",
    ),
    "params-not-a-table": (
        TABLE + "params = [1, 2]\n",
        f"{PREFIX}[0].params: expected a table ([objects.scripts.params]), got an array of 2",
    ),
    "param-not-a-name": (
        TABLE + '[objects.scripts.params]\n"two words" = 1\n',
        f'{PREFIX}[0].params."two words": expected a Python name',
    ),
    "unknown-key": (TABLE + 'klass = "Spin"\n', f"{PREFIX}[0].klass: unknown key; did you mean"),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_a_bad_script_table_is_one_line_naming_its_key(tmp_path: Path, case: str) -> None:
    tables, expected = BAD[case]
    path = write_scene(tmp_path, tables)
    with pytest.raises(SceneError) as caught:
        load_scene(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {expected}"), message


# --- saving -------------------------------------------------------------------------------------


def state(scene: SceneSpec, name: str, *, pos: tuple[float, float, float], heading: float):
    spec = scene.find(name)
    assert spec is not None
    return ObjectState(name, spec.tag, spec.model, pos, spec.scale, heading)


def test_saving_an_edited_scripted_object_keeps_its_scripts_tables(tmp_path: Path) -> None:
    tables = TABLE + "[objects.scripts.params]\nradius = 3.0  # a comment kept\n"
    tables += '\n[[objects.scripts]]\nfile = "scripts/spin.py"\nclass = "Spin"\n'
    path = write_scene(tmp_path, tables)
    before = path.read_text()
    scene = load_scene(path)
    # The entry gains a heading it did not have: it must land among the object's own keys,
    # not in the scripts table written after them.
    save_scene(path, [state(scene, "spinner", pos=(5.0, 6.0, 0.0), heading=30.0)])
    after = path.read_text()
    saved = load_scene(path)
    (spinner,) = saved.objects
    assert (spinner.pos, spinner.heading) == ((5.0, 6.0, 0.0), 30.0)
    assert spinner.scripts == scene.objects[0].scripts
    scripts_text = before[before.index("[[objects.scripts]]") :]
    assert scripts_text in after


def test_saving_the_scripted_scene_unchanged_writes_the_same_text(tmp_path: Path) -> None:
    source = SCENES_DIR / "scripted.toml"
    copy = tmp_path / "scripted.toml"
    copy.write_text(source.read_text())
    (tmp_path / "scripts").mkdir()
    for script in (SCENES_DIR / "scripts").glob("*.py"):
        (tmp_path / "scripts" / script.name).write_text(script.read_text())
    scene = load_scene(copy)
    states = [
        ObjectState(o.name, o.tag, o.model, o.pos, o.scale, o.heading) for o in scene.listed_objects
    ]
    save_scene(copy, states)
    assert copy.read_text() == source.read_text()
