"""LinkRoute: a self-steered agent's route across the scene's links, leg by leg.

`AgentController` plans as always; when the scene has links (`GridManager.links`) it asks this
for its waypoints instead of the plan's own: the path cut into legs at each link it takes
(`sim.crowd.rules.link_crossing`), each leg smoothed on its own (a smoothed line never jumps a
link), the first leg's waypoints now. At the end of a leg the agent crosses the link (`begin`,
then `step` every frame until it is over: a jump arcs, a ladder climbs, a teleport blinks) in
``cost * cell_size / speed`` seconds, and walks the next leg.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from panda3d.core import NodePath

from sim.crowd.rules.link_crossing import Crossing, Leg, leg_points, route_legs
from sim.navigation.line_of_sight import smooth_path
from sim.navigation.links import link_hops

if TYPE_CHECKING:
    from sim.components.grid_manager import GridManager, PlanOutcome

Cell = tuple[int, int]
Point = tuple[float, float]


class LinkRoute:
    """The legs of an agent's route still to walk, and the link it crosses now, if any."""

    def __init__(self, grid: GridManager) -> None:
        self._grid = grid
        self._legs: list[Leg] = []
        self._goal: Point | None = None
        self._smoothing: NDArray[np.bool_] | None = None
        self.crossing: Crossing | None = None
        self._ground_z = 0.0  # the node's z before the crossing lifted it

    @property
    def link_ahead(self) -> bool:
        """Whether the leg it walks ends at a link (its last waypoint is the link's foot)."""
        return bool(self._legs) and self._legs[0].link is not None

    def waypoints(
        self,
        outcome: PlanOutcome,
        *,
        radius: float,
        allowed: NDArray[np.bool_] | None,
        smoothing: bool,
    ) -> list[Point]:
        """A new plan's waypoints: its first leg's (the whole path's if it takes no link).

        `outcome` is a plan found without smoothing; `radius` and `allowed` say where a leg
        may be smoothed across (`GridManager.smoothing_mask`, the agent's areas).
        """
        grid = self._grid
        self.crossing = None
        cells = list(outcome.cells)
        self._legs = route_legs(cells, link_hops(cells, grid.links))
        self._goal = outcome.waypoints[-1] if outcome.waypoints else None
        mask = grid.smoothing_mask(radius) if radius > 0.0 else grid.walkable
        self._smoothing = (mask if allowed is None else mask & allowed) if smoothing else None
        return self._leg_points()

    def begin(self, here: Point, speed: float) -> None:
        """Cross the link at the end of the leg walked now, from `here`, at `speed`.

        Nothing when that leg ends at no link (`link_ahead` is False).
        """
        link = self._legs[0].link if self._legs else None
        if link is None:
            return
        self._legs.pop(0)
        end = self._grid.cell_to_world(self._legs[0].cells[0])
        duration = link.cost * self._grid.grid_cell_size / speed if speed > 0.0 else 0.0
        self.crossing = Crossing(link.kind, here, end, duration_s=duration)

    def step(
        self, crossing: Crossing, dt: float, node: NodePath
    ) -> tuple[Point, list[Point] | None]:
        """Cross on for `dt`, posing `node`: where it is now, and the next leg's waypoints.

        The waypoints are None while it is still crossing; then the node stands on the ground
        again, shown.
        """
        if crossing.elapsed_s == 0.0:
            self._ground_z = float(node.get_z())
        done = crossing.advance(dt)
        x, y, height, shown = crossing.pose()
        node.set_z(self._ground_z + height)
        if shown:
            node.show()
        else:
            node.hide()
        if not done:
            return (x, y), None
        self.crossing = None
        return (x, y), self._leg_points()

    def clear(self, node: NodePath) -> None:
        """Forget the route and any crossing (a reset): `node` stands on the ground, shown."""
        if self.crossing is not None:
            node.set_z(self._ground_z)
            node.show()
        self._legs, self.crossing = [], None

    def _leg_points(self) -> list[Point]:
        leg = self._legs[0]
        points = leg_points(leg, self._grid.cell_to_world, self._smooth)
        if leg.link is None and self._goal is not None:
            points[-1] = self._goal  # the goal point itself, as the plan ends
        return points

    def _smooth(self, cells: Sequence[Cell]) -> list[Cell]:
        if self._smoothing is None:
            return list(cells)
        return list(smooth_path(self._smoothing, list(cells), costs=self._grid.costs))
