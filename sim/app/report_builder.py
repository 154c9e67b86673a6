"""Build the JSON run report (`sim.app.report.Report`) from the running app's parts.

The one place that turns live state into report values: each part reads only public state
(the grid manager, the Start -> End path, the agents, the search view and its panel, the
camera) and rounds it as the contract says (see `sim.app.report`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from panda3d.core import Point3

from sim.app.report import (
    AgentEntry,
    CameraEntry,
    CompareEntry,
    CrowdJamsEntry,
    EditorEntry,
    ExplanationEntry,
    GridEntry,
    MapfEntry,
    ObjectEntry,
    PathEntry,
    RaceLaneEntry,
    Report,
    ScriptsEntry,
    SearchViewEntry,
    SearchViewSettings,
)
from sim.components.agent_controller import ReplanCause
from sim.components.crowd_sim import CROWD_SIM, CrowdSim
from sim.components.mapf_group import MAPF_GROUP, MapfGroup
from sim.errors import storable
from sim.navigation import TerrainSummary, terrain_summary

if TYPE_CHECKING:
    from sim.app.mapf_playback import MapfPlayback
    from sim.app.messages import Messages
    from sim.components.agent_controller import AgentController
    from sim.components.grid_manager import GridManager, PlanOutcome
    from sim.components.hud import Hud
    from sim.components.start_end_path import StartEndPath
    from sim.editor.editor import SceneEditor
    from sim.editor.workspace import Workspace
    from sim.engine import GameObject, World
    from sim.engine.camera import CameraPose, OrbitCamera
    from sim.engine.lighting import Look
    from sim.navigation.regions.explain import NoPathExplanation
    from sim.navigation.replay.compare import ComparisonRow
    from sim.search_view.panel import SearchPanel
    from sim.search_view.view import SearchView

ScreenOf = Callable[[Point3], tuple[int, int] | None]
NO_ENDS_REASON = "the scene needs a Start and an End"


@dataclass(frozen=True, slots=True)
class ReportParts:
    """The live parts the report reads (each read when the report is built).

    Attributes:
        scene_path: The scene file's path, as the report names it.
        look_asked: The look `sim run --look` asked for ("auto", "full", "plain").
        world: The world (its simulated time).
        camera: The orbit camera.
        grid: The grid manager.
        path: The Start -> End path.
        objects: The scene's objects (the editor adds to and removes from this list).
        agents: The agents (likewise).
        hud: The HUD.
        messages: The HUD's messages (the report keeps their history).
        search_view: The search view.
        search_panel: Its panel.
        race: The race (its lanes, or None while closed).
        editor: The scene editor.
        window_size: The window's size in pixels now.
        fps: The frame rate now, frames per wall-clock second (the HUD's).
        screen_of: Where an object shows in the window, if it does.
        screen_of_point: Where a world point shows in the window, if it does.
        scripts: The report's `scripts` (`sim.app.script_gate.ScriptGate.entry`).
        mapf_playback: The MAPF plan playing, if one is (`sim run MAP.map --agents K`).
        workspace: The hierarchy and the handles, where the window has them.
    """

    scene_path: str
    look_asked: str
    world: World
    camera: OrbitCamera
    grid: GridManager
    path: StartEndPath
    objects: Sequence[GameObject]
    agents: Sequence[AgentController]
    hud: Hud
    messages: Messages
    search_view: SearchView
    search_panel: SearchPanel
    race: Callable[[], list[RaceLaneEntry] | None]
    editor: SceneEditor
    window_size: Callable[[], tuple[int, int]]
    fps: Callable[[], float]
    screen_of: Callable[[GameObject], tuple[int, int] | None]
    screen_of_point: ScreenOf
    scripts: Callable[[], ScriptsEntry]
    mapf_playback: Callable[[], MapfPlayback | None]
    workspace: Workspace | None = None


def build_report(parts: ReportParts, *, frames: int, look: Look, errors: list[str]) -> Report:
    """The report as it stands now (docs/command-line.md, "The JSON report"), after `frames` frames.

    `look` is the look as it is now (an auto look drops its shadows while slow); `errors` the
    run's errors so far. Text that may hold a file name is kept valid UTF-8 (`storable`).
    """
    window_size = parts.window_size()
    report: Report = {
        "scene": storable(parts.scene_path),
        "frames": frames,
        "sim_time_s": round(parts.world.time_s, 6),
        "window": {
            "size": list(window_size),
            "shadows": look.shadows,
            "multisamples": look.multisamples,
            "look": parts.look_asked,
            "fps": round(parts.fps(), 2),
        },
        "camera": camera_entry(parts.camera.pose),
        "grid": grid_entry(parts.grid),
        "path": path_entry(
            parts.path.outcome,
            parts.grid,
            parts.screen_of_point,
            explanation=parts.path.explanation,
        ),
        "objects": [object_entry(obj, parts.screen_of) for obj in parts.objects if obj.alive],
        "agents": [agent_entry(agent) for agent in parts.agents],
        "hud": storable(parts.hud.text()),
        "search_view": search_view_entry(
            parts.search_view, parts.search_panel, window_size, race=parts.race()
        ),
        "editor": editor_entry(parts.editor, parts.workspace, parts.screen_of_point, window_size),
        "errors": [storable(error) for error in errors],
        "scripts": parts.scripts(),
        "messages": [storable(message) for message in parts.messages.history()],
        "mapf": mapf_entry(parts.world),
    }
    jams = crowd_jams_entry(parts.world)
    if jams is not None:
        report["crowd_jams"] = jams
    playback = parts.mapf_playback()
    if playback is not None:
        report["mapf_playback"] = playback.entry()
    return report


def editor_entry(
    editor: SceneEditor,
    workspace: Workspace | None = None,
    screen_of_point: ScreenOf | None = None,
    window_size: tuple[int, int] = (0, 0),
) -> EditorEntry:
    """`editor`: the undo and redo depths and the inspector's selection (a live object's name).

    With a `workspace`, also where its handles and hierarchy rows show (`EditorEntry`).
    """
    selected = editor.selected
    entry: EditorEntry = {
        "undo_depth": editor.history.undo_depth,
        "redo_depth": editor.history.redo_depth,
        "selected": selected.name if selected is not None and selected.alive else None,
    }
    if workspace is None or screen_of_point is None:
        return entry
    shown = {name: screen_of_point(point) for name, point in workspace.handle_points().items()}
    entry["handles"] = {name: list(pixel) for name, pixel in shown.items() if pixel is not None}
    width, height = window_size
    entry["hierarchy"] = [
        {"label": label, "screen": [int((x + 1) / 2 * width), int((1 - y) / 2 * height)]}
        for label, (x, y) in workspace.hierarchy.panel.drawn_rows()
    ]
    return entry


def camera_entry(pose: CameraPose) -> CameraEntry:
    """`camera`: the orbit camera's pose."""
    return {
        "target": [round(value, 5) for value in pose.target],
        "distance": round(pose.distance, 5),
        "heading_deg": round(pose.heading_deg, 4),
        "pitch_deg": round(pose.pitch_deg, 4),
    }


