"""The Start -> End path: planned on an interval and on every change."""

from __future__ import annotations

from collections.abc import Callable

from sim.components.grid_manager import GridManager, PlanOutcome
from sim.components.no_path import NoPathShading
from sim.config import PALETTE, Tag
from sim.engine import Component, GameObject, Gizmos, ReplanGate
from sim.navigation.regions.explain import NoPathExplanation

PATH_COLOR = PALETTE.path
PATH_Z = 0.05  # above the grid lines and block shading, below the cubes' tops


class StartEndPath(Component):
    """Plans from the Start cube to the End cube and draws the grid path as a green line.

    When it replans is its `ReplanGate`'s call: every `replan_interval_s`, on a drop, and when
    Start or End moves to another cell or the grid changes (the grid's `version`), at most
    every `DRAG_GAP_S` while `dragging()`. `outcome` is None until both cubes exist. When
    there is no path because Start and End lie in different regions, `explanation` says why
    and the ground shows it (`NoPathShading`).
    """

    def __init__(
        self,
        grid: GridManager,
        *,
        replan_interval_s: float = 1.0,
        dragging: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__()
        self._grid = grid
        self._gate = ReplanGate(interval_s=replan_interval_s, dragging=dragging)
        self.outcome: PlanOutcome | None = None
        self.plans = 0
        self.show_path = True
        self._no_path = NoPathShading(grid)
        # Set while another view draws the search's own path (the search view hides the answer).
        self.suppressed = False

    @property
    def explanation(self) -> NoPathExplanation | None:
        """Why there is no path (regions and the fewest cells to open), or None."""
        return self._no_path.explanation

    def update(self, dt: float) -> None:
        """Replan when the gate says so (see the class)."""
        start, end = self._find(Tag.START), self._find(Tag.END)
        if start is None or end is None:
            self._gate.tick(dt, None)  # keeps the interval's schedule; nothing to plan
            self.outcome = None
            self._no_path.clear()
            return
        start_point, end_point = start.xy, end.xy
        key = (
            self._grid.version,
            self._grid.world_to_cell(*start_point, clamp=True),
            self._grid.world_to_cell(*end_point, clamp=True),
        )
        if self._gate.tick(dt, key) or self.outcome is None:
            self.outcome = self._grid.plan(start_point, end_point, smoothing=False)
            self.plans += 1
            self._no_path.refresh(self.outcome, key, start_point, end_point)

    def _find(self, tag: str) -> GameObject | None:
        world = self.world
        return None if world is None else world.find_with_tag(tag)

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Draw the path through the centres of its cells, or why there is none."""
        if not self.show_path or self.suppressed:
            return
        self._no_path.draw(gizmos)
        if self.outcome is not None and self.outcome.found:
            centres = [self._grid.cell_to_world(cell) for cell in self.outcome.cells]
            points = [(x, y, PATH_Z) for x, y in centres]
            gizmos.polyline("start-end-path", points, PATH_COLOR, thickness=3.0)
