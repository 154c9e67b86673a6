"""Map generators in the style of the Moving AI benchmark families, and random scenarios on them.

`generate_layout` draws a walkable ``[row, col]`` mask of one of three kinds:

- ``"maze"``: a perfect maze (one region, no loops) of corridors `corridor` cells wide between
  walls 1 cell thick, like Moving AI's ``maze512-W-0`` maps. The corridors form a lattice of
  ``corridor x corridor`` squares with a wall line every ``corridor + 1`` cells; Kruskal's
  algorithm on that lattice (edges in a random order, joined unless already connected) picks
  which wall squares between neighbouring squares open.
- ``"rooms"``: square rooms `room` cells inside, walls 1 cell thick, doors `door` cells wide,
  like ``8room_000``. A spanning tree of the rooms (Kruskal again) gets a door in each of its
  walls, so every room is reached; every other inner wall gets one with `EXTRA_DOOR_CHANCE`,
  which gives loops in about the share ``8room_000`` has (80 % of its walls have a door).
- ``"random"``: each cell blocked on its own with probability `density`, like
  ``random512-25-0``. Not promised connected.

Mazes and rooms have a closed border. When a side is not a whole number of lattice steps
(``corridor + 1`` or ``room + 1`` cells, plus one for the last wall) the lattice is centred
and the spare cells join the border walls, so every corridor and room keeps its size.
Everything is drawn from ``np.random.default_rng(seed)``: one seed, one layout.

`random_scenarios` draws start/goal pairs on any walkable mask, with their optimal lengths from
our distance field (8-connected, no corner cutting: the Moving AI rule).

Credit: Kruskal's algorithm for mazes as Jamis Buck describes it ("Maze Generation: Kruskal's
Algorithm", weblog.jamisbuck.org, 2011).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import NDArray

from sim.navigation.field import field_on_graph
from sim.navigation.grid import Cell, check_walkable
from sim.navigation.maps.movingai import Scenario
from sim.navigation.maps.movingai_files import check_map_name
from sim.navigation.moves import MoveGraph

LAYOUT_KINDS: Final[tuple[str, ...]] = ("maze", "rooms", "random")
"""The kinds `generate_layout` draws."""

LAYOUT_PARAMETERS: Final[dict[str, tuple[str, ...]]] = {
    "maze": ("corridor",),
    "rooms": ("room", "door"),
    "random": ("density",),
}
"""The keyword parameters each kind reads; it ignores the others."""

MIN_SIDE: Final = 2
"""The smallest side of any layout, in cells; a maze needs ``corridor + 2`` and rooms
``room + 2`` (one corridor square or one room inside the border)."""

MAX_SIDE: Final = 4096
"""The largest side of any layout, in cells: the largest grid a scene may have. A 4096 x 4096
maze takes some seconds (Kruskal's loop runs in Python); benchmark maps are 1024 at most."""

EXTRA_DOOR_CHANCE: Final = 0.6
"""Chance that an inner wall of a rooms layout off the spanning tree still gets a door."""

SCENARIO_DECIMALS: Final = 8
"""Decimals of a generated scenario's optimal length, as the newer Moving AI files print."""

PAIR_CANDIDATES: Final = 4
"""How many cells near the corner `distant_pair` tries as a start (one field each)."""

BUCKET_LENGTH: Final = 4.0
"""A scenario's bucket is ``int(optimal_length / BUCKET_LENGTH)``, as in the Moving AI files."""

PROGRESS_EDGES: Final = 1 << 16
"""Edges Kruskal's loop tries between two calls of a layout's `progress` (some 0.1 s)."""

MAX_SCENARIOS: Final = 1_000_000
"""The most scenarios one `random_scenarios` call draws: a million hold about
`SCENARIO_BYTES` each while drawn and written; Moving AI's own files hold a few thousand."""

SCENARIO_BYTES: Final = 400
"""Memory one drawn scenario takes, its object and its line of text, in round figures."""

MAX_SCENARIO_CELL_VISITS: Final = 2**32
"""The cells all of one `random_scenarios` call's distance fields may visit together (one field
over the whole map per scenario): some minutes at the few million cells a second one field
runs. A 4096 x 4096 map takes 256 scenarios, a 512 x 512 one 16,384."""


def generate_layout(
    kind: str,
    height: int,
    width: int,
    *,
    seed: int,
    corridor: int = 1,
    room: int = 8,
    door: int = 1,
    density: float = 0.25,
    progress: Callable[[float], object] | None = None,
) -> NDArray[np.bool_]:
    """Return a ``height x width`` walkable mask (``[row, col]``, True = walkable) of `kind`.

    Args:
        kind: one of `LAYOUT_KINDS`: "maze", "rooms" or "random".
        height: rows, `MIN_SIDE` to `MAX_SIDE` (a maze at least ``corridor + 2``, rooms at
            least ``room + 2``).
        width: columns, the same bounds.
        seed: the seed of ``np.random.default_rng``, >= 0; the same seed, the same layout.
        corridor: "maze": corridor width in cells, >= 1.
        room: "rooms": cells inside each room along a side, >= 1.
        door: "rooms": door width in cells, 1 to `room`.
        density: "random": chance each cell is blocked, 0 <= density < 1.
        progress: called now and then with the share of the work done, 0 to 1, while a maze's
            or rooms' spanning tree is drawn (a 4096 x 4096 maze takes a minute or more).

    Raises:
        ValueError: naming the value, for an unknown kind, a size out of bounds, or a bad
            parameter of the kind (parameters the kind does not read are not checked).

    >>> for row in generate_layout("maze", 5, 7, seed=0):
    ...     print("".join("." if walkable else "@" for walkable in row))
    @@@@@@@
    @.@.@.@
    @.@.@.@
    @.....@
    @@@@@@@
    """
    if kind not in LAYOUT_KINDS:
        raise ValueError(f"unknown layout kind {kind!r}; expected one of {', '.join(LAYOUT_KINDS)}")
    rng = np.random.default_rng(_seed(seed))
    if kind == "maze":
        corridor = _inside("corridor", corridor, height, width)
        height, width = _check_size(f"a maze with corridor {corridor}", height, width, corridor + 2)
        return _maze(rng, height, width, corridor, progress)
    if kind == "rooms":
        room = _inside("room", room, height, width)
        door = _whole("door", door, 1)
        if door > room:
            raise ValueError(f"door must be at most room ({room}), got {door}")
        height, width = _check_size(f"rooms of {room}", height, width, room + 2)
        return _rooms(rng, height, width, room, door, progress)
    density = _density(density)
    height, width = _check_size("a random map", height, width, MIN_SIDE)
    walkable: NDArray[np.bool_] = rng.random((height, width)) >= density
    return walkable


def most_scenarios(height: int, width: int) -> int:
    """How many scenarios `random_scenarios` draws on a ``height x width`` map, at most.

    >>> most_scenarios(64, 64), most_scenarios(4096, 4096)
    (1000000, 256)
    """
    return max(1, min(MAX_SCENARIOS, MAX_SCENARIO_CELL_VISITS // max(height * width, 1)))


def check_scenario_budget(count: int, height: int, width: int) -> None:
    """Refuse `count` scenarios on a ``height x width`` map past the budget, with the estimate.

    This costs nothing, so a command checks it before it draws the map.

    Raises:
        ValueError: naming the count, what it would take and the most this map allows.

    >>> check_scenario_budget(100, 512, 512)
    >>> check_scenario_budget(1000000000, 64, 64)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: 1000000000 scenarios on a 64x64 map would take about 400 GB and 4.1e+12 cell ...
    """
    most = most_scenarios(height, width)
    if count <= most:
        return
    memory_gb = count * SCENARIO_BYTES / 1e9
    visits = count * height * width
    raise ValueError(
        f"{count} scenarios on a {width}x{height} map would take about {memory_gb:.3g} GB and "
        f"{visits:.2g} cell visits (a distance field over the map each); at most {most} fit"
    )


def random_scenarios(
    walkable: NDArray[np.bool_],
    count: int,
    *,
    seed: int,
    map_name: str,
    progress: Callable[[int], object] | None = None,
) -> list[Scenario]:
    """Draw `count` start/goal pairs that are connected, with their optimal lengths.

    Each start is drawn uniformly among the walkable cells that have a walkable neighbour, its
    goal uniformly among the other cells it can reach (8-connected, no corner cutting: the
    Moving AI rule). The optimal length is our distance field's (one Dijkstra from the start
    gives the length to every goal), rounded to `SCENARIO_DECIMALS`; the bucket is
    ``int(length / 4)``. The list is sorted by bucket, as Moving AI files are (pairs keep
    their draw order within a bucket), and each scenario's `line` is the one it takes in a
    file `write_scenarios` writes (the first on line 2). Pairs may repeat.

    Args:
        walkable: ``[row, col]`` bool mask, True where a path may go.
        count: how many scenarios, >= 1.
        seed: the seed of ``np.random.default_rng``, >= 0; the same seed, the same scenarios.
        map_name: the map's name as the .scen file names it (a bare file name, ``x.map``).
        progress: called with 1 after each scenario drawn (a progress bar's ``advance``).

    Raises:
        ValueError: for a bad mask, count or name, a count past the budget
            (`check_scenario_budget`), or a map without 2 connected walkable cells.

    >>> open_map = np.ones((1, 3), dtype=bool)
    >>> [(s.start, s.goal, s.optimal_length) for s in random_scenarios(open_map, 2, seed=0,
    ...     map_name="m.map")]
    [((0, 2), (0, 1), 1.0), ((0, 1), (0, 0), 1.0)]
    """
    count = _whole("count", count, 1)
    check_map_name(map_name)
    rng = np.random.default_rng(_seed(seed))
    graph = MoveGraph.build(walkable)  # checks the mask: 2-D, bool, not empty
    check_scenario_budget(count, *graph.walkable.shape)
    mask = np.ascontiguousarray(graph.walkable, dtype=bool)
    starts = np.flatnonzero(_has_walkable_neighbour(mask))
    if starts.size == 0:
        raise ValueError(
            "the map has fewer than 2 connected walkable cells: no scenario can be drawn"
        )
    height, width = mask.shape
    drawn: list[Scenario] = []
    for _ in range(count):
        start = int(starts[rng.integers(starts.size)])
        field = _field(graph, mask, start)
        goals = np.flatnonzero(np.isfinite(field))
        goals = goals[goals != start]  # never empty: the start has a walkable neighbour
        goal = int(goals[rng.integers(goals.size)])
        length = round(float(field[goal]), SCENARIO_DECIMALS)
        (start_y, start_x), (goal_y, goal_x) = divmod(start, width), divmod(goal, width)
        drawn.append(
            Scenario(
                bucket=int(length / BUCKET_LENGTH),
                map_name=map_name,
                map_width=width,
                map_height=height,
                start_x=start_x,
                start_y=start_y,
                goal_x=goal_x,
                goal_y=goal_y,
                optimal_length=length,
                line=0,
                length_decimals=SCENARIO_DECIMALS,
                fixed_decimals=True,
            )
        )
        if progress is not None:
            progress(1)
    drawn.sort(key=lambda scenario: scenario.bucket)
    return [_on_line(scenario, index + 2) for index, scenario in enumerate(drawn)]


def blocked_rectangles(walkable: NDArray[np.bool_]) -> list[tuple[int, int, int, int]]:
    """Cover the blocked cells of `walkable` with rectangles ``(row0, col0, row1, col1)``.

    Ends are exclusive and the rectangles do not overlap. Each row's blocked cells are cut into
    runs, and a run exactly as wide as one in the row before, at the same columns, extends that
    rectangle down: few rectangles for walls, one per cell at worst (a checkerboard).

    >>> blocked_rectangles(np.array([[0, 0, 1], [0, 0, 1], [0, 0, 0]], dtype=bool))
    [(0, 0, 2, 2), (2, 0, 3, 3)]
    """
    blocked = ~check_walkable(walkable)
    done: list[tuple[int, int, int, int]] = []
    growing: dict[tuple[int, int], int] = {}  # (col0, col1) of a rectangle still open -> row0
    for row, line in enumerate(blocked):
        edges = np.flatnonzero(np.diff(np.concatenate(([False], line, [False])).astype(np.int8)))
        runs = set(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))
        for cols in [cols for cols in growing if cols not in runs]:
            done.append((growing.pop(cols), cols[0], row, cols[1]))
        for cols in runs:
            growing.setdefault(cols, row)
    done.extend((row0, col0, blocked.shape[0], col1) for (col0, col1), row0 in growing.items())
    return sorted(done)


def distant_pair(walkable: NDArray[np.bool_]) -> tuple[Cell, Cell]:
    """Pick a start near the bottom-left corner and the reachable cell farthest from it.

    For a scene of a generated map: Start in the south-west (the map's last row is the
    scene's first), End at the far end of the longest shortest path from there. Of the few
    cells with a walkable neighbour nearest the corner, the start is the one that reaches the
    most cells, so a pocket in a random map does not hold it.

    Raises:
        ValueError: the map has fewer than 2 connected walkable cells.

    >>> distant_pair(np.array([[1, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=bool))
    ((2, 0), (0, 2))
    """
    graph = MoveGraph.build(walkable)
    mask = np.ascontiguousarray(graph.walkable, dtype=bool)
    starts = np.flatnonzero(_has_walkable_neighbour(mask))
    if starts.size == 0:
        raise ValueError("the map has fewer than 2 connected walkable cells")
    height, width = mask.shape
    rows, cols = np.divmod(starts, width)
    nearest = starts[np.argsort((height - 1 - rows) ** 2 + cols**2, kind="stable")]
    start, reached, field = -1, 0, np.empty(0)
    for candidate in nearest[:PAIR_CANDIDATES].tolist():
        candidate_field = _field(graph, mask, candidate)
        candidate_reached = int(np.isfinite(candidate_field).sum())
        if candidate_reached > reached:
            start, reached, field = candidate, candidate_reached, candidate_field
    goal = int(np.argmax(np.where(np.isfinite(field), field, -1.0)))
    return divmod(start, width), divmod(goal, width)


# --- layouts --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lattice:
    """Squares `inside` cells a side with a wall line every `step` (= inside + 1) cells.

    `rows` x `cols` squares; the first wall line is at row `row_offset` and column
    `col_offset`, which centre the squares when the sides leave spare cells.
    """

    rows: int
    cols: int
    row_offset: int
    col_offset: int
    inside: int

    @classmethod
    def fit(cls, height: int, width: int, inside: int) -> _Lattice:
        step = inside + 1
        rows, cols = (height - 1) // step, (width - 1) // step
        return cls(
            rows, cols, (height - 1 - rows * step) // 2, (width - 1 - cols * step) // 2, inside
        )

    @property
    def step(self) -> int:
        return self.inside + 1

    def open_squares(self, height: int, width: int) -> NDArray[np.bool_]:
        """The mask with every square open and walls everywhere else."""

        def open_lines(side: int, squares: int, offset: int) -> NDArray[np.bool_]:
            index = np.arange(side) - offset - 1
            return (index >= 0) & (index < squares * self.step) & (index % self.step < self.inside)

        rows = open_lines(height, self.rows, self.row_offset)
        return np.outer(rows, open_lines(width, self.cols, self.col_offset))

    def spanning_tree(
        self, rng: np.random.Generator, progress: Callable[[float], object] | None = None
    ) -> tuple[NDArray[np.bool_], NDArray[np.intp], NDArray[np.intp]]:
        """Kruskal: edges in a random order, each kept when it joins two trees.

        Edge ``e`` joins square ``first[e]`` to ``second[e]`` (flat ``row * cols + col``); the
        edges between left and right squares come first. Returns which edges are in the tree,
        and the two arrays. `progress` hears the share of edges tried after each block of
        `PROGRESS_EDGES`.
        """
        squares = np.arange(self.rows * self.cols).reshape(self.rows, self.cols)
        first = np.concatenate([squares[:, :-1].ravel(), squares[:-1, :].ravel()])
        second = np.concatenate([squares[:, 1:].ravel(), squares[1:, :].ravel()])
        parent = list(range(self.rows * self.cols))

        def root(node: int) -> int:
            while parent[node] != node:
                parent[node] = parent[parent[node]]  # path halving keeps the trees flat
                node = parent[node]
            return node

        in_tree = np.zeros(first.size, dtype=bool)
        left, right = first.tolist(), second.tolist()
        order = rng.permutation(first.size).tolist()
        for begin in range(0, len(order), PROGRESS_EDGES):
            for edge in order[begin : begin + PROGRESS_EDGES]:
                a, b = root(left[edge]), root(right[edge])
                if a != b:
                    parent[a] = b
                    in_tree[edge] = True
            if progress is not None:
                progress(min(begin + PROGRESS_EDGES, len(order)) / len(order))
        return in_tree, first, second

    def open_walls(
        self,
        mask: NDArray[np.bool_],
        first: NDArray[np.intp],
        second: NDArray[np.intp],
        opening: int,
        along: NDArray[np.int64],
    ) -> None:
        """Open `opening` cells of each wall between squares ``first[e]`` and ``second[e]``.

        The opening starts ``along[e]`` cells from the squares' top or left side.
        """
        row, col = np.divmod(first, self.cols)
        top = self.row_offset + 1 + row * self.step + along  # inside square `first`, shifted
        left = self.col_offset + 1 + col * self.step + along
        across = np.arange(opening)
        sideways = second == first + 1
        # Between left and right squares: the wall column after `first`, rows along it.
        wall_col = self.col_offset + col * self.step + self.step
        mask[top[sideways, None] + across, wall_col[sideways, None]] = True
        # Between upper and lower squares: the wall row below `first`, columns along it.
        wall_row = self.row_offset + row * self.step + self.step
        mask[wall_row[~sideways, None], left[~sideways, None] + across] = True


def _maze(
    rng: np.random.Generator,
    height: int,
    width: int,
    corridor: int,
    progress: Callable[[float], object] | None,
) -> NDArray[np.bool_]:
    lattice = _Lattice.fit(height, width, corridor)
    mask = lattice.open_squares(height, width)
    in_tree, first, second = lattice.spanning_tree(rng, progress)
    first, second = first[in_tree], second[in_tree]
    lattice.open_walls(mask, first, second, corridor, np.zeros(first.size, dtype=np.int64))
    return mask


def _rooms(
    rng: np.random.Generator,
    height: int,
    width: int,
    room: int,
    door: int,
    progress: Callable[[float], object] | None,
) -> NDArray[np.bool_]:
    lattice = _Lattice.fit(height, width, room)
    mask = lattice.open_squares(height, width)
    in_tree, first, second = lattice.spanning_tree(rng, progress)
    doors = in_tree | (rng.random(in_tree.size) < EXTRA_DOOR_CHANCE)
    first, second = first[doors], second[doors]
    # Each door sits anywhere along its wall, as in 8room_000.
    lattice.open_walls(mask, first, second, door, rng.integers(0, room - door + 1, first.size))
    return mask


# --- scenarios ------------------------------------------------------------------------------


def _has_walkable_neighbour(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Walkable cells with a walkable orthogonal neighbour: the cells that are not alone.

    Without corner cutting a diagonal step needs both orthogonal cells walkable, so a cell whose
    4 orthogonal neighbours are blocked has no move at all.
    """
    neighbour = np.zeros_like(mask)
    neighbour[1:, :] |= mask[:-1, :]
    neighbour[:-1, :] |= mask[1:, :]
    neighbour[:, 1:] |= mask[:, :-1]
    neighbour[:, :-1] |= mask[:, 1:]
    result: NDArray[np.bool_] = mask & neighbour
    return result


def _field(graph: MoveGraph, mask: NDArray[np.bool_], start: int) -> NDArray[np.float64]:
    """The flat cost between `start` and every cell (moves are symmetric with unit costs)."""
    # Imported here, as find_path does: importing kernel warns when it is not built, and
    # importing sim.navigation must not.
    from sim.navigation.searches import kernel

    if kernel.choose("auto"):
        return kernel.field_flat(mask, None, start, diagonal=graph.rule)
    return np.array(field_on_graph(graph, start, implementation="python"), dtype=np.float64)


def _on_line(scenario: Scenario, line: int) -> Scenario:
    return Scenario(
        scenario.bucket,
        scenario.map_name,
        scenario.map_width,
        scenario.map_height,
        scenario.start_x,
        scenario.start_y,
        scenario.goal_x,
        scenario.goal_y,
        scenario.optimal_length,
        line,
        length_decimals=scenario.length_decimals,
        fixed_decimals=scenario.fixed_decimals,
    )


# --- checks ---------------------------------------------------------------------------------


def _whole(name: str, value: object, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if value < least:
        raise ValueError(f"{name} must be at least {least}, got {value}")
    return int(value)


def _inside(name: str, value: object, height: object, width: object) -> int:
    """A corridor or room width, >= 1; one wider than any map is refused with this map's range.

    Checked against the size alone (`_check_size`) it would ask for sides no map may have.
    """
    value = _whole(name, value, 1)
    if value + 2 > MAX_SIDE:
        rows, cols = _check_size("a map", height, width, MIN_SIDE + 1)
        raise ValueError(
            f"{name} must be 1 to {min(rows, cols) - 2} on a {cols}x{rows} map, got {value}"
        )
    return value


def _seed(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {value!r}")
    return int(value)


def _density(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"density must be a number, got {value!r}")
    density = float(value)
    if not (math.isfinite(density) and 0.0 <= density < 1.0):
        raise ValueError(f"density must be at least 0 and below 1, got {value!r}")
    return density


def _check_size(what: str, height: object, width: object, least: int) -> tuple[int, int]:
    sides = []
    for name, side in (("height", height), ("width", width)):
        if isinstance(side, bool) or not isinstance(side, int | np.integer):
            raise ValueError(f"{name} must be a whole number of cells, got {side!r}")
        sides.append(int(side))
    least = max(least, MIN_SIDE)
    if not all(least <= side <= MAX_SIDE for side in sides):
        raise ValueError(
            f"{what} needs each side {least} to {MAX_SIDE} cells, got {sides[1]}x{sides[0]} "
            "(width x height)"
        )
    return sides[0], sides[1]
