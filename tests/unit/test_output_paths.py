"""Output paths a run may not write are refused before it starts: one line, exit status 2.

`sim run` and `sim soak` write an output only where it is new or an existing regular file of its
own kind, never over the scene or another output of the same run ("Data loss").
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from sim.commands.args import (
    IMAGE_EXTENSIONS,
    Output,
    OutputKind,
    check_outputs,
    image_format,
    looks_like_image,
)
from sim.commands.cli import main
from sim.errors import SimError
from tests.helpers.paths import DEFAULT_SCENE

PNG_HEAD = b"\x89PNG\r\n\x1a\n" + bytes(16)


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the default scene in a fresh folder, which is also the working directory."""
    monkeypatch.chdir(tmp_path)
    copy = tmp_path / "sc.toml"
    shutil.copyfile(DEFAULT_SCENE, copy)
    return copy


def refusal(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run `sim` with `argv`; it must refuse with status 2 and one line, which is returned."""
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 2, captured
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def make_symlink_to_scene(folder: Path) -> str:
    (folder / "link.json").symlink_to("sc.toml")
    return "link.json"


def make_symlink_to_json(folder: Path) -> str:
    (folder / "old.json").write_text("{}")
    (folder / "link.json").symlink_to("old.json")
    return "link.json"


def make_dangling_symlink(folder: Path) -> str:
    (folder / "link.json").symlink_to("nowhere.json")
    return "link.json"


def make_hard_link_to_scene(folder: Path) -> str:
    os.link(folder / "sc.toml", folder / "hard.json")
    return "hard.json"


def make_fifo(folder: Path) -> str:
    os.mkfifo(folder / "pipe.json")
    return "pipe.json"


def make_folder(folder: Path) -> str:
    (folder / "out.json").mkdir()
    return "out.json"


def make_other_scene(folder: Path) -> str:
    shutil.copyfile(folder / "sc.toml", folder / "other.toml")
    return "other.toml"


def make_text(folder: Path) -> str:
    (folder / "notes.json").write_text("remember the milk\n")
    return "notes.json"


def make_png(folder: Path) -> str:
    (folder / "shot.json").write_bytes(PNG_HEAD)
    return "shot.json"


REPORT_REFUSALS: list[tuple[Callable[[Path], str], str]] = [
    (lambda folder: "sc.toml", "is the scene being run"),
    (lambda folder: "./sc.toml", "is the scene being run"),
    (make_symlink_to_scene, "is the scene being run"),
    (make_hard_link_to_scene, "is the scene being run"),
    (make_symlink_to_json, "is a symbolic link"),
    (make_dangling_symlink, "is a symbolic link"),
    (make_fifo, "is a named pipe (FIFO), not a regular file"),
    (lambda folder: "/dev/null", "is a device, not a regular file"),
    (lambda folder: "/dev/full", "is a device, not a regular file"),
    (make_folder, "is a folder"),
    (make_other_scene, "exists and is not a JSON file; refusing to replace it"),
    (make_text, "exists and is not a JSON file; refusing to replace it"),
    (make_png, "exists and is not a JSON file; refusing to replace it"),
]
REPORT_IDS = [
    "scene-itself",
    "scene-as-dot-slash",
    "symlink-to-scene",
    "hard-link-to-scene",
    "symlink-to-a-json-file",
    "dangling-symlink",
    "fifo",
    "dev-null",
    "dev-full",
    "folder",
    "another-scene",
    "text",
    "png",
]


@pytest.mark.parametrize("command", ["run", "soak"])
@pytest.mark.parametrize(("make", "problem"), REPORT_REFUSALS, ids=REPORT_IDS)
def test_report_path_is_refused(capsys, scene, command, make, problem):
    target = make(scene.parent)
    if target.startswith("/dev/") and not Path(target).exists():
        pytest.skip(f"{target} does not exist here")
    before = scene.read_bytes()
    extra = ["--headless"] if command == "run" else ["--minutes", "0.1"]
    line = refusal(capsys, [command, "sc.toml", *extra, "--report", target])
    assert line.startswith(f"sim: --report {Path(target)}: "), line
    assert problem in line
    assert scene.read_bytes() == before


def make_text_png(folder: Path) -> str:
    (folder / "shot.png").write_text("not a picture\n")
    return "shot.png"


SCREENSHOT_REFUSALS: list[tuple[Callable[[Path], str], str]] = [
    (lambda folder: "sc.toml", "is the scene being run"),
    (lambda folder: "notes.txt", "cannot write .txt images; use one of .png, .jpg"),
    (lambda folder: "r.json", "cannot write .json images"),
    (lambda folder: "other.toml", "cannot write .toml images"),
    (lambda folder: "shot", "has no image extension; use one of .png"),
    (lambda folder: "anim.gif", "cannot write .gif images"),
    (make_text_png, "exists and is not an image; refusing to replace it"),
]
SCREENSHOT_IDS = [
    "scene-itself",
    "txt",
    "json",
    "toml",
    "no-extension",
    "gif-read-only",
    "text-named-png",
]


@pytest.mark.parametrize(("make", "problem"), SCREENSHOT_REFUSALS, ids=SCREENSHOT_IDS)
def test_screenshot_path_is_refused(capsys, scene, make, problem):
    target = make(scene.parent)
    line = refusal(capsys, ["run", "sc.toml", "--headless", "--screenshot", target])
    assert line.startswith(f"sim: --screenshot {target}: "), line
    assert problem in line


def test_a_fifo_image_is_refused_as_a_fifo(capsys, scene):
    os.mkfifo(scene.parent / "pipe.png")
    line = refusal(capsys, ["run", "sc.toml", "--headless", "--screenshot", "pipe.png"])
    assert line == "sim: --screenshot pipe.png: is a named pipe (FIFO), not a regular file"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["--report", "x.png", "--screenshot", "x.png"],
            "--report x.png: is also the --screenshot",
        ),
        (["--report", "x.json", "--save-as", "./x.json"], "--save-as x.json: is also the --report"),
        (["--screenshot", "s.png", "--save-as", "s.png"], "--save-as s.png: is also the --screen"),
    ],
    ids=["report-is-the-screenshot", "save-as-is-the-report", "save-as-is-the-screenshot"],
)
def test_two_outputs_of_one_run_may_not_share_a_file(capsys, scene, argv, expected):
    line = refusal(capsys, ["run", "sc.toml", "--headless", *argv])
    assert line.startswith(f"sim: {expected}"), line


def test_outputs_hard_linked_to_each_other_are_one_file(capsys, scene):
    (scene.parent / "shot.png").write_bytes(PNG_HEAD)
    os.link(scene.parent / "shot.png", scene.parent / "r.json")
    argv = ["run", "sc.toml", "--headless", "--report", "r.json", "--screenshot", "shot.png"]
    line = refusal(capsys, argv)
    assert line == "sim: --report r.json: is also the --screenshot output"


@pytest.mark.parametrize(
    ("name", "content", "kind"),
    [
        ("new.json", None, OutputKind.JSON),
        ("empty.json", b"", OutputKind.JSON),
        ("blank.json", b" \n", OutputKind.JSON),
        ("old-report.json", b'{"scene": "x"', OutputKind.JSON),
        ("list.json", b"[1, 2]\n", OutputKind.JSON),
        ("new.png", None, OutputKind.IMAGE),
        ("empty.png", b"", OutputKind.IMAGE),
        ("old.png", PNG_HEAD, OutputKind.IMAGE),
        ("jpeg-named.png", b"\xff\xd8\xff\xe0" + bytes(16), OutputKind.IMAGE),
        ("save.toml", b"version = 1\n", OutputKind.SCENE),
        ("empty.toml", b"", OutputKind.SCENE),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_new_files_and_files_of_the_same_kind_are_accepted(tmp_path, name, content, kind):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    check_outputs(tmp_path / "sc.toml", [Output("--out", path, kind)])


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (make_text, "exists and is not a scene; refusing to replace it"),
        (make_png, "exists and is not a scene; refusing to replace it"),
        (make_fifo, "is a named pipe (FIFO), not a regular file"),
    ],
    ids=["text", "png", "fifo"],
)
def test_save_as_path_is_refused(capsys, scene, make, problem):
    target = make(scene.parent)
    line = refusal(capsys, ["run", "sc.toml", "--headless", "--save-as", target])
    assert line == f"sim: --save-as {target}: {problem}"


def test_save_as_may_be_the_scene_itself(tmp_path):
    scene = tmp_path / "sc.toml"
    shutil.copyfile(DEFAULT_SCENE, scene)
    check_outputs(scene, [Output("--save-as", scene, OutputKind.SCENE)])


def test_check_outputs_raises_sim_error_naming_flag_and_path(tmp_path):
    scene = tmp_path / "sc.toml"
    scene.write_text("version = 1\n")
    with pytest.raises(SimError, match=r"^--report .*sc\.toml: is the scene being run$"):
        check_outputs(scene, [Output("--report", scene, OutputKind.JSON)])


@pytest.mark.parametrize("extension", sorted(IMAGE_EXTENSIONS))
def test_every_image_extension_offered_is_one_panda3d_writes_and_we_recognise(extension):
    from panda3d.core import PNMImage, StringStream

    image, stream = PNMImage(8, 8), StringStream()
    assert image.write(stream, f"shot.{extension}"), f"Panda3D cannot write .{extension}"
    data = bytes(stream.get_data())
    assert looks_like_image(data[:64])
    assert image_format(Path(f"shot.{extension.upper()}")) == IMAGE_EXTENSIONS[extension]


@pytest.mark.parametrize(
    "head",
    [b"version = 1\n", b"# a scene\n[grid]\n", b'{"scene": 1}', b"BM = 1\n", b"P6x", b""],
    ids=["toml", "toml-table", "json", "toml-starting-BM", "not-pnm", "empty"],
)
def test_text_does_not_look_like_an_image(head):
    assert not looks_like_image(head)
