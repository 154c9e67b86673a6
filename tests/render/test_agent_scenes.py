"""The live scene headless: agents arrive in every scene, the path shows, the HUD explains."""

from __future__ import annotations

import pytest

from sim.components.agent_controller import AgentState
from sim.components.start_end_path import PATH_COLOR
from sim.engine import GameObject
from sim.scene.file import list_scenes
from tests.helpers.pixels import near, rgb, scene_pixels

pytestmark = pytest.mark.render

SCENES = list_scenes()
DEFAULT = next(path for path in SCENES if path.stem == "default")
# Scenes whose End cannot be reached, on purpose: tests/render/test_no_path.py runs them.
NO_PATH_SCENES = {"walled"}
ARRIVING = [path for path in SCENES if path.stem not in NO_PATH_SCENES]
# Simulated seconds each shipped scene's agent needs at most to reach End (the field's path is
# about 113 units at 3 units/s, the maze's 55 at 3, the default's 24).
ARRIVAL_BUDGET_S = {
    "default": 15.0,
    "maze": 30.0,
    "field": 50.0,
    "crowd": 60.0,
    "terrain": 20.0,
    "sizes": 20.0,
    "traffic": 20.0,  # it meets the End in the doorway at about 6 s
    # Two groups of 30 through one doorway: about 15 s while they walk through each other,
    # longer once they give way to each other there.
    "crossing": 60.0,
    "scripted": 30.0,  # round both walls and past the orbiting bar: about 10 s
    "links": 25.0,  # the climber's way over the ladder is the longest: about 12 s
}
PATH_RGB = rgb(PATH_COLOR)


def green_path_pixels(app) -> int:
    return int(near(scene_pixels(app), PATH_RGB, 40).sum())


@pytest.mark.parametrize("scene", ARRIVING, ids=[path.stem for path in ARRIVING])
def test_agent_reaches_end_in_every_scene(open_app, scene):
    app = open_app(scene, size=(160, 120))
    budget_frames = round(ARRIVAL_BUDGET_S[scene.stem] * 60)
    for _ in range(budget_frames):
        app.step()
        if all(agent.state is AgentState.ARRIVED for agent in app.agents):
            break
    report = app.report()
    assert report["path"]["found"]
    for agent in report["agents"]:
        assert agent["reached_goal"], f"{agent['name']} is {agent['state']} at {agent['pos']}"
        assert agent["blocked_cell_frames"] == 0


def test_path_is_drawn_green_and_the_path_key_hides_it(open_app):
    # Wide enough that the viewport beside the docks shows the path as long as a bare window did.
    app = open_app(DEFAULT, size=(1280, 720))
    app.step()
    app.step()
    shown = green_path_pixels(app)
    app.toggle_path()
    app.step()
    hidden = green_path_pixels(app)
    assert shown > 150
    assert hidden < shown / 10


def test_walled_in_end_is_reported_on_the_hud(open_app):
    app = open_app(DEFAULT)
    app.step()
    end = app.world.find_with_tag("End")
    x, y = end.node.get_x(), end.node.get_y()
    for name, (dx, dy, sx, sy) in {
        "n": (0, 1.5, 4, 1),
        "s": (0, -1.5, 4, 1),
        "e": (1.5, 0, 1, 2),
        "w": (-1.5, 0, 1, 2),
    }.items():
        wall = app.base.loader.load_model("cube")
        node = app.world.root.attach_new_node(f"wall-{name}")
        wall.reparent_to(node)
        node.set_pos(x + dx, y + dy, 0)
        node.set_scale(sx, sy, 1)
        app.world.add(GameObject(node, tag="Obstacle"))
    for _ in range(30):
        app.step()
    hud = app.hud.text()
    assert "No path: End cannot be reached" in app.panels.status_bar.text
    assert "No path: End cannot be reached" not in hud, "the path line is the status bar's alone"
    assert "no path" in hud
    assert app.report()["path"]["found"] is False
    assert green_path_pixels(app) < 20
