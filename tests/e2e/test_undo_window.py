"""Undo and redo in a real window: xdotool drags End, then types Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y."""

from __future__ import annotations

import math

import pytest

from tests.helpers.paths import artifact
from tests.helpers.window import drag, needs_x, screenshot, wait_until

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(180)]


def end_of(report) -> list[float]:
    return next(obj for obj in report["objects"] if obj["name"] == "end")["pos"]


def cell_of(report, pos) -> list[int]:
    grid = report["grid"]
    size = grid["cell_size"]
    return [
        math.floor((pos[1] - grid["origin"][1]) / size),
        math.floor((pos[0] - grid["origin"][0]) / size),
    ]


def press(app, chord: str) -> None:
    """Type `chord` ("ctrl+shift+z") as a hand does: modifiers down first, up last.

    xdotool's own chords press and release everything within one frame, so the app, which
    reads the modifiers when the key's event arrives, would find them released already.
    """
    *modifiers, key = chord.split("+")
    window = app.window
    args: list[str] = []
    for modifier in modifiers:
        args += ["keydown", "--window", window, modifier, "sleep", "0.15"]
    args += ["key", "--window", window, key, "sleep", "0.15"]
    for modifier in reversed(modifiers):
        args += ["keyup", "--window", window, modifier]
    app.xdotool(*args, timeout_s=30)


def settled_at(app, pos: list[float]) -> dict:
    """Wait until End stands at `pos` and the path ends in its cell; return that report."""

    def there() -> bool:
        report = app.report()
        end = end_of(report)
        return math.dist(end[:2], pos[:2]) < 1e-4 and report["path"]["cells"][-1] == cell_of(
            report, end
        )

    wait_until(there, 20, lambda: f"End at {end_of(app.report())}, wanted {pos}")
    return app.wait_for_next_report()


def test_drag_end_then_undo_puts_it_back_and_redo_moves_it_again(window_app):
    before = window_app.report()
    home = end_of(before)
    path = before["path"]
    target = len(path["cells"]) // 3
    end_screen = next(obj for obj in before["objects"] if obj["name"] == "end")["screen"]
    drag(window_app, end_screen, path["screen"][target])
    wait_until(lambda: end_of(window_app.report()) != home, 20)
    dropped_report = window_app.wait_for_next_report()
    dropped = end_of(dropped_report)
    assert cell_of(dropped_report, dropped) != cell_of(before, home)
    assert dropped_report["editor"]["undo_depth"] == 1

    press(window_app, "ctrl+z")
    undone = settled_at(window_app, home)
    assert undone["grid"]["blocked_cells"] == before["grid"]["blocked_cells"]
    assert (undone["editor"]["undo_depth"], undone["editor"]["redo_depth"]) == (0, 1)
    # The history, not the HUD: on a loaded machine a notice (the look's fallback) may already
    # have taken the HUD's one message line.
    assert "undo: move end" in undone["messages"]
    screenshot(window_app.display, artifact("undo-end-back.png"))

    press(window_app, "ctrl+shift+z")
    redone = settled_at(window_app, dropped)
    assert (redone["editor"]["undo_depth"], redone["editor"]["redo_depth"]) == (1, 0)
    assert "redo: move end" in redone["messages"]

    press(window_app, "ctrl+z")
    settled_at(window_app, home)
    press(window_app, "ctrl+y")
    settled_at(window_app, dropped)
    screenshot(window_app.display, artifact("undo-end-redone.png"))
    assert window_app.process.poll() is None
