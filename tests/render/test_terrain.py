"""Terrain in the live scene: the path pays the costs, patches drag and recost, the legend shows."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
from panda3d.core import Point3

from sim.app.composition import SimApp
from sim.components.terrain import COST_BANDS, TerrainPatch, terrain_color
from sim.engine import GameObject
from tests.helpers.fixtures import OpenApp
from tests.helpers.paths import DEFAULT_SCENE, SCENES_DIR
from tests.helpers.pixels import near, rgb, screenshot_rgb
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

TERRAIN_SCENE = SCENES_DIR / "terrain.toml"
MUD, ROAD = 4.0, 0.7


class TerrainScene(NamedTuple):
    app: SimApp
    mouse: Mouse


@pytest.fixture
def terrain_scene(open_app: OpenApp) -> TerrainScene:
    """scenes/terrain.toml headless with a virtual mouse bound, one frame in."""
    app = open_app(TERRAIN_SCENE)
    mouse = Mouse(app)
    app.step()
    return TerrainScene(app, mouse)


def patch(app: SimApp, name: str) -> TerrainPatch:
    obj = app.world.find(name)
    assert obj is not None
    component = obj.get_component(TerrainPatch)
    assert component is not None
    return component


def path_costs(app: SimApp) -> list[float]:
    """The cost of each cell of the Start -> End path now."""
    outcome = app.path.outcome
    assert outcome is not None
    assert outcome.found
    costs = app.grid.costs
    assert costs is not None
    return [float(costs[cell]) for cell in outcome.cells]


def pixel_of(app: SimApp, x: float, y: float, z: float = 0.0) -> tuple[int, int]:
    pixel = app.screen_of_point(Point3(x, y, z))
    assert pixel is not None, f"({x}, {y}) is not on screen"
    return pixel


def test_the_path_goes_round_the_mud_by_the_road(terrain_scene: TerrainScene) -> None:
    app, _ = terrain_scene
    costs = path_costs(app)
    assert MUD not in costs
    assert ROAD in costs
    assert app.path.outcome is not None
    assert app.path.outcome.cost < app.path.outcome.length  # the road costs less than 1


def test_the_path_goes_through_cheap_mud(terrain_scene: TerrainScene) -> None:
    app, _ = terrain_scene
    patch(app, "mud").cost = 1.5
    app.step()
    costs = path_costs(app)
    assert 1.5 in costs
    assert ROAD not in costs


def test_pressing_u_on_the_mud_steps_its_cost_and_the_path_follows(
    terrain_scene: TerrainScene,
) -> None:
    app, mouse = terrain_scene
    mud = app.world.find("mud")
    assert mud is not None
    mouse.move(pixel_of(app, 0.0, 2.5))  # on the mud, clear of the path's line
    assert app.editor.drag.hovered is mud
    seen = []
    for _ in range(3):  # 4 -> 5 -> 10 -> 1.5
        mouse.key("u")
        seen.append(patch(app, "mud").cost)
        if seen[-1] > 1.5:
            assert MUD not in path_costs(app)
    assert seen == [5.0, 10.0, 1.5]
    assert 1.5 in path_costs(app), "at 1.5 the mud is the cheapest way"
    assert "terrain cost 1.5" in app.hud.text()
    mud.node.clear_color_scale()  # the hover highlight brightens it
    assert tuple(mud.node.get_color()) == pytest.approx(terrain_color(1.5), abs=1e-3)


def test_the_u_key_leaves_other_objects_alone(terrain_scene: TerrainScene) -> None:
    app, mouse = terrain_scene
    version = app.grid.version
    end = app.world.find("end")
    assert end is not None
    screen = app.screen_of(end)
    assert screen is not None
    mouse.move(screen)
    mouse.key("u")
    assert patch(app, "mud").cost == MUD
    assert app.grid.version == version


def test_dragging_the_mud_onto_the_road_reroutes_the_path(terrain_scene: TerrainScene) -> None:
    app, mouse = terrain_scene
    mud = app.world.find("mud")
    assert mud is not None
    before = app.path.outcome
    assert before is not None
    mouse.drag(pixel_of(app, 0.0, 2.5), pixel_of(app, 0.0, -2.5))
    assert mud.xy == pytest.approx((0.0, -4.5), abs=0.3)
    app.step()
    after = app.path.outcome
    assert after is not None
    assert after.cells != before.cells
    costs = path_costs(app)
    assert MUD not in costs
    assert ROAD not in costs, "the mud now lies on the road; the straight way is free"
    assert after.cost < before.cost


def terrain_pixels(app: SimApp, cost: float) -> int:
    image = screenshot_rgb(app.base.win)
    return int(near(image, rgb(terrain_color(cost)), 12).sum())


@pytest.mark.parametrize(("name", "cost"), [("mud", MUD), ("road", ROAD), ("pond", 10.0)])
def test_each_patch_shows_in_the_colour_of_its_cost(
    terrain_scene: TerrainScene, name: str, cost: float
) -> None:
    app, _ = terrain_scene
    assert terrain_pixels(app, cost) > 1500
    obj: GameObject | None = app.world.find(name)
    assert obj is not None
    obj.node.hide()
    app.step()
    assert terrain_pixels(app, cost) < 600, "the colour came from the patch"


def test_the_legend_shows_every_band_in_the_bottom_left_corner(
    terrain_scene: TerrainScene,
) -> None:
    app, _ = terrain_scene
    legend = app.legend
    assert legend is not None
    assert legend.labels()[0] == "terrain cost"
    assert len(legend.labels()) == len(COST_BANDS) + 1
    width, height = app.window_size()
    corner = screenshot_rgb(app.base.win)[height * 2 // 3 :, : width // 4]
    for band in COST_BANDS:
        assert near(corner, rgb(band.color), 10).sum() >= 80, f"no swatch for {band.label}"
    white_before = near(corner, (255, 255, 255), 40).sum()
    assert white_before > 100, "the legend's labels are missing"
    app.toggle_hud()
    app.step()
    hidden = screenshot_rgb(app.base.win)[height * 2 // 3 :, : width // 4]
    assert near(hidden, rgb(COST_BANDS[-1].color), 10).sum() < 20, "H hides the legend too"
    assert near(hidden, (255, 255, 255), 40).sum() < white_before / 5


def test_a_scene_without_terrain_has_no_legend(open_app: OpenApp) -> None:
    app = open_app(DEFAULT_SCENE)
    app.step()
    assert app.legend is None
    report = app.report()
    assert (report["grid"]["terrain_cells"], report["grid"]["cost_range"]) == (0, [1.0, 1.0])


def test_the_report_counts_terrain_cells_and_the_cost_range(terrain_scene: TerrainScene) -> None:
    app, _ = terrain_scene
    grid = app.report()["grid"]
    costs = app.grid.costs
    assert costs is not None
    walkable = app.grid.walkable
    assert grid["terrain_cells"] == int(np.count_nonzero(costs[walkable] != 1.0))
    assert grid["cost_range"] == [ROAD, 10.0]


def test_the_search_view_searches_with_the_costs(terrain_scene: TerrainScene) -> None:
    app, _ = terrain_scene
    view = app.search_view
    view.open()
    view.to_end()
    app.step()
    assert view.replay is not None
    result = view.replay.log.result()
    assert app.path.outcome is not None
    assert result.cost * app.grid.grid_cell_size == pytest.approx(app.path.outcome.cost)
    patch(app, "mud").cost = 1.5
    restarts = view.restarts
    app.step()
    assert view.restarts == restarts + 1, "a new cost restarts the view"
