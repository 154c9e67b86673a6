"""One frame of a crowd's driven agents, all at once with numpy: aim, avoid, walls, arrive.

`DrivenStep.run` moves the driven rows of `AgentRows` (see `sim.crowd.crowd`) in a fixed order:

1. Walls that moved onto an agent push it out (`nearest_clear_point`, per agent pushed).
2. Each agent's aim: its cell's aim down its target's field (`AimTable`, filled once per cell
   and radius), the goal point itself once the aim is the goal cell; an agent a wall held back
   heads for its own cell's centre, then the next cell's down the field, whose lines are clear.
3. Preferred velocity: toward the aim at full speed, slowing within `arrive_time_s` of the
   goal; arrived agents pushed from their place drift back to it, and step out of the way
   of a self-steered agent walking through (`sim.crowd.rules.make_way`); none for the others.
4. Reciprocal avoidance over every row (`sim.navigation.avoid`): driven agents with avoidance
   on are active, arrived ones with a low priority, agents a wall holds with a high one; only
   agents with a neighbour wanting the opposite way sidestep (not near the goal, where they
   would circle the cluster); self-steered rows and agents with avoidance off are obstacles
   moving at their own velocity.
5. Walls: each disc moves by its velocity where it stays clear, else slides along x or y,
   else stays (`sim.crowd.disc_walls`); the velocity kept is the move made.
6. Heading turns toward the velocity by `1 - exp(-turn_rate * dt)` of the angle (as the lone
   agents' slerp), distance and frames on a blocked cell are counted.
7. Parting: discs pressed into each other are pushed apart (`sim.crowd.parting`).
8. Arrival: within `arrival_radius` of the goal, or still for `still_frames` frames on the
   goal's doorstep or touching an arrived agent of the same target near the goal.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.crowd.avoidance import avoid, find_neighbours
from sim.crowd.disc_walls import Walls
from sim.crowd.goals import Rooms, TargetGroup
from sim.crowd.grid import CrowdGrid
from sim.crowd.parting import WALL_CONTACT, SeenNeighbours, part_discs
from sim.crowd.route import nearest_clear_point
from sim.crowd.rows import AgentRows, lengths, put_rows, take_rows
from sim.crowd.rules.make_way import make_way
from sim.crowd.rules.motion_limits import accelerate, brake, cap_turns
from sim.crowd.settings import StepSettings
from sim.crowd.state import AgentState, ReplanCause

MOVING = tuple(AgentState).index(AgentState.MOVING)
ARRIVED = tuple(AgentState).index(AgentState.ARRIVED)
NO_PATH = tuple(AgentState).index(AgentState.NO_PATH)
PATH_CUT = tuple(ReplanCause).index(ReplanCause.PATH_CUT)
INTERVAL = tuple(ReplanCause).index(ReplanCause.INTERVAL)
WALL_LOOKAHEAD = 0.3  # cells: how far ahead a disc looks for a wall it would run into
JAM_FLOOR = 0.2  # an agent in a jam still wants this much of its speed
JAM_GAIN = 1.5  # and its eagerness rises this much faster than the way it makes
JAM_MEMORY_S = 0.5  # seconds over which the way it makes is averaged
HELD_FRACTION = 0.25  # a wall that lets a disc make less than this of its move holds it
CENTRE_EPSILON = 0.02  # cells: close enough to a cell's centre to head for the next one
TURNING_SPEED = 1e-3  # world units per second: slower agents keep their heading


class DrivenStep:
    """Moves the driven rows one frame (see the module); keeps the walls' padded mask."""

    def __init__(self, grid: CrowdGrid, settings: StepSettings) -> None:
        self._grid = grid
        self._settings = settings
        self._walls: tuple[int, Walls] | None = None
        self._mask_seen = -1
        self.aim_ms = 0.0  # wall-clock milliseconds spent on aims so far

    def cells_of(self, positions: NDArray[np.float64]) -> NDArray[np.intp]:
        """The flat cell under each world point, clamped to the grid."""
        grid = self._grid
        size, (x0, y0) = grid.grid_cell_size, grid.origin
        cols = np.clip(np.floor((positions[:, 0] - x0) / size), 0, grid.num_of_columns - 1)
        rows = np.clip(np.floor((positions[:, 1] - y0) / size), 0, grid.num_of_rows - 1)
        cells: NDArray[np.intp] = (rows * grid.num_of_columns + cols).astype(np.intp)
        return cells

    def goal_distances(
        self, rows: AgentRows, members: NDArray[np.intp], goal: tuple[float, float]
    ) -> NDArray[np.float64]:
        """Each member's distance to `goal`."""
        return _distance(take_rows(rows.positions, members), np.asarray(goal, dtype=np.float64))

    def run(
        self,
        rows: AgentRows,
        driven: NDArray[np.intp],
        keys: NDArray[Any],
        groups: dict[int, TargetGroup],
        rooms: Rooms,
        dt: float,
    ) -> None:
        """Move the `driven` rows (whose targets' keys are `keys`) by one frame of `dt` s."""
        walls = self._wall_mask()
        if self._mask_seen != self._grid.mask_version:
            self._mask_seen = self._grid.mask_version
            self._push_out(rows, driven, walls)
        goals = np.zeros((len(driven), 2))
        cluster = np.zeros(len(driven))
        for key in distinct(keys):
            group = groups[int(key)]
            put_rows(goals, keys == key, group.goal)
            cluster[keys == key] = group.cluster_radius
        aims, aim_points, at_goal = self._aims(rows, driven, keys, groups, rooms, goals)
        state = rows.state[driven]
        state = np.where(state == ARRIVED, ARRIVED, np.where(aims >= 0, MOVING, NO_PATH))
        rows.state[driven] = state
        rows.aim[driven] = np.where(state == MOVING, aims, -1)
        put_rows(rows.aim_points, driven, aim_points)
        positions = take_rows(rows.positions, driven)
        radii = rows.radii[driven]
        moving = state == MOVING
        near = _distance(positions, goals) <= cluster + self._settings.near_radii * radii
        preferred = self._preferred(rows, driven, positions, aim_points, at_goal)
        put_rows(preferred, ~moving, 0.0)
        against_wall = self._slide_along_walls(preferred, positions, radii, walls)
        # In a jam an agent wants less: a whole crowd pressing at full speed squeezes those
        # in front together; its eagerness comes back as the way ahead opens.
        eager = np.clip(rows.progress[driven] * JAM_GAIN + JAM_FLOOR, JAM_FLOOR, 1.0)
        preferred *= eager[:, None]
        # An arrived agent that made way drifts back to its place, unhurried.
        resting = np.flatnonzero(state == ARRIVED)
        if len(resting):
            at_rest = take_rows(positions, resting)
            homeward = self._homeward(rows, driven[resting], at_rest)
            put_rows(preferred, resting, homeward + make_way(rows, driven[resting], at_rest))
        put_rows(rows.preferred, driven, preferred)
        velocity, seen = self._avoid(rows, driven, preferred, moving, near, against_wall, dt)
        velocities = take_rows(rows.velocities, driven)
        velocity = accelerate(velocities, velocity, rows.accelerations[driven], dt)
        self._move(rows, driven, walls, velocity, preferred, dt)
        part_discs(rows, driven, walls, against_wall, dt, self._grid, self._settings, seen)
        self._arrive(rows, driven, keys, groups, goals, near & moving, dt)

    def _wall_mask(self) -> Walls:
        grid = self._grid
        if self._walls is None or self._walls[0] != grid.mask_version:
            self._walls = (grid.mask_version, Walls(grid.walkable))
        return self._walls[1]

    def _cell_space(self, positions: NDArray[np.float64]) -> NDArray[np.float64]:
        grid = self._grid
        cell_space: NDArray[np.float64] = (
            positions - np.asarray(grid.origin)
        ) / grid.grid_cell_size
        return cell_space

    def _push_out(self, rows: AgentRows, driven: NDArray[np.intp], walls: Walls) -> None:
        """Agents a wall moved onto (or that spawned on one) go to the nearest clear point."""
        size = self._grid.grid_cell_size
        hit = walls.hit(
            self._cell_space(take_rows(rows.positions, driven)), rows.radii[driven] / size
        )
        for row in driven[hit]:
            point = (float(rows.positions[row, 0]), float(rows.positions[row, 1]))
            free = nearest_clear_point(self._grid, point, float(rows.radii[row]))
            if free is None:
                continue
            rows.positions[row] = free
            if rows.replans[row]:
                rows.pushes[row] += 1
                rows.pending[row] = PATH_CUT
            elif rows.pending[row] < 0:
                rows.pending[row] = INTERVAL

    def _aims(
        self,
        rows: AgentRows,
        driven: NDArray[np.intp],
        keys: NDArray[Any],
        groups: dict[int, TargetGroup],
        rooms: Rooms,
        goals: NDArray[np.float64],
    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]]:
        """Each driven agent's aim cell (-1: cannot reach its goal) and aim point.

        Also whether the aim is its goal (it slows down as it comes near).
        """
        grid = self._grid
        positions = take_rows(rows.positions, driven)
        cells = self.cells_of(positions)
        radii = rows.radii[driven]
        aims = np.full(len(driven), -1, dtype=np.int64)
        goal_cells = np.full(len(driven), -1, dtype=np.int64)
        following = np.zeros(len(driven), dtype=np.int64)
        for key in distinct(keys):
            group = groups[int(key)]
            if group.field is None or group.following is None:
                continue
            in_group = keys == key
            goal_cells[in_group] = group.field.goal
            following[in_group] = group.following[cells[in_group]]
            for radius in distinct(radii[in_group]):
                chosen = in_group & (radii == radius)
                table = group.aim_table(grid, float(radius), rooms)
                began = time.perf_counter()
                aims[chosen] = table.aims(cells[chosen])
                self.aim_ms += (time.perf_counter() - began) * 1000.0
        # Held back by a wall: the own cell's centre, then the next cell's down the field.
        stuck = (rows.stuck[driven] > 0) & (aims >= 0)
        if stuck.any():
            centres = self._centres(cells)
            off_centre = _distance(positions, centres) > CENTRE_EPSILON * grid.grid_cell_size
            nxt = np.where(following >= 0, following, cells)
            aims = np.where(stuck, np.where(off_centre, cells, nxt), aims)
        points = self._centres(np.maximum(aims, 0))
        at_goal = (aims == goal_cells) & (aims >= 0)
        reached = np.flatnonzero(at_goal)
        put_rows(points, reached, take_rows(goals, reached))
        return aims, points, at_goal

    def _centres(self, cells: NDArray[Any]) -> NDArray[np.float64]:
        grid = self._grid
        width, size = grid.num_of_columns, grid.grid_cell_size
        cols, rows = cells % width, cells // width
        return np.column_stack(
            [grid.origin[0] + (cols + 0.5) * size, grid.origin[1] + (rows + 0.5) * size]
        )

    def _preferred(
        self,
        rows: AgentRows,
        driven: NDArray[np.intp],
        positions: NDArray[np.float64],
        aim_points: NDArray[np.float64],
        at_goal: NDArray[np.bool_],
    ) -> NDArray[np.float64]:
        """Toward the aim at full speed; slower within `arrive_time_s` of the goal."""
        to_aim = aim_points - positions
        distance = lengths(to_aim)
        speed = rows.speeds[driven]
        speed = np.where(at_goal, np.minimum(speed, distance / self._settings.arrive_time_s), speed)
        goal_speed = brake(speed, distance, rows.accelerations[driven], rows.braking[driven])
        speed = np.where(at_goal, goal_speed, speed)
        scale = np.divide(speed, distance, out=np.zeros_like(distance), where=distance > 0.0)
        return to_aim * scale[:, None]

    def _slide_along_walls(
        self,
        preferred: NDArray[np.float64],
        positions: NDArray[np.float64],
        radii: NDArray[np.float64],
        walls: Walls,
    ) -> NDArray[np.bool_]:
        """Turn each preferred velocity that runs into a wall just ahead along the wall.

        A crowd whose aims lie past a wall's end presses into the wall on its way there (an
        aim is seen from its cell's centre, not from where each agent stands); the discs next
        to the wall cannot give, and those behind them are squeezed between. So where the
        disc a little ahead (`WALL_LOOKAHEAD`) along the preferred velocity would touch a
        wall, the part of the velocity into that wall is dropped, and the agent slides along
        it; heading through a gap it touches nothing and keeps its way. Returns which discs
        touch a wall now (within `WALL_CONTACT`), which cannot give way to others.
        """
        size = self._grid.grid_cell_size
        here = self._cell_space(positions)
        cell_radii = radii / size
        speed = lengths(preferred)
        ahead = np.divide(
            preferred, speed[:, None], out=np.zeros_like(preferred), where=speed[:, None] > 0
        )
        probe = here + ahead * WALL_LOOKAHEAD
        blocked = np.flatnonzero((speed > 0) & walls.hit(probe, cell_radii))
        if len(blocked):
            _, normal = walls.nearest(probe[blocked])
            toward = take_rows(preferred, blocked)
            into = np.minimum((toward * normal).sum(axis=1), 0.0)
            put_rows(preferred, blocked, toward - into[:, None] * normal)
        gap, _ = walls.nearest(here)
        touching: NDArray[np.bool_] = gap <= cell_radii + WALL_CONTACT
        return touching

    def _track_progress(
        self,
        rows: AgentRows,
        driven: NDArray[np.intp],
        velocity: NDArray[np.float64],
        preferred: NDArray[np.float64],
        dt: float,
    ) -> None:
        """Follow how much of its speed each moving agent makes along the way it wants.

        An average over about `JAM_MEMORY_S` (exponential, the same at any frame rate); agents
        that want nothing keep theirs.
        """
        wanted = lengths(preferred)
        along = np.divide(
            (velocity * preferred).sum(axis=1), wanted, out=np.zeros_like(wanted), where=wanted > 0
        )
        made = np.clip(along / rows.speeds[driven], 0.0, 1.0)
        blend = 1.0 - math.exp(-dt / JAM_MEMORY_S)
        progress = rows.progress[driven]
        rows.progress[driven] = np.where(wanted > 0, progress + (made - progress) * blend, progress)

    def _homeward(
        self, rows: AgentRows, resting: NDArray[np.intp], positions: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Back toward each resting agent's place, at most `home_speed` of its speed."""
        back = take_rows(rows.home, resting) - positions
        distance = lengths(back)
        speed = np.minimum(
            rows.speeds[resting] * self._settings.home_speed,
            distance / self._settings.arrive_time_s,
        )
        scale = np.divide(speed, distance, out=np.zeros_like(distance), where=distance > 1e-9)
        homeward: NDArray[np.float64] = back * scale[:, None]
        return homeward

    def _avoid(
        self,
        rows: AgentRows,
        driven: NDArray[np.intp],
        preferred: NDArray[np.float64],
        moving: NDArray[np.bool_],
        near: NDArray[np.bool_],
        against_wall: NDArray[np.bool_],
        dt: float,
    ) -> tuple[NDArray[np.float64], SeenNeighbours | None]:
        """ORCA over every row; returns the driven rows' new velocities.

        And the neighbour lists it searched, which parting searches again after the move
        (None when ORCA did not see every row).
        """
        active = np.zeros(len(rows), dtype=np.bool_)
        active[driven] = rows.avoidance[driven]
        if not active.any():
            return preferred, None
        settings = self._settings
        wanted = rows.velocities.copy()
        put_rows(wanted, driven, preferred)
        priority = np.ones(len(rows))
        priority[driven[~moving]] = settings.rest_priority
        # An agent a wall holds cannot take its share of a turn: its neighbours take more.
        priority[driven[(rows.walled[driven] & moving) | against_wall]] = settings.walled_priority
        priority *= rows.weights  # avoidance_priority: Unity's, as an ORCA weight
        sidestep = np.zeros(len(rows), dtype=np.bool_)
        # Sidestepping breaks the jams of agents meeting head-on; in a crowd going one way it
        # only throws agents sideways into each other and the walls.
        sidestep[driven] = moving & ~near & rows.opposed[driven]
        # Agents crossing a link are above or away from the ground: nobody avoids them.
        here = slice(None) if not (rows.crossing >= 0).any() else rows.crossing < 0
        neighbour_dist = settings.neighbour_dist(rows.speeds[here], rows.radii[here])
        seen = None
        if isinstance(here, slice):
            width = min(settings.max_neighbours, max(len(rows) - 1, 0))
            lists = np.empty((len(rows), width), dtype=np.int64)
            seen = SeenNeighbours(rows.positions.copy(), lists, neighbour_dist)
        chosen = np.zeros_like(wanted)
        chosen[here] = avoid(
            rows.positions[here],
            rows.velocities[here],
            wanted[here],
            rows.radii[here],
            rows.speeds[here],
            dt=dt,
            time_horizon=settings.time_horizon_s,
            neighbour_dist=neighbour_dist,
            max_neighbours=settings.max_neighbours,
            active=active[here],
            priority=priority[here],
            sidestep=sidestep[here],
            seen=None if seen is None else seen.near,
        )
        return take_rows(chosen, driven), seen

    def _move(
        self,
        rows: AgentRows,
        driven: NDArray[np.intp],
        walls: Walls,
        velocity: NDArray[np.float64],
        preferred: NDArray[np.float64],
        dt: float,
    ) -> None:
        """Move by the velocities where walls allow; keep the move made as the velocity."""
        size = self._grid.grid_cell_size
        start = take_rows(rows.positions, driven)
        cell_start = self._cell_space(start)
        wanted = velocity * (dt / size)
        moved, _ = walls.slide(cell_start, wanted, rows.radii[driven] / size)
        walled = (moved != cell_start + wanted).any(axis=1)
        rows.walled[driven] = walled
        step = (moved - cell_start) * size
        moved_to = start + step
        put_rows(rows.positions, driven, moved_to)
        moved_velocity = step / dt
        put_rows(rows.velocities, driven, moved_velocity)
        made = lengths(step)
        rows.distance[driven] += made
        self._track_progress(rows, driven, moved_velocity, preferred, dt)
        # Held: a wall kept it to a crawl along itself (a disc caught on a corner slides
        # on at a hair's pace), so next frame it heads for the cells' centres instead.
        asked = lengths(wanted) * size
        held = walled & (made < HELD_FRACTION * asked)
        wants = (preferred != 0.0).any(axis=1)
        rows.stuck[driven] = np.where(held & wants, rows.stuck[driven] + 1, 0)
        speed = made / dt
        turning = speed > TURNING_SPEED
        heading = rows.headings[driven]
        desired = np.degrees(np.arctan2(-step[:, 0], step[:, 1]))
        turn = (desired - heading + 180.0) % 360.0 - 180.0
        fraction = 1.0 - np.exp(-rows.turn_rates[driven] * dt)
        turn = cap_turns(turn * fraction, rows.angular_speeds[driven], dt)
        rows.headings[driven] = np.where(turning, (heading + turn) % 360.0, heading)
        cells = self.cells_of(moved_to)
        on_blocked = ~self._grid.walkable.ravel()[cells] & self._on_grid(moved_to)
        rows.blocked[driven] += on_blocked

    def _on_grid(self, positions: NDArray[np.float64]) -> NDArray[np.bool_]:
        grid = self._grid
        size, (x0, y0) = grid.grid_cell_size, grid.origin
        x1, y1 = x0 + grid.num_of_columns * size, y0 + grid.num_of_rows * size
        x, y = positions[:, 0], positions[:, 1]
        return (x >= x0) & (x < x1) & (y >= y0) & (y < y1)

    def _arrive(
        self,
        rows: AgentRows,
        driven: NDArray[np.intp],
        keys: NDArray[Any],
        groups: dict[int, TargetGroup],
        goals: NDArray[np.float64],
        near: NDArray[np.bool_],
        dt: float,
    ) -> None:
        """Mark the agents that arrived (see the module); update each group's cluster radius."""
        settings = self._settings
        positions = take_rows(rows.positions, driven)
        state = rows.state[driven]
        moving = state == MOVING
        to_goal = _distance(positions, goals)
        arrived = moving & (to_goal <= rows.arrival_radii[driven])
        count_still(rows, driven, settings)
        waiting = (
            near & ~arrived & ~rows.patrol[driven] & (rows.still[driven] >= settings.still_frames)
        )
        # Held back on the goal's doorstep (others press in too): the first of the cluster.
        radii = rows.radii[driven]
        arrived |= waiting & (to_goal <= radii + rows.arrival_radii[driven])
        if waiting.any() and (state == ARRIVED).any():
            resting = state == ARRIVED
            arrived |= self._touching_cluster(rows, driven, keys, waiting, resting, to_goal)
        rows.state[driven[arrived]] = ARRIVED
        rows.arrivals[driven[arrived]] += 1
        landed = np.flatnonzero(arrived)
        put_rows(rows.home, driven[landed], take_rows(positions, landed))
        state = rows.state[driven]
        for key in distinct(keys):
            group = groups[int(key)]
            resting = (keys == key) & (state == ARRIVED)
            if resting.any():
                reach = to_goal[resting] + rows.radii[driven][resting]
                group.cluster_radius = float(reach.max())

    def _touching_cluster(
        self,
        rows: AgentRows,
        driven: NDArray[np.intp],
        keys: NDArray[Any],
        waiting: NDArray[np.bool_],
        arrived: NDArray[np.bool_],
        to_goal: NDArray[np.float64],
    ) -> NDArray[np.bool_]:
        """Which waiting agents touch an arrived agent of their own target.

        With one target, only the arrived agents no nearer the goal (`to_goal`) than the
        nearest waiting one less the touching distance can touch one: the cluster's rim, not
        the thousands inside it, go into the neighbour search (the same lists for the waiting).
        """
        margin = 1.0 + self._settings.touch_margin
        reach = 2.0 * float(rows.radii[driven[waiting | arrived]].max()) * margin
        if len(distinct(keys)) == 1:
            # A little short of the bound, so rounding never drops one that touches.
            rim = to_goal >= float(to_goal[waiting].min()) - reach * (1.0 + 1e-6) - 1e-9
            arrived = arrived & rim
        subset = np.flatnonzero(waiting | arrived)
        radii = rows.radii[driven[subset]]
        neighbours = find_neighbours(
            take_rows(rows.positions, driven[subset]),
            neighbour_dist=reach,
            max_neighbours=8,
        )
        if not neighbours.shape[1]:
            return np.zeros(len(driven), dtype=bool)
        valid = neighbours >= 0
        other = np.where(valid, neighbours, 0)
        positions = take_rows(rows.positions, driven[subset])
        gap = take_rows(positions, other) - positions[:, None, :]
        apart = lengths(gap)
        local_keys, local_arrived = keys[subset], arrived[subset]
        touching = (
            valid
            & local_arrived[other]
            & (local_keys[other] == local_keys[:, None])
            & (apart <= (radii[:, None] + radii[other]) * margin)
        )
        found = np.zeros(len(driven), dtype=bool)
        found[subset] = touching.any(axis=1) & waiting[subset]
        return found


def count_still(rows: AgentRows, which: NDArray[np.intp], settings: StepSettings) -> None:
    """Count the frames each of `which` has stayed within `still_reach` radii of one place."""
    positions = take_rows(rows.positions, which)
    rest_from = take_rows(rows.rest_from, which)
    moved = _distance(positions, rest_from)
    staying = moved <= settings.still_reach * rows.radii[which]  # False while rest_from is nan
    rows.still[which] = np.where(staying, rows.still[which] + 1, 0)
    leaving = np.flatnonzero(~staying)
    put_rows(rows.rest_from, which[leaving], take_rows(positions, leaving))


def distinct(values: NDArray[Any]) -> NDArray[Any]:
    """The sorted distinct values (`np.unique`), without its sort when all are one value.

    A crowd mostly chases one target at one radius: a comparison then answers what a sort of
    every row would (a tenth of a millisecond each at 10,000 agents, several a frame).

    >>> distinct(np.array([3, 3, 3])).tolist(), distinct(np.array([2, 1, 2])).tolist()
    ([3], [1, 2])
    """
    if len(values) and bool((values == values[0]).all()):
        return values[:1].copy()
    return np.unique(values)


def _distance(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    delta = a - b
    distance: NDArray[np.float64] = lengths(delta)
    return distance
