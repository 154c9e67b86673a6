"""A MAPF plan in a real window: `sim run MAP.map --scen SCEN --agents K` under Xvfb.

The benchmark's random-32-32-20 map with 100 agents (skipped without the shared MAPF data):
the plan plays, `/` pauses it, `,` steps back and `.` forward (read back from the report),
and Ctrl+S writes the map's scene to --save-as, a scene file that loads, beside the map left
as it was.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sim.bench import mapf_window
from sim.config import Tag
from sim.scene.file import load_scene
from tests.helpers.paths import REPO_ROOT, artifact
from tests.helpers.window import RunningApp, needs_x, screenshot, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(240)]

AGENTS = 100


def mapf_dir() -> Path:
    """Where the shared MAPF benchmark lives: $MAPF_DIR, else ../shared/mapf."""
    override = os.environ.get("MAPF_DIR")
    return Path(override) if override else REPO_ROOT.parent / "shared" / "mapf"


def press(app: RunningApp, *keys: str) -> None:
    """Type `keys` into the window one by one, as a hand would."""
    app.xdotool("key", "--window", app.window, "--delay", "150", *keys, timeout_s=30)


def step_of(app: RunningApp) -> int:
    return int(app.wait_for_next_report()["mapf_playback"]["step"])


def test_a_plan_plays_steps_back_and_saves_as_a_scene(tmp_path: Path) -> None:
    map_path = mapf_dir() / "maps" / "random-32-32-20.map"
    scen_path = mapf_dir() / "scen-random" / "random-32-32-20-random-1.scen"
    if not (map_path.is_file() and scen_path.is_file()):
        pytest.skip(f"shared MAPF benchmark not found ({mapf_dir()})")
    saved = tmp_path / "played.toml"
    before = map_path.read_bytes()
    with xvfb() as display:
        extra = ("--scen", str(scen_path), "--agents", str(AGENTS), "--save-as", str(saved))
        app = RunningApp(display, map_path, tmp_path, *extra)
        try:
            app.wait_for_window(timeout_s=60)
            entry = app.report()["mapf_playback"]
            assert entry["agents"] == AGENTS
            wait_until(lambda: app.report()["mapf_playback"]["step"] >= 3, 30, app._why)
            press(app, "slash")  # pause: from here the timeline moves by its keys only
            paused = step_of(app)
            assert step_of(app) == paused
            # Paused between two steps: `.` lands on the next whole one, `,` then goes back.
            press(app, "period")
            assert step_of(app) == paused + 1
            press(app, "comma", "comma")
            assert step_of(app) == paused - 1
            screenshot(display, artifact("mapf-window.png"))
            chord = ["keydown", "--window", app.window, "ctrl", "sleep", "0.15"]
            chord += ["key", "--window", app.window, "s", "sleep", "0.15"]
            chord += ["keyup", "--window", app.window, "ctrl"]
            subprocess.run(["xdotool", *chord], env=app.env, check=True, timeout=30)
            wait_until(lambda: "saved" in app.report()["hud"], 20, app._why)
            press(app, "Escape")
            assert app.wait_exit() == 0
        finally:
            app.stop()
    scene = load_scene(saved)
    assert len(scene.objects_with_tag(Tag.OBSTACLE)) > 0
    assert map_path.read_bytes() == before


def test_the_bench_reads_a_rendered_frame_rate_from_a_real_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    map_path = mapf_dir() / "maps" / "random-32-32-20.map"
    scen_path = mapf_dir() / "scen-random" / "random-32-32-20-random-1.scen"
    if not (map_path.is_file() and scen_path.is_file()):
        pytest.skip(f"shared MAPF benchmark not found ({mapf_dir()})")
    with xvfb() as display:
        monkeypatch.setenv("DISPLAY", display)
        fps = mapf_window.rendered_fps(map_path, scen_path, 20, frames=60)
    assert fps is not None
    assert fps > 0.0
