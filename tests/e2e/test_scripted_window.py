"""The scripted scene in a real window (pandagl under Xvfb): its example scripts run there too."""

from __future__ import annotations

import math

import pytest

from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.window import RunningApp, needs_x, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(120)]


def positions(report: dict) -> dict[str, list[float]]:
    return {entry["name"]: entry["pos"] for entry in report["objects"]}


def test_the_scripted_scene_runs_in_a_window(tmp_path):
    shot = artifact("scripted-window.png")
    with xvfb() as display:
        app = RunningApp(display, SCENES_DIR / "scripted.toml", tmp_path, "--screenshot", str(shot))
        try:
            app.wait_for_window()
            wait_until(lambda: app.report()["sim_time_s"] >= 1.0, 30)
            first = positions(app.report())
            second = positions(app.wait_for_next_report())
            assert first["orbiter"] != second["orbiter"], "the orbit script did not move it"
            for pos in (first["orbiter"], second["orbiter"]):
                assert math.hypot(pos[0] - 0.5, pos[1]) == pytest.approx(2.5, abs=1e-3)
            assert second["beacon"][:2] == pytest.approx(second["end"][:2], abs=1e-3)
            app.xdotool("key", "--window", app.window, "Escape")
            assert app.wait_exit() == 0
            assert app.report()["errors"] == []
        finally:
            app.stop()
