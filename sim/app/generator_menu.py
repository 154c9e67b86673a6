"""The generator menu: O opens it, and a maze, rooms or a random map replaces the obstacles.

The menu lists `LAYOUT_KINDS`; Up / Down or 1-3 pick one, Enter (or the digit itself)
generates it, Esc or O closes the menu without a change. While it is open the mode owner
(`sim.app.modes`) gives it every key of the controls table (`key`) and the digits (`pick`), so
Esc closes it instead of quitting. A layout is as large as
the scene's grid: `generate_layout` makes the walkable mask, `layout_boxes` turns its blocked
cells into as few obstacle boxes as `blocked_rectangles` gives (map row 0 on the grid's north
edge, as ``sim generate --scene`` lays it out), and `SceneEditor.replace_obstacles` swaps them
for every obstacle of the scene. Start and End move to the two far-apart connected cells
`distant_pair` picks; agents stay, and one a wall now covers steps out to the nearest free
spot by itself (`AgentController`). The grid, the path and the agents follow as after a drag,
and Ctrl+S saves the new obstacles like any other edit; Ctrl+Z takes the whole layout back as one
edit. Each layout has the next seed (0, 1, 2, ...): the same presses give the same maps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import numpy as np
from direct.gui.OnscreenText import OnscreenText
from numpy.typing import NDArray
from panda3d.core import NodePath, TextNode

from sim.config import Tag
from sim.engine import Component
from sim.navigation.maps.generators import LAYOUT_KINDS, distant_pair, generate_layout
from sim.scene.layout import grid_cell, layout_boxes

if TYPE_CHECKING:
    from sim.components.grid_manager import GridManager
    from sim.editor.editor import SceneEditor
    from sim.engine import World

ROOM_CELLS: Final = 8
"""Cells inside a room along a side, on grids large enough (smaller grids get smaller rooms)."""
TEXT_SCALE: Final = 0.06
TEXT_COLOR: Final = (1.0, 1.0, 1.0, 1.0)
PANEL_COLOR: Final = (0.08, 0.1, 0.14, 0.85)
KEY_HELP: Final = "Up / Down or 1-3 pick   Enter generate   Esc close"
# The digit keys are the menu's own: the controls table binds none of them.
DIGITS: Final = tuple(str(number) for number in range(1, len(LAYOUT_KINDS) + 1))


class GeneratorMenu(Component):
    """A small modal menu over the scene that replaces its obstacles with a generated layout.

    A component, so tearing the world down also drops its text.

    Attributes:
        opened: Whether the menu is on screen (and takes the keys).
        selected: The index into `LAYOUT_KINDS` of the highlighted line.
        generated: How many layouts were generated; the next one's seed.
        layout: The last generated map (``[row, col]``, True = walkable, row 0 north), or None.
    """

    def __init__(
        self,
        *,
        parent: NodePath,
        world: World,
        grid: GridManager,
        editor: SceneEditor,
        notify: Callable[[str], None],
    ) -> None:
        super().__init__()
        self._world, self._grid, self._editor = world, grid, editor
        self._notify = notify
        self.opened = False
        self.selected = 0
        self.generated = 0
        self.layout: NDArray[np.bool_] | None = None
        self._text = OnscreenText(
            parent=parent,
            pos=(0.0, 0.2),
            scale=TEXT_SCALE,
            fg=TEXT_COLOR,
            bg=PANEL_COLOR,
            align=TextNode.A_center,
            mayChange=True,
        )
        self._text.hide()

    def open(self) -> None:
        """Show the menu (the mode owner, `sim.app.modes`, opens it only over the scene)."""
        self.opened = True
        self._redraw()
        self._text.show()

    def close(self) -> None:
        """Hide the menu; nothing changes."""
        self.opened = False
        self._text.hide()

    def key(self, key: str) -> None:
        """Handle a key of the controls table while open (it has them all, Esc included)."""
        if not self.opened:
            return
        if key in ("arrow_up", "arrow_down"):
            step = -1 if key == "arrow_up" else 1
            self.selected = (self.selected + step) % len(LAYOUT_KINDS)
            self._redraw()
        elif key == "enter":
            self.generate(LAYOUT_KINDS[self.selected])
        elif key in ("escape", "o"):
            self.close()

    def generate(self, kind: str) -> bool:
        """Replace the obstacles with a `kind` layout of the grid's size and close the menu.

        Returns:
            Whether the layout replaced the obstacles; when the grid is too small for `kind`
            the menu stays open and the HUD says why.
        """
        height, width = self._grid.num_of_rows, self._grid.num_of_columns
        try:
            room = max(1, min(ROOM_CELLS, height - 2, width - 2))
            walkable = generate_layout(kind, height, width, seed=self.generated, room=room)
            start, end = distant_pair(walkable)
        except ValueError as error:
            self._notify(f"cannot generate {kind}: {error}")
            return False
        boxes = layout_boxes(
            walkable, origin=self._grid.origin, cell_size=self._grid.grid_cell_size
        )
        self._editor.finish_drag()  # its own edit, not part of the layout's
        # One undo takes back the whole layout: the obstacles and the moves of Start and End.
        with self._editor.history.grouped(f"generate {kind}"):
            count = self._editor.replace_obstacles(boxes)
            for tag, cell in ((Tag.START, start), (Tag.END, end)):
                marker = self._world.find_with_tag(tag)
                if marker is not None:
                    xy = self._grid.cell_to_world(grid_cell(cell, height))
                    self._editor.move_to(marker, *xy)
        self.layout = walkable
        self.generated += 1
        self.close()
        self._notify(
            f"generated {kind} {width} x {height} (seed {self.generated - 1}): {count} obstacles"
        )
        return True

    def on_destroy(self) -> None:
        """Drop the text."""
        self._text.destroy()

    def pick(self, index: int) -> None:
        """A digit key: pick line `index` and generate it, while the menu is open."""
        if self.opened:
            self.selected = index
            self.generate(LAYOUT_KINDS[index])

    def _redraw(self) -> None:
        lines = [f"Generate a layout: {self._grid.num_of_columns} x {self._grid.num_of_rows}", ""]
        for index, kind in enumerate(LAYOUT_KINDS):
            mark = ">" if index == self.selected else " "
            lines.append(f"{mark} {index + 1}  {kind:<8}")
        self._text.text = "\n".join([*lines, "", KEY_HELP])
