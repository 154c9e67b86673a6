"""Check a plan against the rules and list every way it breaks them.

A plan is one path per agent, a ``(row, col)`` cell per time step from time 0 (pairs, not flat
cells, so that a cell off the map stays itself); paths shorter than the longest wait at their
last cell. The rules: each path starts at its agent's start and ends at its goal; every step
goes to a walkable 4-neighbour on the map or waits (8-connected: or to a diagonal neighbour
whose two orthogonal cells beside the step are walkable); no two agents share a cell at one
time; no two agents trade cells in one step; no two agents take the two diagonals of one 2x2
block in one step. `check_plan` lists every violation, not only the first, in time order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from sim.mapf.problem import MapfProblem

Pair = tuple[int, int]


class ViolationKind(StrEnum):
    """The ways a plan can break the rules."""

    WRONG_START = "wrong start"
    WRONG_GOAL = "wrong goal"
    EMPTY_PATH = "empty path"
    OFF_MAP = "off the map"
    INTO_WALL = "into a wall"
    NOT_ADJACENT = "not adjacent"
    DIAGONAL = "diagonal step"
    CORNER_CUT = "corner cut"
    VERTEX_CONFLICT = "vertex conflict"
    SWAP_CONFLICT = "swap conflict"
    CROSSING_CONFLICT = "crossing conflict"


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule.

    Attributes:
        kind: which rule.
        time: the time step it happens at (the arrival, for a move).
        agents: the agents involved (one, or two for a conflict, lower index first).
        message: the whole story in one line, cells as ``(x=col, y=row)``.
    """

    kind: ViolationKind
    time: int
    agents: tuple[int, ...]
    message: str

    def __str__(self) -> str:
        return self.message


def flat_to_pairs(problem: MapfProblem, paths: Sequence[Sequence[int]]) -> list[list[Pair]]:
    """Turn paths of flat cells into paths of ``(row, col)`` for `check_plan`.

    >>> import numpy as np
    >>> flat_to_pairs(MapfProblem(np.ones((2, 3), bool), (), ()), [[0, 4]])
    [[(0, 0), (1, 1)]]
    """
    return [[divmod(cell, problem.width) for cell in path] for path in paths]


def check_plan(problem: MapfProblem, paths: Sequence[Sequence[Pair]]) -> list[Violation]:
    """Every violation of `paths` (one per agent, ``(row, col)`` cells); empty when valid.

    Raises:
        ValueError: the plan does not hold one path per agent.

    >>> import numpy as np
    >>> problem = MapfProblem.from_cells(np.ones((1, 2), bool), [(0, 0), (0, 1)], [(0, 1), (0, 0)])
    >>> [str(v) for v in check_plan(problem, [[(0, 0), (0, 1)], [(0, 1), (0, 0)]])]
    ['t=1: swap conflict: agents 0 and 1 trade (x=0, y=0) and (x=1, y=0)']
    """
    if len(paths) != problem.agents:
        raise ValueError(f"the plan has {len(paths)} paths for {problem.agents} agents")
    found: list[Violation] = []
    for agent, path in enumerate(paths):
        found += _path_violations(problem, agent, path)
    if all(paths):
        found += _conflicts(problem, paths)
    return sorted(found, key=lambda violation: violation.time)


def _conflicts(problem: MapfProblem, paths: Sequence[Sequence[Pair]]) -> list[Violation]:
    found = []
    horizon = max((len(path) for path in paths), default=0)

    def at(path: Sequence[Pair], t: int) -> Pair:
        return path[min(t, len(path) - 1)]

    for t in range(horizon):
        holder: dict[Pair, int] = {}
        for agent, path in enumerate(paths):
            cell = at(path, t)
            if cell in holder:
                found.append(
                    Violation(
                        ViolationKind.VERTEX_CONFLICT,
                        t,
                        (holder[cell], agent),
                        f"t={t}: vertex conflict: agents {holder[cell]} and {agent} both at "
                        f"{_name(cell)}",
                    )
                )
            else:
                holder[cell] = agent
        if t == 0:
            continue
        mover = {(at(path, t - 1), at(path, t)): agent for agent, path in enumerate(paths)}
        for agent, path in enumerate(paths):
            before, after = at(path, t - 1), at(path, t)
            other = mover.get((after, before))
            if before != after and other is not None and other > agent:
                found.append(
                    Violation(
                        ViolationKind.SWAP_CONFLICT,
                        t,
                        (agent, other),
                        f"t={t}: swap conflict: agents {agent} and {other} trade "
                        f"{_name(before)} and {_name(after)}",
                    )
                )
            found += _crossings(mover, t, agent, before, after)
    return found


