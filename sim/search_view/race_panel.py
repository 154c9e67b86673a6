"""The race's words on screen: each lane's name and counts on its region, and the race panel.

Over each lane's region, at its top, a label in the lane's colour: its search, then its counts
("expanded 212   open 40") and once it has finished its place and cost ("2nd", "cost 41.3" or
"no path"), or why it does not run. Thin lines divide the regions. At the foot of two corners
(the window's, or the docks' beside the viewport, `dock`): on the left the searches with the
digit that adds or removes each (those racing marked) and the keys; on the right the clock and
speed and the finish order so far, one lane a line, which stays until the race is reset or
closed.

The app calls `refresh()` every frame; texts are rewritten only when they changed.
"""

from __future__ import annotations

from collections.abc import Callable

from direct.gui.OnscreenText import OnscreenText
from panda3d.core import LineSegs, NodePath, TextNode

from sim.navigation.catalogue import SearchKind
from sim.search_view.race import MAX_LANES, Standing, describe_finish
from sim.search_view.race_view import LANE_COLORS, RaceView
from sim.search_view.settings import moves_label

LABEL_SCALE = 0.04
PANEL_SCALE = 0.036
MARGIN = 0.04  # aspect2d units
LABEL_BG = (0.05, 0.06, 0.08, 0.8)
PANEL_FG = (1.0, 1.0, 1.0, 1.0)
DIVIDER_COLOR = (0.05, 0.05, 0.07, 1.0)
DIVIDER_THICKNESS = 3.0
KEY_HELP = (
    "keys: 1-9 add / remove a search   Enter play / pause   Left / Right step",
    "Home reset   End finish   Up / Down speed   W or T close",
)
ORDINAL_SUFFIXES = {1: "st", 2: "nd", 3: "rd"}  # a race has at most 4 places
SEARCH_DIGITS = {str(number): kind for number, kind in enumerate(SearchKind, start=1)}
"""The digit key that adds or removes each search while the race is open."""


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th.

    >>> [ordinal(n) for n in (1, 2, 3, 4)]
    ['1st', '2nd', '3rd', '4th']
    """
    return f"{place}{ORDINAL_SUFFIXES.get(place, 'th')}"


def lane_text(row: Standing, cell_size: float) -> str:
    """A lane's label: its search, its counts, its place and cost once finished."""
    if row.refusal:
        return f"{row.search}\n{row.refusal}"
    counts = f"expanded {row.expanded:,}   open {row.open:,}"
    if row.place is None:
        return f"{row.search}\n{counts}"
    cost = "no path" if row.cost is None else f"cost {row.cost * cell_size:.4g}"
    return f"{row.search}   {ordinal(row.place)}\n{counts}   {cost}"


