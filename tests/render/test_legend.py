"""The colour legend: the scene's colours at the left dock's foot, the search states while the
search view is open, hidden with the HUD, clear of the HUD's help, the terrain legend and the
search panel."""

from __future__ import annotations

import pytest
from panda3d.core import NodePath

from sim.app.legend_setup import over_ground
from sim.components.agent_controller import AGENT_PATH_COLOR
from sim.components.ground_view import BLOCK_COLOR
from sim.search_view.view import CURRENT_COLOR
from tests.helpers.paths import DEFAULT_SCENE, SCENES_DIR
from tests.helpers.pixels import near, rgb, screenshot_rgb
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

SCENE_ROWS = [
    "scene",
    "Start",
    "End",
    "agent",
    "agent in a joint plan",
    "obstacle",
    "blocked cell",
    "door, closed",
    "door, open",
    "path",
    "agent route",
    "selected",
    "link",
]
SEARCH_ROWS = [
    "search",
    "open (frontier)",
    "closed (expanded)",
    "current",
    "backward open",
    "backward closed",
    "halves meet",
    "parent arrow",
]
CROWD_ROWS = ["crowd gizmos", "velocity", "avoided neighbour"]
NO_PATH_ROWS = ["no path", "Start's region", "End's region", "cells to remove"]


def _corner(app):
    """The bottom-left quarter of the window, where the legend sits."""
    width, height = app.window_size()
    return screenshot_rgb(app.base.win)[height // 2 :, : width // 4]


def _pixel_rows(app, node: NodePath) -> tuple[int, int]:
    """The window rows (top, bottom; row 0 at the top) a 2-D node covers."""
    bounds = node.get_tight_bounds(app.base.aspect2d)
    assert bounds is not None, "the node draws nothing"
    low, high = bounds
    height = app.window_size()[1]
    return round((1 - high.z) / 2 * height), round((1 - low.z) / 2 * height)


def test_the_legend_names_the_scene_s_colours(default_scene):
    app, _ = default_scene
    app.step()
    assert app.colour_legend.labels() == SCENE_ROWS
    corner = _corner(app)
    for name, color in (
        ("blocked", over_ground(BLOCK_COLOR)),
        ("agent route", AGENT_PATH_COLOR),
    ):
        assert near(corner, rgb(color), 12).sum() >= 30, f"no {name} swatch"


def test_the_search_states_show_only_while_the_search_view_is_open(default_scene):
    app, mouse = default_scene
    mouse.key("t")
    app.step()
    assert app.search_view.opened
    assert app.colour_legend.labels() == SCENE_ROWS + SEARCH_ROWS
    assert near(_corner(app), rgb(CURRENT_COLOR), 12).sum() >= 60, "no swatch for 'current'"
    report = app.report()
    legend_top, _ = _pixel_rows(app, app.colour_legend.root)
    lowest_button = max(y for _, y in report["search_view"]["buttons"].values())
    assert legend_top > lowest_button + 20, "the legend runs into the search panel"
    mouse.key("t")
    app.step()
    assert app.colour_legend.labels() == SCENE_ROWS


def test_h_hides_the_legend_with_the_hud(default_scene):
    app, mouse = default_scene
    app.step()
    swatch = rgb(AGENT_PATH_COLOR)
    before = near(_corner(app), swatch, 12).sum()
    mouse.key("h")
    app.step()
    assert not app.hud.visible
    assert near(_corner(app), swatch, 12).sum() < before - 30, "H left the legend up"
    mouse.key("h")
    app.step()
    assert near(_corner(app), swatch, 12).sum() == before


def test_the_legend_stands_clear_of_the_help_line_and_the_terrain_legend(open_app):
    app = open_app(SCENES_DIR / "terrain.toml")
    mouse = Mouse(app)
    app.step()
    assert app.legend is not None
    _, legend_bottom = _pixel_rows(app, app.colour_legend.root)
    terrain_top, terrain_bottom = _pixel_rows(app, app.legend.root)
    assert legend_bottom <= terrain_top, "the colour legend overlaps the terrain legend"
    mouse.key("t")  # the search states too: the tallest the legend gets
    app.step()
    top, _ = _pixel_rows(app, app.colour_legend.root)
    # The legends stand at the left dock's foot, under the HUD's status and key help.
    _, help_bottom = _pixel_rows(app, app.hud._help)
    assert help_bottom < top, "the legend runs up into the HUD's key help"
    _, terrain_bottom = _pixel_rows(app, app.legend.root)
    assert terrain_bottom <= app.layout.frame.left.bottom, "the legends run off the dock's foot"


def test_a_scene_without_terrain_has_the_colour_legend_alone(open_app):
    app = open_app(DEFAULT_SCENE)
    app.step()
    assert app.legend is None
    assert "terrain cost" not in app.colour_legend.labels()


def test_the_no_path_shading_is_named_while_the_ground_shows_it(open_app):
    app = open_app(SCENES_DIR / "walled.toml")
    mouse = Mouse(app)
    for _ in range(5):
        app.step()
    assert app.path.explanation is not None
    assert app.colour_legend.labels() == [*SCENE_ROWS, *NO_PATH_ROWS]
    mouse.key("p")  # P hides the path and, with it, the shading
    app.step()
    assert app.colour_legend.labels() == SCENE_ROWS
