"""What the HUD says about the planner, the path and the agents (the report is `sim.app.report`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sim.components.agent_controller import AgentController, AgentState, ReplanCause
from sim.components.grid_manager import GridManager, PlanOutcome
from sim.errors import shown
from sim.navigation.catalogue import PLANNER, SearchKind, connectivity_label
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.heuristics import Heuristic
from sim.navigation.query import Algorithm, resolve_auto
from sim.navigation.regions.explain import NoPathExplanation

if TYPE_CHECKING:
    from sim.app.mapf_playback import MapfPlayback
    from sim.components.crowd import CrowdField
    from sim.components.crowd_sim import CrowdSim
    from sim.components.start_end_path import StartEndPath

HUD_AGENT_LINES = 8  # past this many agents the HUD sums them up in one line
NO_AGENT_TEXT = "agents: none in this scene (an object tagged 'Agent' follows the path)"


def status_lines(
    *,
    fps: float,
    paused: bool,
    scene_name: str,
    grid: GridManager,
    path: StartEndPath,
    agents: Sequence[AgentController],
    crowd_sim: CrowdSim,
    crowd: CrowdField,
    message: str | None,
    mapf: MapfPlayback | None = None,
) -> list[str]:
    """Everything the HUD shows now, with `message` (an edit's or a save's) last.

    Names the user chose (the scene's, in the message a file's) are shown escaped (`shown`).
    A MAPF plan playing (`mapf`) has its lines under the scene's name, instead of the line
    saying the scene has no agents.
    """
    lines = [
        fps_line(fps, paused=paused),
        f"scene: {shown(scene_name)}",
        *([] if mapf is None else mapf.status_lines()),
        planner_line(grid),
        *path_lines(path.outcome, path.plans, path.explanation),
    ]
    if len(agents) > HUD_AGENT_LINES:
        states = crowd_sim.state_counts()
        fields = crowd.active_goals
        mode = {0: "A* each", 1: "one shared field"}.get(fields, f"{fields} shared fields")
        line = f"agents: {len(agents)} ({mode}), {states[AgentState.ARRIVED]} arrived"
        if states[AgentState.NO_PATH]:
            line += f", {states[AgentState.NO_PATH]} no path (waiting)"
        lines.append(line)
    else:
        lines += [agent_line(agent) for agent in agents]
        replan = replan_line(agents[0]) if agents else None
        lines += [] if replan is None else [replan]
    if not agents and mapf is None:
        lines.append(NO_AGENT_TEXT)
    if message is not None:
        lines.append(shown(message))
    return lines


def path_lines(
    outcome: PlanOutcome | None, plans: int, explanation: NoPathExplanation | None = None
) -> list[str]:
    """HUD lines for the Start -> End path, and why there is none when `explanation` says."""
    if outcome is None:
        return ["path: the scene needs a Start and an End"]
    if not outcome.found:
        lines = [f"NO PATH: {outcome.reason}", f"  {outcome.expanded} expanded, replans {plans}"]
        return lines + ([] if explanation is None else no_path_lines(explanation))
    lines = [
        f"path: {outcome.length:.2f} long, cost {outcome.cost:.2f}, {len(outcome.cells)} cells",
        f"  {outcome.expanded} expanded in {outcome.plan_ms:.2f} ms, replans {plans}",
    ]
    if outcome.reason:
        lines.append(f"  note: {outcome.reason}")
    if len(outcome.cells) == 1:
        lines.append("  note: Start and End are on the same cell")
    return lines


def no_path_lines(why: NoPathExplanation) -> list[str]:
    """What the HUD says of a missing path: the cells to remove, the regions' sizes.

    The colours are those of `sim.components.no_path`, which shades them on the ground.

    >>> import numpy as np
    >>> from sim.navigation.regions.explain import explain_no_path
    >>> walkable = np.array([[1, 0, 0, 1, 1]], dtype=bool)
    >>> for line in no_path_lines(explain_no_path(walkable, (0, 0), (0, 4))):
    ...     print(line)
      No path: remove these 2 cells (yellow) to join Start and End
      Start's region (blue): 1 cell, End's (purple): 2 cells
    """
    count = len(why.fix_cells)
    return [
        f"  No path: remove {'this cell' if count == 1 else f'these {count} cells'} (yellow)"
        " to join Start and End",
        f"  Start's region (blue): {_cells(why.start_region_cells)},"
        f" End's (purple): {_cells(why.goal_region_cells)}",
    ]


def _cells(count: int) -> str:
    return f"{count} cell" if count == 1 else f"{count} cells"


CAUSE_WORDS = {
    ReplanCause.INTERVAL: "interval",
    ReplanCause.PATH_CUT: "cut",
    ReplanCause.GOAL_MOVED: "goal",
}
"""How the HUD names each replan cause: short, the line is long already."""


def agent_line(agent: AgentController) -> str:
    """One HUD line per agent: mode, state, replans by cause, why it stopped or goes elsewhere.

    E.g. "agent: chase, moving, replans 9 (6 interval, 2 cut, 1 goal)".
    """
    causes = ", ".join(
        f"{agent.replans_by_cause[cause]} {CAUSE_WORDS[cause]}" for cause in ReplanCause
    )
    line = f"{agent.game_object.name}: {agent.mode}, {agent.state}, replans {agent.replans}"
    line += f" ({causes})"
    if agent.pushes:
        line += f", pushed {agent.pushes}"
    lost = agent.lost_target
    if lost is not None:
        line += f" (target {lost!r} is gone)"
    elif agent.state is AgentState.NO_PATH and agent.outcome is not None:
        line += f" ({agent.outcome.reason}; waiting)"
    elif agent.outcome is not None and agent.outcome.reason:
        line += f" ({agent.outcome.reason})"
    return line


def replan_line(agent: AgentController) -> str | None:
    """The agent's last replan: what its incremental search expanded, and A* from scratch's.

    Both on the same grid between the same cells; None without such a plan (a crowd's, or the
    agent does not compare: `AgentController.compare_fresh`).

    E.g. "  last replan (cut): repaired, 31 expanded (fresh A*: 412)": A* from scratch expanded
    412 cells for the same plan.
    """
    outcome, cause = agent.outcome, agent.last_cause
    if outcome is None or cause is None or outcome.fresh_expanded is None:
        return None
    if outcome.expanded == 0 and outcome.fresh_expanded == 0:
        # Start on the goal cell, or a proof that the goal is cut off: neither search ran.
        return f"  last replan ({CAUSE_WORDS[cause]}): answered without a search"
    how = "repaired" if outcome.repaired else "new search"
    # Short enough not to wrap in an 800-pixel window: the HUD wraps before the middle.
    return (
        f"  last replan ({CAUSE_WORDS[cause]}): {how}, {outcome.expanded} expanded"
        f" (fresh A*: {outcome.fresh_expanded})"
    )


def planner_line(grid: GridManager) -> str:
    """Which search the planners run, e.g. "A* octile, 8-connected, 12 blocked cells".

    The planner asks for the fastest exact search (`resolve_auto`), so the line names the one
    that runs: "JPS octile, 8-connected, ..." on a grid without terrain costs. Under the rules
    that pass blocked corners the rule follows: "8-connected (always)".
    """
    moves = connectivity_label(grid.diagonal)
    if grid.rule in (DiagonalRule.ONE_OBSTACLE, DiagonalRule.ALWAYS):
        moves += f" ({grid.rule.value})"
    runs = resolve_auto(
        grid.walkable,
        grid.costs,
        diagonal=grid.rule,
        heuristic=Heuristic(grid.heuristic),
        weight=1.0,
    )
    label = SearchKind.JPS.label if runs is Algorithm.JPS else PLANNER.label
    return f"{label} {grid.heuristic}, {moves}, {grid.blocked_cells()} blocked cells"


def fps_line(fps: float, *, paused: bool) -> str:
    """Frame rate, and PAUSED when simulated time stands still."""
    text = f"{fps:4.0f} fps" if math.isfinite(fps) else "  -- fps"
    return text + ("   PAUSED" if paused else "")
