"""The Start -> End path (the seed's TestCode): planned on an interval and on every change."""

from __future__ import annotations

from sim.components.grid_manager import GridManager, PlanOutcome, Point
from sim.config import Tag
from sim.engine import Component, Every, GameObject, Gizmos

PATH_COLOR = (0.1, 0.95, 0.2, 1.0)
PATH_Z = 0.05  # above the grid lines and block shading, below the cubes' tops
# Changes (a cube dragged across cells) trigger a replan at most this often, so a live drag on a
# large grid keeps the frame rate; the interval timer and replan_now() are not held back.
MIN_REPLAN_GAP_S = 0.1


class StartEndPath(Component):
    """Plans from the Start cube to the End cube and draws the grid path as a green line.

    Replans every `replan_interval_s`, and when Start or End moves to another cell or the grid
    changes (at most every `MIN_REPLAN_GAP_S`), and on `replan_now()`. `outcome` is None until
    both cubes exist.
    """

    def __init__(self, grid: GridManager, *, replan_interval_s: float = 1.0) -> None:
        super().__init__()
        self._grid = grid
        self._replan = Every(replan_interval_s)
        self._planned_for: tuple[object, ...] | None = None
        self.outcome: PlanOutcome | None = None
        self.plans = 0
        self.show_path = True
        # Set while another view draws the search's own path (the search view hides the answer).
        self.suppressed = False
        self._since_plan_s = 0.0
        self._forced = False

    def replan_now(self) -> None:
        """Plan on the next update whatever changed (a cube was just dropped)."""
        self._forced = True

    def update(self, dt: float) -> None:
        """Replan when the interval is up or Start, End or the grid changed."""
        start, end = self._find(Tag.START), self._find(Tag.END)
        due = self._replan.tick(dt) or self._forced
        self._since_plan_s += dt
        if start is None or end is None:
            self.outcome, self._planned_for = None, None
            return
        start_point, end_point = _xy(start), _xy(end)
        key = (
            self._grid.version,
            self._grid.world_to_cell(*start_point, clamp=True),
            self._grid.world_to_cell(*end_point, clamp=True),
        )
        changed = key != self._planned_for and self._since_plan_s >= MIN_REPLAN_GAP_S
        if due or changed or self.outcome is None:
            self._planned_for, self._since_plan_s, self._forced = key, 0.0, False
            self.outcome = self._grid.plan(start_point, end_point, smoothing=False)
            self.plans += 1

    def _find(self, tag: str) -> GameObject | None:
        world = self.world
        return None if world is None else world.find_with_tag(tag)

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Draw the path through the centres of its cells."""
        if (
            self.show_path
            and not self.suppressed
            and self.outcome is not None
            and self.outcome.found
        ):
            centres = [self._grid.cell_to_world(cell) for cell in self.outcome.cells]
            points = [(x, y, PATH_Z) for x, y in centres]
            gizmos.polyline("start-end-path", points, PATH_COLOR, thickness=3.0)


def _xy(obj: GameObject) -> Point:
    pos = obj.node.get_pos(obj.node.get_top())
    return (float(pos.x), float(pos.y))
