"""The colour legend's sections: every meaning of `sim.config.PALETTE`, grouped as seen.

The colours come from the palette the drawing modules take theirs from, so the legend cannot
drift from the scene, and each colour has one meaning (`tests/unit/test_palette.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sim.components.legend import Color, Legend, LegendRow, LegendSection
from sim.config import PALETTE
from sim.scene.builder import GROUND_COLOR

if TYPE_CHECKING:
    from panda3d.core import NodePath

    from sim.components.crowd_render import CrowdRenderer
    from sim.components.hud import Hud
    from sim.components.start_end_path import StartEndPath
    from sim.components.terrain_legend import TerrainLegend
    from sim.engine import World
    from sim.search_view.view import SearchView

BOTTOM = 0.1  # above the HUD's one-line hint along the bottom (as the terrain legend)
GAP = 0.012  # between the terrain legend and this one, aspect2d units
MAX_HEIGHT = 1.0  # a taller legend goes on in a second column, aspect2d units

SCENE_ROWS = (
    LegendRow("Start", PALETTE.start),
    LegendRow("End", PALETTE.end),
    LegendRow("agent", PALETTE.agent),
    LegendRow("agent in a joint plan", PALETTE.joint_plan),
    LegendRow("obstacle", PALETTE.obstacle),
    LegendRow("blocked cell", PALETTE.blocked),
    LegendRow("door, closed", PALETTE.door_closed),
    LegendRow("door, open", PALETTE.door_open, line=True),
    LegendRow("path", PALETTE.path, line=True),
    LegendRow("agent route", PALETTE.route, line=True),
    LegendRow("selected", PALETTE.selected, line=True),
    LegendRow("link", PALETTE.link, line=True),
)
SEARCH_ROWS = (
    LegendRow("open (frontier)", PALETTE.frontier),
    LegendRow("closed (expanded)", PALETTE.closed),
    LegendRow("current", PALETTE.current),
    LegendRow("backward open", PALETTE.back_frontier),
    LegendRow("backward closed", PALETTE.back_closed),
    LegendRow("halves meet", PALETTE.meeting),
    LegendRow("parent arrow", PALETTE.parent_arrow, line=True, on=PALETTE.closed),
)
CROWD_ROWS = (
    LegendRow("velocity", PALETTE.velocity, line=True),
    LegendRow("avoided neighbour", PALETTE.neighbour, line=True),
)
NO_PATH_ROWS = (
    LegendRow("Start's region", PALETTE.start_region),
    LegendRow("End's region", PALETTE.goal_region),
    LegendRow("cells to remove", PALETTE.fix),
)
UNLISTED = frozenset(
    {"mapf_waiting", "mapf_at_goal"}
    | {f"race_{lane}_{state}" for lane in range(1, 5) for state in ("open", "closed")}
)
"""Palette meanings the scene's legend does not show: a MAPF plan's states are its playback's
own legend's (`sim.app.mapf_playback`), shown while a plan plays; a race's lanes are its
panel's (`sim.search_view.race_panel`: each lane's label in its colours), shown while the race
hides the HUD and this legend with it."""


def over_ground(color: Color) -> Color:
    """`color` as it looks laid over the ground (the blocked-cell shading is translucent)."""
    alpha = color[3]
    red, green, blue = (
        alpha * mine + (1 - alpha) * ground
        for mine, ground in zip(color[:3], GROUND_COLOR[:3], strict=True)
    )
    return (red, green, blue, 1.0)


def _ground_shading(rows: tuple[LegendRow, ...]) -> tuple[LegendRow, ...]:
    """Translucent colours as they look on the ground, where they are drawn."""
    return tuple(
        LegendRow(row.label, over_ground(row.color), row.line) if row.color[3] < 1.0 else row
        for row in rows
    )


def legend_sections(
    search_open: Callable[[], bool],
    no_path_shown: Callable[[], bool],
    gizmos_shown: Callable[[], bool] = lambda: False,
) -> list[LegendSection]:
    """The legend's sections, top to bottom: the scene's colours, then those shown for a while.

    The search states show while `search_open()` says the view is open, the no-path shading
    while `no_path_shown()` says the ground shows it, the crowd's gizmo lines while
    `gizmos_shown()`.
    """
    return [
        LegendSection("scene", _ground_shading(SCENE_ROWS)),
        LegendSection("search", SEARCH_ROWS, shown=search_open),
        LegendSection("crowd gizmos", CROWD_ROWS, shown=gizmos_shown),
        LegendSection("no path", _ground_shading(NO_PATH_ROWS), shown=no_path_shown),
    ]


def add_legend(
    world: World,
    parent: NodePath,
    *,
    terrain_legend: TerrainLegend | None,
    view: SearchView,
    path: StartEndPath,
    hud: Hud,
    crowd_render: CrowdRenderer | None = None,
) -> Legend:
    """Put the colour legend in `parent`'s bottom-left, above the terrain legend if any.

    It shows while the HUD does; its search section while `view` is open, its no-path section
    while `path` shades why there is none, its crowd section while `crowd_render` shows gizmos.
    """
    bottom = BOTTOM if terrain_legend is None else terrain_legend.top + GAP
    legend = Legend(
        parent,
        legend_sections(
            lambda: view.opened,
            lambda: no_path_shown(path),
            lambda: crowd_render is not None and crowd_render.show_gizmos,
        ),
        visible=lambda: hud.visible,
        bottom=bottom,
        max_height=MAX_HEIGHT,
    )
    return world.spawn("colour-legend").add_component(legend)


def no_path_shown(path: StartEndPath) -> bool:
    """Whether the ground shows why there is no path (the planner's drawing, not suppressed)."""
    return path.explanation is not None and path.show_path and not path.suppressed
