"""What the HUD says and what the JSON report holds about the path, the agents and the grid."""

from __future__ import annotations

import math
from typing import Any

from sim.components.agent_controller import AgentController, AgentState
from sim.components.grid_manager import GridManager, PlanOutcome
from sim.navigation.catalogue import PLANNER, connectivity_label


def path_entry(outcome: PlanOutcome | None) -> dict[str, Any]:
    """The report's `path`: the Start -> End plan (found false with a reason when none)."""
    if outcome is None:
        return {"found": False, "reason": "the scene needs a Start and an End", "cells": []}
    return {
        "found": outcome.found,
        "reason": outcome.reason,
        "cells": [list(cell) for cell in outcome.cells],
        "cost": round(outcome.cost, 6) if outcome.found else None,
        "length": round(outcome.length, 6) if outcome.found else None,
        "expanded": outcome.expanded,
        "plan_ms": round(outcome.plan_ms, 3),
    }


def agent_entry(agent: AgentController) -> dict[str, Any]:
    """One agent in the report."""
    x, y = agent.position
    return {
        "name": agent.game_object.name,
        "pos": [round(x, 5), round(y, 5), round(float(agent.game_object.node.get_z()), 5)],
        "heading_deg": round(agent.heading_deg, 4),
        "mode": str(agent.mode),
        "state": str(agent.state),
        "reached_goal": agent.reached_goal,
        "arrivals": agent.arrivals,
        "replans": agent.replans,
        "distance_travelled": round(agent.distance_travelled, 5),
        "path_found": agent.outcome is not None and agent.outcome.found,
        "waypoints": [[round(x, 5), round(y, 5)] for x, y in agent.waypoints],
        "blocked_cell_frames": agent.blocked_cell_frames,
    }


def grid_entry(grid: GridManager) -> dict[str, Any]:
    """The report's `grid`."""
    return {
        "rows": grid.num_of_rows,
        "columns": grid.num_of_columns,
        "cell_size": grid.grid_cell_size,
        "origin": list(grid.origin),
        "connectivity": 8 if grid.diagonal else 4,
        "heuristic": grid.heuristic,
        "blocked_cells": grid.blocked_cells(),
        "version": grid.version,
    }


def path_lines(outcome: PlanOutcome | None, plans: int) -> list[str]:
    """HUD lines for the Start -> End path."""
    if outcome is None:
        return ["path: the scene needs a Start and an End"]
    if not outcome.found:
        return [f"NO PATH: {outcome.reason}", f"  {outcome.expanded} expanded, replans {plans}"]
    lines = [
        f"path: {outcome.length:.2f} long, cost {outcome.cost:.2f}, {len(outcome.cells)} cells",
        f"  {outcome.expanded} expanded in {outcome.plan_ms:.2f} ms, replans {plans}",
    ]
    if outcome.reason:
        lines.append(f"  note: {outcome.reason}")
    if len(outcome.cells) == 1:
        lines.append("  note: Start and End are on the same cell")
    return lines


def agent_line(agent: AgentController) -> str:
    """One HUD line per agent: mode, state, and why it stopped if it did."""
    line = f"{agent.game_object.name}: {agent.mode}, {agent.state}, replans {agent.replans}"
    if agent.state is AgentState.NO_PATH and agent.outcome is not None:
        line += f" ({agent.outcome.reason}; waiting)"
    return line


def planner_line(grid: GridManager) -> str:
    """Which search the planners run, e.g. "A* octile, 8-connected, 12 blocked cells"."""
    moves = connectivity_label(grid.diagonal)
    return f"{PLANNER.label} {grid.heuristic}, {moves}, {grid.blocked_cells()} blocked cells"


def fps_line(fps: float, *, paused: bool) -> str:
    """Frame rate, and PAUSED when simulated time stands still."""
    text = f"{fps:4.0f} fps" if math.isfinite(fps) else "  -- fps"
    return text + ("   PAUSED" if paused else "")
