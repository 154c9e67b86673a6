"""The script banner in a real window (pandagl under Xvfb): a scene from an untrusted folder
opens with its scripts waiting and a banner saying so; `A` (a plain XTEST key press) allows them
and they run from then on."""

from __future__ import annotations

import shutil

import pytest

from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.window import RunningApp, needs_x, screenshot, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(120)]

BANNER = "This scene has 2 scripts (Python code), not run: press A to allow them"


def orbiter(report: dict) -> list[float]:
    return next(entry["pos"] for entry in report["objects"] if entry["name"] == "orbiter")


def test_the_banner_names_the_scripts_and_a_allows_them(tmp_path):
    scene = tmp_path / "scripted.toml"
    shutil.copytree(SCENES_DIR / "scripts", tmp_path / "scripts")
    shutil.copy(SCENES_DIR / "scripted.toml", scene)
    with xvfb() as display:
        app = RunningApp(display, scene, tmp_path)
        try:
            app.wait_for_window()
            waiting = app.wait_for_next_report()
            assert waiting["scripts"] == {
                "count": 2,
                "trusted": False,
                "skipped": 2,
                "banner": BANNER,
                "warnings": [],
            }
            still = app.wait_for_next_report()
            assert orbiter(still) == orbiter(waiting), "a script ran before it was allowed"
            screenshot(display, artifact("script-banner-window.png"))
            app.xdotool("key", "--window", app.window, "a")
            wait_until(lambda: app.report()["scripts"]["trusted"], 20)
            allowed = app.report()
            assert allowed["scripts"]["banner"] is None
            assert allowed["scripts"]["skipped"] == 0
            moved = app.wait_for_next_report()
            assert orbiter(moved) != orbiter(waiting), "the orbit script did not run"
            app.xdotool("key", "--window", app.window, "Escape")
            assert app.wait_exit() == 0
            assert app.report()["errors"] == []
        finally:
            app.stop()
