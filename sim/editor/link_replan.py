"""Which agents a moved link matters to, so that they replan at once rather than on their interval.

A link's end dragged (or a drag undone or redone) changes every planner's graph. An agent's
plan may change only if (`link_matters`):

- it has no path (the link may give it one), or is driven by a crowd (the crowd plans shared
  fields by goal, not routes one can look at here);
- its path crosses the link as it was: one of its steps is a lane of the old link;
- the link as it is now could make its path cheaper: the cheapest conceivable way through it,
  from where the agent planned to its goal (straight lines at the grid's cheapest cell cost to
  the link's entry and from its exit, which a path through cells can only lengthen, plus the
  link's own cost), costs less than its plan. An agent that walked on along its plan has the
  same bound less what it walked, so the test from the plan's start misses none.

Everyone else's plan stays optimal for the new graph and is left alone.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from sim.components.agent_controller import AgentController
from sim.components.grid_manager import GridManager
from sim.navigation.links import NavLink, lanes
from sim.scene.links import nav_links
from sim.scene.spec import LinkSpec


def agents_to_replan(
    agents: Sequence[AgentController], before: LinkSpec, after: LinkSpec, grid: GridManager
) -> list[AgentController]:
    """The `agents` whose plans the move of a link from `before` to `after` matters to."""
    old, new = nav_links([before, after], grid.origin, grid.grid_cell_size)
    cheapest = _cheapest_cell(grid)
    return [agent for agent in agents if link_matters(agent, old, new, after, grid, cheapest)]


def link_matters(
    agent: AgentController,
    old: NavLink,
    new: NavLink,
    after: LinkSpec,
    grid: GridManager,
    cheapest: float,
) -> bool:
    """Whether `agent`'s plan may change with the link moved from `old` to `new` (the module)."""
    outcome = agent.outcome
    if agent.driven or outcome is None or not outcome.found or not outcome.cells:
        return True
    steps = set(itertools.pairwise(outcome.cells))
    crossed = any(
        pair in steps or (old.bidirectional and pair[::-1] in steps) for pair in lanes(old)
    )
    if crossed:
        return True
    start = grid.cell_to_world(outcome.cells[0])
    goal = grid.cell_to_world(outcome.cells[-1])
    size = grid.grid_cell_size
    spread = new.width * size  # a wide link's lanes lie up to this far from its own ends
    ways = [(after.start, after.end)]
    if new.bidirectional:
        ways.append((after.end, after.start))
    for entry, exit_ in ways:
        walk = max(math.dist(start, entry) - spread, 0.0) + max(math.dist(exit_, goal) - spread, 0)
        if walk * cheapest + new.cost * size < outcome.cost:
            return True
    return False


def _cheapest_cell(grid: GridManager) -> float:
    """The lowest cost of a walkable cell (1 without costs): a step costs at least its length."""
    costs = grid.costs
    if costs is None:
        return 1.0
    walkable = grid.walkable
    return float(np.min(costs[walkable])) if walkable.any() else 1.0
