"""Scripts in the running app (offscreen, p3tinydisplay): the shipped examples run, a script
moving an obstacle changes the grid and the path in the same frame, a raising script is switched
off and reported while the run goes on, and `sim run` exits 2 in one line for a bad script."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from sim.app.report import validate_report
from sim.navigation import box_footprint
from sim.scene.grid import obstacle_box
from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.reports import read_report
from tests.helpers.scenes import GRID_10

pytestmark = pytest.mark.render

SCRIPTED = SCENES_DIR / "scripted.toml"

CORRIDOR = (
    GRID_10
    + """
[[objects]]
name = "start"
tag = "Start"
model = "cube"
pos = [0.5, 0.5, 0.0]
scale = 0.8

[[objects]]
name = "end"
tag = "End"
model = "cube"
pos = [9.5, 0.5, 0.0]
scale = 0.8

[[objects]]
name = "gate"  # x 5..6, y 2..10: the way along the bottom row is open
tag = "Obstacle"
model = "cube"
pos = [5.5, 6.0, 0.0]
scale = [1.0, 8.0, 1.0]

[[objects.scripts]]
file = "scripts/{file}"
class = "{name}"
"""
)

SLIDE = """\
from sim.scripting import Script


class Slide(Script):
    \"\"\"At half a second, slide the gate down to y 0..8: the way round is now at the top.\"\"\"

    moved_at_frame = None

    def update(self, dt):
        if self.moved_at_frame is None and self.world.time_s >= 0.5:
            x, _, z = self.game_object.position
            self.game_object.position = (x, 4.0, z)
            self.moved_at_frame = self.frames
        self.frames = getattr(self, "frames", 0) + 1
"""

BOOM = """\
from sim.scripting import Script


class Boom(Script):
    def update(self, dt):
        if self.world.time_s > 0.2:
            self.ratio = 1 / 0
"""


def write_scene(tmp_path: Path, source: str, name: str, *, file: str = "thing.py") -> Path:
    scripts = tmp_path / "scripts"
    scripts.mkdir(exist_ok=True)
    (scripts / "thing.py").write_text(source)
    path = tmp_path / "scene.toml"
    path.write_text(CORRIDOR.format(file=file, name=name))
    return path


def test_the_scripted_scene_runs_its_examples(open_app):
    app = open_app(SCRIPTED)
    app.step()
    first = app.grid.walkable.copy()
    for _ in range(90):
        app.step()
    assert app.errors == []
    objects = {obj.name: obj for obj in app.objects}
    # Orbit: on its circle (centre [0.5, 0], radius 2.5), a quarter turn on at 40 deg/s.
    x, y, _ = objects["orbiter"].world_pos
    assert math.hypot(x - 0.5, y) == pytest.approx(2.5, abs=1e-4)
    assert math.degrees(math.atan2(y, x - 0.5)) == pytest.approx(40.0 * 91 / 60, abs=0.5)
    # Beacon: over End, whatever End does.
    ex, ey, _ = objects["end"].world_pos
    bx, by, bz = objects["beacon"].world_pos
    assert (bx, by) == pytest.approx((ex, ey), abs=1e-4)
    assert 1.3 < bz < 1.9
    # The orbit moved the orbiter's cells; the grid followed it.
    assert not np.array_equal(first, app.grid.walkable)
    box = obstacle_box_of(app, "orbiter")
    footprint = box_footprint(box, first.shape, origin=(-10.0, -7.0), cell_size=1.0)
    assert not app.grid.walkable[footprint.rows, footprint.cols][footprint.mask].any()
    assert {"script/0/orbiter/1", "script/1/beacon/1"} <= app.gizmos.keys()
    assert app.path.outcome is not None
    assert app.path.outcome.found
    app.save_screenshot(artifact("scripted-offscreen.png"))


def test_an_undone_removal_of_a_scripted_obstacle_sets_it_orbiting_again(open_app):
    app = open_app(SCRIPTED)
    app.step()
    taken = app.editor.take(["orbiter"])
    for _ in range(5):
        app.step()
    app.editor.restore(taken)
    orbiter = next(obj for obj in app.objects if obj.name == "orbiter" and obj.alive)
    before = orbiter.world_pos
    for _ in range(10):
        app.step()
    x, y, _ = orbiter.world_pos
    assert (x, y) != pytest.approx(before[:2])
    assert math.hypot(x - 0.5, y) == pytest.approx(2.5, abs=1e-4)
    assert app.errors == []


def obstacle_box_of(app, name):
    """The obstacle's footprint box where it stands now."""
    obj = next(o for o in app.objects if o.name == name)
    spec = app.options.scene.find(name)
    return obstacle_box(replace(spec, pos=obj.world_pos, heading=obj.heading))