class RacePanel:
    """The race's labels and panel (DirectGUI text); hidden while the race is closed.

    Args:
        race: The race view shown.
        aspect2d: The 2D layer whose x runs from -aspect to aspect (`base.aspect2d`).
        render2d: The 2D layer spanning -1..1 both ways (`base.render2d`), for the dividers.
        bottom_left: The bottom-left corner of aspect2d (`base.a2dBottomLeft`), for the keys.
        bottom_right: The bottom-right corner (`base.a2dBottomRight`), for the standings.
        aspect: Returns the window's width / height now.
        cell_size: World units per cell (costs are shown in world units).
    """

    def __init__(
        self,
        race: RaceView,
        *,
        aspect2d: NodePath,
        render2d: NodePath,
        bottom_left: NodePath,
        bottom_right: NodePath,
        aspect: Callable[[], float],
        cell_size: float,
    ) -> None:
        self._race, self._aspect, self._cell_size = race, aspect, cell_size
        self._labels = [
            OnscreenText(
                parent=aspect2d,
                scale=LABEL_SCALE,
                fg=LANE_COLORS[index][1],
                bg=LABEL_BG,
                align=TextNode.A_center,
                mayChange=True,
            )
            for index in range(MAX_LANES)
        ]
        self._keys = _corner_text(bottom_left, TextNode.A_left, MARGIN)
        self._panel = _corner_text(bottom_right, TextNode.A_right, -MARGIN)
        self._dividers = render2d.attach_new_node("race-dividers")
        self._divided: list[tuple[float, float, float, float]] = []
        self._texts: dict[int, str] = {}
        self._wraps: dict[int, float] = {}
        self.refresh()

    def dock(self, keys: tuple[NodePath, float], standings: tuple[NodePath, float]) -> None:
        """Hang the keys and the standings from the foot of two docks, wrapped to their widths.

        Each is a (bottom-left corner, width) pair in the corner's units; both texts then run
        left-aligned from the corner, a margin in.
        """
        for text, (corner, width) in ((self._keys, keys), (self._panel, standings)):
            text.reparent_to(corner)
            text.textNode.set_align(TextNode.A_left)
            text.setWordwrap(max(width - 2 * MARGIN, PANEL_SCALE) / PANEL_SCALE)
            text.setPos(MARGIN, text.getPos()[1])

    @property
    def panel_text(self) -> str:
        """What the panel says now (empty while the race is closed)."""
        return str(self._panel.text) if self._race.opened else ""

    def lane_texts(self) -> list[str]:
        """What each lane's label says now, in lane order."""
        rows = self._race.standings()
        return [lane_text(row, self._cell_size) for row in rows]

    def refresh(self) -> None:
        """Match the texts and dividers to the race."""
        race = self._race
        if not race.opened:
            for text in (*self._labels, self._keys, self._panel):
                text.hide()
            self._dividers.hide()
            return
        rows = race.standings()
        bounds = race.bounds
        aspect = self._aspect()
        for index, label in enumerate(self._labels):
            if index >= len(rows) or index >= len(bounds):
                label.hide()
                continue
            left, right, _, top = bounds[index]
            # A refusal is a long line: wrap it within the region, with a margin each side.
            wrap = (aspect * 2 * (right - left) - 4 * MARGIN) / LABEL_SCALE
            if self._wraps.get(index) != wrap:
                label.setWordwrap(wrap)
                self._wraps[index] = wrap
            # OnscreenText's own setter (x, y on the 2D layer); NodePath.set_pos takes 3D.
            label.setPos(aspect * (left + right - 1), 2 * top - 1 - MARGIN - LABEL_SCALE)
            self._set(label, lane_text(rows[index], self._cell_size))
            label.show()
        self._set(self._keys, self._key_lines())
        self._set(self._panel, self._panel_lines(rows))
        self._keys.show()
        self._panel.show()
        self._draw_dividers(bounds)

    def _key_lines(self) -> str:
        race = self._race
        racing = {entrant.kind for entrant in race.lineup}
        picks = [
            f"{digit} {'[x]' if kind in racing else '[ ]'} {kind.label}"
            for digit, kind in SEARCH_DIGITS.items()
        ]
        lines = ["   ".join(picks[:5]), "   ".join(picks[5:]), *KEY_HELP]
        if race.message:
            lines.insert(0, race.message)
        return "\n".join(lines)

    def _panel_lines(self, rows: list[Standing]) -> str:
        race = self._race
        clock = race.race.tick if race.race is not None else 0
        playing = ", playing" if race.playing else ""
        moves = "" if race.rule is None else f", {moves_label(race.rule)}"
        lines = [f"race: tick {clock:,}, {race.speed} ticks/s{playing}{moves}"]
        finished = sorted((row for row in rows if row.place is not None), key=_place)
        if finished:
            lines.append("finish order:")
            lines += [describe_finish(row, self._cell_size) for row in finished]
        return "\n".join(lines)

    def _draw_dividers(self, bounds: list[tuple[float, float, float, float]]) -> None:
        """A line between the halves, and across the middle for quarters (render2d: -1..1)."""
        self._dividers.show()
        if bounds == self._divided:
            return
        self._dividers.node().remove_all_children()
        lines = LineSegs("race-dividers")
        lines.set_color(*DIVIDER_COLOR)
        lines.set_thickness(DIVIDER_THICKNESS)
        left, middle, bottom, top = bounds[0]
        right = bounds[1][1]
        lines.move_to(2 * middle - 1, 0, 2 * min(b[2] for b in bounds) - 1)
        lines.draw_to(2 * middle - 1, 0, 2 * top - 1)
        if len(bounds) > 2:
            lines.move_to(2 * left - 1, 0, 2 * bottom - 1)
            lines.draw_to(2 * right - 1, 0, 2 * bottom - 1)
        self._dividers.attach_new_node(lines.create())
        self._divided = list(bounds)

    def _set(self, text: OnscreenText, value: str) -> None:
        key = id(text)
        if self._texts.get(key) != value:
            text.text = value
            self._texts[key] = value
            if text in (self._keys, self._panel):
                # Bottom-anchored: the first line's baseline rises with the lines below it.
                lines = text.textNode.get_num_rows() - 1  # wrapped lines count too
                height = text.textNode.get_line_height() * PANEL_SCALE
                text.setPos(text.getPos()[0], MARGIN + PANEL_SCALE * 0.3 + lines * height)

    def destroy(self) -> None:
        """Drop the texts and dividers."""
        for text in (*self._labels, self._keys, self._panel):
            text.destroy()
        self._dividers.remove_node()


def _corner_text(parent: NodePath, align: int, x: float) -> OnscreenText:
    """Text in a bottom corner of the window (moved up as it gets more lines)."""
    return OnscreenText(
        parent=parent,
        pos=(x, MARGIN),
        scale=PANEL_SCALE,
        fg=PANEL_FG,
        bg=LABEL_BG,
        align=align,  # type: ignore[arg-type]
        mayChange=True,
    )


def _place(row: Standing) -> int:
    return row.place or 0
