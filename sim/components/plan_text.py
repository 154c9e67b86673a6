"""The words of a plan: why there is no path, and what stood in for Start or End.

`GridManager.plan` and the crowd's field plans say them; the HUD and the report show them.
"""

from __future__ import annotations

from sim.navigation import Endpoints, Reason

REASON_TEXT = {
    Reason.GOAL_BLOCKED: "End lies inside an obstacle",
    Reason.START_BLOCKED: "Start lies inside an obstacle",
    Reason.UNREACHABLE: "End cannot be reached: walled in",
    Reason.GOAL_OUTSIDE: "End lies outside the grid",
}
NO_WALKABLE_TEXT = "the grid has no walkable cell"
NO_ROOM_TEXT = "no cell has room for the agent's size"


def endpoint_notes(ends: Endpoints) -> list[str]:
    """What the HUD says when Start or End stood inside an obstacle and a free cell stood in."""
    notes = []
    if ends.goal_moved:
        notes.append("End is inside an obstacle: using the nearest free cell")
    if ends.start_moved:
        notes.append("start is inside an obstacle: using the nearest free cell")
    return notes
