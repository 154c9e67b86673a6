"""The targets a crowd's agents chase, and per target the shared field its driven agents follow.

`TargetKeys` names what each agent chases as a small integer: 0 the End-tagged object, 1 the
Start-tagged one (where patrolling agents turn back), then each `target = "NAME"` in order of
first use. `TargetGroup` is the state of one target's driven agents: the distance field they
follow (`SharedFields.goal_field`, shared with every agent chasing the same cell), the aim of each
cell for each radius (`sim.crowd.field_aim`), the goal point they gather at, and when the
field was last taken, so the group takes a new one only when its agents need it (see
`sim.crowd.crowd`): the target went to another cell, the grid changed under their aims, an
agent asked, or an interval passed on a grid that changed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from sim.crowd.field_aim import AimTable
from sim.crowd.field_routes import DescentTables
from sim.crowd.grid import Cell, CrowdGrid, Point
from sim.crowd.links.hops import Hop
from sim.navigation.clearance import clearance

END_KEY = 0
START_KEY = 1


class SharedField(Protocol):
    """One goal cell's distance field, as the crowd reads it (read-only).

    Attributes:
        version: The grid's `version` it was computed on.
        goal: The goal's flat cell.
        costs: The field, flat, inf where the goal cannot be reached.
        tables: Its descent tables.
    """

    version: int
    goal: int
    costs: list[float]
    tables: DescentTables

    @property
    def hops(self) -> Mapping[int, Hop]:
        """The cells whose way down is a link (`sim.crowd.links.hops`)."""


class SharedFields(Protocol):
    """The scene's distance fields, one per goal cell, shared by every agent chasing it.

    Attributes:
        threshold: Agents sharing a target from which the crowd drives them.
        replan_interval_s: How often a group on a changed grid takes its field again.
    """

    threshold: int
    replan_interval_s: float

    def goal_field(self, goal_cell: Cell, areas: frozenset[str] | None = None) -> SharedField:
        """The field toward `goal_cell` within `areas` (None: all); new only on a changed grid."""

    def track(self, member: object, goal: Cell | None) -> None:
        """Record that `member` now chases the goal cell `goal` (None: nothing)."""


class TargetKeys:
    """Small integers for what agents chase; whoever places the targets looks them up by key."""

    def __init__(self) -> None:
        self._names: list[str | None] = [None, None]  # End and Start go by their tags
        self._index: dict[str, int] = {}

    def key_for(self, name: str | None) -> int:
        """The key of the object named `name` (None: the End-tagged object)."""
        if name is None:
            return END_KEY
        key = self._index.get(name)
        if key is None:
            key = self._index[name] = len(self._names)
            self._names.append(name)
        return key

    def name(self, key: int) -> str | None:
        """The name `key` stands for; None for `END_KEY` and `START_KEY` (found by tag)."""
        return self._names[key]


class TargetGroup:
    """One target's driven agents: the field they follow and the aims they steer by.

    Agents kept to some areas form a group of their own per target, on their `areas`' field
    (`sim.crowd.areas.masked`).

    Attributes:
        areas: The areas its agents keep to (None: all).
        cell: The target's cell (clamped to the grid) when the field was last taken.
        field: The field they follow, or None before the first one (or with no walkable cell).
        planning_key: The grid's planner settings then.
        taken_s: Simulated time the field was taken.
        mask_checked: The grid's `mask_version` the agents' cells were last checked against.
        goal: Where they gather (world x, y): the target itself where its cell is the field's
            goal and their discs fit there, else the goal cell's centre.
        cluster_radius: How far from `goal` the arrived agents stand, at most, plus a radius.
        following: The field's next cell from each cell (flat, numpy), -1 where none and at
            a link's start where the way down is the link: the agents' aims stop there.
        costs: The field as a numpy array.
        hops: The field's cells whose way down is a link (a driven agent crosses it there).
    """

    def __init__(self, areas: frozenset[str] | None = None) -> None:
        self.areas = areas
        self.cell: Cell | None = None
        self.field: SharedField | None = None
        self.planning_key: tuple[str, str] | None = None
        self.taken_s = -math.inf
        self.mask_checked = -1
        self.goal: Point = (0.0, 0.0)
        self.cluster_radius = 0.0
        self.following: NDArray[np.int64] | None = None
        self.costs: NDArray[np.float64] | None = None
        self.hops: Mapping[int, Hop] = {}
        self._aims: dict[float, AimTable] = {}

    def take(self, crowd: SharedFields, grid: CrowdGrid, cell: Cell, time_s: float) -> bool:
        """Take the field toward the target's cell `cell`; return whether it is a new one.

        The field's goal is the walkable cell nearest `cell`; with no walkable cell at all
        the group has no field.
        """
        self.cell, self.planning_key, self.taken_s = cell, grid.planning_key, time_s
        self.mask_checked = grid.mask_version
        point = grid.cell_to_world(cell)
        goal_cell = grid.grid.endpoints(point, point).goal
        if goal_cell is None:
            new = self.field is not None
            self.field, self.following, self.costs = None, None, None
            self.hops = {}
            self._aims.clear()
            return new
        taken = crowd.goal_field(goal_cell, self.areas)
        if taken is self.field:
            return False
        self.field = taken
        following = np.frombuffer(taken.tables.following, dtype=np.int64)
        if taken.hops:  # the grid's aims end at each link's foot: the crossing goes on
            following = following.copy()
            following[np.fromiter(taken.hops, dtype=np.intp)] = -1
        self.following, self.hops = following, taken.hops
        self.costs = np.asarray(taken.costs, dtype=np.float64)
        self._aims.clear()
        return True

    def aim_table(self, grid: CrowdGrid, radius: float, rooms: Rooms) -> AimTable:
        """The aims for discs of `radius` world units on this group's field (made when asked)."""
        table = self._aims.get(radius)
        if table is None:
            if self.following is None or self.costs is None:
                raise RuntimeError("aims asked of a group without a field")
            costs = grid.costs
            table = AimTable(
                self.following,
                self.costs,
                grid.walkable,
                rooms.room(grid),
                radius=radius / grid.grid_cell_size,
                cell_costs=None if costs is None else costs.copy(),
            )
            self._aims[radius] = table
        return table

    def place_goal(self, grid: CrowdGrid, target: Point, radius: float) -> None:
        """Put `goal` on the target, or on the field's goal cell's centre if it does not fit.

        `radius` is the largest disc of the group's agents.
        """
        if self.field is None:
            return
        width = self.field.tables.width
        goal_cell = divmod(self.field.goal, width)
        centre = grid.cell_to_world(goal_cell)
        inside = grid.world_to_cell(*target) == goal_cell
        fits = inside and grid.move_is_clear(target, target, radius=radius)
        self.goal = target if fits else centre


class Rooms:
    """The grid's clearance map (cells), computed once per walkable mask."""

    def __init__(self) -> None:
        self._cached: tuple[int, NDArray[np.float64]] | None = None

    def room(self, grid: CrowdGrid) -> NDArray[np.float64]:
        """``[row, col]`` each cell centre's distance to the nearest wall, in cells."""
        if self._cached is None or self._cached[0] != grid.mask_version:
            self._cached = (grid.mask_version, clearance(grid.walkable))
        return self._cached[1]
