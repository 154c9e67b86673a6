"""Random start and goal cells for an episode, drawn from the environment's seeded generator.

Starts are distinct walkable cells; each agent's goal is another cell of its start's connected
region (so every goal is reachable), and goals are distinct too. The draw depends only on the
generator's state, so the same seed gives the same episode.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from sim.envs.source import EnvError, GridSource


def random_pairs(
    source: GridSource, rng: np.random.Generator, count: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(starts, goals)``: `count` flat cells each, as the module says.

    Raises:
        EnvError: when the grid has fewer free cells than agents, or its regions cannot hold
            `count` distinct goals beside their starts.
    """
    regions = source.regions.reshape(-1)
    free = np.flatnonzero(regions >= 0)
    if count > len(free):
        raise EnvError(f"{count} agents do not fit on {source.name}'s {len(free)} free cells")
    sizes = np.bincount(regions[free])
    usable = free[sizes[regions[free]] >= 2]
    if count > len(usable):
        raise EnvError(
            f"{source.name} has {len(usable)} cells with somewhere to go; {count} agents need more"
        )
    starts = rng.choice(usable, size=count, replace=False)
    order, bounds = source.region_cells, source.region_bounds
    taken: set[int] = set()
    goals = np.empty(count, dtype=np.int64)
    for agent, start in enumerate(starts.tolist()):
        region = regions[start]
        cells = order[bounds[region] : bounds[region + 1]]
        goal = _draw_goal(cells, start, taken, rng)
        if goal is None:
            raise EnvError(f"{source.name}: no free goal left for {count} agents in one region")
        goals[agent] = goal
        taken.add(goal)
    return starts.astype(np.int64), goals


def _draw_goal(
    cells: NDArray[np.int64], start: int, taken: set[int], rng: np.random.Generator
) -> int | None:
    # A few draws settle almost every case; a crowded region falls back to listing what is left.
    for _ in range(8):
        goal = int(cells[rng.integers(len(cells))])
        if goal != start and goal not in taken:
            return goal
    left = [int(cell) for cell in cells if cell != start and int(cell) not in taken]
    return left[int(rng.integers(len(left)))] if left else None
