"""LinkEnds: drag a link's end across the ground with the left button; one undoable edit a drag.

A press on the ground within `GRAB_CELLS` of a link's end (`[[links]]`' `from` or `to`) takes
the drag from the cubes (a `PointerTool` of the editor); the end follows the pointer from cell
centre to cell centre, and the planners take the moved link at once (`GridManager.links`). An
end dropped off the grid or inside a wall goes back where it was grabbed, and says why; any
other drop is one `LinkMove` in the editor's history, and Ctrl+S writes it to the file
(`save_scene`'s `links`). After a drop, an undo or a redo, the agents the moved link matters to
(`sim.editor.link_replan`) replan at once; the others keep their plans.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from sim.crowd.state import ReplanCause
from sim.editor.link_replan import agents_to_replan
from sim.navigation.links import check_links
from sim.scene.links import nav_links
from sim.scene.spec import LinkSpec

if TYPE_CHECKING:
    from sim.components.agent_controller import AgentController
    from sim.components.grid_manager import GridManager
    from sim.editor.history import EditHistory
    from sim.engine import GameObject
    from sim.engine.picking import Picker

Point = tuple[float, float]

GRAB_CELLS: Final = 0.5
"""How near a link's end a press must land to grab it, in cells."""


class LinkEnds:
    """The scene's links as the editor has them, and the drag of one end (see the module).

    Args:
        picker: Finds the ground point under the pointer.
        grid: Planners read its `links`; it is kept in step with `specs`.
        history: Where each drag is recorded for undo.
        links: The scene's links as loaded.
        notify: Told, in one line, when a drop is refused.
        agents: The scene's agents, asked to replan when a moved link matters to them.
    """

    def __init__(
        self,
        picker: Picker,
        grid: GridManager,
        history: EditHistory,
        links: Sequence[LinkSpec],
        notify: Callable[[str], None],
        agents: Sequence[AgentController] = (),
    ) -> None:
        self._picker, self._grid, self._history = picker, grid, history
        self._notify, self._agents = notify, agents
        self.specs = list(links)
        self._grab: tuple[int, str, LinkSpec] | None = None  # index, "start"/"end", before

    @property
    def held(self) -> GameObject | None:
        """No scene object moves while an end is dragged (`PointerTool`)."""
        return None

    def press(self, mouse: tuple[float, float], *, shift: bool = False) -> bool:
        """Take the drag when the press lands on a link's end."""
        point = self._ground(mouse)
        if point is None or shift:
            return False
        reach = GRAB_CELLS * self._grid.grid_cell_size
        ends = [
            (math.dist(point, getattr(link, which)), index, which)
            for index, link in enumerate(self.specs)
            for which in ("start", "end")
        ]
        near = min(ends, default=None)
        if near is None or near[0] > reach:
            return False
        _, index, which = near
        self._grab = (index, which, self.specs[index])
        return True

    def move(self, mouse: tuple[float, float]) -> None:
        """Put the grabbed end on the centre of the cell under the pointer."""
        point = self._ground(mouse) if self._grab is not None else None
        if self._grab is None or point is None:
            return
        index, which, _ = self._grab
        cell = self._grid.world_to_cell(*point, clamp=True)
        if cell is not None:
            centre = self._grid.cell_to_world(cell)
            link = self.specs[index]
            moved = replace(link, start=centre) if which == "start" else replace(link, end=centre)
            self.apply(index, moved)

    def release(self, mouse: tuple[float, float] | None) -> None:
        """Drop the end: one undoable move, or back where it was if it may not lie there."""
        if mouse is not None:
            self.move(mouse)
        grab, self._grab = self._grab, None
        if grab is None:
            return
        index, _, before = grab
        after = self.specs[index]
        if after == before:
            return
        grid = self._grid
        try:
            check_links(nav_links([after], grid.origin, grid.grid_cell_size), grid.walkable)
        except ValueError as error:
            self.apply(index, before)
            self._notify(f"link {index} stays: {str(error).split(': ', 1)[1]}")
            return
        self._history.record(LinkMove(self, index, before, after))
        self.replan(before, after)

    def replan(self, before: LinkSpec, after: LinkSpec) -> None:
        """Ask the agents the link's move from `before` to `after` matters to for a plan now."""
        for agent in agents_to_replan(self._agents, before, after, self._grid):
            agent.replan_now(ReplanCause.INTERVAL)

    def apply(self, index: int, link: LinkSpec) -> None:
        """Make link `index` this one; the planners take it from their next plan."""
        self.specs[index] = link
        grid = self._grid
        grid.links = nav_links(self.specs, grid.origin, grid.grid_cell_size)

    def _ground(self, mouse: tuple[float, float]) -> Point | None:
        hit = self._picker.ground_point(mouse)
        return None if hit is None else (float(hit.x), float(hit.y))


@dataclass(frozen=True, slots=True)
class LinkMove:
    """A link's end dragged from `before` to `after` (an `Edit` of the editor's history)."""

    ends: LinkEnds
    index: int
    before: LinkSpec
    after: LinkSpec

    @property
    def label(self) -> str:
        """What the HUD says it undid or redid."""
        return f"move link {self.index}"

    def undo(self) -> None:
        """Put the link back as it was."""
        self.ends.apply(self.index, self.before)
        self.ends.replan(self.after, self.before)

    def redo(self) -> None:
        """Move the link again."""
        self.ends.apply(self.index, self.after)
        self.ends.replan(self.before, self.after)
