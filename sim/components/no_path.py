"""Why there is no Start -> End path, shown on the ground: two regions and the cells to open.

When Start and End lie in different regions, Start's region is shaded blue and End's purple,
and the fewest blocked cells whose removal would join them are filled yellow and outlined,
drawn over the obstacles that cover them (`sim.navigation.regions.explain`), under the grid's
diagonal rule: switching it (J) changes the grid's `version`, so the explanation is redone.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
from numpy.typing import NDArray

from sim.components.grid_manager import GridManager, PlanOutcome, Point
from sim.config import PALETTE
from sim.engine import Gizmos
from sim.navigation.regions.explain import NoPathExplanation, explain_no_path

Rgba = tuple[float, float, float, float]

START_REGION_COLOR: Rgba = PALETTE.start_region
GOAL_REGION_COLOR: Rgba = PALETTE.goal_region
FIX_COLOR = (*PALETTE.fix[:3], 0.55)
FIX_OUTLINE_COLOR = PALETTE.fix
FIX_OUTLINE_THICKNESS = 3.0
REGION_Z = 0.012  # over the ground and block shading, under the grid lines (0.02)
FIX_Z = 0.03
FIX_INSET = 0.08  # the outline sits inside its cell, so two fix cells side by side read as two
KEYS = ("no-path-start-region", "no-path-goal-region", "no-path-fix", "no-path-fix-outline")
"""The gizmo keys, in drawing order."""


class NoPathShading:
    """The explanation of a missing Start -> End path, worked out only when its inputs change.

    Owned by the Start -> End path, which calls `refresh` after each plan: the explanation is
    redone when the plan's key (the grid's `version` and the ends' cells) changed, and only
    while there is no path; `draw` hands cached arrays to the gizmos. The search view owns
    another, under its own gizmo `keys`, and hands it explanations with `show`.

    Args:
        grid: The grid whose cells are shaded.
        keys: The gizmo keys of Start's region, End's, the fix cells and their outline.
        region_z: The regions' height over the ground.
        region_colors: RGBA of Start's region and of End's.
    """

    def __init__(
        self,
        grid: GridManager,
        *,
        keys: tuple[str, ...] = KEYS,
        region_z: float = REGION_Z,
        region_colors: tuple[Rgba, Rgba] = (START_REGION_COLOR, GOAL_REGION_COLOR),
    ) -> None:
        if len(keys) != len(KEYS):
            raise ValueError(f"keys must name {len(KEYS)} gizmo keys, got {keys!r}")
        self._grid = grid
        self._keys = keys
        self._region_z = region_z
        self._region_colors = region_colors
        self._key: Hashable = None
        self.explanation: NoPathExplanation | None = None
        self._arrays: tuple[NDArray[np.float32], ...] = ()

    def clear(self) -> None:
        """Forget the explanation (the scene lost its Start or its End)."""
        self._key, self.explanation, self._arrays = None, None, ()

    def refresh(self, outcome: PlanOutcome, key: Hashable, start: Point, end: Point) -> None:
        """Explain `outcome` when it found no path because its ends lie in different regions.

        Args:
            outcome: the plan just made between world points `start` and `end`.
            key: what the plan depended on; an unchanged key keeps the last explanation.
            start: Start's world point.
            end: End's world point.
        """
        if outcome.found:
            self.clear()
            return
        if key == self._key:
            return
        self._key = key
        # The cells the planner used: an end inside an obstacle plans from the nearest free cell.
        ends = self._grid.grid.endpoints(start, end)
        why = None
        if ends.start is not None and ends.goal is not None:
            why = explain_no_path(
                self._grid.walkable, ends.start, ends.goal, diagonal=self._grid.rule
            )
        self.show(why)

    def show(self, why: NoPathExplanation | None) -> None:
        """Shade `why` until told otherwise; None, or ends already joined, shade nothing."""
        self.explanation = None if why is None or why.connected else why
        self._arrays = () if self.explanation is None else self._build(self.explanation)

    def _build(self, why: NoPathExplanation) -> tuple[NDArray[np.float32], ...]:
        grid = self._grid
        fix = np.array([row * grid.num_of_columns + col for row, col in why.fix_cells])
        corners = grid.cell_quads(fix, FIX_Z, inset=FIX_INSET)
        # Each quad's four edges: corner i to corner i + 1, round the square.
        outline = np.stack([corners, np.roll(corners, -1, axis=1)], axis=2).reshape(-1, 2, 3)
        return (
            row_run_quads(why.start_region, grid.origin, grid.grid_cell_size, self._region_z),
            row_run_quads(why.goal_region, grid.origin, grid.grid_cell_size, self._region_z),
            grid.cell_quads(fix, FIX_Z),
            outline,
        )

    def draw(self, gizmos: Gizmos) -> None:
        """Draw the regions and the fix cells, if there is an explanation."""
        if not self._arrays:
            return
        start_region, goal_region, fix, outline = self._arrays
        keys = self._keys
        start_color, goal_color = self._region_colors
        gizmos.quads(keys[0], start_region, start_color)
        gizmos.quads(keys[1], goal_region, goal_color)
        # Every fix cell is under an obstacle: drawn over everything, or the cube hides it.
        gizmos.set_on_top(keys[2], True)
        gizmos.set_on_top(keys[3], True, order=1)
        gizmos.quads(keys[2], fix, FIX_COLOR)
        gizmos.lines(keys[3], outline, FIX_OUTLINE_COLOR, thickness=FIX_OUTLINE_THICKNESS)


def row_run_quads(
    mask: NDArray[np.bool_], origin: Point, cell_size: float, z: float
) -> NDArray[np.float32]:
    """One flat quad `(N, 4, 3)` per run of `mask` along a row, for `Gizmos.quads`.

    A region of a large grid in few vertices: the gizmos copy and compare a key's vertices
    every frame, and a quad per cell of an open 512 x 512 region would be 12 MB of them.
    Runs come row by row from the grid's first row, each left to right.

    >>> row_run_quads(np.array([[1, 1, 0, 1]], dtype=bool), (0.0, 0.0), 1.0, 0.0)[:, :, 0]
    array([[0., 2., 2., 0.],
           [3., 4., 4., 3.]], dtype=float32)
    """
    # A run starts where a cell is in the mask and the one before it is not, and ends
    # (exclusive) where the mask stops; row-major order pairs each end with its start.
    padded = np.zeros((mask.shape[0], mask.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    edges = np.diff(padded, axis=1)
    rows, starts = np.nonzero(edges == 1)
    _, ends = np.nonzero(edges == -1)
    x0, x1 = origin[0] + starts * cell_size, origin[0] + ends * cell_size
    y0 = origin[1] + rows * cell_size
    y1 = y0 + cell_size
    z_all = np.full(rows.shape, z, dtype=np.float64)
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    quads = np.stack([np.stack([x, y, z_all], axis=-1) for x, y in corners], axis=1)
    return quads.astype(np.float32).reshape(-1, 4, 3)
