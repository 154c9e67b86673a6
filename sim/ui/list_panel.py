"""A scrolling list of one-line rows in a panel: click a row, double-click it, wheel to scroll.

The panel is a DirectGUI frame, so the window's mouse watcher hands it the clicks and the wheel
over it and keeps them from the scene behind (no cube is picked through the list). Rows are
plain strings; what they stand for is the caller's (`sim.editor.hierarchy`). Only the rows that
fit are drawn, so a list of thousands costs as much as a list of twenty.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from direct.gui import DirectGuiGlobals
from direct.gui.DirectFrame import DirectFrame
from panda3d.core import (
    CardMaker,
    MouseButton,
    NodePath,
    PandaNode,
    PGItem,
    PGMouseWatcherParameter,
    Point3,
    TextNode,
)

ROW_HEIGHT: Final = 0.06
"""A row's height in the parent's units (about 18 pixels in a 600-pixel window)."""
TEXT_SCALE: Final = 0.042
PAD: Final = 0.02
"""The gap between the panel's edge and its title and rows, in the parent's units."""
ELLIPSIS: Final = "\u2026"  # what ends a row cut at the panel's edge
TITLE_HEIGHT: Final = 0.07
PANEL_COLOR: Final = (0.08, 0.1, 0.14, 0.92)
TITLE_COLOR: Final = (0.75, 0.8, 0.9, 1.0)
ROW_COLOR: Final = (0.92, 0.94, 0.97, 1.0)
SELECTED_COLOR: Final = (0.22, 0.42, 0.75, 1.0)
DOUBLE_CLICK_S: Final = 0.45
"""Two presses on one row within this many seconds are a double-click."""
WHEEL_ROWS: Final = 3
"""Rows one wheel notch scrolls."""


class ListPanel:
    """Rows of text in a panel anchored at its top-left corner on `parent`.

    Args:
        parent: The node the panel hangs under (a dock, or `a2dTopLeft`).
        size: Width and height in `parent`'s units; the panel spans x 0..width, y -height..0.
        title: The line above the rows.
        on_click: Called with a row's index when it is clicked.
        on_double_click: Called with a row's index when it is clicked twice in a row.
        clock: Seconds now (frame time), to tell a double-click from two clicks.
    """

    def __init__(
        self,
        parent: NodePath,
        size: tuple[float, float],
        *,
        title: str,
        on_click: Callable[[int], None],
        on_double_click: Callable[[int], None],
        clock: Callable[[], float],
    ) -> None:
        self._width, self._height = size
        self._on_click, self._on_double_click, self._clock = on_click, on_double_click, clock
        self._frame = DirectFrame(
            parent=parent,
            frameSize=(0.0, self._width, -self._height, 0.0),
            frameColor=PANEL_COLOR,
            state=DirectGuiGlobals.NORMAL,  # takes the mouse: clicks over it never reach the scene
        )
        self._frame.bind(DirectGuiGlobals.B1PRESS, self._on_press)
        wheel = PGItem.get_press_prefix()
        self._frame.bind(f"{wheel}{MouseButton.wheel_up().get_name()}-", self._wheel, [-1])
        self._frame.bind(f"{wheel}{MouseButton.wheel_down().get_name()}-", self._wheel, [1])
        title_node, self._title = self._text(TITLE_COLOR)
        title_node.set_text(title)
        self._title.set_pos(PAD, 0.0, -PAD - TEXT_SCALE * 0.8)
        # Attached before the rows' texts, so they draw over it (2D draws in scene-graph order).
        self._highlight = self._frame.attach_new_node(_card(self._width, ROW_HEIGHT))
        self._highlight.set_color(*SELECTED_COLOR)
        self._slots = [self._text(ROW_COLOR) for _ in range(self.visible_rows)]
        for index, (_node, slot) in enumerate(self._slots):
            slot.set_pos(PAD, 0.0, self._row_top(index) - ROW_HEIGHT * 0.72)
        self._rows: tuple[str, ...] = ()
        self._selected: int | None = None
        self._first = 0  # the index of the row drawn at the top
        self._last_press: tuple[int, float] | None = None
        self._draw()

    @property
    def visible_rows(self) -> int:
        """How many rows fit under the title."""
        return max(1, int((self._height - TITLE_HEIGHT - 2 * PAD) / ROW_HEIGHT))

    @property
    def rows(self) -> tuple[str, ...]:
        """The rows as given to `show`."""
        return self._rows

    @property
    def selected(self) -> int | None:
        """The highlighted row's index, if any."""
        return self._selected

    @property
    def first_row(self) -> int:
        """The index of the row drawn at the top (how far the list is scrolled)."""
        return self._first

    @property
    def drawn(self) -> list[str]:
        """The rows drawn now, top to bottom, whole (a row too long shows cut, with "...")."""
        shown = sum(1 for _node, slot in self._slots if not slot.is_hidden())
        return list(self._rows[self._first : self._first + shown])

    @property
    def node(self) -> NodePath:
        """The panel's own node, for hiding it or reading its place."""
        return self._frame

    def show(self, rows: Sequence[str], selected: int | None) -> None:
        """Draw `rows`, `selected` highlighted and scrolled into view when it changed."""
        rows = tuple(rows)  # a tuple is kept as it is: no copy of a long list every frame
        if selected == self._selected and (rows is self._rows or rows == self._rows):
            return
        moved = selected != self._selected
        self._rows, self._selected = rows, selected
        if moved and selected is not None:
            if selected < self._first:
                self._first = selected
            elif selected >= self._first + self.visible_rows:
                self._first = selected - self.visible_rows + 1
        self._first = self._clamped(self._first)
        self._draw()

    def scroll(self, rows: int) -> None:
        """Scroll by `rows` (positive: further down the list), within the list's ends."""
        self._first = self._clamped(self._first + rows)
        self._draw()

    def row_at(self, y: float) -> int | None:
        """The index of the row drawn at height `y` in the panel's units, or None."""
        slot = int((-y - TITLE_HEIGHT - PAD) // ROW_HEIGHT)
        if not 0 <= slot < self.visible_rows:
            return None
        index = self._first + slot
        return index if index < len(self._rows) else None

    def row_centre(self, index: int) -> tuple[float, float] | None:
        """Where row `index` is drawn, its middle in the panel's units; None when scrolled off."""
        slot = index - self._first
        if not 0 <= slot < self.visible_rows or index >= len(self._rows):
            return None
        return (self._width / 2, self._row_top(slot) - ROW_HEIGHT / 2)

    def drawn_rows(self) -> list[tuple[str, tuple[float, float]]]:
        """Each row drawn now with its middle in the window's -1..1 coordinates (+y up)."""
        top = self._frame.get_top()
        found = []
        for index in range(self._first, min(self._first + self.visible_rows, len(self._rows))):
            centre = self.row_centre(index)
            if centre is not None:
                point = top.get_relative_point(self._frame, Point3(centre[0], 0.0, centre[1]))
                found.append((self._rows[index], (point.x, point.z)))
        return found

    def press_row(self, index: int) -> None:
        """A press on row `index`: a click, or with the press before it a double-click."""
        now = self._clock()
        last, self._last_press = self._last_press, (index, now)
        self._on_click(index)
        if last is not None and last[0] == index and now - last[1] <= DOUBLE_CLICK_S:
            self._last_press = None  # a third press starts over
            self._on_double_click(index)

    def destroy(self) -> None:
        """Remove the panel."""
        self._frame.destroy()

    def _on_press(self, event: PGMouseWatcherParameter) -> None:
        # The pointer as the press came, not as the next frame finds it.
        mouse = event.get_mouse()
        top = self._frame.get_top()
        local = self._frame.get_relative_point(top, Point3(mouse.x, 0.0, mouse.y))
        index = self.row_at(local.z)
        if index is not None:
            self.press_row(index)

    def _wheel(self, notches: int, _event: PGMouseWatcherParameter) -> None:
        self.scroll(notches * WHEEL_ROWS)

    def _clamped(self, first: int) -> int:
        return max(0, min(first, len(self._rows) - self.visible_rows))

    def _row_top(self, slot: int) -> float:
        return -TITLE_HEIGHT - PAD - slot * ROW_HEIGHT

    def _draw(self) -> None:
        for slot_index, (node, slot) in enumerate(self._slots):
            index = self._first + slot_index
            if index < len(self._rows):
                node.set_text(self._fitted(node, self._rows[index]))
                slot.show()
            else:
                slot.hide()
        slot_of_selected = None if self._selected is None else self._selected - self._first
        if slot_of_selected is None or not 0 <= slot_of_selected < self.visible_rows:
            self._highlight.hide()
            return
        self._highlight.set_pos(0.0, 0.0, self._row_top(slot_of_selected))
        self._highlight.show()

    def _fitted(self, node: TextNode, text: str) -> str:
        """`text`, or as much of it as fits the row with an ellipsis: never a dangling "name ·"."""
        room = (self._width - 2 * PAD) / TEXT_SCALE
        if node.calc_width(text) <= room:
            return text
        cut = len(text)
        while cut > 0 and node.calc_width(text[:cut] + ELLIPSIS) > room:
            cut -= 1
        return text[:cut].rstrip(" \u00b7") + ELLIPSIS

    def _text(self, color: tuple[float, float, float, float]) -> tuple[TextNode, NodePath]:
        node = TextNode("list-row")
        node.set_text_color(*color)
        node.set_align(TextNode.A_left)
        # Long names stop at the panel's edge instead of running over the viewport (`_fitted`
        # cuts them; the wrap is the guard for text measured before a font is loaded).
        node.set_max_rows(1)
        node.set_wordwrap((self._width - 2 * PAD) / TEXT_SCALE)
        text = self._frame.attach_new_node(node)
        text.set_scale(TEXT_SCALE)
        return node, text


def _card(width: float, height: float) -> PandaNode:
    """A flat rectangle x 0..width, y -height..0: the selected row's highlight."""
    maker = CardMaker("list-highlight")
    maker.set_frame(0.0, width, -height, 0.0)
    return maker.generate()
