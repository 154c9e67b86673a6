"""The colour legend's sections: the colours the scene, the paths and the search view draw with.

The colours come from the modules that draw them, so the legend cannot drift from the scene.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sim.components.agent_controller import AGENT_PATH_COLOR
from sim.components.grid_manager import BLOCK_COLOR
from sim.components.legend import Color, Legend, LegendRow, LegendSection
from sim.components.no_path import FIX_OUTLINE_COLOR, GOAL_REGION_COLOR, START_REGION_COLOR
from sim.components.start_end_path import PATH_COLOR
from sim.scene.builder import GROUND_COLOR
from sim.search_view.view import CLOSED_COLOR, CURRENT_COLOR, OPEN_COLOR
from sim.search_view.view import PATH_COLOR as SEARCH_PATH_COLOR

if TYPE_CHECKING:
    from panda3d.core import NodePath

    from sim.components.hud import Hud
    from sim.components.start_end_path import StartEndPath
    from sim.components.terrain_legend import TerrainLegend
    from sim.engine import World
    from sim.search_view.view import SearchView

BOTTOM = 0.2  # above the HUD's key help along the bottom (as the terrain legend)
GAP = 0.012  # between the terrain legend and this one, aspect2d units


def over_ground(color: Color) -> Color:
    """`color` as it looks laid over the ground (the blocked-cell shading is translucent)."""
    alpha = color[3]
    red, green, blue = (
        alpha * mine + (1 - alpha) * ground
        for mine, ground in zip(color[:3], GROUND_COLOR[:3], strict=True)
    )
    return (red, green, blue, 1.0)


def legend_sections(
    search_open: Callable[[], bool], no_path_shown: Callable[[], bool]
) -> list[LegendSection]:
    """The legend's sections, top to bottom: the scene's colours, then those shown for a while.

    The search states show while `search_open()` says the view is open, the no-path shading
    while `no_path_shown()` says the ground shows it.
    """
    return [
        LegendSection(
            "scene",
            (
                LegendRow("blocked cell", over_ground(BLOCK_COLOR)),
                LegendRow("path", PATH_COLOR, line=True),
                LegendRow("agent route", AGENT_PATH_COLOR, line=True),
            ),
        ),
        LegendSection(
            "search",
            (
                LegendRow("open (frontier)", OPEN_COLOR),
                LegendRow("closed (expanded)", CLOSED_COLOR),
                LegendRow("current", CURRENT_COLOR),
                LegendRow("path", SEARCH_PATH_COLOR),
            ),
            shown=search_open,
        ),
        LegendSection(
            "no path",
            (
                LegendRow("Start's region", over_ground(START_REGION_COLOR)),
                LegendRow("End's region", over_ground(GOAL_REGION_COLOR)),
                LegendRow("cells to remove", FIX_OUTLINE_COLOR),
            ),
            shown=no_path_shown,
        ),
    ]


def add_legend(
    world: World,
    parent: NodePath,
    *,
    terrain_legend: TerrainLegend | None,
    view: SearchView,
    path: StartEndPath,
    hud: Hud,
) -> Legend:
    """Put the colour legend in `parent`'s bottom-left, above the terrain legend if any.

    It shows while the HUD does; its search section while `view` is open, its no-path section
    while `path` shades why there is none.
    """
    bottom = BOTTOM if terrain_legend is None else terrain_legend.top + GAP
    legend = Legend(
        parent,
        legend_sections(lambda: view.opened, lambda: no_path_shown(path)),
        visible=lambda: hud.visible,
        bottom=bottom,
    )
    return world.spawn("colour-legend").add_component(legend)


def no_path_shown(path: StartEndPath) -> bool:
    """Whether the ground shows why there is no path (the planner's drawing, not suppressed)."""
    return path.explanation is not None and path.show_path and not path.suppressed
