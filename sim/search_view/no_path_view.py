"""Why the search view's search found no path: Start's and End's regions, the cells to open.

When the view's search has run to its end and found End unreachable, the view shows why as
the live scene does (`sim.components.no_path`): Start's region blue, End's purple, the fewest
blocked cells whose removal would join them yellow and outlined, worked out on the grid the
search ran on and under its diagonal rule (`sim.navigation.regions.explain`). The regions lie over
the search's own cells (its expanded cells fill Start's region).
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
from numpy.typing import NDArray

from sim.components.grid_manager import GridManager
from sim.components.no_path import GOAL_REGION_COLOR, START_REGION_COLOR, NoPathShading
from sim.engine import Gizmos
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.query import Reason
from sim.navigation.regions.explain import NoPathExplanation, explain_no_path
from sim.navigation.replay.recorder import Replay
from sim.search_view.geometry import CELL_Z

KEYS = (
    "search-no-path-start-region",
    "search-no-path-goal-region",
    "search-no-path-fix",
    "search-no-path-fix-outline",
)
"""The gizmo keys, in drawing order (apart from the live scene's, which the view hides)."""
# Over the search's cells and the grid lines (0.02), under the arrows: closer to the cells,
# the software renderer's depth test lets whole rows of them through the regions' quads (at
# 0.012 and 0.016 above them it did, once the docks narrowed and the camera stood farther off).
# The fix cells' quads (0.03) never meet the regions': they are walls between them.
REGION_Z = CELL_Z + 0.03
# Stronger than the live scene's: Start's region lies over the search's yellow, not the ground.
START_COLOR = (*START_REGION_COLOR[:3], 0.6)
GOAL_COLOR = (*GOAL_REGION_COLOR[:3], 0.6)


class SearchNoPath:
    """The explanation of the view's unreachable End, redone only when the search is new."""

    def __init__(self, grid: GridManager) -> None:
        self._shading = NoPathShading(
            grid, keys=KEYS, region_z=REGION_Z, region_colors=(START_COLOR, GOAL_COLOR)
        )
        self._key: Hashable = None

    @property
    def explanation(self) -> NoPathExplanation | None:
        """Why the search ended without a path, while it is shown at its end; else None."""
        return self._shading.explanation

    def update(
        self,
        replay: Replay | None,
        walkable: NDArray[np.bool_] | None,
        rule: DiagonalRule,
        key: Hashable,
    ) -> None:
        """Explain `replay` when it stands at its end and found End unreachable.

        Args:
            replay: The view's replay, or None.
            walkable: The grid snapshot the search ran on.
            rule: The diagonal rule the search moved by.
            key: Changes whenever the view starts another search; an unchanged key keeps
                the last explanation.
        """
        unreachable = (
            replay is not None
            and walkable is not None
            and replay.at_end
            and replay.log.result().reason == Reason.UNREACHABLE
        )
        if not unreachable:
            self._key = None
            self._shading.show(None)
            return
        if key == self._key:
            return
        assert replay is not None  # `unreachable` says so
        assert walkable is not None
        self._key = key
        log = replay.log
        self._shading.show(explain_no_path(walkable, log.start, log.goal, diagonal=rule))

    def status(self) -> str:
        """The panel's words for it: "no path: remove these 2 cells (yellow)"; "" if none."""
        why = self.explanation
        if why is None:
            return ""
        count = len(why.fix_cells)
        cells = "this cell" if count == 1 else f"these {count} cells"
        return f"no path: remove {cells} (yellow)"

    def draw(self, gizmos: Gizmos) -> None:
        """Shade the regions and the fix cells, if there is an explanation."""
        self._shading.draw(gizmos)
