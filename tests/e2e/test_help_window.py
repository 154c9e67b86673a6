"""The help overlay in a real window: plain XTEST F1 and ? (Shift and /) open it, Esc closes it
and leaves the app running; the last frame, saved as the app exits, shows the card."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from sim.ui.help_overlay import CARD_COLOR
from tests.helpers.paths import DEFAULT_SCENE, artifact
from tests.helpers.window import RunningApp, needs_x, send_close_request, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(180)]


def card_share(image: np.ndarray) -> float:
    """The share of the frame's middle covered by the help card's colour."""
    height, width = image.shape[:2]
    middle = image[height // 3 : 2 * height // 3, width // 4 : 3 * width // 4].astype(int)
    card = np.array(CARD_COLOR[:3]) * 255
    return float((np.abs(middle - card).max(axis=2) < 30).mean())


def key(app: RunningApp, name: str) -> None:
    """Press `name` with plain XTEST, then wait until a frame after it has run."""
    app.xdotool("key", name)
    app.wait_for_next_report()


@pytest.mark.parametrize(("opens", "closes"), [("F1", "Escape"), ("question", "F1")])
def test_the_help_opens_and_closes_from_the_keyboard(tmp_path, opens, closes):
    shot = artifact(f"help-window-{opens}.png")
    with xvfb() as display:
        app = RunningApp(display, DEFAULT_SCENE, tmp_path, "--screenshot", str(shot))
        try:
            app.wait_for_window()
            wait_until(lambda: app.report()["path"]["found"], 20)
            shell = app.xdotool("getwindowgeometry", "--shell", app.window)
            where = dict(line.split("=") for line in shell.split())
            # Plain XTEST keys go to the window under the pointer (Xvfb runs no window manager).
            app.xdotool("mousemove", str(int(where["X"]) + 40), str(int(where["Y"]) + 40))
            key(app, opens)
            key(app, closes)
            assert app.process.poll() is None, f"{closes} quit the app instead of closing the help"
            key(app, opens)
            send_close_request(display, int(app.window))
            assert app.wait_exit() == 0
        finally:
            app.stop()
    with Image.open(shot) as image:
        frame = np.asarray(image.convert("RGB"))
    assert card_share(frame) > 0.5, f"{opens} left no help card on the last frame"
