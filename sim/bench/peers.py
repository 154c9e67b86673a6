"""Adapters that run other grid pathfinders on a Moving AI map, for `sim bench`.

Each peer has one small ``prepare_<name>(walkable)`` function: it builds whatever the library
needs for one map (a graph, a cost array) outside the timing and returns a `Planner`.
``Planner.plan(start, goal, bound)`` is the timed call and returns the library's raw answer
(`bound`: the longest the optimal path can be, the published length plus its tolerance);
``Planner.read(raw)`` turns that into ``(cells, expanded)`` afterwards, untimed: cells as
``(row, col)`` from start to goal (``None`` if no path), expanded nodes or ``None`` where the
library does not say. The libraries have no type stubs, so they are imported inside the
functions and typed as `Any`; a peer that is not installed is reported, not an error.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

Cell = tuple[int, int]
Read = tuple[list[Cell] | None, int | None]

SQRT2 = math.sqrt(2.0)
TCOD_CARDINAL = 10_000
"""tcod's costs are integers: 10000 per straight step and round(10000 * sqrt(2)) per diagonal."""
TCOD_DIAGONAL = round(TCOD_CARDINAL * SQRT2)

RULE_MOVINGAI = "8-conn, diag sqrt2, no corner cutting"

# (dy, dx) of the 8 moves; a diagonal (dy, dx) needs (y + dy, x) and (y, x + dx) walkable.
MOVES = ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


@dataclass(frozen=True, slots=True)
class Planner:
    """One map, ready to answer queries: `plan` is timed, `read` is not."""

    plan: Callable[[Cell, Cell, float], Any]
    read: Callable[[Any], Read]


@dataclass(frozen=True, slots=True)
class Peer:
    """A library we compare against.

    Attributes:
        name: the name used by ``--peers``.
        module: the module that must import for the peer to run.
        distribution: the PyPI name, for the version.
        rule: its movement rule as configured here.
        slow: pure Python: run only ``--peer-limit`` queries on maps up to 256x256.
        prepare: ``walkable -> Planner`` for one map, built outside the timing.
    """

    name: str
    module: str
    distribution: str
    rule: str
    slow: bool
    prepare: Callable[[NDArray[np.bool_]], Planner]

    def available(self) -> str | None:
        """Return None if the library imports, else a one-line reason."""
        try:
            importlib.import_module(self.module)
        except Exception as error:  # any failure to import means "not available"
            return f"{type(error).__name__}: {error}"
        return None

    def version(self) -> str:
        """Return the installed version, or "?"."""
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return "?"


def diagonal_ok(walkable: NDArray[np.bool_], dy: int, dx: int) -> NDArray[np.bool_]:
    """Return ``[y, x]`` True where the move ``(dy, dx)`` is legal under the Moving AI rule.

    The source and destination are walkable and, for a diagonal, so are both cells it passes
    between (no corner cutting).

    >>> grid = np.array([[1, 1], [0, 1]], dtype=bool)
    >>> diagonal_ok(grid, 1, 1).astype(int).tolist()  # (0, 0) -> (1, 1) passes (1, 0)
    [[0, 0], [0, 0]]
    """
    height, width = walkable.shape
    padded = np.zeros((height + 2, width + 2), dtype=bool)
    padded[1:-1, 1:-1] = walkable

    def shifted(sy: int, sx: int) -> NDArray[np.bool_]:
        return padded[1 + sy : 1 + sy + height, 1 + sx : 1 + sx + width]

    legal = walkable & shifted(dy, dx)
    if dy and dx:
        legal = legal & shifted(dy, 0) & shifted(0, dx)
    return legal


def _edges(walkable: NDArray[np.bool_]) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[Any]]:
    """All legal directed moves as flat ``(sources, targets, lengths)``."""
    width = walkable.shape[1]
    sources, targets, lengths = [], [], []
    for dy, dx in MOVES:
        ys, xs = np.nonzero(diagonal_ok(walkable, dy, dx))
        flat = ys * width + xs
        sources.append(flat)
        targets.append(flat + dy * width + dx)
        lengths.append(np.full(flat.size, SQRT2 if dy and dx else 1.0))
    return np.concatenate(sources), np.concatenate(targets), np.concatenate(lengths)


def prepare_tcod(walkable: NDArray[np.bool_]) -> Planner:
    """Run tcod's `Pathfinder` on a `CustomGraph` whose diagonals carry a no-corner condition."""
    import tcod.path

    tcod_path: Any = tcod.path
    graph = tcod_path.CustomGraph(walkable.shape)
    cost = walkable.astype(np.int32)
    for dy, dx in MOVES:
        step = TCOD_DIAGONAL if dy and dx else TCOD_CARDINAL
        condition = diagonal_ok(walkable, dy, dx).astype(np.int8)
        graph.add_edge((dy, dx), step, cost=cost, condition=condition)
    graph.set_heuristic(cardinal=TCOD_CARDINAL, diagonal=TCOD_DIAGONAL)

    def plan(start: Cell, goal: Cell, bound: float) -> Any:
        pathfinder = tcod_path.Pathfinder(graph)
        pathfinder.add_root(start)
        return pathfinder.path_to(goal)

    return Planner(plan, _read_array_path)


