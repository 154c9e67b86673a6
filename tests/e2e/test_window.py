"""The app in a real window under Xvfb, driven as a user drives it."""

from __future__ import annotations

import time

import pytest

from tests.helpers.window import RunningApp, needs_x, send_close_request

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(120)]


def test_window_shows_every_object_and_esc_exits_0(window_app):
    report = window_app.report()
    assert report["window"]["size"] == [800, 600]
    for entry in report["objects"]:
        assert entry["screen"] is not None, f"{entry['name']} is off screen"
    window_app.xdotool("key", "--window", window_app.window, "Escape")
    assert window_app.wait_exit() == 0
    assert window_app.report()["frames"] > 0


def test_closing_the_window_exits_0(window_app):
    send_close_request(window_app.display, int(window_app.window))
    assert window_app.wait_exit() == 0


def _latest_camera(app: RunningApp) -> dict:
    app.xdotool("key", "--window", app.window, "Escape")
    assert app.wait_exit() == 0
    return app.report()["camera"]


def test_right_drag_orbits_the_camera(window_app):
    home = window_app.report()["camera"]
    steps = ["mousemove", "--window", window_app.window, "400", "300", "sleep", "0.1"]
    steps += ["mousedown", "3"]
    for x in (450, 500, 550, 600):
        steps += ["sleep", "0.05", "mousemove", "--window", window_app.window, str(x), "300"]
    steps += ["sleep", "0.1", "mouseup", "3", "sleep", "0.1"]
    window_app.xdotool(*steps)
    camera = _latest_camera(window_app)
    assert camera["heading_deg"] != pytest.approx(home["heading_deg"], abs=1.0)
    assert camera["target"] == home["target"]
    assert camera["distance"] == pytest.approx(home["distance"])


def test_wheel_zooms_the_camera(window_app):
    home = window_app.report()["camera"]
    window_app.xdotool("mousemove", "--window", window_app.window, "400", "300", "sleep", "0.1")
    for _ in range(3):
        window_app.xdotool("click", "4")
        time.sleep(0.05)
    camera = _latest_camera(window_app)
    assert camera["distance"] < home["distance"]
