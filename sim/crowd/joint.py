"""Follow a joint (MAPF) plan in step: every agent advances one cell per time step, together.

The rule: a time step lasts one move's travel at the group's slowest speed, ``step_s = cell_size
/ min(speeds)`` (`step_seconds`), or ``sqrt(2)`` times that when the plan may move diagonally,
so no agent outruns its speed on a diagonal. Within step ``t`` each agent glides in a straight
line, at constant speed, from its plan's cell at ``t`` to its cell at ``t + 1`` (centre to
centre; on the plan's first step from wherever it stood when the plan was made), so at every
step boundary all of them stand on the plan's cells at once: the plan's rules (no two agents in
one cell, no two trading cells) hold there, and between boundaries the moves are the plan's
moves. An agent past the end of its plan, or at its goal for good, waits on its cell.

With `turn_lag` (the crowd's jams use it), an agent that follows another into the cell it
leaves, turning where the other goes straight on or the other way round, sets off that fraction
of a step after it (`turn_delays`): in lock step the two would cut the corner between them and
come within ``1 / sqrt(2)`` of a cell, closer than two discs of half a cell; a lag of 0.3 keeps
them ``1.3 / sqrt(2)`` (0.92) apart. Such a step lasts that much longer.

The follower only keeps time and interpolates; who plans, when to plan again and how agents
face their way is the caller's (`sim.components.mapf_group`). Panda3D-free, numpy only.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from itertools import pairwise

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


def turn_delays(cells: NDArray[np.intp], width: int, lag: float) -> NDArray[np.float64]:
    """``[t, agent]`` how many step lengths each agent waits before its move of step ``t``.

    An agent entering the cell another leaves in the same step waits as long as that one, plus
    `lag` when their moves differ in direction; agents in a cycle of such moves (a rotation)
    wait for nobody. `cells` is ``[t, agent]`` flat cells on a grid `width` wide.

    >>> # Agent 1 goes up out of cell 1 as agent 0 comes in from the left: 0 waits.
    >>> turn_delays(np.array([[0, 1], [1, 5]]), 4, 0.3).tolist()
    [[0.3, 0.0]]
    """
    steps, agents = len(cells) - 1, cells.shape[1]
    delays = np.zeros((max(steps, 0), agents))
    for t in range(steps):
        here, there = cells[t], cells[t + 1]
        standing = {int(cell): agent for agent, cell in enumerate(here)}
        ahead = {}
        for agent in range(agents):
            other = standing.get(int(there[agent]))
            if here[agent] != there[agent] and other is not None and other != agent:
                ahead[agent] = other
        for agent in range(agents):
            delays[t, agent] = _delay(agent, ahead, here, there, width, lag)
    return delays


def rotations(cells: NDArray[np.intp]) -> list[list[tuple[int, ...]]]:
    """Per step, the cycles of agents each entering the cell the next leaves (a rotation).

    >>> # Four agents turn round a 2 x 2 block (cells 0, 1, 3, 2 of a grid 2 wide).
    >>> rotations(np.array([[0, 1, 3, 2], [1, 3, 2, 0]]))
    [[(0, 1, 2, 3)]]
    """
    found: list[list[tuple[int, ...]]] = []
    for t in range(len(cells) - 1):
        here, there = cells[t], cells[t + 1]
        standing = {int(cell): agent for agent, cell in enumerate(here)}
        ahead = {
            agent: standing[int(there[agent])]
            for agent in range(cells.shape[1])
            if here[agent] != there[agent] and int(there[agent]) in standing
        }
        cycles, seen = [], set()
        for agent in sorted(ahead):
            chain = [agent]
            while chain[-1] in ahead and ahead[chain[-1]] not in chain:
                chain.append(ahead[chain[-1]])
            if chain[-1] in ahead and ahead[chain[-1]] == agent and agent not in seen:
                seen.update(chain)
                cycles.append(tuple(sorted(chain)))
        found.append(cycles)
    return found


def _delay(
    agent: int,
    ahead: dict[int, int],
    here: NDArray[np.intp],
    there: NDArray[np.intp],
    width: int,
    lag: float,
) -> float:
    """How long `agent` waits: the lags along the chain of agents ahead of it (0 in a cycle)."""
    chain, seen = [agent], {agent}
    while chain[-1] in ahead:
        nxt = ahead[chain[-1]]
        if nxt in seen:
            return 0.0
        chain.append(nxt)
        seen.add(nxt)
    total = 0.0
    for follower, leader in pairwise(chain):
        if _direction(here[follower], there[follower], width) != _direction(
            here[leader], there[leader], width
        ):
            total += lag
    return total


def _room_round(block: NDArray[np.intp], width: int, open_cells: NDArray[np.bool_] | None) -> bool:
    """Whether the 8 cells beside a 2 x 2 block's edges are all open (on the grid, too)."""
    if open_cells is None:
        return True
    height = len(open_cells) // width
    top, left = int(block.min()) // width, int(block.min()) % width
    beside = [(top + r, left - 1) for r in (0, 1)] + [(top + r, left + 2) for r in (0, 1)]
    beside += [(top - 1, left + c) for c in (0, 1)] + [(top + 2, left + c) for c in (0, 1)]
    return all(
        0 <= r < height and 0 <= c < width and bool(open_cells[r * width + c]) for r, c in beside
    )