def grid_entry(grid: GridManager) -> GridEntry:
    """`grid`: the grid's shape, planner settings and terrain (over walkable cells only)."""
    costs = grid.costs
    terrain = (
        TerrainSummary(0, 1.0, 1.0) if costs is None else terrain_summary(costs, grid.walkable)
    )
    return {
        "rows": grid.num_of_rows,
        "columns": grid.num_of_columns,
        "cell_size": grid.grid_cell_size,
        "origin": list(grid.origin),
        "connectivity": 8 if grid.diagonal else 4,
        "diagonal": grid.rule.value,
        "heuristic": grid.heuristic,
        "blocked_cells": grid.blocked_cells(),
        "terrain_cells": terrain.cells,
        "cost_range": [round(terrain.lowest, 6), round(terrain.highest, 6)],
        "version": grid.version,
    }


def path_entry(
    outcome: PlanOutcome | None,
    grid: GridManager,
    screen_of_point: ScreenOf,
    *,
    explanation: NoPathExplanation | None = None,
) -> PathEntry:
    """`path`: the Start -> End plan, `screen` the pixel of each cell's centre on the ground.

    `explanation` is why there is no path, when Start and End lie in different regions.
    """
    if outcome is None:
        return {"found": False, "reason": NO_ENDS_REASON, "cells": [], "screen": []}
    cells = [list(cell) for cell in outcome.cells]
    return {
        "found": outcome.found,
        "reason": outcome.reason,
        "cells": cells,
        "cost": round(outcome.cost, 6) if outcome.found else None,
        "length": round(outcome.length, 6) if outcome.found else None,
        "expanded": outcome.expanded,
        "plan_ms": round(outcome.plan_ms, 3),
        "screen": [
            _screen(screen_of_point(Point3(*grid.cell_to_world(cell), 0.0)))
            for cell in outcome.cells
        ],
        "explanation": None if explanation is None else explanation_entry(explanation),
    }


def explanation_entry(why: NoPathExplanation) -> ExplanationEntry:
    """`path.explanation`: the regions' sizes and the cells to open."""
    return {
        "start_region_cells": why.start_region_cells,
        "goal_region_cells": why.goal_region_cells,
        "fix_cells": [list(cell) for cell in why.fix_cells],
    }


def object_entry(
    game_object: GameObject, screen_of: Callable[[GameObject], tuple[int, int] | None]
) -> ObjectEntry:
    """One of `objects`: name, tag, world position, scale, heading, pixel (or None)."""
    node = game_object.node
    top = node.get_top()
    return {
        "name": game_object.name,
        "tag": str(game_object.tag),
        "pos": _rounded(game_object.world_pos),
        "scale": _rounded(node.get_scale(top)),
        "heading": round(float(node.get_h(top)), 4),
        "screen": _screen(screen_of(game_object)),
    }


