"""A scene's scripts under the user's control, from the command line (`sim run`, `sim soak`).

Each case is a scene in a temporary folder whose script leaves a mark on disk when its code
runs; the test reads the command's exit status, stderr's one line, the report and the marks.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sim.commands.cli import main
from tests.helpers.paths import REPO_ROOT, SCENES_DIR
from tests.helpers.reports import read_report
from tests.helpers.scenes import GRID_10

pytestmark = [pytest.mark.render, pytest.mark.timeout(180)]

SCENE = (
    GRID_10
    + """
[[objects]]
name = "start"
tag = "Start"
model = "cube"
pos = [0.5, 0.5, 0.0]

[[objects]]
name = "end"
tag = "End"
model = "cube"
pos = [9.5, 0.5, 0.0]

[[objects]]
name = "box"
tag = "Obstacle"
model = "cube"
pos = [5.5, 5.5, 0.0]

[[objects.scripts]]
file = "{file}"
class = "Thing"
"""
)

HEADER = """\
import os
from pathlib import Path
from sim.scripting import Script

MARKS = Path(__file__).resolve().parent
"""


def scene_with(folder: Path, body: str, *, file: str = "scripts/thing.py") -> Path:
    """A scene in `folder` whose box carries `class Thing` written as `body`."""
    script = folder / file
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(HEADER + textwrap.dedent(body))
    scene = folder / "scene.toml"
    scene.write_text(SCENE.format(file=file))
    return scene


MARKING = """\
(MARKS / "imported").write_text("x")


class Thing(Script):
    def update(self, dt):
        (MARKS / "updated").write_text("x")
