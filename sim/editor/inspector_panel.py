"""The inspector's panel: the selected object's values as lines of text, in the right dock.

Pure drawing: `sim.editor.inspector` decides what the lines say. Details (an agent's replans)
stand under the title; the focused field is marked with ">" and shows its value, then what is
being typed; a refused value's one-line message stands under them.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from direct.gui.OnscreenText import OnscreenText
from panda3d.core import NodePath, Point3, TextNode

TEXT_SCALE: Final = 0.04
TEXT_COLOR: Final = (1.0, 1.0, 1.0, 1.0)
ERROR_COLOR: Final = (1.0, 0.55, 0.45, 1.0)
PANEL_COLOR: Final = (0.08, 0.1, 0.14, 0.85)
# The first line's baseline from the slot's top-left corner; the text's own padding (`PAD`)
# keeps its backdrop clear of the dock's edges.
LEFT_X: Final = 0.04
TOP_Y: Final = -0.07
PAD: Final = 0.3  # round the text, in text heights
KEY_HELP: Final = "Tab / Up / Down field\ntype to replace, Enter apply\nEsc done"
DETAIL_CHARS: Final = 27  # a detail line wraps at this many characters, inside the dock
LINE_CHARS: Final = 29  # a field's line fits the dock up to this many characters
VALUE_CHARS: Final = 6  # the least room a value keeps beside its name on one line


@dataclass(frozen=True, slots=True)
class Row:
    """One field's line: its name, its value now, and what is being typed into it (or None)."""

    name: str
    value: str
    typed: str | None = None


def panel_text(
    title: str, rows: Sequence[Row], *, focused: int | None, details: Sequence[str] = ()
) -> str:
    """The panel's lines (the error, if any, is drawn apart); `details` stand under the title.

    A detail longer than `DETAIL_CHARS` wraps, its next lines indented.

    >>> print(panel_text("pillar (Obstacle)", [Row("heading", "15"), Row("scale", "1, 1, 1", "2")],
    ...                  focused=1))
    pillar (Obstacle)
      heading  15
    > scale    2_
    <BLANKLINE>
    Tab / Up / Down field
    type to replace, Enter apply
    Esc done
    >>> print(panel_text("a (Agent)", [Row("agent.avoidance_priority", "50")], focused=None))
    a (Agent)
      agent.avoidance_priority
        50
    <BLANKLINE>
    Tab / Up / Down field
    type to replace, Enter apply
    Esc done
    """
    # Names that leave a value too little of the line put their value on a line of its own.
    width = min(max((len(row.name) for row in rows), default=0), LINE_CHARS - VALUE_CHARS - 4)
    wrapped = [
        part
        for detail in details
        for part in textwrap.wrap(detail, DETAIL_CHARS, subsequent_indent="  ")
    ]
    lines = [title, *wrapped]
    for index, row in enumerate(rows):
        mark = ">" if index == focused else " "
        shown = row.value if row.typed is None else row.typed + "_"
        line = f"{mark} {row.name:<{width}}  {shown}"
        if len(line) <= LINE_CHARS:
            lines.append(line)
        else:
            lines += [f"{mark} {row.name}", f"    {shown}"]
    return "\n".join([*lines, "", KEY_HELP])


class InspectorPanel:
    """The panel's two texts, hidden until `show` is called.

    Args:
        parent: The node it hangs from, top-left anchored (a slot of the right dock).
        width: The room it has, in `parent`'s units: a long error wraps inside it.
    """

    def __init__(self, parent: NodePath, *, width: float) -> None:
        self._text = OnscreenText(
            parent=parent,
            pos=(LEFT_X, TOP_Y),
            scale=TEXT_SCALE,
            fg=TEXT_COLOR,
            bg=PANEL_COLOR,
            align=TextNode.A_left,
            mayChange=True,
        )
        self._text.textNode.set_card_as_margin(PAD, PAD, PAD, PAD)
        self._error = OnscreenText(
            parent=parent,
            pos=(LEFT_X, TOP_Y),
            scale=TEXT_SCALE,
            fg=ERROR_COLOR,
            bg=PANEL_COLOR,
            align=TextNode.A_left,
            wordwrap=max(width - 2 * LEFT_X, TEXT_SCALE) / TEXT_SCALE - 2 * PAD,
            mayChange=True,
        )
        self.hide()

    @property
    def text(self) -> str:
        """The panel's lines as drawn now ("" while hidden)."""
        return "" if self._text.is_hidden() else str(self._text.text)

    @property
    def error(self) -> str:
        """The refused value's message as drawn now ("" when none)."""
        return "" if self._error.is_hidden() else str(self._error.text)

    @property
    def height(self) -> float:
        """How far down from its top the panel reaches now, `parent`'s units (0 while hidden)."""
        if self._text.is_hidden():
            return 0.0
        shown = self._error if not self._error.is_hidden() else self._text
        rows = self._text.text.count("\n") + 1
        line_height = self._text.textNode.get_line_height() * TEXT_SCALE
        if shown is self._error:
            rows_below = self._error.textNode.get_num_rows()
            return -self._error.text_pos[1] + (rows_below - 1) * line_height + PAD * TEXT_SCALE
        return -TOP_Y + (rows - 1) * line_height + 2 * PAD * TEXT_SCALE

    def show(self, text: str, error: str | None) -> None:
        """Draw `text`, and `error` under it (None: no error line)."""
        if self._text.text != text:
            self._text.text = text
        self._text.show()
        if error:
            if self._error.text != error:
                self._error.text = error
            # Under the panel's last line, however many lines the object's fields take.
            lines = text.count("\n") + 1.6
            line_height = self._text.textNode.get_line_height() * TEXT_SCALE
            self._error.text_pos = (LEFT_X, TOP_Y - lines * line_height)
            self._error.show()
        else:
            self._error.hide()

    def hide(self) -> None:
        """Draw nothing."""
        self._text.hide()
        self._error.hide()

    def destroy(self) -> None:
        """Remove both texts."""
        self._text.destroy()
        self._error.destroy()

    def bounds(self, other: NodePath) -> tuple[Point3, Point3]:
        """The panel's lines' box in `other`'s frame (low corner, high corner).

        Raises:
            ValueError: While the panel is hidden (it draws nothing).
        """
        found = None if self._text.is_hidden() else self._text.get_tight_bounds(other)
        if found is None:
            raise ValueError("the inspector's panel is hidden")
        low, high = found
        return low, high
