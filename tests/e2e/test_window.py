"""The app in a real window under Xvfb, driven as a user drives it."""

from __future__ import annotations

import time

import pytest

from tests.conftest import REPO_ROOT
from tests.e2e.harness import RunningApp, needs_x, send_close_request, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(120)]

DEFAULT = REPO_ROOT / "scenes" / "default.toml"
ARTIFACTS = REPO_ROOT / "artifacts"


@pytest.fixture
def app(tmp_path, request):
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"{request.node.name}.png"
    with xvfb() as display:
        running = RunningApp(display, DEFAULT, tmp_path, "--screenshot", str(shot))
        try:
            running.wait_for_window()
            yield running
        finally:
            running.stop()


def test_window_shows_every_object_and_esc_exits_0(app):
    report = app.report()
    assert report["window"]["size"] == [800, 600]
    for entry in report["objects"]:
        assert entry["screen"] is not None, f"{entry['name']} is off screen"
    app.xdotool("key", "--window", app.window, "Escape")
    assert app.wait_exit() == 0
    assert app.report()["frames"] > 0


def test_closing_the_window_exits_0(app):
    send_close_request(app.display, int(app.window))
    assert app.wait_exit() == 0


def _latest_camera(app: RunningApp) -> dict:
    app.xdotool("key", "--window", app.window, "Escape")
    assert app.wait_exit() == 0
    return app.report()["camera"]


def test_right_drag_orbits_the_camera(app):
    home = app.report()["camera"]
    steps = ["mousemove", "--window", app.window, "400", "300", "sleep", "0.1", "mousedown", "3"]
    for x in (450, 500, 550, 600):
        steps += ["sleep", "0.05", "mousemove", "--window", app.window, str(x), "300"]
    steps += ["sleep", "0.1", "mouseup", "3", "sleep", "0.1"]
    app.xdotool(*steps)
    camera = _latest_camera(app)
    assert camera["heading_deg"] != pytest.approx(home["heading_deg"], abs=1.0)
    assert camera["target"] == home["target"]
    assert camera["distance"] == pytest.approx(home["distance"])


def test_wheel_zooms_the_camera(app):
    home = app.report()["camera"]
    app.xdotool("mousemove", "--window", app.window, "400", "300", "sleep", "0.1")
    for _ in range(3):
        app.xdotool("click", "4")
        time.sleep(0.05)
    camera = _latest_camera(app)
    assert camera["distance"] < home["distance"]
