"""The colour legend: a swatch and a label per colour the scene uses, in the bottom-left corner.

Sections are data handed in by whoever composes the scene (this module knows no colours), each
shown while its `shown` callable says so: the search states only while the search view is open.
Sections that would stand taller than `max_height` go on in a column to the right. The legend
follows the HUD: `H` hides both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from direct.gui.OnscreenText import OnscreenText
from panda3d.core import CardMaker, NodePath, TextNode, TransparencyAttrib

from sim.engine import Component, Gizmos

Color = tuple[float, float, float, float]

TEXT_SCALE = 0.034
TITLE_SCALE = 0.032
ROW_HEIGHT = 0.044  # aspect2d units per row
SWATCH = 0.036  # a cell swatch's side, aspect2d units
LINE_SWATCH = 0.012  # a line swatch's thickness
LEFT = 0.05  # the panel's left edge, from the window's left edge (as the HUD's text)
WIDTH = 0.42  # the panel's width
MARGIN = 0.02
SECTION_GAP = 0.012
COLUMN_GAP = 0.02
TEXT_COLOR = (1.0, 1.0, 1.0, 1.0)
TITLE_COLOR = (0.75, 0.78, 0.82, 1.0)
SHADOW_COLOR = (0.0, 0.0, 0.0, 0.8)
PANEL_COLOR = (0.05, 0.06, 0.08, 0.8)  # dark enough to read over yellow search cells


@dataclass(frozen=True, slots=True)
class LegendRow:
    """One colour: its label and how it is drawn (`line`: a thin bar, as paths are drawn).

    `on` is a colour the swatch stands on, as it does in the scene: a dark line is drawn over
    light cells, and would not show on the legend's dark panel.
    """

    label: str
    color: Color
    line: bool = False
    on: Color | None = None


@dataclass(frozen=True, slots=True)
class LegendSection:
    """A titled group of rows, shown while `shown()` is true (always, without one)."""

    title: str
    rows: tuple[LegendRow, ...]
    shown: Callable[[], bool] | None = None


class Legend(Component):
    """Which colour stands for what, from `bottom` up in the bottom-left corner.

    The window's right side belongs to the panels (search view, comparison, inspector).

    Args:
        corner: The bottom-left corner of the 2-D scene (ShowBase's ``a2dBottomLeft``).
        sections: Top to bottom, as they read.
        visible: Whether the legend may show now (the HUD's visibility); checked every frame.
        bottom: Where the panel's bottom edge sits above the corner, aspect2d units (above the
            HUD's key help, or above another panel).
        max_height: The tallest a column of sections stands, aspect2d units; the sections past
            it start a column to the right (a section taller than it still gets one column).
    """

    def __init__(
        self,
        corner: NodePath,
        sections: Sequence[LegendSection],
        *,
        visible: Callable[[], bool],
        bottom: float,
        max_height: float = math.inf,
    ) -> None:
        super().__init__()
        self._max_height = max_height
        self.root = corner.attach_new_node("colour-legend")
        self._sections = tuple(sections)
        self._visible = visible
        self._bottom = bottom
        self._texts: list[OnscreenText] = []
        self._showing: tuple[bool, ...] | None = None
        self._lay_out()

    def labels(self) -> list[str]:
        """The legend's text as shown now, top to bottom (section titles included)."""
        return [text.text for text in self._texts]

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Follow the HUD's visibility and lay the sections out again when one comes or goes.

        Every drawn frame, paused ones too (a film of the search view is rendered paused).
        """
        if self._visible():
            self.root.show()
        else:
            self.root.hide()
        if self._wanted() != self._showing:
            self._lay_out()

    def on_destroy(self) -> None:
        """Remove the legend from the 2-D scene."""
        self._clear()
        self.root.remove_node()

    def _wanted(self) -> tuple[bool, ...]:
        return tuple(s.shown is None or s.shown() for s in self._sections)

    def _clear(self) -> None:
        for text in self._texts:
            text.destroy()
        self._texts = []
        for child in self.root.get_children():
            child.remove_node()

    def _lay_out(self) -> None:
        self._clear()
        self._showing = self._wanted()
        sections = [s for s, shown in zip(self._sections, self._showing, strict=True) if shown]
        for index, column in enumerate(self._columns(sections)):
            self._lay_out_column(column, LEFT + index * (WIDTH + COLUMN_GAP))

    def _columns(self, sections: Sequence[LegendSection]) -> list[list[LegendSection]]:
        """`sections` in columns, left to right, none taller than `max_height` if it can help."""
        columns: list[list[LegendSection]] = []
        for section in sections:
            if columns and _height([*columns[-1], section]) <= self._max_height:
                columns[-1].append(section)
            else:
                columns.append([section])
        return columns

    def _lay_out_column(self, sections: Sequence[LegendSection], x: float) -> None:
        top = self._bottom + _height(sections)
        _card(self.root, (x, x + WIDTH, self._bottom, top), PANEL_COLOR, name="legend-panel")
        left = x + MARGIN
        y = top - MARGIN
        for section in sections:
            y -= ROW_HEIGHT
            self._text(section.title, (left, y + 0.014), TITLE_SCALE, TITLE_COLOR)
            for row in section.rows:
                y -= ROW_HEIGHT
                middle = y + ROW_HEIGHT / 2
                half = (LINE_SWATCH if row.line else SWATCH) / 2
                frame = (left, left + SWATCH, middle - half, middle + half)
                if row.on is not None:
                    back = (left, left + SWATCH, middle - SWATCH / 2, middle + SWATCH / 2)
                    _card(self.root, back, row.on, name=f"{row.label} (under)")
                _card(self.root, frame, row.color, name=row.label)
                self._text(row.label, (left + SWATCH + 0.022, middle - 0.011), TEXT_SCALE)
            y -= SECTION_GAP

    def _text(
        self,
        text: str,
        pos: tuple[float, float],
        scale: float,
        color: tuple[float, float, float, float] = TEXT_COLOR,
    ) -> None:
        self._texts.append(
            OnscreenText(
                parent=self.root,
                text=text,
                pos=pos,
                scale=scale,
                fg=color,
                shadow=SHADOW_COLOR,
                align=TextNode.A_left,
            )
        )


def _height(sections: Sequence[LegendSection]) -> float:
    """How tall a column of `sections` stands, its margins included, aspect2d units."""
    rows = sum(len(section.rows) + 1 for section in sections)
    return rows * ROW_HEIGHT + (len(sections) - 1) * SECTION_GAP + 2 * MARGIN


def _card(
    parent: NodePath,
    frame: tuple[float, float, float, float],
    color: Color,
    *,
    name: str,
) -> NodePath:
    maker = CardMaker(name)
    maker.set_frame(*frame)
    card = parent.attach_new_node(maker.generate())
    card.set_color(*color)
    if color[3] < 1.0:
        card.set_transparency(TransparencyAttrib.M_alpha)
    return card
