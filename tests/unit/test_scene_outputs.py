"""Scene outputs replace only scenes, and two saves of one scene at once keep both edits.

From the user's side: `sim generate --scene` and `sim run --save-as` refuse an existing file
that does not load as a scene (exit 2, one line, the file as it was); a save (Ctrl+S, through
`save_scene`) refuses it too when it became one meanwhile; and a save that another program, or
another window, writes the file during keeps that program's edit as well as the app's.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sim.commands.cli import main
from sim.scene.file import load_scene
from sim.scene.merge import MergeBase, ObjectState
from sim.scene.writer import SceneSaveError, save_scene
from tests.helpers.paths import DEFAULT_SCENE, REPO_ROOT

PYPROJECT = '[project]\nname = "mine"\nversion = "1.0"\n\n[tool.ruff]\nline-length = 100\n'


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert "Traceback" not in captured.err
    return line


def test_generate_scene_refuses_a_toml_file_that_is_no_scene(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "pyproject.toml"
    settings.write_text(PYPROJECT, encoding="utf-8")
    grid = tmp_path / "maze.map"
    argv = [
        "generate",
        "maze",
        str(grid),
        "--size",
        "21x21",
        "--seed",
        "1",
        "--scene",
        str(settings),
    ]
    assert main(argv) == 2
    line = one_line(capsys)
    assert line.startswith(f"sim: --scene {settings}: exists and is not a scene (")
    assert line.endswith("); refusing to replace it")
    assert settings.read_text(encoding="utf-8") == PYPROJECT
    assert not grid.exists()  # refused before anything was written


def test_generate_scene_replaces_a_scene(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = tmp_path / "old.toml"
    shutil.copyfile(DEFAULT_SCENE, scene)
    argv = [
        "generate",
        "maze",
        str(tmp_path / "maze.map"),
        "--size",
        "21x21",
        "--seed",
        "1",
        "--scene",
        str(scene),
    ]
    assert main(argv) == 0
    assert load_scene(scene).name.startswith("maze 21x21")


def test_run_save_as_refuses_a_toml_file_that_is_no_scene(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "pyproject.toml"
    settings.write_text(PYPROJECT, encoding="utf-8")
    argv = ["run", str(DEFAULT_SCENE), "--headless", "--frames", "1", "--save-as", str(settings)]
    assert main(argv) == 2
    assert one_line(capsys).startswith(f"sim: --save-as {settings}: exists and is not a scene (")
    assert settings.read_text(encoding="utf-8") == PYPROJECT


def test_a_save_refuses_a_target_that_stopped_being_a_scene(tmp_path: Path) -> None:
    # --save-as named a scene when the run began; by Ctrl+S something else stands there.
    source, target = tmp_path / "scene.toml", tmp_path / "copy.toml"
    shutil.copyfile(DEFAULT_SCENE, source)
    loaded = load_scene(source)
    target.write_text(PYPROJECT, encoding="utf-8")
    objects = [ObjectState.from_spec(obj) for obj in loaded.objects]
    with pytest.raises(SceneSaveError, match=r"exists and is not a scene"):
        save_scene(source, objects, target=target, base=MergeBase.loaded(loaded))
    assert target.read_text(encoding="utf-8") == PYPROJECT


def moved(
    objects: list[ObjectState], name: str, pos: tuple[float, float, float]
) -> list[ObjectState]:
    return [dataclasses.replace(obj, pos=pos) if obj.name == name else obj for obj in objects]


def positions(path: Path) -> dict[str, tuple[float, float, float]]:
    return {obj.name: obj.pos for obj in load_scene(path).objects}


def test_a_save_merges_again_when_another_program_wrote_the_file_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scene = tmp_path / "scene.toml"
    shutil.copyfile(DEFAULT_SCENE, scene)
    loaded = load_scene(scene)
    base = MergeBase.loaded(loaded)
    app = moved([ObjectState.from_spec(obj) for obj in loaded.objects], "end", (7.5, 3.5, 0.0))
    real_fsync = os.fsync
    other_wrote: list[bool] = []

    def other_program_writes_first(handle: int) -> None:
        # Between this save's read and its rename, a text editor saves its own edit.
        if not other_wrote:
            other_wrote.append(True)
            text = scene.read_text(encoding="utf-8")
            scene.write_text(text.replace("pos = [-7.5, -7.5, 0.0]", "pos = [-7.5, 3.5, 0.0]"))
        real_fsync(handle)

    monkeypatch.setattr(os, "fsync", other_program_writes_first)
    save_scene(scene, app, base=base)
    monkeypatch.undo()
    assert other_wrote
    now = positions(scene)
    assert now["end"] == (7.5, 3.5, 0.0)
    assert now["start"] == (-7.5, 3.5, 0.0)


SAVE_IN_ANOTHER_PROCESS = textwrap.dedent(
    """
    import dataclasses, sys
    from pathlib import Path
    from sim.scene.file import load_scene
    from sim.scene.merge import MergeBase, ObjectState
    from sim.scene.writer import save_scene

    scene = Path(sys.argv[1])
    loaded = load_scene(scene)
    objects = [
        dataclasses.replace(ObjectState.from_spec(obj), pos=(-7.5, 3.5, 0.0))
        if obj.name == "start" else ObjectState.from_spec(obj)
        for obj in loaded.objects
    ]
    print("loaded", flush=True)
    sys.stdin.readline()  # the test says when to save
    save_scene(scene, objects, base=MergeBase.loaded(loaded))
    print("saved", flush=True)
    """
)


def test_two_saves_at_once_keep_both_edits(tmp_path: Path) -> None:
    scene = tmp_path / "scene.toml"
    shutil.copyfile(DEFAULT_SCENE, scene)
    other = subprocess.Popen(
        [sys.executable, "-c", SAVE_IN_ANOTHER_PROCESS, str(scene)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert other.stdin is not None
    assert other.stdout is not None
    try:
        assert other.stdout.readline() == "loaded\n"  # both loaded the same file
        # This save holds the folder's lock, as a save does from its read to its rename; the
        # other save, told to go now, must wait for it and then merge onto what it wrote.
        handle = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            other.stdin.write("go\n")
            other.stdin.flush()
            text = scene.read_text(encoding="utf-8")
            scene.write_text(
                text.replace("pos = [7.5, 7.5, 0.0]", "pos = [7.5, 3.5, 0.0]"), "utf-8"
            )
        finally:
            os.close(handle)
        assert other.stdout.readline() == "saved\n"
        assert other.wait(timeout=60) == 0
    finally:
        if other.poll() is None:
            other.kill()
            other.wait()
    now = positions(scene)
    assert now["end"] == (7.5, 3.5, 0.0)
    assert now["start"] == (-7.5, 3.5, 0.0)
