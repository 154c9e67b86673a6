"""SearchView: the Start -> End search replayed expansion by expansion on the ground.

A step-by-step search in the live scene: open-set cells orange, expanded cells (they have a
parent) yellow, the final path green, the cell expanded by the last step blue; optional arrows
from each cell to its parent and g / f numbers on each touched cell when the camera is close
enough to read them. The search is recorded once (`sim.navigation.replay.recorder.record`:
lazily, as far as the view has gone) and its `Replay` moves over the recording both ways, so
stepping back is exact and scrubbing never re-runs the search. What each search draws beyond
the cells (two frontiers, a path of straight segments) its declaration's view hints say.

The view searches a snapshot of the grid and its terrain costs with its own settings (algorithm,
heuristic, weight, connectivity), which start as the planner's. A touched cell whose cost is not
1 shows its cost under g and f. It restarts at step 0 when one of them changes, or when Start,
End, an obstacle or a terrain patch moves to other cells (or a patch's cost changes); a view
that was playing, or had played to the end, plays the new search at once.

Playback runs on frame time, not simulated time, so pausing the simulation leaves the view
working: the app calls `tick(frame_dt)` every frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray
from panda3d.core import Camera, NodePath

from sim.components.grid_manager import GridManager
from sim.config import PALETTE, Tag
from sim.engine import Component, Gizmos, ReplanGate
from sim.engine.labels import BillboardLabels
from sim.navigation import Endpoints
from sim.navigation.catalogue import SearchKind
from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.regions.explain import NoPathExplanation
from sim.navigation.replay.log import CellStatus
from sim.navigation.replay.recorder import Replay, record
from sim.search_view.budget import check_recording_budget
from sim.search_view.geometry import (
    CELL_INSET,
    CELL_Z,
    LABEL_Z,
    LAYERS,
    RIBBON_WIDTH,
    RIBBON_Z,
    Sight,
    layer_cells,
    parent_arrows,
    segment_ribbons,
    tape_layers,
)
from sim.search_view.no_path_view import SearchNoPath
from sim.search_view.settings import (
    DEFAULT_SPEED,
    HEURISTICS,
    MAX_WEIGHT,
    ComparisonProblem,
    ViewProblem,
    ViewSettings,
    next_speed,
    view_heuristic,
)

OPEN_COLOR = PALETTE.frontier
CLOSED_COLOR = PALETTE.closed
PATH_COLOR = PALETTE.path
CURRENT_COLOR = PALETTE.current
# Bidirectional's backward half: violet against the forward half's mint and pale blue.
BACKWARD_OPEN_COLOR = PALETTE.back_frontier
BACKWARD_CLOSED_COLOR = PALETTE.back_closed
MEETING_COLOR = PALETTE.meeting
ARROW_COLOR = PALETTE.parent_arrow
LABEL_COLOR = (0.05, 0.05, 0.08, 1.0)
LABEL_LINE_HEIGHT = 0.2  # in cells
LAYER_COLORS = dict(zip(LAYERS, (OPEN_COLOR, CLOSED_COLOR, PATH_COLOR, CURRENT_COLOR), strict=True))
TAPE_LAYER_COLORS = {
    "search-open-back": BACKWARD_OPEN_COLOR,
    "search-closed-back": BACKWARD_CLOSED_COLOR,
    "search-meeting": MEETING_COLOR,
}
# The rest of the search is recorded a little each frame, so the panel can tell the total soon
# without one long frame on a large grid (the Python search runs some 100,000 expansions/s).
RECORD_AHEAD_PER_FRAME = 500
# Searches recorded by tape read their whole state each step (O(cells)): fewer steps a frame.
TAPE_AHEAD_PER_FRAME = 10


class SearchView(Component):
    """Replays the Start -> End search on the grid; see the module docstring.

    Args:
        grid: The scene's GridManager (its mask is copied when a search is recorded).
        labels: Where the g / f numbers go.
        camera: The camera node (its lens decides which cells are close enough for numbers).
        window_height: Returns the window's height in pixels.
        dragging: Whether a cube is being dragged now; restarts follow a drag at most every
            `DRAG_GAP_S` (see `ReplanGate`). None: nothing is ever dragged.
    """

    def __init__(
        self,
        grid: GridManager,
        *,
        labels: BillboardLabels,
        camera: NodePath[Camera],
        window_height: Callable[[], int],
        dragging: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__()
        self._grid = grid
        self._labels = labels
        self._camera = camera
        self._window_height = window_height
        self.settings = ViewSettings(heuristic=view_heuristic(grid.heuristic))
        self.opened = False
        self.playing = False
        self.speed = DEFAULT_SPEED
        self.show_parents = True
        self.show_numbers = True
        self.restarts = 0
        self.message = ""
        self.replay: Replay | None = None
        self._refusal = ""
        self._problem: ViewProblem | None = None
        self._walkable: NDArray[np.bool_] | None = None
        self._costs: NDArray[np.float64] | None = None
        self._budget = 0.0
        self._gate = ReplanGate(dragging=dragging)
        self._geometry: tuple[tuple[Any, ...], dict[str, NDArray[np.float32]]] | None = None
        self._grid_rule = grid.rule
        self._no_path = SearchNoPath(grid)

    # --- what the buttons and keys do ------------------------------------------------------

    def open(self) -> None:
        """Show the view, starting from the planner's current heuristic and connectivity."""
        if self.opened:
            return
        self.opened = True
        self._grid_rule = self._grid.rule
        self.settings = replace(
            self.settings, heuristic=view_heuristic(self._grid.heuristic), rule=self._grid_rule
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
        self.speed = next_speed(self.speed, +1)

    def slower(self) -> None:
        """Play fewer expansions per second."""
        self.speed = next_speed(self.speed, -1)

    def set_choice(self, choice: SearchKind) -> None:
        """Replay another algorithm (restarts the view)."""
        self._change(choice=choice)

    def set_heuristic(self, heuristic: str) -> None:
        """Replay with another heuristic (restarts the view)."""
        if heuristic not in HEURISTICS:
            raise ValueError(f"unknown heuristic {heuristic!r}; expected one of {HEURISTICS}")
        self._change(heuristic=heuristic)

    def set_diagonal(self, diagonal: bool | str | DiagonalRule) -> None:
        """Replay under a diagonal rule (restarts the view).

        True is the grid's rule when it has diagonal moves, else no-corner-cutting; False is
        "never" (4-connected); a `DiagonalRule` or its name is itself.
        """
        if diagonal is True and self._grid.diagonal:
            diagonal = self._grid.rule
        self._change(rule=parse_diagonal(diagonal))

    def change_weight(self, delta: float) -> None:
        """Raise or lower weighted A*'s weight by `delta`, within 1..10 (restarts the view)."""
        weight = min(max(self.settings.weight + delta, 1.0), MAX_WEIGHT)
        self._change(weight=round(weight, 6))

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
        if self._grid.rule is not self._grid_rule:  # J switched the grid's rule
            self._grid_rule = self._grid.rule
            self._change(rule=self._grid_rule)
        self._refresh(settings_changed=False, frame_dt=frame_dt)
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
            whole_state = replay.kind.recording.reads_whole_state
            ahead = TAPE_AHEAD_PER_FRAME if whole_state else RECORD_AHEAD_PER_FRAME
            replay.log.record_until(replay.log.recorded + ahead)
        self._no_path.update(replay, self._walkable, self.settings.rule, self.restarts)
        self._place_numbers()

    def _refresh(self, *, settings_changed: bool, frame_dt: float = 0.0) -> None:
        """Restart the recorded search when what it answers changed.

        A change of settings restarts it at once, stopped at step 0. Moves of Start, End and
        obstacles restart it when the gate lets them (at once, but at most every `DRAG_GAP_S`
        while a drag goes on, and on the drop) and keep it playing if it was running.
        """
        problem = self._current_problem()
        # Settings change between frames and skip the gate; each frame ticks it, so it sees a drop.
        due = settings_changed or self._gate.tick(frame_dt, problem)
        if problem is None:
            self.replay, self._problem, self.playing = None, None, False
            return
        if problem == self._problem:
            if self._refusal:
                self.message = self._refusal
            return
        if self.replay is not None and not due:
            return
        settings = problem.settings
        self._walkable = self._grid.walkable.copy()
        costs = self._grid.costs
        self._costs = None if costs is None else costs.copy()
        was_running = self.replay is not None and (self.playing or self.replay.at_end)
        try:
            self.replay = self._record(problem)
        except ValueError as error:
            # jps needs 8-connected moves and no terrain, theta no terrain: say so, not crash.
            self._refusal = self.message = f"{settings.choice.label} cannot search this: {error}"
            self.replay, self.playing, self._problem = None, False, problem
            return
        self._refusal = ""
        self.playing = was_running and not settings_changed
        self._budget = 0.0
        self._problem = problem
        self.restarts += 1

    def _record(self, problem: ViewProblem) -> Replay:
        """A fresh replay of `problem` on the grid snapshot.

        Raises:
            ValueError: the search refuses the grid, or recording it would not fit its
                budget (`check_recording_budget`): the view says so instead of searching.
        """
        assert self._walkable is not None  # _refresh took the snapshot first
        settings = problem.settings
        check_recording_budget(
            settings.choice,
            self._walkable,
            ends=(problem.start, problem.goal),
            rule=settings.rule,
            heuristic=settings.search_heuristic,
            costs=self._costs,
        )
        return record(
            settings.choice,
            self._walkable,
            problem.start,
            problem.goal,
            rule=settings.rule,
            heuristic=settings.search_heuristic,
            weight=settings.search_weight,
            costs=self._costs,
        )

    def _current_problem(self) -> ViewProblem | None:
        world = self.world
        start = None if world is None else world.find_with_tag(Tag.START)
        end = None if world is None else world.find_with_tag(Tag.END)
        if start is None or end is None:
            self.message = "the search view needs a Start and an End"
            return None
        ends: Endpoints = self._grid.grid.endpoints(start.xy, end.xy)
        if ends.start is None or ends.goal is None:
            self.message = "the grid has no walkable cell"
            return None
        notes = []
        if ends.start_moved:
            notes.append("Start is inside an obstacle: searching from the nearest free cell")
        if ends.goal_moved:
            notes.append("End is inside an obstacle: searching to the nearest free cell")
        self.message = "; ".join(notes)
        return ViewProblem(
            self._grid.mask_version, ends.start, ends.goal, self.settings, self._grid.costs_version
        )

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
            hash((problem.mask_version, problem.costs_version)),
            problem.settings.diagonal,
            problem.settings.weight,
            self._grid.grid_cell_size,
            self._costs,
            problem.settings.rule,
        )

    @property
    def numbers_shown(self) -> int:
        """How many cells show their g / f numbers now (0 when the camera is too far to read)."""
        return self._labels.shown

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
        if replay.meeting_cell is not None:
            lines[-1] += f"; the halves meet at {replay.meeting_cell}"
        if replay.at_end:
            result = log.result()
            why = self._no_path.status()
            if why:
                lines[-1] += f"; {why}"
            elif result.found:
                cost = result.cost * self._grid.grid_cell_size
                noun = "vertices" if replay.kind.hints.straight_path else "cells"
                lines[-1] += f"; path cost {cost:.2f}, {len(result.cells)} {noun}"
            else:
                lines[-1] += f"; no path: {result.reason}"
        return "\n".join(lines)

    def finished_cost(self) -> float | None:
        """The cost of the path found, in world units, once the replay is at its end; else None."""
        replay = self.replay
        if replay is None or not replay.at_end:
            return None
        result = replay.log.result()
        return result.cost * self._grid.grid_cell_size if result.found else None

    def explanation(self) -> NoPathExplanation | None:
        """Why the search, at its end, found no path (Start's and End's regions); else None."""
        return self._no_path.explanation

    def meeting_cell(self) -> tuple[int, int] | None:
        """Where bidirectional's halves meet at the shown step (None for other searches)."""
        return None if self.replay is None else self.replay.meeting_cell

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
        for key, color in (LAYER_COLORS | TAPE_LAYER_COLORS).items():
            if len(geometry.get(key, ())):
                gizmos.quads(key, geometry[key], color)
        if self.show_parents and len(geometry["search-parents"]):
            gizmos.lines("search-parents", geometry["search-parents"], ARROW_COLOR, thickness=1.5)
        if len(geometry.get("search-path-lines", ())):
            gizmos.quads("search-path-lines", geometry["search-path-lines"], PATH_COLOR)
        self._no_path.draw(gizmos)

    def _geometry_now(self) -> dict[str, NDArray[np.float32]]:
        """Quads and arrows of the current step, rebuilt only when the step changed."""
        replay = self.replay
        assert replay is not None  # only called while a search is shown
        revision = (self.restarts, replay.step, replay.at_end)
        if self._geometry is not None and self._geometry[0] == revision:
            return self._geometry[1]
        layers = layer_cells(replay)
        if replay.kind.hints.two_frontiers:
            layers |= tape_layers(replay, layers)
        geometry = {
            key: self._grid.cell_quads(cells, CELL_Z, inset=CELL_INSET)
            for key, cells in layers.items()
        }
        if replay.kind.hints.straight_path and replay.path:
            # Theta*'s path is straight segments between its vertices, not a chain of cells.
            width = replay.log.width
            vertices = np.array([row * width + col for row, col in replay.path], dtype=np.intp)
            size = self._grid.grid_cell_size
            geometry["search-path-lines"] = segment_ribbons(
                self._grid.cell_centres(vertices), RIBBON_WIDTH * size, RIBBON_Z * size
            )
        parent = replay.parent.ravel()
        touched = np.flatnonzero(parent >= 0)
        geometry["search-parents"] = parent_arrows(
            self._grid.cell_centres(touched),
            self._grid.cell_centres(parent[touched]),
            self._grid.grid_cell_size,
        )
        self._geometry = (revision, geometry)
        return geometry

    def _place_numbers(self) -> None:
        """Put g and f over each touched cell big enough on screen to read them, nearest first."""
        replay = self.replay
        if replay is None or not self.show_numbers:
            self._labels.hide_all()
            return
        lens = self._camera.node().get_lens()
        size = self._grid.grid_cell_size
        fov_w, fov_h = lens.get_fov()
        sight = Sight.of((fov_w, fov_h), lens.get_near(), self._window_height(), size)
        root = self._camera.get_top()
        if sight.reads_nothing(float(self._camera.get_z(root)) - LABEL_Z * size):
            self._labels.hide_all()
            return
        cells = np.flatnonzero(replay.status.ravel() != CellStatus.UNSEEN)
        points = np.concatenate(
            [self._grid.cell_centres(cells), np.full((cells.size, 1), LABEL_Z * size)], axis=1
        )
        # Panda3D matrices act on row vectors: camera-space p' = [p, 1] @ M.
        matrix = np.array(root.get_mat(self._camera), dtype=np.float64).reshape(4, 4)
        chosen = sight.readable(
            np.concatenate([points, np.ones((len(points), 1))], axis=1) @ matrix
        )
        g, f = replay.g.ravel(), replay.f.ravel()
        costs = None if self._costs is None else self._costs.ravel()
        self._labels.show(
            {
                cell: (tuple(points[index].tolist()), _numbers(g[cell], f[cell], costs, cell))
                for index, cell in zip(chosen.tolist(), cells[chosen].tolist(), strict=True)
            }
        )

    def on_destroy(self) -> None:
        """Drop the labels."""
        self._labels.destroy()


def _numbers(g: float, f: float, costs: NDArray[np.float64] | None, cell: int) -> str:
    """A cell's label: g and f, and its cost multiplier under them when it is not 1."""
    text = f"g {g:.1f}\nf {f:.1f}"
    if costs is not None and costs[cell] != 1.0:
        text += f"\nx{costs[cell]:g}"
    return text


def _cells(count: int) -> str:
    return f"{count} cell" if count == 1 else f"{count} cells"
