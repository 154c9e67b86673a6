"""Follow a joint (MAPF) plan in step: every agent advances one cell per time step, together.

The rule: a time step lasts one move's travel at the group's slowest speed, ``step_s = cell_size
/ min(speeds)`` (`step_seconds`), or ``sqrt(2)`` times that when the plan may move diagonally,
so no agent outruns its speed on a diagonal. Within step ``t`` each agent glides in a straight
line, at constant speed, from its plan's cell at ``t`` to its cell at ``t + 1`` (centre to
centre; on the plan's first step from wherever it stood when the plan was made), so at every
step boundary all of them stand on the plan's cells at once: the plan's rules (no two agents in
one cell, no two trading cells) hold there, and between boundaries the moves are the plan's
moves. An agent past the end of its plan, or at its goal for good, waits on its cell.

The follower only keeps time and interpolates; who plans, when to plan again and how agents
face their way is the caller's (`sim.components.mapf_group`). Panda3D-free, numpy only.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


def step_seconds(cell_size: float, speeds: Sequence[float], *, diagonal: bool = False) -> float:
    """How long one time step of a joint plan lasts: its longest move at the slowest speed.

    Args:
        cell_size: World units a cell.
        speeds: The agents' speeds, world units a second.
        diagonal: The plan may move diagonally (8-connected): a step then covers up to one
            cell's diagonal.

    Raises:
        ValueError: without speeds, or with a speed that is not > 0.

    >>> step_seconds(1.0, [3.0, 2.0, 4.0]), round(step_seconds(1.0, [2.0], diagonal=True), 4)
    (0.5, 0.7071)
    """
    if not speeds or min(speeds) <= 0.0:
        raise ValueError(f"a joint plan needs speeds > 0, got {list(speeds)}")
    longest = cell_size * math.sqrt(2.0) if diagonal else cell_size
    return longest / min(speeds)


def nearest_free_cells(walkable: NDArray[np.bool_], wanted: Sequence[int]) -> list[int]:
    """Give each agent, in order, the walkable cell nearest the flat cell it wants, none shared.

    Nearest by 4-connected steps over walkable cells (breadth first, neighbours up, left,
    right, down), from the wanted cell; from a wall, across walls to the first walkable cell.
    Agents that chase one target so stand on distinct cells around it, and an agent a wall
    was dropped on steps off it. An agent for which no free cell is left keeps the one it
    wanted.

    >>> open_row = np.ones((1, 4), bool)
    >>> nearest_free_cells(open_row, [1, 1, 1])
    [1, 0, 2]
    """
    columns = walkable.shape[1]
    passable = walkable.ravel()
    free = passable.copy()
    given: list[int] = []
    for cell in wanted:
        found = _nearest(free, passable, columns, cell)
        if found is None:
            given.append(cell)
            continue
        free[found] = False
        given.append(found)
    return given


def _nearest(
    free: NDArray[np.bool_], passable: NDArray[np.bool_], columns: int, cell: int
) -> int | None:
    """Breadth first from `cell` over walkable cells (over walls too until it leaves them)."""
    if free[cell]:
        return cell
    rows = len(free) // columns
    seen = {cell}
    frontier = deque([cell])
    while frontier:
        current = frontier.popleft()
        row, col = divmod(current, columns)
        for r, c in ((row - 1, col), (row, col - 1), (row, col + 1), (row + 1, col)):
            neighbour = r * columns + c
            if not (0 <= r < rows and 0 <= c < columns) or neighbour in seen:
                continue
            seen.add(neighbour)
            if free[neighbour]:
                return neighbour
            if passable[neighbour] or not passable[current]:
                frontier.append(neighbour)
    return None


class JointFollower:
    """Where each agent of a joint plan stands as time passes (see the module).

    Args:
        paths: ``[agent][t]`` flat cells, every path the same length (at least 1).
        goals: each agent's goal cell.
        centres: ``(cells, 2)`` world ``(x, y)`` of every flat cell's centre.
        first: ``(agents, 2)`` where each agent stands as the plan starts.
        step_s: seconds per time step (`step_seconds`).
    """

    def __init__(
        self,
        paths: Sequence[Sequence[int]],
        goals: Sequence[int],
        centres: NDArray[np.float64],
        first: NDArray[np.float64],
        step_s: float,
    ) -> None:
        self.cells = np.array(paths, dtype=np.intp).T.reshape(-1, len(paths))  # [t, agent]
        self._points: NDArray[np.float64] = centres[self.cells]
        self._first = np.asarray(first, dtype=np.float64)
        self.step_s = step_s
        self.step = 0
        self.phase_s = 0.0
        goal_cells = np.asarray(goals, dtype=np.intp)
        away = self.cells != goal_cells[None, :]
        # The step from which each agent stays at its goal: its last step away, plus one.
        last_away = np.where(away.any(axis=0), len(away) - 1 - np.argmax(away[::-1], axis=0), -1)
        self.arrival_steps = last_away + 1

    @property
    def steps(self) -> int:
        """How many time steps the plan has (its makespan, once padded)."""
        return len(self.cells) - 1

    @property
    def finished(self) -> bool:
        """Whether every step has been taken: all agents stand on their last cells."""
        return self.step >= self.steps

    @property
    def at_boundary(self) -> bool:
        """Whether the agents stand between two steps (on the plan's cells, all of them)."""
        return self.phase_s == 0.0

    def advance(self, dt: float, *, stop_at_boundary: bool = False) -> None:
        """Let `dt` seconds pass; with `stop_at_boundary`, stop at the next step boundary.

        A caller that must plan again stops at the boundary, where every agent is on a cell.
        """
        if self.finished:
            return
        self.phase_s += dt
        while self.phase_s >= self.step_s and not self.finished:
            self.phase_s -= self.step_s
            self.step += 1
            if stop_at_boundary:
                self.phase_s = 0.0
        if self.finished:
            self.phase_s = 0.0

    def positions(self) -> NDArray[np.float64]:
        """``(agents, 2)`` where each agent stands now."""
        if self.finished:
            return np.array(self._points[-1])
        start = self._first if self.step == 0 else self._points[self.step]
        end = self._points[self.step + 1]
        return np.asarray(start + (end - start) * (self.phase_s / self.step_s), dtype=np.float64)

    def heading_for(self) -> NDArray[np.float64]:
        """``(agents, 2)`` the way each agent goes in this step; zero while it waits."""
        if self.finished:
            return np.zeros_like(self._first)
        start = self._first if self.step == 0 else self._points[self.step]
        return np.asarray(self._points[self.step + 1] - start)

    def current_cells(self) -> NDArray[np.intp]:
        """Each agent's cell at the current step (where it stands at a boundary)."""
        return np.asarray(self.cells[min(self.step, self.steps)])

    def arrived(self) -> NDArray[np.bool_]:
        """Which agents stand at their goals for good."""
        return np.asarray(self.step >= self.arrival_steps)

    def cells_ahead(self, agent: int) -> list[int]:
        """The cells `agent` still enters, in order, up to its goal (waits left out)."""
        ahead: list[int] = []
        last = int(self.cells[min(self.step, self.steps), agent])
        for cell in self.cells[self.step + 1 : int(self.arrival_steps[agent]) + 1, agent]:
            if int(cell) != last:
                ahead.append(int(cell))
                last = int(cell)
        return ahead
