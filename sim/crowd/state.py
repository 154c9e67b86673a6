"""What an agent is doing and why it replanned: the words the HUD, the report and tests use.

`sim.crowd.crowd.Crowd` keeps these for every agent; `sim.components.agent_controller`
exports them too.
"""

from __future__ import annotations

from enum import StrEnum


class ReplanCause(StrEnum):
    """Why an agent replanned, as the HUD and the report count it (`replans_by_cause`).

    Every replan has exactly one. `PATH_CUT`: a cell its remaining route crosses became
    blocked, or an obstacle moved onto it and pushed it aside, or a step it had to take turned
    out blocked. `GOAL_MOVED`: the goal it chases went to another cell, or (patrolling) it
    turned round for the other end. `INTERVAL`: everything else, which is the interval itself
    and the replans asked for from outside: the first plan, R, M, a drop, a changed cell cost
    (U) or planner setting (K, N).
    """

    INTERVAL = "interval"
    PATH_CUT = "path_cut"
    GOAL_MOVED = "goal_moved"


CAUSES = frozenset(cause.value for cause in ReplanCause)


class AgentState(StrEnum):
    """What the agent is doing, as the HUD and the report show it."""

    IDLE = "idle"  # nothing to go to: the scene has no End (or no Start, in patrol)
    MOVING = "moving"
    ARRIVED = "arrived"
    NO_PATH = "no path"
