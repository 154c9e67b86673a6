"""The multi-agent path finding problem: a grid, each agent's start and goal, and its costs.

Time is discrete. At each step every agent moves to one of its 4 neighbours or waits; no two
agents may stand in one cell at one time (a vertex conflict) or trade cells in one step (a swap
conflict). An agent that reached its goal stays there unless the plan moves it on, and its cost
is the time it *last* arrives there: the step from which it never leaves again. The sum of
those costs and their maximum (the makespan) are what a plan is judged by; the single-agent
distances, each agent alone on the grid, bound both from below (Stern et al. 2019, "Multi-Agent
Pathfinding: Definitions, Variants, and Benchmarks").

That 4-connected rule is the benchmark's and the default. A problem may be 8-connected instead:
an agent may also step diagonally when both orthogonal cells beside the step are walkable (no
corner cutting, the project's rule), and two agents may not take the two diagonals of one 2x2
block in the same step (a crossing conflict). A diagonal step takes one time step, like an
orthogonal one: costs stay unit, and the distance tables count steps under the same moves.

Links (`sim.navigation.links.NavLink`: ladders, jumps, one-way drops) are moves too: a link
from ``a`` to ``b`` lets an agent at ``a`` be at ``b`` one time step later, whatever the link's
cost (time stays unit, as a diagonal's does; the conflicts are the same: two agents may not
stand in one cell nor trade cells, over a link or not). `MapfProblem.with_links` adds them;
the solvers with links run in Python (the compiled ones know none).

Cells are flat ints, ``row * width + col``; a path is one cell per time step, from time 0.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.mapf import native
from sim.navigation.field import distance_field
from sim.navigation.links import NavLink, check_links, lanes

UNREACHABLE = 2**30
"""Distance table entry of a cell from which the goal cannot be reached (and of walls)."""

CONNECTIVITIES = (4, 8)
"""The move rules a problem may have: 4 the benchmark's, 8 with diagonals (no corner cutting)."""

_ORTHOGONAL = ((-1, 0), (0, -1), (0, 1), (1, 0))
# After the orthogonal moves, so that a 4-connected problem's order stays what it was.
_DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))


