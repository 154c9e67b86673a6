"""The race in the app: W opens it, the digits pick its lanes, `sim run --race` opens it headless.

`RaceControl.attach(app)` builds the race (`sim.search_view.race_view`) and its labels
(`race_panel`), ticks them every frame on frame time, and takes the digit keys 1-9 while the
race is open (each adds or removes one search of `SearchKind`, in the search view's order).
While the race is open the search view's keys (play, step, reset, speed, T) drive it instead
of the view: `route` picks. `sim run --race NAME[:H],NAME[:H][,...]` names 2 to 4 searches as
`--search` names one (`sim.app.race_args`); `--search-step N|end` puts the race at that tick.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from direct.showbase.DirectObject import DirectObject
from direct.task.Task import Task

from sim.engine.loop import Phase
from sim.navigation.catalogue import SearchKind
from sim.search_view.race import Entrant, Standing
from sim.search_view.race_panel import SEARCH_DIGITS, RacePanel
from sim.search_view.race_view import RaceView
from sim.search_view.split_screen import SplitScreen

if TYPE_CHECKING:
    from sim.app.composition import SimApp
    from sim.app.report import RaceLaneEntry

RACE_TASK = "race-view"


class RaceControl:
    """The app's race: its view, panel, digit keys and frame task.

    Attributes:
        view: The race (its state and the keys' actions).
        panel: Its words on screen.
    """

    def __init__(self, app: SimApp) -> None:
        base = app.base
        screen = SplitScreen(base.win, base.cam)
        self.view = app.world.spawn("race").add_component(
            RaceView(
                app.grid,
                view=app.search_view,
                screen=screen,
                scene_root=base.render,
                dragging=app.dragging,
            )
        )
        self.panel = RacePanel(
            self.view,
            aspect2d=base.aspect2d,
            render2d=base.render2d,
            bottom_left=base.a2dBottomLeft,
            bottom_right=base.a2dBottomRight,
            aspect=base.get_aspect_ratio,
            cell_size=app.grid.grid_cell_size,
        )
        self._app = app
        self._shown = False
        self._hud_was = True
        self._keys = DirectObject()
        for digit, kind in SEARCH_DIGITS.items():
            self._keys.accept(digit, self._digit, [kind])
        app.loop.add_task(Phase.UI, self._tick, RACE_TASK)

    @classmethod
    def attach(cls, app: SimApp) -> RaceControl:
        """Make `app`'s race (closed)."""
        return cls(app)

    @property
    def opened(self) -> bool:
        """Whether the race is on screen."""
        return self.view.opened

    def route(
        self, view_action: Callable[[], None], race_action: Callable[[], None]
    ) -> Callable[[], None]:
        """A key's action: `race_action` while the race is open, else `view_action`."""
        return lambda: race_action() if self.view.opened else view_action()

    def _digit(self, kind: SearchKind) -> None:
        if self.view.opened:
            self.view.toggle_lane(kind)

    def _tick(self, task: Task) -> int:
        view = self.view
        view.tick(self._app.clock.get_dt())
        if view.opened != self._shown:
            self._show_hud(not view.opened)
        self.panel.refresh()
        if view.opened:
            # The lanes draw their own paths: the planner's would give the answer away.
            self._app.path.suppressed = True
        return int(task.cont)

    def _show_hud(self, shown: bool) -> None:
        """Hide the HUD while the race is open (its panel takes the HUD's place), then restore."""
        app = self._app
        self._shown = not shown
        if not shown:
            self._hud_was = app.hud.visible
        visible = shown and self._hud_was
        app.hud.visible = visible
        if app.legend is not None:
            app.legend.visible = visible

    def start(self, entrants: tuple[Entrant, ...], step: int | None) -> str | None:
        """Open the race on `entrants` at tick `step` (None: the finish), as `sim run --race`.

        Returns:
            None, or why the race shows nothing (a search refused the scene, or the scene
            has no Start and End): `sim run` says so in one line.
        """
        app = self._app
        if app.frames == 0:
            # The first frame rasterizes the obstacles: a race opened before it would restart.
            app.step()
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
        was_paused = app.loop.paused
        app.loop.paused = True
        try:
            app.base.task_mgr.step()  # show that tick now: a run of one frame screenshots it
        finally:
            app.loop.paused = was_paused
        return None

    def report(self) -> list[RaceLaneEntry] | None:
        """`search_view.race`: null without a race, else each lane's counts and place."""
        if not self.view.opened or self.view.race is None:
            return None
        cell_size = self._app.grid.grid_cell_size
        return [
            lane_entry(row, lane.entrant, cell_size)
            for row, lane in zip(self.view.standings(), self.view.race.lanes, strict=True)
        ]

    def destroy(self) -> None:
        """Drop the keys and the texts (the view goes with the world)."""
        self._keys.ignore_all()
        self._app.loop.remove_task(RACE_TASK)
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
