"""RaceView: a race (`sim.search_view.race`) in split views, one display region a lane.

The window is split (`sim.search_view.split_screen`) into one region a lane, each with its own
camera on the same scene. Every lane draws its search into its own `Gizmos`, whose node only
its camera sees (Panda3D camera masks: `Camera.set_camera_mask` and `NodePath.hide(mask)` /
`show(mask)`); the scene (ground, cubes, agents) is seen by all.

Lanes take the search view's heuristic and weight (the planner's heuristic when the view was
closed) and the grid's diagonal rule; the race restarts at tick 0 when the rule changes or
Start, End, an obstacle or a terrain patch moves to other cells (on the drop, not during a
drag). Playback runs on frame time, like the search view's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from panda3d.core import BitMask32, NodePath

from sim.components.grid_manager import GridManager
from sim.config import PALETTE, Tag
from sim.engine import Component, Gizmos
from sim.navigation.catalogue import SearchKind
from sim.navigation.diagonal import DiagonalRule
from sim.search_view.geometry import (
    CELL_INSET,
    CELL_Z,
    RIBBON_WIDTH,
    RIBBON_Z,
    layer_cells,
    parent_arrows,
    segment_ribbons,
    tape_layers,
)
from sim.search_view.race import (
    DEFAULT_LINEUP,
    MAX_LANES,
    MIN_LANES,
    Entrant,
    Race,
    Replay,
    Standing,
    check_lane_count,
)
from sim.search_view.settings import next_speed, view_heuristic
from sim.search_view.split_screen import SplitScreen, lane_mask
from sim.search_view.view import (
    ARROW_COLOR,
    BACKWARD_CLOSED_COLOR,
    BACKWARD_OPEN_COLOR,
    CURRENT_COLOR,
    MEETING_COLOR,
    PATH_COLOR,
    SearchView,
)

Rgba = tuple[float, float, float, float]

LANE_COLORS: tuple[tuple[Rgba, Rgba], ...] = PALETTE.race_lanes  # (open, closed) per lane
"""Each lane's own colours (`sim.config.Palette`), so a screenshot tells the lanes apart even
out of their regions; the path, the last expanded cell and bidirectional's backward half keep
the search view's colours."""
DEFAULT_RACE_SPEED = 50  # ticks per second: a race on a 64 x 64 grid takes some seconds


@dataclass(frozen=True, slots=True)
class RaceProblem:
    """What a race answers: it restarts when this changes."""

    mask_version: int
    costs_version: int
    start: tuple[int, int]
    goal: tuple[int, int]
    lineup: tuple[Entrant, ...]
    heuristic: str
    weight: float
    rule: DiagonalRule


