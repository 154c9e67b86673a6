"""The hierarchy and the handles in a real window, driven by plain XTEST input (xdotool).

A click on a hierarchy row selects its object (and is not also a click on the ground behind
the panel, which would clear the selection); a double-click frames it; dragging End's x arrow
moves it along x only, and one Ctrl+Z puts it back.
"""

from __future__ import annotations

import math

import pytest

from tests.helpers.paths import DEFAULT_SCENE, artifact
from tests.helpers.window import RunningApp, needs_x, screenshot, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(180)]


def origin(app: RunningApp) -> tuple[int, int]:
    """The window's top-left corner on the screen."""
    shell = app.xdotool("getwindowgeometry", "--shell", app.window)
    values = dict(line.split("=", 1) for line in shell.split())
    return int(values["X"]), int(values["Y"])


def at(app: RunningApp, pixel) -> list[str]:
    """xdotool's words that put the pointer on the window's `pixel`, in screen coordinates."""
    left, top = origin(app)
    return ["mousemove", str(left + round(pixel[0])), str(top + round(pixel[1])), "sleep", "0.15"]


def row(app: RunningApp, label: str) -> list[int]:
    def drawn() -> bool:
        return any(row["label"] == label for row in app.report()["editor"].get("hierarchy", []))

    wait_until(drawn, 20, lambda: f"no row {label!r}")
    return next(r["screen"] for r in app.report()["editor"]["hierarchy"] if r["label"] == label)


def pos_of(report, name: str) -> list[float]:
    return next(obj for obj in report["objects"] if obj["name"] == name)["pos"]


def state(app: RunningApp) -> str:
    report = app.report()
    return f"editor {report['editor']}, camera {report['camera']}, end {pos_of(report, 'end')}"


def select_by_row(app: RunningApp, name: str, label: str) -> None:
    app.xdotool(*at(app, row(app, label)), "click", "1", "sleep", "0.2")
    wait_until(lambda: app.report()["editor"]["selected"] == name, 20, lambda: state(app))


def test_a_click_on_a_row_selects_it_and_an_x_arrow_drag_moves_along_x_undone_by_ctrl_z(
    tmp_path,
):
    with xvfb() as display:
        app = RunningApp(display, DEFAULT_SCENE, tmp_path)
        try:
            app.wait_for_window()
            # No window manager gives it the keyboard: XTEST keys go to the focused window.
            app.xdotool("windowfocus", "--sync", app.window)
            wait_until(lambda: app.report()["path"]["found"], 30)
            select_by_row(app, "long_wall", "long_wall · Obstacle")
            report = app.wait_for_next_report()
            assert report["editor"]["selected"] == "long_wall", "the click stayed on the panel"
            assert report["editor"]["undo_depth"] == 0, "selecting is no edit"
            screenshot(display, artifact("hierarchy-selected.png"))

            # A double-click on End's row selects it and brings it to the middle of the view,
            # clear of the panels. (Time runs on: the report is rewritten once a simulated
            # second.)
            app.xdotool(*at(app, row(app, "end · End")), "click", "--repeat", "2", "1")
            wait_until(lambda: app.report()["camera"]["distance"] < 10, 20, lambda: state(app))
            assert app.report()["editor"]["selected"] == "end"
            before = pos_of(app.wait_for_next_report(), "end")
            handles = app.report()["editor"]["handles"]
            grab, other = handles["x"], handles["y"]
            # Away from the y arrow, so the drag has a part along the x arrow whichever way
            # the view shows it.
            away = (grab[0] + 3 * (grab[0] - other[0]), grab[1] + 3 * (grab[1] - other[1]))
            steps = [
                word
                for i in range(1, 9)
                for word in at(
                    app,
                    (grab[0] + (away[0] - grab[0]) * i / 8, grab[1] + (away[1] - grab[1]) * i / 8),
                )
            ]
            # The pointer stays on the arrow a while after the press: until input is read at
            # event time, the press is read where the pointer is when the next frame runs.
            app.xdotool(
                *at(app, grab),
                "mousedown",
                "1",
                "sleep",
                "0.6",
                *steps,
                "mouseup",
                "1",
                timeout_s=60,
            )

            def moved_along_x() -> bool:
                report = app.report()
                pos = pos_of(report, "end")
                return abs(pos[0] - before[0]) > 0.5 and report["editor"]["undo_depth"] == 1

            wait_until(moved_along_x, 20, lambda: state(app))
            after = pos_of(app.wait_for_next_report(), "end")
            assert after[1] == pytest.approx(before[1], abs=1e-4), "only along x"
            screenshot(display, artifact("handles-dragged.png"))

            app.xdotool(
                "keydown", "ctrl", "sleep", "0.15", "key", "z", "sleep", "0.15", "keyup", "ctrl"
            )
            wait_until(
                lambda: math.dist(pos_of(app.report(), "end")[:2], before[:2]) < 1e-4,
                20,
                lambda: state(app),
            )
            assert app.report()["editor"]["undo_depth"] == 0
        finally:
            app.stop()
