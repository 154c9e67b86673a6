"""The scene's own components, built from its spec: the grid manager, the agents, the terrain.

The composition root (`sim.app.composition`) calls these in the World's update order; each takes
the parts it builds on and returns the component it added.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from sim.app.process import tell
from sim.components.agent_controller import ROUTES_DRAWN, AgentController
from sim.components.crowd import CrowdField
from sim.components.grid_manager import GridManager
from sim.components.link_view import LinkView
from sim.components.mapf_group import MAPF_GROUP, MapfGroup
from sim.components.terrain import TerrainPatch
from sim.components.terrain_legend import TerrainLegend
from sim.config import AgentConfig, Planner, Tag
from sim.scene.grid import obstacle_box
from sim.scene.links import nav_links

if TYPE_CHECKING:
    from panda3d.core import NodePath

    from sim.components.crowd_sim import CrowdSim
    from sim.engine import GameObject, World
    from sim.scene.spec import SceneSpec


def add_grid_manager(world: World, scene: SceneSpec) -> GridManager:
    """Spawn the grid manager of `scene`'s grid."""
    grid = scene.grid
    manager = GridManager(
        origin=grid.origin,
        num_of_rows=grid.rows,
        num_of_columns=grid.columns,
        grid_cell_size=grid.cell_size,
        rule=grid.rule,
    )
    manager.links = nav_links(scene.links, grid.origin, grid.cell_size)
    world.spawn("grid-manager").add_component(manager)
    if manager.links:
        world.spawn("links").add_component(LinkView(manager))
    return manager


def note_obstacles_off_the_grid(scene: SceneSpec, grid: GridManager) -> None:
    """Print once, at startup, each obstacle the grid clips (part or all of it is ignored)."""
    for spec in scene.objects_with_tag(Tag.OBSTACLE):
        note = grid.outside_note(spec.name, obstacle_box(spec))
        if note is not None:
            tell(f"sim: note: {note}")


def replan_interval(scene: SceneSpec) -> float:
    """The first agent's replan interval in seconds (1 s without agents), for the shared plans."""
    agents = scene.objects_with_tag(Tag.AGENT)
    return agents[0].agent.replan_interval_s if agents and agents[0].agent else 1.0


def add_crowd_field(world: World, grid: GridManager, scene: SceneSpec) -> CrowdField:
    """Spawn the shared plans, with the scene's ``[grid] replan_budget_ms`` (none: no budget)."""
    field = CrowdField(
        grid,
        replan_interval_s=replan_interval(scene),
        replan_budget_ms=scene.grid.replan_budget_ms,
    )
    return world.spawn("crowd-field").add_component(field)


def add_agents(
    scene: SceneSpec,
    objects: Sequence[GameObject],
    *,
    grid: GridManager,
    crowd: CrowdField,
    crowd_sim: CrowdSim,
    dragging: Callable[[], bool],
) -> list[AgentController]:
    """Give each Agent object (`objects` as built from `scene`) its controller.

    The agents with ``planner = "mapf"`` also get one `MapfGroup` (a game object of its own,
    `MAPF_GROUP`, updated after them) that plans them together with the scene's `[mapf]`.
    """
    controllers: list[AgentController] = []
    for spec, game_object in zip(scene.objects, objects, strict=True):
        if spec.tag == Tag.AGENT:
            config = spec.agent or AgentConfig()
            controller = AgentController(
                grid,
                config,
                crowd=crowd,
                dragging=dragging,
                draw_route=len(controllers) < ROUTES_DRAWN,
                compare_fresh=not controllers,  # the HUD's agent: the others need no A*
                crowd_sim=crowd_sim,
            )
            controllers.append(game_object.add_component(controller))
    joint = [agent for agent in controllers if agent.config.planner is Planner.MAPF]
    world = crowd_sim.world
    if joint and world is not None:
        group = MapfGroup(grid, scene.mapf, joint, crowd_sim.crowd)
        world.spawn(MAPF_GROUP).add_component(group)
    return controllers


def add_terrain(
    world: World, scene: SceneSpec, objects: Sequence[GameObject], *, legend_parent: NodePath
) -> TerrainLegend | None:
    """Give each Terrain object its cost; a scene with terrain gets the HUD's cost legend."""
    patches = [
        game_object.add_component(TerrainPatch(spec.terrain_cost, spec.terrain_area))
        for spec, game_object in zip(scene.objects, objects, strict=True)
        if spec.terrain_cost is not None
    ]
    if not patches:
        return None
    return world.spawn("terrain-legend").add_component(TerrainLegend(legend_parent))
