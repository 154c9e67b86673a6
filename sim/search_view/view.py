"""SearchView: the Start -> End search replayed expansion by expansion on the ground.

The seeds' A* stepper in the live scene: open-set cells orange, expanded cells (they have a
parent) yellow, the final path green, the cell expanded by the last step blue; optional arrows
from each cell to its parent and g / f numbers on each touched cell when the camera is close
enough to read them. The search is recorded once into an `ExpansionLog` (lazily, as far as the
view has gone) and a `SearchReplay` moves over it both ways, so stepping back is exact and
scrubbing never re-runs the search.

The view searches a snapshot of the grid with its own settings (algorithm, heuristic, weight,
connectivity), which start as the planner's. It restarts at step 0 when one of them changes, or
when Start, End or an obstacle moves to other cells; a view that was playing, or had played to
the end, plays the new search at once.

Playback runs on frame time, not simulated time (like Unity UI on unscaled time), so pausing the
simulation leaves the view working: the app calls `tick(frame_dt)` every frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import numpy as np
from numpy.typing import NDArray
from panda3d.core import NodePath

from sim.components.grid_manager import GridManager
from sim.config import Tag
from sim.engine import Component, Gizmos
from sim.engine.labels import BillboardLabels
from sim.navigation import Endpoints
from sim.navigation.search_log import CellStatus, ExpansionLog, SearchReplay

OPEN_COLOR = (1.0, 0.55, 0.05, 1.0)
CLOSED_COLOR = (1.0, 0.87, 0.2, 1.0)
PATH_COLOR = (0.15, 0.78, 0.25, 1.0)
CURRENT_COLOR = (0.25, 0.6, 1.0, 1.0)
ARROW_COLOR = (0.1, 0.1, 0.14, 1.0)
LABEL_COLOR = (0.05, 0.05, 0.08, 1.0)
# Cells sit just above the blocked-cell shading (0.01) and below the grid lines (0.02), so the
# lines still frame every cell; arrows float above both.
CELL_Z = 0.013
ARROW_Z = 0.08
LABEL_Z = 0.35  # in cells: the numbers float over the middle of their cell
CELL_INSET = 0.06  # fraction of a cell left bare on each side
ARROW_FROM, ARROW_TO = 0.15, 0.75  # where an arrow starts and ends, as a fraction of the step
ARROW_HEAD = 0.18  # head length, as a fraction of a cell
LABEL_LINE_HEIGHT = 0.2  # in cells
MIN_LABEL_PX = 44.0  # a cell must span this many pixels on screen for its numbers to be read
MAX_LABELS = 400  # the nearest this many cells get numbers; beyond that they would be noise
SPEEDS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
"""Playback speeds in expansions per second; `faster`/`slower` move along this list."""
DEFAULT_SPEED = 10
DEFAULT_WEIGHT = 1.5
WEIGHT_STEP = 0.25
MAX_WEIGHT = 10.0
# The rest of the search is recorded a little each frame, so the panel can tell the total soon
# without one long frame on a large grid (the Python search runs some 100,000 expansions/s).
RECORD_AHEAD_PER_FRAME = 500
# Dragging a cube across cells restarts the view at most this often (the search is re-recorded).
MIN_RESTART_GAP_S = 0.1
HEURISTICS = ("manhattan", "octile", "euclidean", "chebyshev")


class Choice(StrEnum):
    """The searches the view offers (weighted A* is A* with a weight above 1)."""

    ASTAR = "A*"
    DIJKSTRA = "Dijkstra"
    BFS = "BFS"
    GREEDY = "greedy"
    WEIGHTED = "weighted A*"
    DFS = "DFS"

    @property
    def algorithm(self) -> str:
        """The `find_path` algorithm name."""
        return _CHOICES[self][0]

    @property
    def uses_heuristic(self) -> bool:
        """Whether the heuristic matters to this search."""
        return _CHOICES[self][1]

    @property
    def promise(self) -> str:
        """What the search promises about its path, for the panel ("" for a shortest path)."""
        return _CHOICES[self][2]


# Each choice: the algorithm it runs, whether a heuristic steers it, what it promises.
_CHOICES: dict[Choice, tuple[str, bool, str]] = {
    Choice.ASTAR: ("astar", True, ""),
    Choice.DIJKSTRA: ("dijkstra", False, ""),
    Choice.BFS: ("bfs", False, "fewest moves, not least cost"),
    Choice.GREEDY: ("greedy", True, "not shortest"),
    Choice.WEIGHTED: ("astar", True, "within the weight of shortest"),
    Choice.DFS: ("dfs", False, "baseline: not shortest"),
}


@dataclass(frozen=True, slots=True)
class ViewSettings:
    """Which search the view replays.

    Attributes:
        choice: The algorithm.
        heuristic: manhattan, octile, euclidean or chebyshev (A*, weighted A*, greedy).
        weight: The heuristic weight of weighted A* (>= 1; plain A* always uses 1).
        diagonal: 8-connected moves when True, 4-connected when False.
    """

    choice: Choice = Choice.ASTAR
    heuristic: str = "octile"
    weight: float = DEFAULT_WEIGHT
    diagonal: bool = True

    def describe(self) -> str:
        """One line, e.g. "greedy (not shortest), octile, 8-connected"."""
        name = str(self.choice)
        if self.choice is Choice.WEIGHTED:
            name += f" x{self.weight:g}"
        if self.choice.promise:
            name += f" ({self.choice.promise})"
        parts = [name]
        if self.choice.uses_heuristic:
            parts.append(self.heuristic)
        parts.append("8-connected" if self.diagonal else "4-connected")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class _Problem:
    """What a recorded search answered: a restart is due when this changes."""

    mask_version: int
    start: tuple[int, int]
    goal: tuple[int, int]
    settings: ViewSettings


@dataclass(frozen=True, slots=True, eq=False)
class ComparisonProblem:
    """The view's search problem, for running every algorithm on it (see `compare_searches`).

    Attributes:
        walkable: The grid the view searches (a snapshot; do not modify).
        start: Start cell.
        goal: Goal cell.
        mask_key: Changes whenever the grid changes.
        diagonal: 8-connected moves.
        weight: The weight weighted A* uses.
        cell_size: World units per cell (costs are shown in world units).
    """

    walkable: NDArray[np.bool_]
    start: tuple[int, int]
    goal: tuple[int, int]
    mask_key: int
    diagonal: bool
    weight: float
    cell_size: float


class SearchView(Component):
    """Replays the Start -> End search on the grid; see the module docstring.

    Args:
        grid: The scene's GridManager (its mask is copied when a search is recorded).
        labels: Where the g / f numbers go.
        camera: The camera node (its lens decides which cells are close enough for numbers).
        window_height: Returns the window's height in pixels.
    """

    def __init__(
        self,
        grid: GridManager,
        *,
        labels: BillboardLabels,
        camera: NodePath,
        window_height: Callable[[], int],
    ) -> None:
        super().__init__()
        self._grid = grid
        self._labels = labels
        self._camera = camera
        self._window_height = window_height
        self.settings = ViewSettings(heuristic=_view_heuristic(grid.heuristic))
        self.opened = False
        self.playing = False
        self.speed = DEFAULT_SPEED
        self.show_parents = True
        self.show_numbers = True
        self.restarts = 0
        self.message = ""
        self.replay: SearchReplay | None = None
        self._problem: _Problem | None = None
        self._walkable: NDArray[np.bool_] | None = None
        self._budget = 0.0
        self._since_restart_s = math.inf
        self._restart_due = False
        self._geometry: tuple[tuple[Any, ...], dict[str, NDArray[np.float32]]] | None = None

    # --- what the buttons and keys do ------------------------------------------------------

    def open(self) -> None:
        """Show the view, starting from the planner's current heuristic and connectivity."""
        if self.opened:
            return
        self.opened = True
        self.settings = replace(
            self.settings,
            heuristic=_view_heuristic(self._grid.heuristic),
            diagonal=self._grid.diagonal,
        )
        self._problem, self.replay, self.playing = None, None, False
        self._refresh(settings_changed=True)

    def close(self) -> None:
        """Hide the view and forget its search."""
        self.opened = False
        self.playing = False
        self.replay, self._problem = None, None
        self._labels.hide_all()

    def toggle(self) -> None:
        """Open the view if closed, close it if open."""
        if self.opened:
            self.close()
        else:
            self.open()

    def play_pause(self) -> None:
        """Start or stop playback; playing from the end starts over."""
        if self.replay is None:
            return
        if not self.playing and self.replay.at_end:
            self.replay.reset()
        self.playing = not self.playing
        self._budget = 0.0

    def step_forward(self) -> None:
        """Expand one more cell (and stop playback)."""
        if self.replay is not None:
            self.playing = False
            self.replay.forward(1)

    def step_back(self) -> None:
        """Undo the last expansion (and stop playback)."""
        if self.replay is not None:
            self.playing = False
            self.replay.back(1)

    def reset(self) -> None:
        """Back to step 0: only Start on the frontier (and stop playback)."""
        if self.replay is not None:
            self.playing = False
            self.replay.reset()

    def to_end(self) -> None:
        """Jump to the end of the search (and stop playback)."""
        if self.replay is not None:
            self.playing = False
            self.replay.seek(self.replay.log.total_steps())

    def faster(self) -> None:
        """Play more expansions per second."""
        self.speed = _next_speed(self.speed, +1)

    def slower(self) -> None:
        """Play fewer expansions per second."""
        self.speed = _next_speed(self.speed, -1)

    def set_choice(self, choice: Choice) -> None:
        """Replay another algorithm (restarts the view)."""
        self._change(choice=choice)

    def set_heuristic(self, heuristic: str) -> None:
        """Replay with another heuristic (restarts the view)."""
        if heuristic not in HEURISTICS:
            raise ValueError(f"unknown heuristic {heuristic!r}; expected one of {HEURISTICS}")
        self._change(heuristic=heuristic)

    def set_diagonal(self, diagonal: bool) -> None:
        """Replay 8-connected (True) or 4-connected (False) moves (restarts the view)."""
        self._change(diagonal=diagonal)

    def change_weight(self, delta: float) -> None:
        """Raise or lower weighted A*'s weight by `delta`, within 1..10 (restarts the view)."""
        weight = min(max(self.settings.weight + delta, 1.0), MAX_WEIGHT)
        self._change(weight=round(weight, 6))

    def restart_now(self) -> None:
        """Catch up with a changed grid, Start or End on the next frame (a cube was dropped)."""
        self._restart_due = True

    def _change(self, **changes: Any) -> None:
        settings = replace(self.settings, **changes)
        if settings != self.settings:
            self.settings = settings
            self._refresh(settings_changed=True)

    # --- the frame -------------------------------------------------------------------------

    def tick(self, frame_dt: float) -> None:
        """Per frame: restart on a changed grid, Start or End; play; place the numbers."""
        if not self.opened:
            return
        self._since_restart_s += frame_dt
        self._refresh(settings_changed=False)
        replay = self.replay
        if self.playing and replay is not None:
            self._budget += frame_dt * self.speed
            steps = int(self._budget)
            self._budget -= steps
            if steps:
                replay.forward(steps)
            if replay.at_end:
                self.playing = False
        if replay is not None and not replay.log.finished:
            replay.log.record_until(replay.log.recorded + RECORD_AHEAD_PER_FRAME)
        self._place_numbers()

    def _refresh(self, *, settings_changed: bool) -> None:
        """Restart the recorded search when what it answers changed.

        Moves of Start, End and obstacles restart it at most every MIN_REPLAN_GAP_S while a
        drag goes on (and at once after `restart_now`), and keep it playing if it was running;
        a change of settings restarts it at once, stopped at step 0.
        """
        problem = self._current_problem()
        if problem is None:
            self.replay, self._problem, self.playing = None, None, False
            return
        if problem == self._problem:
            self._restart_due = False
            return
        throttled = self._since_restart_s < MIN_RESTART_GAP_S
        if self.replay is not None and throttled and not (settings_changed or self._restart_due):
            return
        settings = problem.settings
        self._walkable = self._grid.walkable.copy()
        log = ExpansionLog(
            self._walkable,
            problem.start,
            problem.goal,
            diagonal=settings.diagonal,
            heuristic=settings.heuristic if settings.choice.uses_heuristic else "zero",
            algorithm=settings.choice.algorithm,
            weight=settings.weight if settings.choice is Choice.WEIGHTED else 1.0,
        )
        was_running = self.replay is not None and (self.playing or self.replay.at_end)
        self.replay = SearchReplay(log)
        self.playing = was_running and not settings_changed
        self._restart_due = False
        self._budget = 0.0
        self._problem = problem
        self._since_restart_s = 0.0
        self.restarts += 1

    def _current_problem(self) -> _Problem | None:
        world = self.world
        start = None if world is None else world.find_with_tag(Tag.START)
        end = None if world is None else world.find_with_tag(Tag.END)
        if start is None or end is None:
            self.message = "the search view needs a Start and an End"
            return None
        ends: Endpoints = self._grid.grid.endpoints(
            (float(start.node.get_x()), float(start.node.get_y())),
            (float(end.node.get_x()), float(end.node.get_y())),
        )
        if ends.start is None or ends.goal is None:
            self.message = "the grid has no walkable cell"
            return None
        notes = []
        if ends.start_moved:
            notes.append("Start is inside an obstacle: searching from the nearest free cell")
        if ends.goal_moved:
            notes.append("End is inside an obstacle: searching to the nearest free cell")
        self.message = "; ".join(notes)
        return _Problem(self._grid.mask_version, ends.start, ends.goal, self.settings)

    # --- what the view shows ---------------------------------------------------------------

    def problem_for_comparison(self) -> ComparisonProblem | None:
        """The grid, Start and End the view searches now; None while it shows no search."""
        if self._problem is None or self._walkable is None:
            return None
        problem = self._problem
        return ComparisonProblem(
            self._walkable,
            problem.start,
            problem.goal,
            problem.mask_version,
            problem.settings.diagonal,
            problem.settings.weight,
            self._grid.grid_cell_size,
        )

    def report(self) -> dict[str, Any]:
        """The view's state for the JSON report."""
        entry: dict[str, Any] = {
            "open": self.opened,
            "algorithm": str(self.settings.choice),
            "heuristic": self.settings.heuristic,
            "weight": self.settings.weight,
            "connectivity": 8 if self.settings.diagonal else 4,
            "playing": self.playing,
            "steps_per_s": self.speed,
            "show_parents": self.show_parents,
            "show_numbers": self.show_numbers,
            "restarts": self.restarts,
            "message": self.message,
            "numbers_shown": self._labels.shown,
        }
        replay = self.replay
        if replay is None:
            return entry | {"step": None, "start": None, "goal": None}
        frontier, expanded = self.counts()
        entry |= {
            "start": list(replay.log.start),
            "goal": list(replay.log.goal),
            "step": replay.step,
            "recorded": replay.log.recorded,
            "finished": replay.log.finished,
            "at_end": replay.at_end,
            "frontier_cells": frontier,
            "expanded_cells": expanded,
            "current": None if replay.current is None else list(replay.current),
            "path": [list(cell) for cell in replay.path],
        }
        return entry

    def status_text(self) -> str:
        """A few lines for the panel: the search, the step and speed, the counts or the result."""
        if not self.opened:
            return "search view closed"
        replay = self.replay
        if replay is None:
            return f"search view: {self.message}"
        log = replay.log
        total = str(log.recorded) if log.finished else f"{log.recorded}+"
        playing = ", playing" if self.playing else ""
        frontier, expanded = self.counts()
        lines = [
            self.settings.describe(),
            f"step {replay.step} of {total}, {self.speed} steps/s{playing}",
            f"frontier {_cells(frontier)}, expanded {expanded}",
        ]
        if replay.at_end:
            result = log.result()
            if result.found:
                cost = result.cost * self._grid.grid_cell_size
                lines[-1] += f"; path cost {cost:.2f}, {len(result.cells)} cells"
            else:
                lines[-1] += f"; no path: {result.reason}"
        return "\n".join(lines)

    def counts(self) -> tuple[int, int]:
        """Cells on the frontier and cells expanded, now."""
        if self.replay is None:
            return (0, 0)
        status = self.replay.status
        return (
            int(np.count_nonzero(status == CellStatus.OPEN)),
            int(np.count_nonzero(status == CellStatus.CLOSED)),
        )

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Draw the open, closed, current and path cells, and the parent arrows."""
        if not self.opened or self.replay is None:
            return
        geometry = self._geometry_now()
        for key, color in (
            ("search-open", OPEN_COLOR),
            ("search-closed", CLOSED_COLOR),
            ("search-path", PATH_COLOR),
            ("search-current", CURRENT_COLOR),
        ):
            if len(geometry[key]):
                gizmos.quads(key, geometry[key], color)
        if self.show_parents and len(geometry["search-parents"]):
            gizmos.lines("search-parents", geometry["search-parents"], ARROW_COLOR, thickness=1.5)

    def _geometry_now(self) -> dict[str, NDArray[np.float32]]:
        """Quads and arrows of the current step, rebuilt only when the step changed."""
        replay = self.replay
        assert replay is not None  # only called while a search is shown
        revision = (self.restarts, replay.step, replay.at_end)
        if self._geometry is not None and self._geometry[0] == revision:
            return self._geometry[1]
        width = replay.log.width
        status = replay.status.ravel()
        # Start and End are shown by their cubes; painting their cells would only hide under them.
        ends = np.array(
            [
                replay.log.start[0] * width + replay.log.start[1],
                replay.log.goal[0] * width + replay.log.goal[1],
            ]
        )
        keep = np.ones(status.size, dtype=bool)
        keep[ends] = False
        current = -1 if replay.current is None else replay.current[0] * width + replay.current[1]
        path = np.array([row * width + col for row, col in replay.path], dtype=np.intp)
        on_path = np.zeros(status.size, dtype=bool)
        on_path[path] = True
        closed = (status == CellStatus.CLOSED) & keep & ~on_path
        if current >= 0:
            closed[current] = False
        geometry = {
            "search-open": self._cell_quads(np.flatnonzero((status == CellStatus.OPEN) & keep)),
            "search-closed": self._cell_quads(np.flatnonzero(closed)),
            "search-path": self._cell_quads(np.flatnonzero(on_path & keep)),
            "search-current": self._cell_quads(
                np.array(
                    [current] if current >= 0 and keep[current] and not on_path[current] else [],
                    dtype=np.intp,
                )
            ),
            "search-parents": self._parent_arrows(replay),
        }
        self._geometry = (revision, geometry)
        return geometry

    def _cell_quads(self, cells: NDArray[np.intp]) -> NDArray[np.float32]:
        return self._grid.cell_quads(cells, CELL_Z, inset=CELL_INSET)

    def _parent_arrows(self, replay: SearchReplay) -> NDArray[np.float32]:
        """Each touched cell's arrow toward its parent: a shaft and two head strokes."""
        parent = replay.parent.ravel()
        cells = np.flatnonzero(parent >= 0)
        if cells.size == 0:
            return np.zeros((0, 2, 3), dtype=np.float32)
        size = self._grid.grid_cell_size
        here = self._grid.cell_centres(cells)
        there = self._grid.cell_centres(parent[cells])
        step = there - here
        tail = here + ARROW_FROM * step
        tip = here + ARROW_TO * step
        length = np.linalg.norm(step, axis=1, keepdims=True)
        back = -step / length * ARROW_HEAD * size
        # The two head strokes: the backward direction turned by +-30 degrees.
        cos, sin = math.cos(math.radians(30.0)), math.sin(math.radians(30.0))
        left = np.stack(
            [back[:, 0] * cos - back[:, 1] * sin, back[:, 0] * sin + back[:, 1] * cos], axis=1
        )
        right = np.stack(
            [back[:, 0] * cos + back[:, 1] * sin, -back[:, 0] * sin + back[:, 1] * cos], axis=1
        )
        z = np.full((cells.size, 1), ARROW_Z)

        def at_z(points: NDArray[np.float64]) -> NDArray[np.float64]:
            return np.concatenate([points, z], axis=1)

        shafts = np.stack([at_z(tail), at_z(tip)], axis=1)
        heads_left = np.stack([at_z(tip), at_z(tip + left)], axis=1)
        heads_right = np.stack([at_z(tip), at_z(tip + right)], axis=1)
        return np.concatenate([shafts, heads_left, heads_right]).astype(np.float32)

    def _place_numbers(self) -> None:
        """Put g and f over each touched cell big enough on screen to read them, nearest first."""
        replay = self.replay
        lens = self._camera.node().get_lens()
        fov_w, fov_h = (math.radians(angle) for angle in lens.get_fov())
        half_w, half_h = math.tan(fov_w / 2.0), math.tan(fov_h / 2.0)
        size = self._grid.grid_cell_size
        pixels_per_unit_depth = size * self._window_height() / (2.0 * half_h)
        root = self._camera.get_top()
        # No point in view is nearer (in depth) than the camera's height above it divided by
        # the frustum's half-diagonal slope: when a cell there is still too small to read, every
        # cell is, and the usual far-away view costs nothing per cell.
        height = float(self._camera.get_z(root)) - LABEL_Z * size
        nearest = height / math.sqrt(1.0 + half_w * half_w + half_h * half_h)
        too_far = nearest > 0.0 and pixels_per_unit_depth / nearest < MIN_LABEL_PX
        if replay is None or not self.show_numbers or too_far:
            self._labels.hide_all()
            return
        cells = np.flatnonzero(replay.status.ravel() != CellStatus.UNSEEN)
        points = np.concatenate(
            [self._grid.cell_centres(cells), np.full((cells.size, 1), LABEL_Z * size)], axis=1
        )
        # Panda3D matrices act on row vectors: camera-space p' = [p, 1] @ M.
        matrix = np.array(root.get_mat(self._camera), dtype=np.float64).reshape(4, 4)
        local = np.concatenate([points, np.ones((len(points), 1))], axis=1) @ matrix
        depth = local[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            readable = (
                (depth > lens.get_near())
                & (np.abs(local[:, 0]) <= depth * half_w)
                & (np.abs(local[:, 2]) <= depth * half_h)
                & (pixels_per_unit_depth / depth >= MIN_LABEL_PX)
            )
        nearest_first = np.flatnonzero(readable)
        nearest_first = nearest_first[np.argsort(depth[nearest_first], kind="stable")]
        chosen = nearest_first[:MAX_LABELS]
        g, f = replay.g.ravel(), replay.f.ravel()
        self._labels.show(
            {
                cell: (tuple(points[index].tolist()), f"g {g[cell]:.1f}\nf {f[cell]:.1f}")
                for index, cell in zip(chosen.tolist(), cells[chosen].tolist(), strict=True)
            }
        )

    def on_destroy(self) -> None:
        """Drop the labels."""
        self._labels.destroy()


def _view_heuristic(heuristic: str) -> str:
    """The planner's heuristic if the view offers it ("zero" is Dijkstra's: octile then)."""
    return heuristic if heuristic in HEURISTICS else "octile"


def _cells(count: int) -> str:
    return f"{count} cell" if count == 1 else f"{count} cells"


def _next_speed(speed: int, direction: int) -> int:
    """The next playback speed up (+1) or down (-1) the SPEEDS list."""
    index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - speed))
    return SPEEDS[min(max(index + direction, 0), len(SPEEDS) - 1)]
