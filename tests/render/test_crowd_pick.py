"""Clicking a crowd's agent: it is selected where it stands now, not where its model was left.

The crossing scene headless (p3tinydisplay offscreen) with a virtual mouse: its 60 agents are
driven by the crowd, which writes their nodes only when something reads them. After they have
walked a second, a click on an agent's place now selects it, a click on the place it left
selects nothing, and the selection's outline follows it as it walks on.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import Point3

from sim.app.composition import SimApp
from sim.editor.selection import AGENT_PICK_RADIUS, outline_segments
from tests.helpers.fixtures import OpenApp
from tests.helpers.paths import SCENES_DIR
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

WALKED_FRAMES = 90  # a second and a half at 60 frames a second: about 5 world units each
CLEAR = 2.0 * AGENT_PICK_RADIUS  # no other agent this near the clicked place now
AGENT_MIDDLE_Z = 0.2  # about the middle of an agent's model (it spans 0.4)


def walked(open_app: OpenApp) -> tuple[SimApp, Mouse, np.ndarray]:
    """The crossing scene after its agents walked a while, its mouse, and where they spawned."""
    app = open_app(SCENES_DIR / "crossing.toml")
    mouse = Mouse(app)
    app.step()
    assert app.crowd_sim.driven.all(), "the scene's agents are the crowd's to move"
    spawned = app.crowd_sim.positions.copy()
    for _ in range(WALKED_FRAMES):
        app.step()
    return app, mouse, spawned


def lone_walker(app: SimApp, spawned: np.ndarray) -> int:
    """The row of an agent that walked furthest, with nobody near where it is or where it was."""
    positions = app.crowd_sim.positions
    for row in np.argsort(-np.linalg.norm(positions - spawned, axis=1)):
        others = np.delete(positions, row, axis=0)
        here = np.linalg.norm(others - positions[row], axis=1).min()
        there = np.linalg.norm(positions - spawned[row], axis=1).min()
        if here > CLEAR and there > CLEAR:
            return int(row)
    raise AssertionError("no agent stands clear of the others")


def pixel_at(app: SimApp, xy: np.ndarray) -> tuple[int, int]:
    found = app.screen_of_point(Point3(float(xy[0]), float(xy[1]), AGENT_MIDDLE_Z))
    assert found is not None, f"{xy} is out of view"
    return found


def test_a_click_on_a_walking_agent_selects_it_where_it_stands_now(open_app: OpenApp) -> None:
    app, mouse, spawned = walked(open_app)
    row = lone_walker(app, spawned)
    agent = app.crowd_sim.agents[row].game_object
    assert math.dist(app.crowd_sim.positions[row], spawned[row]) > 3.0, "it has walked away"
    mouse.click(pixel_at(app, app.crowd_sim.positions[row]))
    assert app.editor.selected is agent


def test_a_click_where_an_agent_was_selects_nothing(open_app: OpenApp) -> None:
    app, mouse, spawned = walked(open_app)
    row = lone_walker(app, spawned)
    mouse.click(pixel_at(app, spawned[row]))
    assert app.editor.selected is None, "nobody stands there any more"


def test_the_outline_follows_the_selected_agent_as_it_walks(open_app: OpenApp) -> None:
    app, mouse, spawned = walked(open_app)
    row = lone_walker(app, spawned)
    mouse.click(pixel_at(app, app.crowd_sim.positions[row]))
    agent = app.editor.selected
    assert agent is not None
    clicked_at = app.crowd_sim.positions[row].copy()
    for _ in range(30):
        app.step()
        segments = outline_segments(agent.node, app.world.root)
        centre = segments.reshape(-1, 3).mean(axis=0)[:2]
        assert math.dist(centre, app.crowd_sim.positions[row]) < 0.05, "outlined where it is"
    assert math.dist(app.crowd_sim.positions[row], clicked_at) > 1.0, "it walked on meanwhile"