def _crossings(
    mover: dict[tuple[Pair, Pair], int], t: int, agent: int, before: Pair, after: Pair
) -> list[Violation]:
    """The crossing conflicts of `agent`'s step, each told once (by the lower agent)."""
    if abs(after[0] - before[0]) != 1 or abs(after[1] - before[1]) != 1:
        return []
    corners = (before[0], after[1]), (after[0], before[1])
    found = []
    for step in (corners, corners[::-1]):
        other = mover.get(step)
        if other is not None and other > agent:
            found.append(
                Violation(
                    ViolationKind.CROSSING_CONFLICT,
                    t,
                    (agent, other),
                    f"t={t}: crossing conflict: agent {agent} moves from {_name(before)} to "
                    f"{_name(after)} across agent {other} moving from {_name(step[0])} to "
                    f"{_name(step[1])}",
                )
            )
    return found


def _path_violations(problem: MapfProblem, agent: int, path: Sequence[Pair]) -> list[Violation]:
    """The rules one path breaks alone: its ends and its steps."""
    if not path:
        return [Violation(ViolationKind.EMPTY_PATH, 0, (agent,), f"t=0: agent {agent} has no path")]
    found = []
    start = divmod(problem.starts[agent], problem.width)
    goal = divmod(problem.goals[agent], problem.width)
    if path[0] != start:
        found.append(
            Violation(
                ViolationKind.WRONG_START,
                0,
                (agent,),
                f"t=0: wrong start: agent {agent} is at {_name(path[0])}, not its start "
                f"{_name(start)}",
            )
        )
    if not _on_map(problem, path[0]):
        found.append(
            Violation(
                ViolationKind.OFF_MAP,
                0,
                (agent,),
                f"t=0: agent {agent} is at {_name(path[0])}, off the map",
            )
        )
    for t in range(1, len(path)):
        kind = _step_problem(problem, path[t - 1], path[t])
        if kind is not None:
            found.append(
                Violation(
                    kind,
                    t,
                    (agent,),
                    f"t={t}: {kind}: agent {agent} moves from {_name(path[t - 1])} to "
                    f"{_name(path[t])}",
                )
            )
    end = len(path) - 1
    if path[end] != goal:
        found.append(
            Violation(
                ViolationKind.WRONG_GOAL,
                end,
                (agent,),
                f"t={end}: wrong goal: agent {agent} ends at {_name(path[end])}, not its goal "
                f"{_name(goal)}",
            )
        )
    return found


def _on_map(problem: MapfProblem, cell: Pair) -> bool:
    return 0 <= cell[0] < problem.height and 0 <= cell[1] < problem.width


def _step_problem(problem: MapfProblem, before: Pair, after: Pair) -> ViolationKind | None:
    if not _on_map(problem, after):
        return ViolationKind.OFF_MAP
    if not problem.walkable[after]:
        return ViolationKind.INTO_WALL
    width = problem.width
    if (before[0] * width + before[1], after[0] * width + after[1]) in problem.links:
        return None  # a link: one time step, wherever it leads
    rows, cols = abs(after[0] - before[0]), abs(after[1] - before[1])
    if rows > 1 or cols > 1:
        return ViolationKind.NOT_ADJACENT
    if rows and cols:
        if problem.connectivity == 4:
            return ViolationKind.DIAGONAL
        corners = (before[0], after[1]), (after[0], before[1])
        if not all(_on_map(problem, c) and problem.walkable[c] for c in corners):
            return ViolationKind.CORNER_CUT
    return None


def _name(cell: Pair) -> str:
    return f"(x={cell[1]}, y={cell[0]})"
