"""The race in the app: W opens it, the digits pick its lanes, `sim run --race` opens it headless.

`RaceControl` builds the race (`sim.search_view.race_view`) and its labels (`race_panel`) and
ticks them every frame on frame time. While the race is open the mode owner (`sim.app.modes`)
gives it the digit keys 1-9 (each adds or removes one search of `SearchKind`, in the search
view's order) and the search view's keys (play, step, reset, speed, T).
`sim run --race NAME[:H],NAME[:H][,...]` names 2 to 4 searches as `--search` names one
(`sim.app.race_args`); `--search-step N|end` puts the race at that tick.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from direct.task.Task import Task
from panda3d.core import ClockObject

from sim.engine.loop import Phase
from sim.search_view.race import Entrant, Standing
from sim.search_view.race_panel import RacePanel
from sim.search_view.race_view import RaceView
from sim.search_view.split_screen import SplitScreen

if TYPE_CHECKING:
    from direct.showbase.ShowBase import ShowBase

    from sim.app.report import RaceLaneEntry
    from sim.components.grid_manager import GridManager
    from sim.components.hud import Hud
    from sim.components.start_end_path import StartEndPath
    from sim.components.terrain_legend import TerrainLegend
    from sim.engine import World
    from sim.engine.loop import FrameLoop
    from sim.search_view.view import SearchView

RACE_TASK = "race-view"


class RaceControl:
    """The app's race: its view, panel and frame task.

    Attributes:
        view: The race (its state and the keys' actions).
        panel: Its words on screen.
    """

    def __init__(
        self,
        *,
        base: ShowBase,
        world: World,
        loop: FrameLoop,
        grid: GridManager,
        search_view: SearchView,
        path: StartEndPath,
        hud: Hud,
        terrain_legend: TerrainLegend | None,
        dragging: Callable[[], bool],
        first_frame: Callable[[], None],
        render_paused: Callable[[], None],
    ) -> None:
        """Build the race (closed) over `base`'s window, ticked by `loop` on frame time.

        `first_frame` runs the app's first frame if it has not run; `render_paused` renders one
        with simulated time stopped (both for `start`).
        """
        screen = SplitScreen(base.win, base.cam)
        self.view = world.spawn("race").add_component(
            RaceView(
                grid,
                view=search_view,
                screen=screen,
                scene_root=base.render,
                dragging=dragging,
            )
        )
        self.panel = RacePanel(
            self.view,
            aspect2d=base.aspect2d,
            render2d=base.render2d,
            bottom_left=base.a2dBottomLeft,
            bottom_right=base.a2dBottomRight,
            aspect=base.get_aspect_ratio,
            cell_size=grid.grid_cell_size,
        )
        self._clock = ClockObject.get_global_clock()
        self._loop, self._grid, self._path = loop, grid, path
        self._hud, self._terrain_legend = hud, terrain_legend
        self._first_frame, self._render_paused = first_frame, render_paused
        self._shown = False
        self._hud_was = True
        loop.add_task(Phase.UI, self._tick, RACE_TASK)

    @property
    def opened(self) -> bool:
        """Whether the race is on screen."""
        return self.view.opened

    def _tick(self, task: Task) -> int:
        view = self.view
        view.tick(self._clock.get_dt())
        if view.opened != self._shown:
            self._show_hud(not view.opened)
        self.panel.refresh()
        if view.opened:
            # The lanes draw their own paths: the planner's would give the answer away.
            self._path.suppressed = True
        return int(task.cont)

    def _show_hud(self, shown: bool) -> None:
        """Hide the HUD while the race is open (its panel takes the HUD's place), then restore."""
        self._shown = not shown
        if not shown:
            self._hud_was = self._hud.visible
        visible = shown and self._hud_was
        self._hud.visible = visible
        if self._terrain_legend is not None:
            self._terrain_legend.visible = visible

    def start(self, entrants: tuple[Entrant, ...], step: int | None) -> str | None:
        """Open the race on `entrants` at tick `step` (None: the finish), as `sim run --race`.

        Returns:
            None, or why the race shows nothing (a search refused the scene, or the scene
            has no Start and End): `sim run` says so in one line.
        """
        # The first frame rasterizes the obstacles: a race opened before it would restart.
        self._first_frame()
        view = self.view
        view.open(entrants)
        race = view.race
        if race is None:
            return view.message or "the race has no Start and End"
        refused = [f"{lane.name} {lane.refusal}" for lane in race.lanes if lane.refusal]
        if refused:
            return "; ".join(refused)
        if step is None:
            race.to_end()
        else:
            race.seek(step)
        self._render_paused()  # show that tick now: a run of one frame screenshots it
        return None

    def report(self) -> list[RaceLaneEntry] | None:
        """`search_view.race`: null without a race, else each lane's counts and place."""
        if not self.view.opened or self.view.race is None:
            return None
        cell_size = self._grid.grid_cell_size
        return [
            lane_entry(row, lane.entrant, cell_size)
            for row, lane in zip(self.view.standings(), self.view.race.lanes, strict=True)
        ]

    def destroy(self) -> None:
        """Drop the frame task and the texts (the view goes with the world)."""
        self._loop.remove_task(RACE_TASK)
        self.panel.destroy()


def lane_entry(row: Standing, entrant: Entrant, cell_size: float) -> RaceLaneEntry:
    """One lane of `search_view.race`; its cost in world units."""
    return {
        "search": entrant.kind.algorithm.value,
        "label": row.search,
        "expanded": row.expanded,
        "open": row.open,
        "finished": row.finished,
        "cost": None if row.cost is None else round(row.cost * cell_size, 6),
        "place": row.place,
    }
