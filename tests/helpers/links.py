"""Random grids with links (`sim.navigation.links`) for the link tests, and edits between plans.

Walls, optional terrain costs, and one-way and two-way links on grids up to 14 x 14, each made
from one seed; `moving_starts` edits such a grid between the plans of a repairing search.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.links import NavLink
from sim.navigation.pathfinder import find_path
from sim.navigation.query import PathResult
from tests.helpers.grids import ascii_grid

Cell = tuple[int, int]
RULES = ("never", "no-corner-cutting", "one-obstacle", "always")
"""The diagonal rules by name, as `find_path` takes them."""


@dataclass(frozen=True)
class LinkedProblem:
    walkable: NDArray[np.bool_]
    costs: NDArray[np.float64] | None
    links: tuple[NavLink, ...]
    start: Cell
    goal: Cell

    def __repr__(self) -> str:
        return (
            f"LinkedProblem(start={self.start}, goal={self.goal}, links={self.links})\n"
            f"{ascii_grid(self.walkable)}"
        )

    def solve(self, **options: Any) -> PathResult:
        """`find_path` from start to goal with the problem's costs and links, and `options`."""
        return find_path(
            self.walkable, self.start, self.goal, costs=self.costs, links=self.links, **options
        )


def random_problem(seed: int, *, with_costs: bool) -> LinkedProblem:
    """A grid up to 14x14 with walls, optional costs, up to 6 links, walkable start and goal."""
    rng = np.random.default_rng(seed)
    height, width = (int(n) for n in rng.integers(3, 15, size=2))
    walkable = rng.random((height, width)) > rng.choice([0.1, 0.3, 0.45])
    cells = [(int(r), int(c)) for r, c in np.argwhere(walkable)]
    if len(cells) < 2:
        walkable[0, 0] = walkable[-1, -1] = True
        cells = [(0, 0), (height - 1, width - 1)]
    costs = None
    if with_costs:
        costs = rng.choice([0.25, 0.5, 1.0, 2.0, 5.0], size=(height, width))
    links = []
    for _ in range(int(rng.integers(0, 7))):
        a, b = rng.choice(len(cells), size=2)
        cost = float(rng.choice([0.0, 0.5, 1.0, 3.0, float(rng.uniform(0, 8))]))
        links.append(NavLink(cells[a], cells[b], cost, bool(rng.integers(0, 2))))
    a, b = rng.choice(len(cells), size=2)
    return LinkedProblem(walkable, costs, tuple(links), cells[a], cells[b])


def moving_starts(
    problem: LinkedProblem, walkable: NDArray[np.bool_], rng: np.random.Generator, steps: int = 8
) -> Iterator[Cell]:
    """The starts of `steps` plans toward `problem.goal`, with `walkable` edited between them.

    The first is `problem.start`. Before each next one, 1 to 3 cells of `walkable` toggle in
    place (a link's end 40% of the time when there are links; never the goal) and the start
    moves to a walkable cell drawn from `rng`.
    """
    ends = [cell for link in problem.links for cell in (link.start, link.end)]
    yield problem.start
    for _ in range(steps - 1):
        for _ in range(int(rng.integers(1, 4))):
            if ends and rng.random() < 0.4:
                cell = ends[int(rng.integers(len(ends)))]
            else:
                cell = (int(rng.integers(walkable.shape[0])), int(rng.integers(walkable.shape[1])))
            if cell != problem.goal:
                walkable[cell] = not walkable[cell]
        open_cells = np.argwhere(walkable)
        row, col = open_cells[int(rng.integers(len(open_cells)))]
        yield int(row), int(col)