def _direction(before: int, after: int, width: int) -> tuple[int, int]:
    return (int(after) // width - int(before) // width, int(after) % width - int(before) % width)


class JointFollower:
    """Where each agent of a joint plan stands as time passes (see the module).

    Args:
        paths: ``[agent][t]`` flat cells, every path the same length (at least 1).
        goals: each agent's goal cell.
        centres: ``(cells, 2)`` world ``(x, y)`` of every flat cell's centre.
        first: ``(agents, 2)`` where each agent stands as the plan starts.
        step_s: seconds per time step (`step_seconds`).
        turn_lag: with `width`, agents following another round a turn lag this fraction of
            a step (`turn_delays`); 0: all move together.
        width: the grid's columns, to tell the moves' directions (with `turn_lag`).
        first_waits: seconds each agent waits before its move of the first step (from where
            it stood); None: none waits.
        open_cells: which flat cells (with `width`) a disc may bulge into round a 2 x 2 block
            (`_turn_round_blocks`); None: all.
        first_step_s: seconds the first step's move takes (from where each stood, which may
            be farther than a cell); None: `step_s`.
    """

    def __init__(
        self,
        paths: Sequence[Sequence[int]],
        goals: Sequence[int],
        centres: NDArray[np.float64],
        first: NDArray[np.float64],
        step_s: float,
        *,
        turn_lag: float = 0.0,
        width: int = 0,
        first_waits: NDArray[np.float64] | None = None,
        open_cells: NDArray[np.bool_] | None = None,
        first_step_s: float | None = None,
    ) -> None:
        self.cells = np.array(paths, dtype=np.intp).T.reshape(-1, len(paths))  # [t, agent]
        # Each step's move: the first from where the agents stood, the others cell to cell.
        self._moves_s = np.full(max(len(self.cells) - 1, 0), step_s)
        if first_step_s is not None and len(self._moves_s):
            self._moves_s[0] = first_step_s
        self._waits = (
            turn_delays(self.cells, width, turn_lag) * step_s
            if turn_lag > 0.0
            else np.zeros((len(self.cells) - 1, len(paths)))
        )
        if first_waits is not None and len(self._waits):
            self._waits[0] += first_waits
        # Each step lasts the move plus its longest wait.
        self._durations = self._moves_s + (
            self._waits.max(axis=1) if len(self._waits) else np.zeros(0)
        )
        self._pivots = np.full((len(self._waits), len(paths), 2), np.nan)
        self._bulges = np.ones((len(self._waits), len(paths)))
        if turn_lag > 0.0:
            self._turn_round_blocks(
                centres, width, min(1.0, turn_lag * (1.0 + np.sqrt(2.0))), open_cells
            )
        self._points: NDArray[np.float64] = centres[self.cells]
        self._first = np.asarray(first, dtype=np.float64)
        self.step_s = step_s
        self.step = 0
        self.phase_s = 0.0
        self._before = (0, 0.0)  # step and phase before the last `advance`
        goal_cells = np.asarray(goals, dtype=np.intp)
        away = self.cells != goal_cells[None, :]
        # The step from which each agent stays at its goal: its last step away, plus one.
        last_away = np.where(away.any(axis=0), len(away) - 1 - np.argmax(away[::-1], axis=0), -1)
        self.arrival_steps = last_away + 1

    def _turn_round_blocks(
        self,
        centres: NDArray[np.float64],
        width: int,
        tight: float,
        open_cells: NDArray[np.bool_] | None,
    ) -> None:
        """Four agents rotating round a 2 x 2 block go round its centre on a circle.

        On the cells' edges they would cut its corners and come within ``1 / sqrt(2)`` of a
        cell, however they wait (each waits for the next); on the circle through the four
        centres they stay a quarter turn, a whole cell, apart. The circle bulges 0.21 of a
        cell past the block's edges, though: where a cell beside the block is not open (a
        wall, an agent standing), they go only `tight` of the way from the edges to the
        circle, which keeps them the turn lag's distance apart, ``(1 + lag) / sqrt(2)`` of a
        cell, as a turn does. Longer rotations stay straight. The first step, from wherever
        the agents stood, is never one.
        """
        for t, cycles in enumerate(rotations(self.cells)):
            if t == 0:
                continue
            for cycle in cycles:
                block = centres[self.cells[t, list(cycle)]]
                if len(cycle) == 4:
                    self._pivots[t, list(cycle)] = block.mean(axis=0)
                    if not _room_round(self.cells[t, list(cycle)], width, open_cells):
                        self._bulges[t, list(cycle)] = tight

    def hold(self, agents: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Undo the last `advance` when any of `agents` must stand still: all move together.

        Returns which agents stand still over it: all of them, or none.
        """
        if not agents.any():
            return np.zeros(len(agents), dtype=bool)
        self.step, self.phase_s = self._before
        return np.ones(len(agents), dtype=bool)

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
        self._before = (self.step, self.phase_s)
        if self.finished:
            return
        self.phase_s += dt
        while not self.finished and self.phase_s >= self._durations[self.step]:
            self.phase_s -= self._durations[self.step]
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
        moved = np.clip(
            (self.phase_s - self._waits[self.step]) / self._moves_s[self.step], 0.0, 1.0
        )
        at = np.asarray(start + (end - start) * moved[:, None], dtype=np.float64)
        pivots = self._pivots[self.step]
        turning = ~np.isnan(pivots[:, 0])
        if turning.any():
            arm = start[turning] - pivots[turning]
            after = end[turning] - pivots[turning]
            side = np.sign(arm[:, 0] * after[:, 1] - arm[:, 1] * after[:, 0])
            angle = side * (np.pi / 2.0) * moved[turning]
            cos, sin = np.cos(angle), np.sin(angle)
            circle = pivots[turning] + np.column_stack(
                [arm[:, 0] * cos - arm[:, 1] * sin, arm[:, 0] * sin + arm[:, 1] * cos]
            )
            at[turning] += (circle - at[turning]) * self._bulges[self.step, turning][:, None]
        return at

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
