"""What the HUD and an agent's inspector say about the planner, the path and the agents.

The HUD keeps to plain words; the planner's own counts go to the inspector (`agent_details`).
The report is `sim.app.report`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from sim.components.agent_controller import AgentController, AgentState, ReplanCause
from sim.components.grid_manager import GridManager, PlanOutcome
from sim.config import AgentMode
from sim.engine import GameObject
from sim.errors import shown
from sim.navigation.catalogue import PLANNER, SearchKind, connectivity_label
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.heuristics import Heuristic
from sim.navigation.query import Algorithm, resolve_auto
from sim.navigation.regions.explain import NoPathExplanation

if TYPE_CHECKING:
    from sim.app.mapf_playback import MapfPlayback
    from sim.components.crowd_sim import CrowdSim
    from sim.components.start_end_path import StartEndPath

HUD_AGENT_LINES = 3  # past this many agents the HUD sums them up in one line
NO_AGENT_TEXT = "agents: none in this scene (an object tagged 'Agent' follows the path)"
SEP = " \u00b7 "  # a middle dot between the parts of one line


def status_lines(
    *,
    fps: float,
    paused: bool,
    scene_name: str,
    grid: GridManager,
    path: StartEndPath,
    agents: Sequence[AgentController],
    crowd_sim: CrowdSim,
    message: str | None,
    mapf: MapfPlayback | None = None,
) -> list[str]:
    """Everything the HUD shows now, with `message` (an edit's or a save's) last.

    Plain words: the path's notes (its line is the status bar's), at most one line per agent
    and one line for them all past `HUD_AGENT_LINES`; an agent's replans and searches are its
    inspector's (`agent_details`). Names the user chose (the scene's, in the message a file's)
    are shown escaped (`shown`). A MAPF plan playing (`mapf`) has its lines under the scene's name,
    instead of the line saying the scene has no agents.
    """
    lines = [
        fps_line(fps, paused=paused) + SEP + f"scene: {shown(scene_name)}",
        *([] if mapf is None else mapf.status_lines()),
        planner_line(grid),
        # The path's own line is the status bar's (`status_line`): said once, only its notes here.
        *path_lines(path.outcome, path.plans, path.explanation)[1:],
    ]
    if len(agents) > HUD_AGENT_LINES:
        if path.outcome is not None:  # without a path the status bar sums the agents up
            lines.append(agents_summary(len(agents), crowd_sim.state_counts()))
    else:
        lines += [agent_summary(agent) for agent in agents]
    if not agents and mapf is None:
        lines.append(NO_AGENT_TEXT)
    if message is not None:
        lines.append(shown(message))
    return lines


def status_bar_line(
    path: StartEndPath, agents: Sequence[AgentController], crowd_sim: CrowdSim
) -> str:
    """The status bar's line: the Start -> End path's, or what the agents do.

    A scene of agents without a Start and an End (a crowd walking to its own goals) has no path
    to miss, so its line sums the agents up instead.
    """
    if path.outcome is None and agents:
        return agents_summary(len(agents), crowd_sim.state_counts())
    return status_line(path.outcome, path.plans)


def status_line(outcome: PlanOutcome | None, plans: int) -> str:
    """The Start -> End path in one line of plain words (for a status bar).

    >>> print(status_line(PlanOutcome(found=True, cells=[1, 2, 3], length=23.6, expanded=8,
    ...                               plan_ms=0.153), 18))
    Path 23.6 long · 8 cells searched in 0.15 ms · replanned 18 times
    >>> print(status_line(PlanOutcome(found=False, reason="End is walled in", expanded=40), 1))
    No path: End is walled in · 40 cells searched · planned once
    """
    if outcome is None:
        return "No path: the scene needs a Start and an End"
    searched = f"{_count(outcome.expanded, 'cell')} searched"
    again = "planned once" if plans <= 1 else f"replanned {plans} times"
    if not outcome.found:
        return f"No path: {outcome.reason}" + SEP + searched + SEP + again
    return (
        f"Path {outcome.length:.1f} long"
        + SEP
        + f"{searched} in {outcome.plan_ms:.2f} ms"
        + SEP
        + again
    )


def agents_summary(count: int, states: Mapping[AgentState, int]) -> str:
    """One line for many agents: how many do what, e.g. "6 agents: 4 walking, 2 arrived".

    >>> agents_summary(6, {AgentState.MOVING: 4, AgentState.ARRIVED: 2})
    '6 agents: 4 walking, 2 arrived'
    """
    parts = [
        f"{states[state]} {STATE_WORDS[state]}"
        for state in (AgentState.MOVING, AgentState.ARRIVED, AgentState.NO_PATH, AgentState.IDLE)
        if states.get(state, 0)
    ]
    return f"{count} agents: " + (", ".join(parts) if parts else "none placed yet")


STATE_WORDS = {
    AgentState.MOVING: "walking",
    AgentState.ARRIVED: "arrived",
    AgentState.NO_PATH: "waiting (no path)",
    AgentState.IDLE: "idle",
}
"""How the HUD's summary names each state."""


def agent_summary(agent: AgentController) -> str:
    """One plain HUD line for an agent: what it does now, e.g. "agent: walking to End"."""
    name = agent.game_object.name
    lost = agent.lost_target
    if lost is not None:
        return f"{name}: waiting, its target {lost!r} is gone"
    state = agent.state
    if state is AgentState.MOVING:
        if agent.mode == AgentMode.PATROL:
            return f"{name}: patrolling"
        return f"{name}: walking to {agent.config.target or 'End'}"
    if state is AgentState.NO_PATH:
        return f"{name}: waiting, no path"
    if state is AgentState.IDLE:
        return f"{name}: idle, nothing to go to"
    return f"{name}: arrived"


def agent_details(obj: GameObject) -> list[str]:
    """The inspector's lines about an agent: its replans by cause and its last search.

    Nothing for an object that is not an agent.
    """
    agent = obj.get_component(AgentController)
    if agent is None:
        return []
    replan = replan_line(agent)
    return [agent_line(agent), *([] if replan is None else [replan.strip()])]


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def path_lines(
    outcome: PlanOutcome | None, plans: int, explanation: NoPathExplanation | None = None
) -> list[str]:
    """HUD lines for the Start -> End path, and why there is none when `explanation` says.

    The first is `status_line`; notes follow it.
    """
    if outcome is None or not outcome.found:
        lines = [status_line(outcome, plans)]
        return lines + ([] if explanation is None else no_path_lines(explanation))
    lines = [status_line(outcome, plans)]
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
"""How the inspector names each replan cause: short, the line is long already."""


def agent_line(agent: AgentController) -> str:
    """An agent's details for its inspector: mode, state, replans by cause, why it stopped.

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
    # Short enough for the inspector's panel at 800 pixels across.
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
    """Frame rate, and PAUSED when simulated time stands still; "--" before one is known.

    >>> fps_line(59.7, paused=False), fps_line(0.0, paused=True)
    ('  60 fps', '  -- fps   PAUSED')
    """
    text = f"{fps:4.0f} fps" if math.isfinite(fps) and fps > 0 else "  -- fps"
    return text + ("   PAUSED" if paused else "")