@dataclass(frozen=True, slots=True, eq=False)
class MapfProblem:
    """A MAPF instance on a grid, 4-connected (the benchmark's rule) or 8-connected.

    Attributes:
        walkable: ``[row, col]`` bool, True where an agent may stand.
        starts: each agent's start cell (flat), pairwise distinct, all walkable.
        goals: each agent's goal cell (flat), pairwise distinct, all walkable.
        name: the map's name, for reports (``random-32-32-20.map``).
        connectivity: 4, or 8 for diagonal steps too (each one time step, never cutting a
            corner; see the module).
        links: ``(from, to)`` flat cells of each one-way hop a link allows (a two-way link
            gives both), each one time step (`with_links`).

    Raises:
        ValueError: naming the agent and the cell, when the lists differ in length, a cell
            lies off the grid or on a wall, or two agents share a start or a goal; or for a
            connectivity other than 4 or 8.

    >>> problem = MapfProblem.from_cells(np.ones((1, 3), bool), [(0, 0)], [(0, 2)])
    >>> problem.starts, problem.goals, problem.agents
    ((0,), (2,), 1)
    """

    walkable: NDArray[np.bool_]
    starts: tuple[int, ...]
    goals: tuple[int, ...]
    name: str = "<grid>"
    connectivity: int = 4
    links: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        if self.connectivity not in CONNECTIVITIES:
            raise ValueError(f"connectivity must be 4 or 8, got {self.connectivity!r}")
        if self.walkable.ndim != 2 or self.walkable.dtype != np.bool_:
            raise ValueError(f"walkable must be a 2-D bool array, got {self.walkable.dtype}")
        if len(self.starts) != len(self.goals):
            raise ValueError(f"{len(self.starts)} starts but {len(self.goals)} goals")
        for kind, cells in (("start", self.starts), ("goal", self.goals)):
            seen: dict[int, int] = {}
            for agent, cell in enumerate(cells):
                self._check_cell(kind, agent, cell)
                if cell in seen:
                    raise ValueError(
                        f"agents {seen[cell]} and {agent} have the same {kind} "
                        f"{self.describe(cell)}"
                    )
                seen[cell] = agent

    @classmethod
    def from_cells(
        cls,
        walkable: NDArray[np.bool_],
        starts: Sequence[tuple[int, int]],
        goals: Sequence[tuple[int, int]],
        *,
        name: str = "<grid>",
        connectivity: int = 4,
    ) -> MapfProblem:
        """Build a problem from ``(row, col)`` starts and goals (checked as in the class).

        >>> MapfProblem.from_cells(np.ones((2, 2), bool), [(1, 1)], [(0, 1)]).starts
        (3,)
        """
        width = int(walkable.shape[1])
        for kind, cells in (("start", starts), ("goal", goals)):
            for agent, (row, col) in enumerate(cells):
                if not (0 <= row < walkable.shape[0] and 0 <= col < width):
                    raise ValueError(
                        f"agent {agent}'s {kind} (x={col}, y={row}) lies off the "
                        f"{width}x{walkable.shape[0]} map"
                    )
        flat = [tuple(r * width + c for r, c in cells) for cells in (starts, goals)]
        return cls(walkable, flat[0], flat[1], name, connectivity)

    def with_links(self, links: Sequence[NavLink]) -> MapfProblem:
        """This problem with `links` as moves too (each lane, each way it runs).

        Raises:
            ValueError: for a bad link (`sim.navigation.links.check_links`: an end off the
                grid or on a wall, ...).

        >>> problem = MapfProblem.from_cells(np.ones((1, 5), bool), [(0, 0)], [(0, 4)])
        >>> problem.with_links([NavLink((0, 0), (0, 4), bidirectional=False)]).links
        ((0, 4),)
        """
        hops = []
        for link in check_links(links, self.walkable):
            for (start_row, start_col), (end_row, end_col) in lanes(link):
                start = start_row * self.width + start_col
                end = end_row * self.width + end_col
                if start != end:
                    hops.append((start, end))
                    if link.bidirectional:
                        hops.append((end, start))
        unique = tuple(dict.fromkeys(hops))
        return MapfProblem(
            self.walkable, self.starts, self.goals, self.name, self.connectivity, unique
        )

    def predecessors(self, cell: int) -> list[int]:
        """The cells that may step to `cell`.

        Its neighbours (the grid's moves are symmetric) and the starts of the links into it.

        >>> problem = MapfProblem(np.ones((1, 4), bool), (), (), links=((0, 3),))
        >>> problem.predecessors(3), problem.predecessors(0)
        ([2, 0], [1])
        """
        found = self._grid_neighbours(cell)
        found += [start for start, end in self.links if end == cell and start not in found]
        return found

    @property
    def agents(self) -> int:
        """Number of agents."""
        return len(self.starts)

    @property
    def width(self) -> int:
        """Columns of the grid."""
        return int(self.walkable.shape[1])

    @property
    def height(self) -> int:
        """Rows of the grid."""
        return int(self.walkable.shape[0])

    def describe(self, cell: int) -> str:
        """Name a flat cell as the Moving AI files do, column first.

        >>> MapfProblem(np.ones((2, 3), bool), (), ()).describe(4)
        '(x=1, y=1)'
        """
        row, col = divmod(cell, self.width)
        return f"(x={col}, y={row})"

    def neighbours(self, cell: int) -> list[int]:
        """The walkable cells `cell` may step to, in a fixed order.

        Up, left, right, down; then, when 8-connected, up-left, up-right, down-left,
        down-right, each only when both orthogonal cells beside it are walkable; then the
        ends of the links out of `cell` that are no neighbour already, in `links` order.

        >>> MapfProblem(np.ones((2, 3), bool), (), ()).neighbours(1)
        [0, 2, 4]
        >>> MapfProblem(np.ones((2, 3), bool), (), (), connectivity=8).neighbours(1)
        [0, 2, 4, 3, 5]
        """
        found = self._grid_neighbours(cell)
        if self.links:
            found += [end for start, end in self.links if start == cell and end not in found]
        return found

    def _grid_neighbours(self, cell: int) -> list[int]:
        row, col = divmod(cell, self.width)
        found = [
            (row + dr) * self.width + col + dc
            for dr, dc in _ORTHOGONAL
            if self._free(row + dr, col + dc)
        ]
        if self.connectivity == 8:
            found += [
                (row + dr) * self.width + col + dc
                for dr, dc in _DIAGONAL
                if self._free(row + dr, col + dc)
                and self._free(row + dr, col)
                and self._free(row, col + dc)
            ]
        return found

    def _free(self, row: int, col: int) -> bool:
        return 0 <= row < self.height and 0 <= col < self.width and bool(self.walkable[row, col])

    def _check_cell(self, kind: str, agent: int, cell: int) -> None:
        if not 0 <= cell < self.walkable.size:
            raise ValueError(f"agent {agent}'s {kind} cell {cell} lies off the grid")
        row, col = divmod(cell, self.width)
        if not self.walkable[row, col]:
            raise ValueError(f"agent {agent}'s {kind} {self.describe(cell)} is on a wall")


@dataclass(frozen=True, slots=True)
class LowerBounds:
    """What no plan can beat: each agent alone on the grid.

    Attributes:
        sum_of_costs: the sum of the agents' start-to-goal distances.
        makespan: the largest of them.
    """

    sum_of_costs: int
    makespan: int