class RaceView(Component):
    """Two to four searches racing in split views; see the module docstring.

    Args:
        grid: The scene's GridManager (its mask is copied when the race starts).
        view: The search view, whose heuristic, weight and moves the lanes take when it is
            open (it is closed while the race is open).
        screen: The split of the window.
        scene_root: Where the lanes' gizmo nodes go (`render`).
        dragging: Whether a cube is being dragged now (the race restarts on the drop).
    """

    def __init__(
        self,
        grid: GridManager,
        *,
        view: SearchView,
        screen: SplitScreen,
        scene_root: NodePath,
        dragging: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__()
        self._grid, self._view, self._screen = grid, view, screen
        self._dragging = dragging
        self.lineup: list[Entrant] = list(DEFAULT_LINEUP)
        self.opened = False
        self.playing = False
        self.speed = DEFAULT_RACE_SPEED
        self.race: Race | None = None
        self.restarts = 0
        self.message = ""
        self._problem: RaceProblem | None = None
        self._budget = 0.0
        self._gizmos = [Gizmos(scene_root) for _ in range(MAX_LANES)]
        for index, gizmos in enumerate(self._gizmos):
            gizmos.node.hide(BitMask32.all_on())
            gizmos.node.show(lane_mask(index))
        self._drawn: list[tuple[int, int, int, bool] | None] = [None] * MAX_LANES
        # Arrows crowd a quarter of the window: off until A, except for JPS's jumps and
        # Theta*'s any-angle parents, which are what those searches show.
        self.show_parents = False
        self._heuristic, self._weight = view.settings.heuristic, view.settings.weight

    # --- what the keys do ------------------------------------------------------------------

    def open(self, lineup: Sequence[Entrant] | None = None) -> None:
        """Start a race of `lineup` (default: the last one), closing the search view."""
        if lineup is not None:
            check_lane_count(len(lineup))
            self.lineup = list(lineup)
        view, settings = self._view, self._view.settings
        # An open view's choices win; a closed one's may be stale, so the planner's then.
        self._heuristic = (
            settings.heuristic if view.opened else view_heuristic(self._grid.heuristic)
        )
        self._weight = settings.weight
        view.close()
        self.opened, self.playing = True, False
        self._problem, self.race = None, None
        self._screen.open(len(self.lineup))
        self._refresh(force=True)

    def close(self) -> None:
        """Hide the race and give the window back to the scene."""
        if not self.opened:
            return
        self.opened = self.playing = False
        self.race, self._problem = None, None
        self._screen.close()
        for gizmos in self._gizmos:
            gizmos.flush()  # nothing drawn: every key hides

    def toggle(self) -> None:
        """Open the race if closed, close it if open."""
        if self.opened:
            self.close()
        else:
            self.open()

    def toggle_lane(self, kind: SearchKind) -> None:
        """Add `kind` as a lane, or take it out (a race keeps 2 to 4 lanes); restarts."""
        lineup = [entrant for entrant in self.lineup if entrant.kind is not kind]
        if len(lineup) < len(self.lineup):
            if len(lineup) < MIN_LANES:
                self.message = f"a race needs at least {MIN_LANES} searches"
                return
        else:
            if len(lineup) >= MAX_LANES:
                self.message = f"a race takes at most {MAX_LANES} searches: take one out first"
                return
            lineup.append(Entrant(kind))
        self.message = ""
        self.lineup = lineup
        if self.opened:
            self._screen.open(len(lineup))
            self._refresh(force=True)

    def toggle_parents(self) -> None:
        """Show or hide every lane's parent arrows (JPS and Theta* always show theirs)."""
        self.show_parents = not self.show_parents

    def play_pause(self) -> None:
        """Start or stop the clock; playing from the finish starts over."""
        if self.race is None:
            return
        if not self.playing and self.race.at_end:
            self.race.reset()
        self.playing = not self.playing
        self._budget = 0.0

    def step_forward(self) -> None:
        """One tick on (and stop)."""
        self._move(lambda race: race.forward(1))

    def step_back(self) -> None:
        """One tick back (and stop)."""
        self._move(lambda race: race.back(1))

    def reset(self) -> None:
        """Back to tick 0 (and stop)."""
        self._move(Race.reset)

    def to_end(self) -> None:
        """Run every lane to its finish (and stop)."""
        self._move(Race.to_end)

    def faster(self) -> None:
        """More ticks per second."""
        self.speed = next_speed(self.speed, +1)

    def slower(self) -> None:
        """Fewer ticks per second."""
        self.speed = next_speed(self.speed, -1)

    def _move(self, how: Callable[[Race], None]) -> None:
        if self.race is not None:
            self.playing = False
            how(self.race)

    # --- the frame -------------------------------------------------------------------------

    def tick(self, frame_dt: float) -> None:
        """Per frame: restart on a changed grid, Start or End; play; draw the lanes."""
        if not self.opened:
            return
        self._refresh(force=False)
        self._screen.follow_lens(self._grid_corners())
        race = self.race
        if self.playing and race is not None:
            self._budget += frame_dt * self.speed
            ticks = int(self._budget)
            self._budget -= ticks
            if ticks:
                race.forward(ticks)
            if race.at_end:
                self.playing = False
        self._draw()

    def _refresh(self, *, force: bool) -> None:
        """Start the race again when what it answers changed (not while a cube is dragged)."""
        problem = self._current_problem()
        if problem is None:
            self.race, self._problem, self.playing = None, None, False
            return
        if problem == self._problem or (not force and self._dragging()):
            return
        costs = self._grid.costs
        self.race = Race.on_grid(
            problem.lineup,
            self._grid.walkable.copy(),
            problem.start,
            problem.goal,
            diagonal=problem.rule.value,
            heuristic=problem.heuristic,
            weight=problem.weight,
            costs=None if costs is None else costs.copy(),
        )
        was_playing = self.playing and not force
        self.playing = was_playing
        self._budget = 0.0
        self._problem = problem
        self.restarts += 1

    def _current_problem(self) -> RaceProblem | None:
        world = self.world
        start = None if world is None else world.find_with_tag(Tag.START)
        end = None if world is None else world.find_with_tag(Tag.END)
        if start is None or end is None:
            self.message = "the race needs a Start and an End"
            return None
        ends = self._grid.grid.endpoints(start.xy, end.xy)
        if ends.start is None or ends.goal is None:
            self.message = "the grid has no walkable cell"
            return None
        return RaceProblem(
            self._grid.mask_version,
            self._grid.costs_version,
            ends.start,
            ends.goal,
            tuple(self.lineup),
            self._heuristic,
            self._weight,
            self._grid.rule,  # the planner's, live: J and N switch the race's moves too
        )

    # --- what the race shows ---------------------------------------------------------------

    @property
    def rule(self) -> DiagonalRule | None:
        """The diagonal rule the lanes move by (None without a race)."""
        return None if self._problem is None else self._problem.rule

    @property
    def bounds(self) -> list[tuple[float, float, float, float]]:
        """Each lane's region (left, right, bottom, top) as fractions of the window."""
        return self._screen.bounds

    def standings(self) -> list[Standing]:
        """Each lane's counts and place now (costs in grid cells); empty without a race."""
        return [] if self.race is None else self.race.standings()

    def finish_line(self) -> str:
        """The finish order so far, costs in world units (see `Race.finish_line`)."""
        return "" if self.race is None else self.race.finish_line(self._grid.grid_cell_size)

    def _draw(self) -> None:
        """Each lane's cells and arrows into its own gizmos, rebuilt when its step changed."""
        lanes = [] if self.race is None else self.race.lanes
        for index, gizmos in enumerate(self._gizmos):
            replay = lanes[index].replay if index < len(lanes) else None
            if replay is None:
                self._drawn[index] = None
                gizmos.flush()
                continue
            # JPS's arrows are its jumps, Theta*'s its any-angle parents: drawn even when hidden.
            arrows = self.show_parents or replay.kind.hints.arrows
            revision = (self.restarts, replay.step, replay.at_end, arrows)
            if self._drawn[index] == revision:
                continue  # Gizmos keeps what was flushed last until the next flush
            self._drawn[index] = revision
            for key, corners, color in self._lane_quads(replay, index):
                gizmos.quads(key, corners, color)
            segments = self._arrows_of(replay) if arrows else ()
            if len(segments):
                gizmos.lines("race-parents", segments, ARROW_COLOR, thickness=1.5)
            gizmos.flush()

    def _lane_quads(
        self, replay: Replay, index: int
    ) -> list[tuple[str, NDArray[np.float32], Rgba]]:
        open_color, closed_color = LANE_COLORS[index]
        colors = {
            "search-open": open_color,
            "search-closed": closed_color,
            "search-path": PATH_COLOR,
            "search-current": CURRENT_COLOR,
            "search-open-back": BACKWARD_OPEN_COLOR,
            "search-closed-back": BACKWARD_CLOSED_COLOR,
            "search-meeting": MEETING_COLOR,
        }
        layers = layer_cells(replay)
        if replay.kind.hints.two_frontiers:
            layers |= tape_layers(replay, layers)
        quads = [
            (key, self._grid.cell_quads(cells, CELL_Z, inset=CELL_INSET), colors[key])
            for key, cells in layers.items()
            if len(cells)
        ]
        if replay.kind.hints.straight_path and replay.path:
            # Theta*'s path is straight segments between its vertices, as in the search view.
            width, size = replay.log.width, self._grid.grid_cell_size
            vertices = np.array([row * width + col for row, col in replay.path], dtype=np.intp)
            ribbons = segment_ribbons(
                self._grid.cell_centres(vertices), RIBBON_WIDTH * size, RIBBON_Z * size
            )
            quads.append(("search-path-lines", ribbons, PATH_COLOR))
        return quads

    def _grid_corners(self) -> NDArray[np.float64]:
        """The grid's four corners on the ground, world x, y, z."""
        grid = self._grid
        x0, y0 = grid.origin[0], grid.origin[1]
        width = grid.num_of_columns * grid.grid_cell_size
        height = grid.num_of_rows * grid.grid_cell_size
        return np.array(
            [
                [x0, y0, 0.0],
                [x0 + width, y0, 0.0],
                [x0, y0 + height, 0.0],
                [x0 + width, y0 + height, 0.0],
            ]
        )

    def _arrows_of(self, replay: Replay) -> NDArray[np.float32]:
        parent = replay.parent.ravel()
        touched = np.flatnonzero(parent >= 0)
        return parent_arrows(
            self._grid.cell_centres(touched),
            self._grid.cell_centres(parent[touched]),
            self._grid.grid_cell_size,
        )

    def on_destroy(self) -> None:
        """Give the window back and drop the lanes' nodes."""
        self.close()
        for gizmos in self._gizmos:
            gizmos.destroy()
