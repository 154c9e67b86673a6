"""Open and closed doors look different: an open door, sunk in the ground, leaves an outline."""

from __future__ import annotations

import pytest

from sim.config import PALETTE
from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.pixels import near, rgb, scene_pixels

pytestmark = pytest.mark.render

TRAFFIC = SCENES_DIR / "traffic.toml"
BUDGET_FRAMES = 6 * 60  # one door cycle of the traffic scene at 60 fps, with room


def outline_pixels(app) -> int:
    return int(near(scene_pixels(app), rgb(PALETTE.door_open), 30).sum())


def step_until(app, wanted: bool) -> None:
    for _ in range(BUDGET_FRAMES):
        app.step()
        if bool(app.motion.open_doors()) == wanted:
            app.step()  # drawn once in that state
            return
    raise AssertionError(f"the door never {'opened' if wanted else 'closed'}")


def test_an_open_door_is_outlined_on_the_ground_and_a_closed_one_is_not(open_app) -> None:
    # The docks take the window's sides: at this size the viewport is about 640 pixels wide.
    app = open_app(TRAFFIC, size=(1024, 768))
    step_until(app, wanted=False)
    closed = outline_pixels(app)
    step_until(app, wanted=True)
    assert app.motion.open_doors() == ["door"]
    app.save_screenshot(artifact("door-open.png"))
    assert outline_pixels(app) >= closed + 20, "the open door leaves no outline"
