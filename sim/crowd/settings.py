"""The tunables of a crowd's step (`StepSettings`), shared by the crowd and lone agents."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class StepSettings:
    """The crowd's tunables; seconds and world units unless said otherwise.

    Attributes:
        time_horizon_s: How far ahead ORCA looks for collisions (its author's advice: 2 s).
        max_neighbours: The nearest agents each avoids.
        rest_priority: ORCA priority of agents at rest (arrived, waiting), against 1 for
            those moving: they make most of a turn, so newcomers pass them.
        walled_priority: ORCA priority of agents against a wall, or that a wall stopped or
            turned last frame: they cannot make their share of a turn, so their neighbours
            make most of it.
        arrive_time_s: Near the goal an agent wants no more speed than covers the distance
            left in this time, so it settles instead of pressing on.
        home_speed: An arrived agent pushed from its place goes back to it at no more than
            this fraction of its speed.
        still_reach: An agent that stays within this fraction of its radius of where it
            stood counts as standing still (jostled in a crowd, it never stops dead).
        still_frames: Frames it must stand still to arrive by touching the cluster.
        touch_margin: Two discs touch within this fraction of their radii's sum apart.
        near_radii: Within the cluster's radius plus this many of its own radii an agent is
            near the goal (no sidestep; may join the cluster).
        stuck_frames: Frames held back by walls after which a group on a changed grid takes
            its new field at once.
        part_beyond: Discs overlapping deeper than this fraction of their radii's sum are
            pushed apart (`sim.crowd.parting.part_discs`).
        part_passes: How many times a frame the overlapping pairs are pushed apart.
        settle_passes: How many more times the pairs still overlapping deeper than
            `settle_beyond` of their radii's sum are (a crowd pressing from every side
            leaves a few; 10,000 agents squeezing through a wall's gap needed more than 4).
    """

    time_horizon_s: float = 2.0
    neighbour_time_s: float = 1.0
    max_neighbours: int = 10
    rest_priority: float = 0.2
    walled_priority: float = 4.0
    arrive_time_s: float = 0.5
    home_speed: float = 0.3
    still_reach: float = 0.25
    still_frames: int = 6
    touch_margin: float = 0.1
    near_radii: float = 6.0
    stuck_frames: int = 30
    part_beyond: float = 0.0
    part_passes: int = 6
    settle_passes: int = 8
    settle_beyond: float = 0.04

    def neighbour_dist(self, speeds: NDArray[np.float64], radii: NDArray[np.float64]) -> float:
        """How far agents look for neighbours.

        `neighbour_time_s` of the fastest speed, plus two of the largest radii.
        """
        if not len(speeds):
            return 0.0
        return float(speeds.max()) * self.neighbour_time_s + 2.0 * float(radii.max())
