"""The HUD's terrain legend: a swatch and a label per cost band, in the bottom-left corner.

The window's right side belongs to the panels (search view, comparison, inspector).
"""

from __future__ import annotations

from direct.gui.OnscreenText import OnscreenText
from panda3d.core import CardMaker, NodePath, TextNode, TransparencyAttrib

from sim.components.terrain import legend_lines
from sim.engine import Component

TITLE = "terrain cost"
TEXT_SCALE = 0.034  # as the colour legend above it (`sim.components.legend`)
TITLE_SCALE = 0.032
ROW_HEIGHT = 0.048  # aspect2d units per legend row
SWATCH = 0.036  # a swatch's side, aspect2d units
LEFT = 0.05  # the panel's left edge, from the window's left edge (as the HUD's text)
WIDTH = 0.42  # the panel's width
BOTTOM = 0.1  # above the HUD's one-line hint along the bottom
MARGIN = 0.02
TEXT_COLOR = (1.0, 1.0, 1.0, 1.0)
TITLE_COLOR = (0.75, 0.78, 0.82, 1.0)
SHADOW_COLOR = (0.0, 0.0, 0.0, 0.8)
PANEL_COLOR = (0.05, 0.06, 0.08, 0.8)  # dark enough to read over yellow search cells


class TerrainLegend(Component):
    """Which colour stands for which terrain cost, shown while the scene has terrain.

    Args:
        corner: The bottom-left corner of the 2-D scene (ShowBase's ``a2dBottomLeft``).
    """

    def __init__(self, corner: NodePath) -> None:
        super().__init__()
        self.root = corner.attach_new_node("terrain-legend")
        rows = legend_lines()
        height = (len(rows) + 1) * ROW_HEIGHT + 2 * MARGIN
        self.top = BOTTOM + height
        """The panel's top edge above the corner, aspect2d units: the colour legend sits on it."""
        self._card(
            self.root,
            (LEFT, LEFT + WIDTH, BOTTOM, BOTTOM + height),
            PANEL_COLOR,
            name="legend-panel",
        )
        left = LEFT + MARGIN
        top = BOTTOM + height - MARGIN
        self._texts = [
            self._text(TITLE, (left, top - ROW_HEIGHT + 0.014), TITLE_SCALE, TITLE_COLOR)
        ]
        # The dearest band on top, as on a map's key: the eye reads water, mud, then road.
        for index, (label, color) in enumerate(reversed(rows), start=2):
            y = top - index * ROW_HEIGHT
            self._card(self.root, (left, left + SWATCH, y, y + SWATCH), color, name=label)
            self._texts.append(self._text(label, (left + SWATCH + 0.022, y + 0.007)))

    def labels(self) -> list[str]:
        """The legend's text, top to bottom (for tests and the report)."""
        return [text.text for text in self._texts]

    @staticmethod
    def _card(
        parent: NodePath,
        frame: tuple[float, float, float, float],
        color: tuple[float, float, float, float],
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

    def _text(
        self,
        text: str,
        pos: tuple[float, float],
        scale: float = TEXT_SCALE,
        color: tuple[float, float, float, float] = TEXT_COLOR,
    ) -> OnscreenText:
        return OnscreenText(
            parent=self.root,
            text=text,
            pos=pos,
            scale=scale,
            fg=color,
            shadow=SHADOW_COLOR,
            align=TextNode.A_left,
        )

    @property
    def visible(self) -> bool:
        """Whether the legend is shown (it hides with the HUD)."""
        return not self.root.is_hidden()

    @visible.setter
    def visible(self, shown: bool) -> None:
        if shown:
            self.root.show()
        else:
            self.root.hide()

    def on_destroy(self) -> None:
        """Remove the legend from the 2-D scene."""
        for text in self._texts:
            text.destroy()
        self.root.remove_node()