def test_a_script_moving_an_obstacle_changes_the_grid_and_the_path_at_once(open_app, tmp_path):
    app = open_app(write_scene(tmp_path, SLIDE, "Slide"))
    app.step()
    before = app.path.outcome
    assert before is not None
    assert before.found
    assert before.cost == pytest.approx(9.0)  # straight along the bottom row
    gate_row_0 = (0, 5)
    assert app.grid.walkable[gate_row_0]
    (slide,) = app.scripts.scripts
    while slide.moved_at_frame is None:
        app.step()
    # The frame the script moved the gate: the grid has it already.
    assert not app.grid.walkable[gate_row_0]
    assert app.grid.walkable[9, 5]
    blocked = {tuple(cell) for cell in np.argwhere(~app.grid.walkable)}
    assert blocked == {(row, 5) for row in range(8)}
    for _ in range(10):
        app.step()
    after = app.path.outcome
    assert after is not None
    assert after.found
    assert after.cost > before.cost + 10
    assert all(app.grid.walkable[cell] for cell in after.cells)
    assert app.errors == []


JUMP_END = """\
from sim.scripting import Script


class JumpEnd(Script):
    def update(self, dt):
        end = self.world.find_with_tag("End")
        if self.world.time_s >= 0.25 and end.position[1] < 5.0:
            end.position = (9.5, 9.5, 0.0)
"""


def test_a_script_moving_end_moves_the_path_and_the_agents_goal(open_app, tmp_path):
    scene = write_scene(tmp_path, JUMP_END, "JumpEnd")
    text = scene.read_text().replace(
        '[[objects]]\nname = "gate"',
        '[[objects]]\nname = "walker"\ntag = "Agent"\nmodel = "agent"\npos = [0.5, 2.5, 0.0]\n\n'
        '[[objects]]\nname = "gate"',
    )
    scene.write_text(text)
    app = open_app(scene)
    app.step()
    assert app.path.outcome.cells[-1] == (0, 9)
    for _ in range(30):
        app.step()
    assert app.path.outcome.cells[-1] == (9, 9)
    (walker,) = app.agents
    assert walker.replans_by_cause["goal_moved"] >= 1
    assert app.errors == []


def test_a_raising_script_is_switched_off_and_the_app_runs_on(open_app, tmp_path):
    app = open_app(write_scene(tmp_path, BOOM, "Boom"))
    for _ in range(30):
        app.step()
    message = "script scripts/thing.py line 7 (object 'gate'): ZeroDivisionError: division by zero"
    assert app.errors == [message]
    assert message in app.status_lines()  # on screen, on the HUD
    (boom,) = app.scripts.scripts
    assert not boom.enabled
    report = app.report()
    assert report["errors"] == [message]
    assert report["frames"] == 30
    assert report["path"]["found"]


def run_sim(scene: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "sim", "run", str(scene), "--headless", "--frames", "30"]
    command += ["--size", "160x120", "--trust-scripts", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd)


def test_sim_run_exits_0_with_the_raising_script_in_the_reports_errors(tmp_path):
    scene = write_scene(tmp_path, BOOM, "Boom")
    report = tmp_path / "report.json"
    done = run_sim(scene, "--report", str(report), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = read_report(report)
    assert validate_report(data) == []
    assert data["errors"] == [
        "script scripts/thing.py line 7 (object 'gate'): ZeroDivisionError: division by zero"
    ]
    assert "sim: script scripts/thing.py line 7 (object 'gate')" in done.stdout


BAD_SCRIPTS: dict[str, tuple[str, str, str, str]] = {
    # case: (source, class, file, the line after "sim: <scene>: ")
    "missing-file": (
        BOOM,
        "Boom",
        "gone.py",
        "object 'gate': scripts/gone.py: no such file (looked for ",
    ),
    "missing-class": (BOOM, "Bam", "thing.py", "object 'gate': scripts/thing.py: no class 'Bam'"),
    "import-error": (
        "from sim.scripting import Script\nimport nothing_by_this_name\n",
        "Boom",
        "thing.py",
        "object 'gate': scripts/thing.py line 2: ModuleNotFoundError: No module named "
        "'nothing_by_this_name'",
    ),
}


@pytest.mark.parametrize("case", list(BAD_SCRIPTS), ids=list(BAD_SCRIPTS))
def test_sim_run_refuses_a_bad_script_in_one_line(tmp_path, case):
    source, name, file, expected = BAD_SCRIPTS[case]
    scene = write_scene(tmp_path, source, name, file=file)
    done = run_sim(scene, cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"sim: {scene}: {expected}")


def test_saving_keeps_the_file_place_of_what_a_script_moves_and_the_users_edits(open_app, tmp_path):
    # The orbiter is mid-orbit and the beacon follows End: both are the scripts' to place, so
    # saving leaves them where the file puts them; the wall the user drags is saved moved.
    scene = tmp_path / "scripted.toml"
    shutil.copytree(SCENES_DIR / "scripts", tmp_path / "scripts")
    scene.write_text(SCRIPTED.read_text())
    saved = tmp_path / "saved.toml"
    app = open_app(scene, save_as=saved)
    for _ in range(30):
        app.step()
    wall = next(obj for obj in app.objects if obj.name == "wall_west")
    app.editor.move_to(wall, -2.5, -2.0)
    assert app.editor.save() == saved
    entries = {entry["name"]: entry for entry in tomllib.loads(saved.read_text())["objects"]}
    assert entries["orbiter"]["pos"] == [3.0, 0.0, 0.0]
    assert entries["beacon"]["pos"] == [8.5, 4.5, 2.0]
    assert entries["wall_west"]["pos"][:2] == [-2.5, -2.0]