def distance_tables(problem: MapfProblem, *, implementation: str = "auto") -> NDArray[np.int32]:
    """Return ``[agent, cell]`` the step count from each cell to the agent's goal.

    Steps are the problem's moves (`MapfProblem.neighbours`), a diagonal one step like the
    rest. Walls and cells that cannot reach the goal hold `UNREACHABLE`. "c" runs the
    breadth-first search of the compiled extension, "python" `sim.navigation.distance_field`
    (unit costs, no diagonals) once per goal when 4-connected and a breadth-first search over
    `MapfProblem.neighbours` when 8-connected (the field would charge a diagonal its length),
    "auto" the first when it is built; both give equal tables.

    >>> problem = MapfProblem.from_cells(np.array([[1, 1, 0]], bool), [(0, 0)], [(0, 1)])
    >>> distance_tables(problem, implementation="python").tolist()
    [[1, 0, 1073741824]]
    """
    if native.choose(implementation) and not problem.links:
        return native.distance_tables(problem)
    tables = np.full((problem.agents, problem.walkable.size), UNREACHABLE, dtype=np.int32)
    if problem.connectivity == 8 or problem.links:
        for agent, goal in enumerate(problem.goals):
            tables[agent] = _steps_to(problem, goal)
        return tables
    for agent, goal in enumerate(problem.goals):
        field = distance_field(
            problem.walkable, divmod(goal, problem.width), diagonal=False, implementation="python"
        ).ravel()
        reached = np.isfinite(field)
        tables[agent, reached] = field[reached].astype(np.int32)
    return tables


def _steps_to(problem: MapfProblem, goal: int) -> list[int]:
    """Breadth-first steps from every cell to `goal`, outwards over the moves reversed."""
    steps = [UNREACHABLE] * problem.walkable.size
    steps[goal] = 0
    queue = deque([goal])
    while queue:
        current = queue.popleft()
        for cell in problem.predecessors(current):
            if steps[cell] == UNREACHABLE:
                steps[cell] = steps[current] + 1
                queue.append(cell)
    return steps


def lower_bounds(problem: MapfProblem, tables: NDArray[np.int32]) -> LowerBounds:
    """Sum and maximum of the single-agent distances (`distance_tables`).

    Raises:
        ValueError: naming the first agent whose goal cannot be reached from its start.

    >>> problem = MapfProblem.from_cells(np.ones((1, 4), bool), [(0, 0), (0, 3)], [(0, 2), (0, 1)])
    >>> lower_bounds(problem, distance_tables(problem))
    LowerBounds(sum_of_costs=4, makespan=2)
    """
    alone = [int(tables[agent, start]) for agent, start in enumerate(problem.starts)]
    for agent, steps in enumerate(alone):
        if steps >= UNREACHABLE:
            raise ValueError(
                f"agent {agent} cannot reach its goal {problem.describe(problem.goals[agent])} "
                f"from its start {problem.describe(problem.starts[agent])}"
            )
    return LowerBounds(sum(alone), max(alone, default=0))


def diagonal_corners(before: int, after: int, width: int) -> tuple[int, int] | None:
    """The two other cells of the 2x2 block a diagonal step crosses; None for any other step.

    A step between those two, either way, in the same time step crosses this one.

    >>> diagonal_corners(0, 4, 3), diagonal_corners(0, 1, 3)
    ((1, 3), None)
    """
    row, col = divmod(before, width)
    to_row, to_col = divmod(after, width)
    if abs(to_row - row) != 1 or abs(to_col - col) != 1:
        return None
    return row * width + to_col, to_row * width + col


def arrival_time(path: Sequence[int], goal: int) -> int:
    """When `path` last arrives at `goal` to stay: its cost (``len(path)`` if it ends elsewhere).

    >>> arrival_time([4, 5, 6, 5, 6, 6], 6)
    4
    """
    time = len(path)
    while time > 0 and path[time - 1] == goal:
        time -= 1
    return time


def plan_costs(problem: MapfProblem, paths: Sequence[Sequence[int]]) -> tuple[int, int]:
    """Sum of costs and makespan of `paths` (one per agent, each ending at its goal).

    >>> problem = MapfProblem.from_cells(np.ones((1, 3), bool), [(0, 0), (0, 1)], [(0, 1), (0, 2)])
    >>> plan_costs(problem, [[0, 1, 1], [1, 2, 2]])
    (2, 1)
    """
    costs = [arrival_time(path, goal) for path, goal in zip(paths, problem.goals, strict=True)]
    return sum(costs), max(costs, default=0)


def paths_from_configs(configs: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    """Turn a list of configurations (one cell per agent, per time step) into per-agent paths.

    >>> paths_from_configs([(0, 2), (1, 2)])
    ((0, 1), (2, 2))
    """
    if not configs:
        return ()
    return tuple(
        tuple(int(config[agent]) for config in configs) for agent in range(len(configs[0]))
    )
