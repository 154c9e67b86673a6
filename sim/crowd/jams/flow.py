"""Follow a jam's joint plan continuously: each agent waits only for the one before it in a cell.

`sim.crowd.joint.JointFollower` moves a plan in lock step: one cell per time step for
everybody, each step as long as its slowest move and its longest turn lag. Through a doorway
that costs a third of the time: an agent three cells from the door stands while the one in it
finishes its step. `FlowFollower` keeps the plan's *order* instead of its clock (as an action
dependency graph executes a MAPF plan, Hönig et al. 2019):

- each agent walks its own cells (the plan's path without its waits) at its own speed; its
  progress ``s`` counts cells along them (``s = 2.5``: halfway from its third cell to its
  fourth);
- every cell's visits are ordered by the plan's time steps; an agent moving into a cell keeps
  its distance to the agent that visits the cell just before it (its **predecessor** there):
  with ``a`` the agent's way left to the cell's centre and ``b`` the predecessor's way gone out
  of it (cells), the two stand ``sqrt(a² + b² + 2ab cos θ)`` apart (``θ`` between the ways
  in and out), which must not fall below their radii's sum less `TURN_OVERLAP` of it
  (`max_entry`). A predecessor that has not yet reached the cell (``b < 0``) holds the agent
  a cell back by as much. Agents on a grid's centre lines closer than a cell lie round one
  cell, so keeping every cell's consecutive visitors apart keeps everybody apart;
- first, every member glides from where it stood to its start cell's centre after its wait
  (`sim.crowd.jams.local.gather_waits`), over one step at the slowest speed; nobody walks the
  plan until all have gathered (their glides are what the waits keep apart).

The plan's rules (no two agents in one cell at one step, no two trading cells) make those
waits acyclic, except round a rotation (agents each entering the cell the next leaves, all in
one step): there each would wait for the next for ever, so a plan with one is followed in lock
step instead (`sim.crowd.jams.handoff`). The agents' order in every cell is the plan's, so two
runs of one plan move alike: deterministic, frame by frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import pairwise

import numpy as np
from numpy.typing import NDArray

from sim.crowd.jams.local import TURN_OVERLAP, gather_waits
from sim.crowd.joint import JointFollower, rotations, step_seconds

SUBSTEP = 0.05  # cells: the longest stretch walked before distances are looked at again
ARC = math.pi / 4.0  # a quarter circle of half a cell: a turning cell's way through it


def compress(path: Sequence[int]) -> tuple[list[int], list[int]]:
    """A plan's path without its waits: the cells entered, and the time step of each entry.

    >>> compress([4, 4, 5, 5, 5, 6])
    ([4, 5, 6], [0, 2, 5])
    """
    cells, steps = [int(path[0])], [0]
    for t, cell in enumerate(path[1:], start=1):
        if int(cell) != cells[-1]:
            cells.append(int(cell))
            steps.append(t)
    return cells, steps


def unrotated(paths: Sequence[Sequence[int]], groups: Sequence[int]) -> list[list[int]]:
    """`paths` with each rotation among agents of one group undone (`groups`: each one's).

    A rotation moves its agents round the same cells, so they may as well all wait, each
    taking over the rest of the way of the agent that would have entered its cell: the cells
    held at every step stay the same, and agents of one group end on that group's cells,
    whoever ends where. LaCAM* turns agents round a 2 x 2 block in a packed room, and a
    rotation can only be followed in lock step. A rotation of two groups is left.

    >>> # Four agents of group 7 turn round a 2 x 2 block (cells 0, 1, 3, 2), then one moves.
    >>> unrotated([[0, 1, 1], [1, 3, 5], [3, 2, 2], [2, 0, 0]], [7, 7, 7, 7])
    [[0, 0, 0], [1, 1, 1], [3, 3, 5], [2, 2, 2]]
    """
    cells = np.array(paths, dtype=np.intp).T.copy()  # [t, agent]
    for t in range(len(cells) - 1):
        for cycle in rotations(cells[t : t + 2])[0]:
            if len({groups[agent] for agent in cycle}) > 1:
                continue
            into = {int(cells[t + 1, agent]): agent for agent in cycle}  # cell -> who enters it
            rest = {agent: cells[t + 1 :, agent].copy() for agent in cycle}
            for agent in cycle:
                cells[t + 1 :, agent] = rest[into[int(cells[t, agent])]]
    return [[int(cell) for cell in path] for path in cells.T]


def follow_plan(
    paths: Sequence[Sequence[int]],
    goals: Sequence[int],
    centres: NDArray[np.float64],
    first: NDArray[np.float64],
    speeds: NDArray[np.float64],
    radii: NDArray[np.float64],
    cell_size: float,
    *,
    turn_lag: float,
    open_cells: NDArray[np.bool_],
    groups: Sequence[int] | None = None,
) -> Follower:
    """The follower of a jam's plan: continuous (`FlowFollower`), in lock step round a rotation.

    Either way everyone first glides from where it stands (`first`) to its start cell's
    centre, after its `gather_waits`, so no move of the plan starts off its cell; all glides
    last as long, one step at the slowest speed or, when some glide is longer than a cell
    (from off its cell's centre to a cell beside it, or traded further), as long as the
    slowest glide at its own agent's speed: nobody glides faster than its speed. `paths`,
    `goals` and `open_cells` (the window's walkable mask) are in the window's flat cells,
    `centres` their world centres. With `groups` (each agent's group: its goal beyond the
    window) rotations within a group are undone first (`unrotated`; the agents of a group
    may end on one another's `goals`).
    """
    if groups is not None:
        paths = unrotated(paths, groups)
        goals = [path[-1] for path in paths]
    step_s = step_seconds(cell_size, [float(speed) for speed in speeds])
    starts = centres[[path[0] for path in paths]]
    glides = np.hypot(*(starts - first).T) / speeds
    gather_s = max(step_s, float(glides.max(initial=0.0)))
    waits = gather_waits(first, starts, radii) * gather_s
    turning = [t for t, cycles in enumerate(rotations(np.array(paths, dtype=np.intp).T)) if cycles]
    if not turning:
        return FlowFollower(
            paths, centres, first, speeds.tolist(), radii, cell_size, gather_s, first_waits=waits
        )
    # Continuously up to the first rotation, in lock step through the last, continuously on.
    begin, end = turning[0], turning[-1] + 1
    parts = [(False, [path[: begin + 1] for path in paths])] if begin > 0 else []
    parts.append((True, [path[begin : end + 1] for path in paths]))
    if end + 1 < len(paths[0]):
        parts.append((False, [path[end:] for path in paths]))

    def follower(lock: bool, part: Sequence[Sequence[int]], at: NDArray[np.float64]) -> Follower:
        if lock:
            return JointFollower(
                part, [path[-1] for path in part], centres, at, step_s, turn_lag=turn_lag,
                width=open_cells.shape[1], open_cells=open_cells.ravel(),
            )  # fmt: skip
        # On its cells already: no glide.
        return FlowFollower(part, centres, at, speeds.tolist(), radii, cell_size, 0.0)

    if begin > 0:
        head: Follower = FlowFollower(
            parts[0][1], centres, first, speeds.tolist(), radii, cell_size, gather_s,
            first_waits=waits,
        )  # fmt: skip
    else:
        head = JointFollower(
            [(path[0], *path) for path in parts[0][1]],  # the gathering step: a wait
            goals if len(parts) == 1 else [path[-1] for path in parts[0][1]],
            centres, first, step_s, turn_lag=turn_lag, width=open_cells.shape[1],
            first_waits=waits, open_cells=open_cells.ravel(), first_step_s=gather_s,
        )  # fmt: skip
    if len(parts) == 1:
        return head
    return SplitFollower(head, parts[1:], follower)


class SplitFollower:
    """A plan with rotations: continuously up to the first, in lock step through the last.

    A rotation can only be followed in lock step (see the module), but in a jam's plan they
    come where the members stood packed as it was made, in a few of its steps: doorway variant
    10's plan of 44 steps has one rotation of two groups, at its 14th. Followed in lock step
    throughout, each of its 30 agents waited every step for the slowest and for the longest
    turn lag of the step; here the steps before the first rotation and those after the last
    are followed by a `FlowFollower` each, every part from where the one before left them.

    Args:
        head: The follower of the plan's first part (it gathers the agents).
        parts: The parts after it: whether in lock step, and ``[agent][t]`` its cells (the
            first the last of the part before).
        follower: Makes a part's follower from the part and where the agents stand.
    """

    def __init__(
        self,
        head: Follower,
        parts: Sequence[tuple[bool, Sequence[Sequence[int]]]],
        follower: Callable[[bool, Sequence[Sequence[int]], NDArray[np.float64]], Follower],
    ) -> None:
        self._followers = [head]
        self._parts = list(parts)
        self._follower = follower
        self._moved_on = False  # the last `advance` ended a part and began the next

    @property
    def finished(self) -> bool:
        """Whether every agent stands on its last cell."""
        return len(self._followers) > len(self._parts) and self._followers[-1].finished

    def advance(self, dt: float) -> None:
        """Let `dt` seconds pass (the frame that ends a part goes no further)."""
        current = self._followers[-1]
        current.advance(dt)
        self._moved_on = current.finished and len(self._followers) <= len(self._parts)
        if self._moved_on:
            lock, part = self._parts[len(self._followers) - 1]
            self._followers.append(self._follower(lock, part, current.positions()))

    def hold(self, agents: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Undo the last `advance` for `agents` (see `JointFollower.hold`, `FlowFollower.hold`).

        Held in the frame that ended a part, the part is not over after all.
        """
        if not self._moved_on:
            return self._followers[-1].hold(agents)
        held = self._followers[-2].hold(agents)
        if held.any():
            self._followers.pop()
            self._moved_on = False
        return held

    def positions(self) -> NDArray[np.float64]:
        """``(agents, 2)`` where each agent stands now."""
        return self._followers[-1].positions()


class FlowFollower:
    """Where each agent of a joint plan stands as it is followed continuously (see the module).

    Args:
        paths: ``[agent][t]`` flat cells of the plan, every path the same length (at least 1).
        centres: ``(cells, 2)`` world ``(x, y)`` of every flat cell's centre.
        first: ``(agents, 2)`` where each agent stands as the plan starts.
        speeds: each agent's speed, world units a second.
        radii: each agent's radius, world units.
        cell_size: world units a cell.
        gather_s: seconds each glide from `first` to the start cell takes.
        first_waits: seconds each agent waits before that glide; None: none waits.
    """

    def __init__(
        self,
        paths: Sequence[Sequence[int]],
        centres: NDArray[np.float64],
        first: NDArray[np.float64],
        speeds: Sequence[float],
        radii: NDArray[np.float64],
        cell_size: float,
        gather_s: float,
        *,
        first_waits: NDArray[np.float64] | None = None,
    ) -> None:
        count = len(paths)
        self._ways = [compress(path) for path in paths]
        self.cells = [np.asarray(cells, dtype=np.intp) for cells, _ in self._ways]
        """Each agent's cells, waits left out."""
        self._points = [np.asarray(centres[cells], dtype=np.float64) for cells in self.cells]
        self._first = np.asarray(first, dtype=np.float64)
        self._rate = np.asarray(speeds, dtype=np.float64) / cell_size  # cells a second
        self._cell = cell_size
        self._radii_cells = np.asarray(radii, dtype=np.float64) / cell_size
        waits = np.zeros(count) if first_waits is None else np.array(first_waits, np.float64)
        self._gathered_at = waits + gather_s
        self._gather_from, self._gather_s = waits, gather_s
        self.progress = np.zeros(count)
        """Each agent's progress along its cells (see the module)."""
        self.time_s = 0.0
        self._predecessor = self._predecessors()
        self._before = self.progress.copy()  # the progress before the last `advance`
        self._last_dt = 0.0

    def hold(self, agents: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Undo the last `advance` for `agents`: they stood still over it. Returns `agents`.

        A held agent's progress goes back to where it was; one still gathering sets off
        that much later (its glide keeps its length and speed). The others' moves stand:
        each was checked against where every agent stood before the frame.
        """
        self.progress[agents] = self._before[agents]
        gathering = agents & (self.time_s - self._last_dt < self._gathered_at)
        self._gather_from[gathering] += self._last_dt
        self._gathered_at[gathering] += self._last_dt
        return agents

    def _predecessors(self) -> list[list[tuple[int, int] | None]]:
        """Per agent and cell index, the visit of that cell just before (agent, cell index)."""
        visits: dict[int, list[tuple[int, int, int]]] = {}
        for agent, (cells, steps) in enumerate(self._ways):
            for index, (cell, step) in enumerate(zip(cells, steps, strict=True)):
                visits.setdefault(cell, []).append((step, agent, index))
        found: list[list[tuple[int, int] | None]] = [[None] * len(c) for c in self.cells]
        for ordered in visits.values():
            ordered.sort()
            for (_, before, before_index), (_, agent, index) in pairwise(ordered):
                found[agent][index] = (before, before_index)
        return found

    @property
    def finished(self) -> bool:
        """Whether every agent stands on its last cell."""
        return all(p >= len(c) - 1 for p, c in zip(self.progress, self.cells, strict=True))

    @property
    def gathered(self) -> bool:
        """Whether every agent has reached its start cell (the plan's walk may begin)."""
        return bool(self.time_s >= self._gathered_at.max(initial=0.0))

    def advance(self, dt: float) -> None:
        """Let `dt` seconds pass: gather, then walk each agent as far as its waits let it.

        Agents are moved in index order against where the others stood before this frame,
        so the order does not change the outcome and nobody runs into one moved this frame.
        """
        self.time_s += dt
        self._last_dt = dt
        before = self._before = self.progress.copy()
        if not self.gathered:
            return
        reach = np.minimum(before + self._rate * dt / ARC, [len(c) - 1 for c in self.cells])
        for agent in range(len(self.cells)):
            self.progress[agent] = self._walk(agent, before, reach, self._rate[agent] * dt)
        if not (self.progress > before).any() and not self.finished:
            # Nobody could move: two discs each keep from shortening their distance to the
            # other's next stand. Let the agent first in the plan's order go on regardless.
            agent = min(
                (a for a in range(len(self.cells)) if before[a] < len(self.cells[a]) - 1),
                key=lambda a: (self._ways[a][1][math.floor(before[a]) + 1], a),
            )
            self.progress[agent] = self._walk(agent, before, reach, self._rate[agent] * dt, True)

    def _walk(
        self,
        agent: int,
        before: NDArray[np.float64],
        reach: NDArray[np.float64],
        budget: float,
        forced: bool = False,
    ) -> float:
        """`agent`'s progress after walking up to `budget` cells, held by its predecessors.

        Round a corner a unit of progress is a quarter circle of half a cell (`ARC`), shorter
        than a cell: the same budget takes the agent farther along its cells there. `forced`:
        held only by predecessors that have not reached their cells.
        """
        at, last = float(before[agent]), len(self.cells[agent]) - 1
        while budget > 1e-12 and at < last:
            index = math.floor(at) + 1  # the cell it is heading into
            half = index - 0.5 if at < index - 0.5 else float(index)
            length = ARC if self._turn(agent, index - 1 if at < index - 0.5 else index) else 1.0
            step = min(budget / length, SUBSTEP, half - at)
            if not self._may_reach(agent, at, at + step, before, reach, forced):
                break
            at = half if half - (at + step) < 1e-12 else at + step
            budget -= step * length
        return at

    def _may_reach(
        self,
        agent: int,
        at: float,
        progress: float,
        before: NDArray[np.float64],
        reach: NDArray[np.float64],
        forced: bool,
    ) -> bool:
        """Whether `agent` may go on from `at` to `progress` (see the module).

        It answers to the predecessors in the cell whose square it stands in and the next
        (round a corner it comes nearer the next cell than its centre does). A
        predecessor short of its cell holds the agent as far from the cell's centre as it
        is short, plus their distance; one on its way out is kept at their distance where it
        stands and where it may stand at this frame's end (`reach`), or at least no nearer.
        """
        ahead = math.ceil(progress - 1e-12)
        square = math.floor(progress + 0.5 - 1e-12)
        point = self._point(agent, progress)
        last = len(self.cells[agent]) - 1
        for index in sorted({ahead, square, min(square + 1, last)}):
            found = self._predecessor[agent][index] if index > 0 else None
            if found is None:
                continue
            other, other_index = found
            b = float(before[other]) - other_index
            if b >= 1.0 or other == agent:  # an agent back on a cell of its own: no wait
                continue
            apart = (self._radii_cells[agent] + self._radii_cells[other]) * (1.0 - TURN_OVERLAP)
            if b < 0.0:
                centre = self._points[other][other_index]
                gap = float(np.hypot(*(point - centre))) / self._cell
                if progress > index - 1 and gap < min(1.0, apart - b) - 1e-12:
                    return False
                continue
            if forced:
                continue
            now = self._point(agent, at)
            for stand in (float(before[other]), float(reach[other])):
                there = self._point(other, stand)
                gap = float(np.hypot(*(point - there))) / self._cell
                if gap < min(apart, float(np.hypot(*(now - there))) / self._cell) - 1e-12:
                    return False
        return True

    def _point(self, agent: int, progress: float) -> NDArray[np.float64]:
        """Where `agent` stands at `progress` (world), corners cut on quarter circles.

        Between two cells' centres it goes straight; through a cell where its way turns it
        leaves the centre line at the cell's edge and goes round the corner on a quarter
        circle of half a cell, centred on the corner between its ways in and out, which
        stays within the cell and nearer its centre than the straight way.
        """
        points = self._points[agent]
        index = min(math.floor(progress), len(points) - 1)
        if index + 1 >= len(points):
            return np.asarray(points[-1])
        fraction = progress - index
        if fraction < 0.5:  # leaving cell `index`
            turn = self._turn(agent, index)
            if turn is None:
                return np.asarray(points[index] + (points[index + 1] - points[index]) * fraction)
            return _on_corner(*turn, 0.5 + fraction)
        turn = self._turn(agent, index + 1)
        if turn is None:
            return np.asarray(points[index] + (points[index + 1] - points[index]) * fraction)
        return _on_corner(*turn, fraction - 0.5)

    def _turn(
        self, agent: int, index: int
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None:
        """The corner, its way in and out (halves) where `agent` turns in cell `index`."""
        points = self._points[agent]
        if index <= 0 or index + 1 >= len(points):
            return None
        half_in = (points[index] - points[index - 1]) / 2.0
        half_out = (points[index + 1] - points[index]) / 2.0
        if abs(float(half_in @ half_out)) > 1e-9:
            return None  # straight on (a plan's ways never turn back)
        return points[index] - half_in + half_out, half_in, half_out

    def positions(self) -> NDArray[np.float64]:
        """``(agents, 2)`` where each agent stands now."""
        at = np.empty_like(self._first)
        for agent, points in enumerate(self._points):
            if self.time_s < self._gathered_at[agent]:
                moved = (self.time_s - self._gather_from[agent]) / self._gather_s
                fraction = min(1.0, max(0.0, moved))
                at[agent] = self._first[agent] + (points[0] - self._first[agent]) * fraction
            else:
                at[agent] = self._point(agent, float(self.progress[agent]))
        return at


def _on_corner(
    corner: NDArray[np.float64],
    half_in: NDArray[np.float64],
    half_out: NDArray[np.float64],
    fraction: float,
) -> NDArray[np.float64]:
    """The point `fraction` (0-1) of the way round a turning cell's quarter circle.

    It starts at the edge the way comes in by (``corner - half_out``) and ends at the one it
    leaves by (``corner + half_in``).

    >>> _on_corner(np.array([0.5, 0.5]), np.array([0.0, -0.5]), np.array([0.5, 0.0]), 0.5)
    array([0.14644661, 0.14644661])
    """
    angle = fraction * math.pi / 2.0
    return np.asarray(corner - half_out * math.cos(angle) + half_in * math.sin(angle))


Follower = JointFollower | FlowFollower | SplitFollower
"""Whatever follows a jam's plan (`follow_plan`)."""