def agent_entry(agent: AgentController) -> AgentEntry:
    """One of `agents`."""
    x, y = agent.position
    found = agent.outcome is not None and agent.outcome.found
    return {
        "name": agent.game_object.name,
        "radius": agent.config.radius,
        "pos": [round(x, 5), round(y, 5), round(agent.game_object.world_pos[2], 5)],
        "heading_deg": round(agent.heading_deg, 4),
        "speed": round(agent.speed, 5),
        "mode": str(agent.mode),
        "state": str(agent.state),
        "reached_goal": agent.reached_goal,
        "arrivals": agent.arrivals,
        "replans": agent.replans,
        "distance_travelled": round(agent.distance_travelled, 5),
        "path_found": found,
        "path_cost": round(agent.outcome.cost, 6) if agent.outcome and found else None,
        "waypoints": [[round(x, 5), round(y, 5)] for x, y in agent.waypoints],
        "blocked_cell_frames": agent.blocked_cell_frames,
        "pushes": agent.pushes,
        "replans_by_cause": {
            "interval": agent.replans_by_cause[ReplanCause.INTERVAL],
            "path_cut": agent.replans_by_cause[ReplanCause.PATH_CUT],
            "goal_moved": agent.replans_by_cause[ReplanCause.GOAL_MOVED],
        },
        "expanded_total": agent.expanded_total,
        "planner": str(agent.config.planner),
    }


def mapf_entry(world: World) -> MapfEntry | None:
    """The scene's joint plan (`MapfGroup`), or None when no agent plans jointly."""
    holder = world.find(MAPF_GROUP)
    groups = (
        []
        if holder is None
        else [part for part in holder.components if isinstance(part, MapfGroup)]
    )
    if not groups:
        return None
    summary = groups[0].summary
    return {
        "solver": summary.solver,
        "solved": summary.solved,
        "soc": summary.soc,
        "makespan": summary.makespan,
        "replans": summary.replans,
        "agents": summary.agents,
    }


def crowd_jams_entry(world: World) -> CrowdJamsEntry | None:
    """The crowd's no-deadlock rule so far, or None without the scene's crowd."""
    holder = world.find(CROWD_SIM)
    sims = [] if holder is None else [c for c in holder.components if isinstance(c, CrowdSim)]
    if not sims:
        return None
    done = sims[0].crowd.jam_report()
    return {
        "jams": done.jams,
        "handoffs": done.handoffs,
        "handbacks": done.handbacks,
        "unsolved": done.unsolved,
        "under_plan": done.under_plan,
    }


def search_view_entry(
    view: SearchView,
    panel: SearchPanel,
    window_size: tuple[int, int],
    *,
    race: list[RaceLaneEntry] | None = None,
) -> SearchViewEntry:
    """`search_view`: the view's settings, where its replay stands, the table and the buttons."""
    settings = view.settings
    head: SearchViewSettings = {
        "open": view.opened,
        "algorithm": str(settings.choice),
        "heuristic": settings.heuristic,
        "weight": settings.weight,
        "connectivity": 8 if settings.diagonal else 4,
        "diagonal": settings.rule.value,
        "playing": view.playing,
        "steps_per_s": view.speed,
        "show_parents": view.show_parents,
        "show_numbers": view.show_numbers,
        "restarts": view.restarts,
        "message": view.message,
        "numbers_shown": view.numbers_shown,
        "search": settings.choice.algorithm.value,
        "race": race,
    }
    compare_open = panel.compare_open
    rows = [compare_entry(row) for row in panel.rows] if compare_open else []
    buttons = panel.button_pixels(window_size) if view.opened else {}
    replay = view.replay
    if replay is None:
        # Without a search the report has always listed these three in this order.
        return {
            **head,
            "step": None,
            "start": None,
            "goal": None,
            "compare_open": compare_open,
            "compare": rows,
            "buttons": buttons,
            "cost": None,
            "meeting_cell": None,
            "explanation": None,
        }
    frontier, expanded = view.counts()
    cost, meeting, why = view.finished_cost(), view.meeting_cell(), view.explanation()
    return {
        **head,
        "start": list(replay.log.start),
        "goal": list(replay.log.goal),
        "step": replay.step,
        "recorded": replay.log.recorded,
        "finished": replay.log.finished,
        "at_end": replay.at_end,
        "frontier_cells": frontier,
        "expanded_cells": expanded,
        "current": None if replay.current is None else list(replay.current),
        "path": [list(cell) for cell in replay.path],
        "compare_open": compare_open,
        "compare": rows,
        "buttons": buttons,
        "cost": None if cost is None else round(cost, 6),
        "meeting_cell": None if meeting is None else list(meeting),
        "explanation": None if why is None else explanation_entry(why),
    }


def compare_entry(row: ComparisonRow) -> CompareEntry:
    """One row of the comparison table."""
    return {
        "search": row.name,
        "found": row.found,
        "expanded": row.expanded,
        "cost": round(row.cost, 6) if row.found else None,
        "gap": None if row.gap is None else round(row.gap, 6),
        "optimal": row.optimal,
    }


def _screen(pixel: tuple[int, int] | None) -> list[int] | None:
    return None if pixel is None else list(pixel)


def _rounded(point: Iterable[float]) -> list[float]:
    return [round(float(value), 5) for value in point]