"""


def run(scene: Path, *args: str, frames: int = 5) -> int:
    return main(
        ["run", str(scene), "--headless", "--frames", str(frames), "--size", "80x60", *args]
    )


def test_an_untrusted_scene_runs_without_its_scripts_and_says_so(tmp_path, capsys):
    scene = scene_with(tmp_path, MARKING)
    report = tmp_path / "report.json"
    assert run(scene, "--report", str(report)) == 0
    assert not (tmp_path / "scripts" / "imported").exists()
    assert not (tmp_path / "scripts" / "updated").exists()
    assert capsys.readouterr().err.splitlines() == [
        f"sim: {scene}: 1 script not run: the scene is not in a trusted folder "
        "(--trust-scripts runs them)"
    ]
    scripts = read_report(report)["scripts"]
    assert (scripts["trusted"], scripts["skipped"], scripts["count"]) == (False, 1, 1)


def test_trust_scripts_runs_them(tmp_path, capsys):
    scene = scene_with(tmp_path, MARKING)
    report = tmp_path / "report.json"
    assert run(scene, "--trust-scripts", "--report", str(report)) == 0
    assert (tmp_path / "scripts" / "updated").exists()
    assert capsys.readouterr().err == ""
    assert read_report(report)["scripts"]["trusted"] is True


def test_a_folder_in_the_settings_file_is_trusted(tmp_path, monkeypatch, capsys):
    scenes = tmp_path / "my scenes"
    scene = scene_with(scenes, MARKING)
    settings = tmp_path / "settings"
    settings.mkdir()
    (settings / "settings.toml").write_text(f'[scripts]\ntrusted_folders = ["{scenes}"]\n')
    monkeypatch.setenv("SIM_CONFIG_DIR", str(settings))
    assert run(scene) == 0
    assert (scenes / "scripts" / "updated").exists()
    assert capsys.readouterr().err == ""


def test_a_folder_in_the_environment_is_trusted(tmp_path, monkeypatch):
    scene = scene_with(tmp_path, MARKING)
    monkeypatch.setenv("SIM_TRUSTED_FOLDERS", os.pathsep.join(["/nowhere", str(tmp_path)]))
    assert run(scene) == 0
    assert (tmp_path / "scripts" / "updated").exists()


def test_a_bad_settings_file_is_one_line_and_status_2(tmp_path, monkeypatch, capsys):
    scene = scene_with(tmp_path, MARKING)
    settings = tmp_path / "settings"
    settings.mkdir()
    (settings / "settings.toml").write_text("[scripts]\ntrusted_folders = 3\n")
    monkeypatch.setenv("SIM_CONFIG_DIR", str(settings))
    assert run(scene) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"sim: {settings / 'settings.toml'}: scripts.trusted_folders: "
        "expected a list of folder names"
    ]
    assert not (tmp_path / "scripts" / "imported").exists()


def test_the_shipped_scenes_are_trusted(tmp_path, capsys):
    report = tmp_path / "report.json"
    assert run(SCENES_DIR / "scripted.toml", "--report", str(report)) == 0
    assert capsys.readouterr().err == ""
    assert read_report(report)["scripts"] == {
        "count": 2,
        "trusted": True,
        "skipped": 0,
        "banner": None,
        "warnings": [],
    }


def test_soak_runs_an_untrusted_scene_without_its_scripts(tmp_path, capsys):
    scene = scene_with(tmp_path, MARKING)
    status = main(["soak", str(scene), "--minutes", "0.1"])
    assert status == 0
    assert not (tmp_path / "scripts" / "imported").exists()
    assert f"sim: {scene}: 1 script not run" in capsys.readouterr().err


def test_soak_trust_scripts_runs_them(tmp_path):
    scene = scene_with(tmp_path, MARKING)
    assert main(["soak", str(scene), "--minutes", "0.1", "--trust-scripts"]) == 0
    assert (tmp_path / "scripts" / "updated").exists()


def test_a_script_file_outside_the_scenes_folder_is_refused_before_it_runs(tmp_path, capsys):
    outside = tmp_path / "elsewhere" / "thing.py"
    outside.parent.mkdir()
    outside.write_text(HEADER + MARKING)
    folder = tmp_path / "scene"
    folder.mkdir()
    scene = folder / "scene.toml"
    scene.write_text(SCENE.format(file="../elsewhere/thing.py"))
    assert run(scene, "--trust-scripts") == 2
    assert not (tmp_path / "elsewhere" / "imported").exists()
    assert capsys.readouterr().err.splitlines() == [
        f"sim: {scene}: object 'box': ../elsewhere/thing.py: a script file must lie inside "
        f"the scene's folder ({folder})"
    ]


def test_a_link_out_of_the_scenes_folder_is_refused_too(tmp_path, capsys):
    outside = tmp_path / "elsewhere.py"
    outside.write_text(HEADER + MARKING)
    folder = tmp_path / "scene"
    (folder / "scripts").mkdir(parents=True)
    (folder / "scripts" / "thing.py").symlink_to(outside)
    scene = folder / "scene.toml"
    scene.write_text(SCENE.format(file="scripts/thing.py"))
    assert run(scene, "--trust-scripts") == 2
    assert not (tmp_path / "imported").exists()
    assert "a script file must lie inside the scene's folder" in capsys.readouterr().err


RAISES = {
    "cancelled": ("import asyncio", "raise asyncio.CancelledError('gone')", "CancelledError: gone"),
    "generator-exit": ("", "raise GeneratorExit", "GeneratorExit"),
    "system-exit": ("", "raise SystemExit(3)", "SystemExit: 3"),
    "keyboard-interrupt": ("", "raise KeyboardInterrupt", "KeyboardInterrupt"),
    "base-exception": ("", "raise BaseException('odd')", "BaseException: odd"),
}


@pytest.mark.parametrize("case", list(RAISES), ids=list(RAISES))
def test_any_exception_a_hook_raises_switches_the_script_off(tmp_path, capsys, case):
    imports, statement, described = RAISES[case]
    scene = scene_with(
        tmp_path,
        f"""\
        {imports}


        class Thing(Script):
            def update(self, dt):
                {statement}
        """,
    )
    report = tmp_path / "report.json"
    shot = tmp_path / "last.png"
    assert run(scene, "--trust-scripts", "--report", str(report), "--screenshot", str(shot)) == 0
    data = read_report(report)
    assert data["frames"] == 5
    assert data["errors"] == [f"script scripts/thing.py line 11 (object 'box'): {described}"]
    assert shot.stat().st_size > 0
    assert "Traceback" not in capsys.readouterr().err


def test_a_huge_exception_message_is_cut_to_one_short_line(tmp_path):
    scene = scene_with(
        tmp_path,
        """\
        class Thing(Script):
            def update(self, dt):
                raise ValueError("x" * 2_000_000)
        """,
    )
    report = tmp_path / "report.json"
    assert run(scene, "--trust-scripts", "--report", str(report), frames=3) == 0
    (error,) = read_report(report)["errors"]
    assert error.startswith("script scripts/thing.py line 8 (object 'box'): ValueError: xxx")
    assert error.endswith("... (2,000,000 characters)")
    assert len(error) < 400


SETTERS = {
    "position": ("self.game_object.position = (1e39, 0.0, 0.0)", "position: must lie within"),
    "heading": ("self.game_object.heading = 1e39", "heading: must lie within +-1000000"),
    "position-nan": ("self.game_object.position = (0.0, float('nan'), 0.0)", "finite numbers"),
    "position-endless": (
        "self.game_object.position = __import__('itertools').count()",
        "expected 3 finite numbers, got count(",
    ),
}


@pytest.mark.parametrize("case", list(SETTERS), ids=list(SETTERS))
def test_a_setter_applies_the_scene_files_range(tmp_path, case):
    statement, expected = SETTERS[case]
    scene = scene_with(
        tmp_path,
        f"""\
        class Thing(Script):
            def update(self, dt):
                {statement}
        """,
    )
    report = tmp_path / "report.json"
    assert run(scene, "--trust-scripts", "--report", str(report)) == 0
    data = read_report(report)
    (error,) = data["errors"]
    assert error.startswith("script scripts/thing.py line 8 (object 'box'): ValueError: ")
    assert expected in error
    box = next(entry for entry in data["objects"] if entry["name"] == "box")
    assert box["pos"] == [5.5, 5.5, 0.0]


def test_a_scripts_chdir_does_not_send_the_report_elsewhere(tmp_path, monkeypatch):
    away = tmp_path / "away"
    away.mkdir()
    scene = scene_with(
        tmp_path,
        f"""\
        class Thing(Script):
            def awake(self):
                os.chdir({str(away)!r})
        """,
    )
    monkeypatch.chdir(tmp_path)
    assert run(scene, "--trust-scripts", "--report", "report.json", "--screenshot", "s.png") == 0
    assert (tmp_path / "report.json").exists()
    assert (tmp_path / "s.png").exists()
    assert list(away.iterdir()) == []


def test_hook_names_close_to_the_real_ones_get_a_did_you_mean(tmp_path, capsys):
    scene = scene_with(
        tmp_path,
        """\
        class Thing(Script):
            def Start(self):
                pass

            def Update(self, dt):
                pass

            async def update(self, dt):
                pass
        """,
    )
    report = tmp_path / "report.json"
    assert run(scene, "--trust-scripts", "--report", str(report)) == 0
    where = f"sim: {scene}: object 'box': scripts/thing.py: Thing"
    lines = capsys.readouterr().out.splitlines()
    assert f"{where}.Start is never called: did you mean start?" in lines
    assert f"{where}.Update is never called: did you mean update?" in lines
    assert f"{where}.update is async def: it would never run (write def update)" in lines
    assert len(read_report(report)["scripts"]["warnings"]) == 3
    assert read_report(report)["errors"] == []


def sim_process(scene: Path, *args: str, cwd: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    command = [sys.executable, "-m", "sim", "run", str(scene), "--headless", "--size", "80x60"]
    return subprocess.Popen(
        [*command, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(path: Path, process: subprocess.Popen[str]) -> None:
    """Wait until the script says it is in its loop (a file it writes), or the run ended."""
    while not path.exists():
        if process.poll() is not None:
            raise AssertionError(f"the run ended first: {process.communicate()}")
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=0.05)


LOOPING = """\
class Thing(Script):
    def update(self, dt):
        if self.world.time_s > 0.1:
            (MARKS / "looping").write_text("x")
            while True:
                pass