def prepare_pyastar2d(walkable: NDArray[np.bool_]) -> Planner:
    """pyastar2d with ``allow_diagonal=True``: its own rule (cuts corners, diagonal costs 1)."""
    import pyastar2d

    module: Any = pyastar2d
    weights = np.where(walkable, 1.0, np.inf).astype(np.float32)

    def plan(start: Cell, goal: Cell, bound: float) -> Any:
        return module.astar_path(weights, start, goal, allow_diagonal=True)

    return Planner(plan, _read_array_path)


def prepare_pathfinding(walkable: NDArray[np.bool_]) -> Planner:
    """python-pathfinding A* with ``DiagonalMovement.only_when_no_obstacle`` (octile, sqrt 2)."""
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.core.grid import Grid
    from pathfinding.finder.a_star import AStarFinder

    grid: Any = Grid(matrix=walkable.astype(int).tolist())
    finder: Any = AStarFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle)

    def plan(start: Cell, goal: Cell, bound: float) -> Any:
        # Grid.node takes (x, y); the finder cleans the grid's search state itself.
        return finder.find_path(grid.node(start[1], start[0]), grid.node(goal[1], goal[0]), grid)

    def read(raw: Any) -> Read:
        path, runs = raw
        return ([(node.y, node.x) for node in path] or None), int(runs)

    return Planner(plan, read)


def prepare_networkx(walkable: NDArray[np.bool_]) -> Planner:
    """Run networkx `astar_path` on a graph of the legal moves, with the octile heuristic."""
    import networkx

    nx: Any = networkx
    width = walkable.shape[1]
    sources, targets, lengths = _edges(walkable)
    graph = nx.Graph()
    graph.add_weighted_edges_from(
        zip(sources.tolist(), targets.tolist(), lengths.tolist(), strict=True)
    )

    def octile(a: int, b: int) -> float:
        dy, dx = abs(a // width - b // width), abs(a % width - b % width)
        return float(max(dy, dx) + (SQRT2 - 1.0) * min(dy, dx))

    def plan(start: Cell, goal: Cell, bound: float) -> Any:
        source, target = start[0] * width + start[1], goal[0] * width + goal[1]
        return nx.astar_path(graph, source, target, heuristic=octile, weight="weight")

    def read(raw: Any) -> Read:
        return [divmod(int(flat), width) for flat in raw], None

    return Planner(plan, read)


def prepare_scipy(walkable: NDArray[np.bool_]) -> Planner:
    """Run scipy `csgraph.dijkstra` from the start, stopped at ``limit`` = the published optimum.

    scipy cannot stop at a goal; a limit of the goal's distance settles the same cells a
    goal-stopping Dijkstra would, so it gets the published optimum plus its tolerance (the
    files round it: `Scenario.tolerance`) as an oracle bound, and a hair more for float sums.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    width = walkable.shape[1]
    sources, targets, lengths = _edges(walkable)
    csgraph = csr_matrix((lengths, (sources, targets)), shape=(walkable.size, walkable.size))

    def plan(start: Cell, goal: Cell, bound: float) -> Any:
        source = start[0] * width + start[1]
        distances, came_from = dijkstra(
            csgraph, indices=source, return_predecessors=True, limit=bound * (1 + 1e-9) + 1e-9
        )
        return distances, came_from, goal[0] * width + goal[1]

    def read(raw: Any) -> Read:
        distances, came_from, target = raw
        expanded = int(np.isfinite(distances).sum())
        if not np.isfinite(distances[target]):
            return None, expanded
        flat = [int(target)]
        while came_from[flat[-1]] >= 0:
            flat.append(int(came_from[flat[-1]]))
        return [divmod(cell, width) for cell in reversed(flat)], expanded

    return Planner(plan, read)


def _read_array_path(raw: Any) -> Read:
    """Read an ``(N, 2)`` array of ``(row, col)`` (tcod, pyastar2d); no expansion count."""
    if raw is None or len(raw) == 0:
        return None, None
    return [(int(row), int(col)) for row, col in raw], None


PEERS: dict[str, Peer] = {
    peer.name: peer
    for peer in (
        Peer(
            "tcod",
            "tcod.path",
            "tcod",
            f"{RULE_MOVINGAI} (costs {TCOD_CARDINAL}/{TCOD_DIAGONAL})",
            False,
            prepare_tcod,
        ),
        Peer(
            "pyastar2d",
            "pyastar2d",
            "pyastar2d",
            "8-conn, diag 1, cuts corners",
            False,
            prepare_pyastar2d,
        ),
        Peer("pathfinding", "pathfinding", "pathfinding", RULE_MOVINGAI, True, prepare_pathfinding),
        Peer("networkx", "networkx", "networkx", RULE_MOVINGAI, True, prepare_networkx),
        Peer(
            "scipy",
            "scipy.sparse.csgraph",
            "scipy",
            f"{RULE_MOVINGAI}; Dijkstra, limit=optimum",
            False,
            prepare_scipy,
        ),
    )
}
"""Every peer `sim bench` knows, in the order of its tables."""
