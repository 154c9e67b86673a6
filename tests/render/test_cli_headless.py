"""`sim run --headless` as a user runs it: a subprocess that writes a PNG and a JSON report."""

from __future__ import annotations

import struct
import subprocess
import sys

import pytest

from sim.app.report import validate_report
from sim.scene.file import load_scene
from tests.helpers.paths import DEFAULT_SCENE
from tests.helpers.reports import read_report

pytestmark = pytest.mark.render


def png_size(path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def test_headless_run_writes_screenshot_and_report(tmp_path):
    shot, report = tmp_path / "s.png", tmp_path / "r.json"
    command = [sys.executable, "-m", "sim", "run", str(DEFAULT_SCENE), "--headless"]
    command += ["--frames", "60", "--screenshot", str(shot), "--report", str(report)]
    command += ["--size", "320x240"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert png_size(shot) == (320, 240)
    data = read_report(report)
    assert validate_report(data) == []
    assert data["frames"] == 60
    assert data["sim_time_s"] == pytest.approx(1.0)
    assert data["errors"] == []
    spec = load_scene(DEFAULT_SCENE)
    assert [(o["name"], o["tag"]) for o in data["objects"]] == [
        (o.name, str(o.tag)) for o in spec.objects
    ]
    for entry in data["objects"]:
        assert entry["screen"] is not None, f"{entry['name']} is not in view"
        x, y = entry["screen"]
        assert 0 <= x < 320
        assert 0 <= y < 240
    spec_pos = {o.name: o.pos for o in spec.objects if o.tag != "Agent"}
    for entry in (e for e in data["objects"] if e["name"] in spec_pos):
        assert entry["pos"] == pytest.approx(spec_pos[entry["name"]], abs=1e-4)
    assert [a["name"] for a in data["agents"]] == [o.name for o in spec.objects_with_tag("Agent")]


def test_the_look_asked_is_in_the_report_and_a_wrong_one_is_one_line(tmp_path):
    report = tmp_path / "r.json"
    command = [sys.executable, "-m", "sim", "run", str(DEFAULT_SCENE), "--headless"]
    command += ["--frames", "2", "--report", str(report), "--size", "160x120"]
    done = subprocess.run(
        [*command, "--look", "plain"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    window = read_report(report)["window"]
    assert window.pop("fps") >= 0.0
    assert window == {"size": [160, 120], "shadows": False, "multisamples": 0, "look": "plain"}
    wrong = subprocess.run(
        [*command, "--look", "shiny"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert wrong.returncode == 2
    assert "invalid choice: 'shiny'" in wrong.stderr.strip().splitlines()[-1]