"""

SWALLOWING = """\
class Thing(Script):
    def update(self, dt):
        if self.world.time_s > 0.1:
            (MARKS / "looping").write_text("x")
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    (MARKS / "swallowed").write_text("x")
"""


@pytest.mark.parametrize(
    ("number", "status"), [(signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, -signal.SIGINT)]
)
def test_a_signal_stops_a_script_in_an_endless_loop_and_the_report_is_written(
    tmp_path, number, status
):
    scene = scene_with(tmp_path, LOOPING)
    report = tmp_path / "report.json"
    process = sim_process(scene, "--trust-scripts", "--report", str(report), cwd=tmp_path)
    wait_for(tmp_path / "scripts" / "looping", process)
    process.send_signal(number)
    _, err = process.communicate(timeout=60)
    assert process.returncode == status
    assert "Traceback" not in err
    assert read_report(report)["frames"] >= 6


LOOPING_AT_ONCE = """\
class Thing(Script):
    def awake(self):
        (MARKS / "looping").write_text("x")
        while True:
            pass
"""


@pytest.mark.parametrize("search", [(), ("--search", "astar")], ids=["plain", "search-view"])
def test_sigterm_stops_a_script_looping_in_the_first_frame(tmp_path, search):
    # With --search the first frame runs before the run's own loop, to open the view.
    scene = scene_with(tmp_path, LOOPING_AT_ONCE)
    report = tmp_path / "report.json"
    args = ("--trust-scripts", "--report", str(report), *search)
    process = sim_process(scene, *args, cwd=tmp_path)
    wait_for(tmp_path / "scripts" / "looping", process)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGTERM
    assert "Traceback" not in err
    assert read_report(report)["frames"] == 1


def test_sigterm_stops_a_soak_whose_script_loops(tmp_path):
    scene = scene_with(tmp_path, LOOPING)
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    command = [sys.executable, "-m", "sim", "soak", str(scene), "--minutes", "0.1"]
    process = subprocess.Popen(
        [*command, "--trust-scripts"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(tmp_path / "scripts" / "looping", process)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGTERM
    assert err == ""


def test_a_second_sigterm_ends_a_script_that_swallows_the_first(tmp_path):
    scene = scene_with(tmp_path, SWALLOWING)
    report = tmp_path / "report.json"
    process = sim_process(scene, "--trust-scripts", "--report", str(report), cwd=tmp_path)
    wait_for(tmp_path / "scripts" / "looping", process)
    process.send_signal(signal.SIGTERM)
    wait_for(tmp_path / "scripts" / "swallowed", process)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGTERM
    assert "Traceback" not in err
    assert read_report(report)["frames"] >= 6


def test_the_process_exits_after_its_outputs_whatever_threads_a_script_left(tmp_path):
    scene = scene_with(
        tmp_path,
        """\
        import threading


        class Thing(Script):
            def awake(self):
                threading.Thread(target=threading.Event().wait).start()
        """,
    )
    report = tmp_path / "report.json"
    process = sim_process(
        scene, "--trust-scripts", "--frames", "5", "--report", str(report), cwd=tmp_path
    )
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert json.loads(report.read_text())["frames"] == 5


def test_allowing_late_starts_the_scripts_on_the_scene_as_it_stands(open_app, tmp_path):
    scene = scene_with(
        tmp_path,
        """\
        class Thing(Script):
            def awake(self):
                self.woken = True

            def update(self, dt):
                self.game_object.heading = 45.0
        """,
    )
    app = open_app(scene, trust_scripts=False)
    for _ in range(3):
        app.step()
    assert app.scripts.scripts == []
    assert app.report()["scripts"]["banner"].startswith("This scene has 1 script (Python code)")
    app.script_gate.allow()
    (thing,) = app.scripts.scripts
    assert thing.woken
    app.step()
    box = next(obj for obj in app.objects if obj.name == "box")
    assert box.heading == pytest.approx(45.0)
    assert app.report()["scripts"]["banner"] is None
    assert app.errors == []


def test_allowing_late_leaves_out_the_scripts_of_a_deleted_object(open_app, tmp_path):
    scene = scene_with(tmp_path, MARKING)
    app = open_app(scene, trust_scripts=False)
    app.step()
    app.editor.take(["box"])
    app.step()
    app.script_gate.allow()
    app.step()
    assert app.scripts.scripts == []
    assert not (tmp_path / "scripts" / "updated").exists()


def test_a_script_that_does_not_load_when_allowed_is_one_line_and_the_run_goes_on(
    open_app, tmp_path
):
    scene = scene_with(tmp_path, "raise RuntimeError('no')\n")
    app = open_app(scene, trust_scripts=False)
    app.step()
    app.script_gate.allow()
    app.step()
    (error,) = app.errors
    assert error == (f"{scene}: object 'box': scripts/thing.py line 6: RuntimeError: no")
    assert app.report()["scripts"]["trusted"] is True
