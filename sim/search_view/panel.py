"""The search view's on-screen controls (DirectGUI) and its comparison table.

A toolbar hung from a top-right corner (the right dock's): the view's status, playback buttons
(Reset, Back, Play/Pause, Step, End, Slower, Faster), the algorithm, heuristic, connectivity
and weight choosers, and toggles for parent arrows, numbers and the comparison table. The table
runs every algorithm / heuristic pair on the view's grid between the same Start and End
(`compare_searches`) and marks each result that is not a shortest path.

The app calls `refresh()` every frame, paused or not; it rewrites texts only when they changed.
DirectGUI widgets swallow the clicks they receive (`suppressMouse`), so pressing a button never
starts a cube drag underneath it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import NodePath, TextNode, TextProperties, TextPropertiesManager

from sim.engine import ReplanGate
from sim.navigation.catalogue import SearchKind, connectivity_label
from sim.navigation.replay.compare import ComparisonRow, compare_searches
from sim.search_view.settings import HEURISTICS, WEIGHT_STEP, moves_label
from sim.search_view.view import SearchView

BUTTON_SCALE = 0.032
TEXT_SCALE = 0.034
TABLE_SCALE = 0.032
HELP_SCALE = 0.028
LINE_HEIGHT = 1.2  # room per line of text (DejaVu Sans packs lines 1.16 apart), in its scale
ROW_GAP = 0.068  # aspect2d units between button rows
BUTTON_GAP = 0.012
MARGIN = 0.04  # around the panel's content, aspect2d units
# The status text's rows above the buttons (a docked panel's narrower lines wrap onto a
# fourth); a longer text is drawn smaller.
STATUS_LINES = 4
MIN_STATUS_SCALE = 0.018  # the smallest the status text shrinks to (still readable)
STATUS_SHRINK = 0.9
NOTE_LINES = 2
PANEL_COLOR = (0.05, 0.06, 0.08, 0.78)
BUTTON_COLOR = (0.24, 0.27, 0.32, 1.0)
CHOSEN_COLOR = (0.95, 0.7, 0.2, 1.0)
TEXT_COLOR = (1.0, 1.0, 1.0, 1.0)
CHOSEN_TEXT_COLOR = (0.08, 0.08, 0.1, 1.0)
NOT_SHORTEST_COLOR = (1.0, 0.45, 0.4, 1.0)
STATUS_EVERY_S = 0.1  # while playing, the status text is rewritten at most this often
COMPARE_REPEAT = 3

# TextNode's alignments (A_left .. A_boxed_center) as values, the type OnscreenText takes.
TextAlign = Literal[0, 1, 2, 3, 4, 5]

TABLE_COLUMNS: tuple[tuple[str, float, TextAlign], ...] = (  # title, x offset (aspect2d), align
    ("search", 0.0, TextNode.A_left),
    ("expanded", 0.6, TextNode.A_right),
    ("ms", 0.73, TextNode.A_right),
    ("cost", 0.87, TextNode.A_right),
    ("gap", 1.08, TextNode.A_right),
)
TABLE_WIDTH = 1.1
_NOT_SHORTEST = "not-shortest"


class SearchPanel:
    """DirectGUI controls for a SearchView; hidden while the view is closed.

    Args:
        view: The search view the controls drive.
        parent: The node it hangs from, laid out leftward and downward from it (the right
            dock's top-right corner).
        clock: Returns seconds of frame time (paces the status text and the table's gate).
        key_help: The keys that work while the view is open, one line of text per line (the
            app's controls table writes it), shown under the buttons.
        dragging: Whether a cube is being dragged now. The table re-runs every search (some
            0.2 s in all on a 128x128 grid), so while a drag is in progress it waits for the
            drop (a `ReplanGate` with no drag gap). None: nothing is ever dragged.
        width: The room it has leftward of `parent`, in `parent`'s units: rows of buttons
            wider than that wrap, and the comparison table is scaled down to fit. None: no
            limit.
    """

    def __init__(
        self,
        view: SearchView,
        parent: NodePath,
        clock: Callable[[], float],
        key_help: str,
        *,
        dragging: Callable[[], bool] | None = None,
        width: float | None = None,
    ) -> None:
        self._view = view
        self._room = math.inf if width is None else width - 2 * MARGIN
        self._clock = clock
        self._table_gate = ReplanGate(dragging=dragging, drag_gap_s=math.inf)
        self._table_ticked_s: float | None = None
        manager = TextPropertiesManager.get_global_ptr()
        if not manager.has_properties(_NOT_SHORTEST):
            marked = TextProperties()
            marked.set_text_color(*NOT_SHORTEST_COLOR)
            manager.set_properties(_NOT_SHORTEST, marked)
        self._root = DirectFrame(parent=parent, frameColor=PANEL_COLOR)
        self.buttons: dict[str, DirectButton] = {}
        rows: list[list[tuple[str, str, Callable[[], None]]]] = [
            [
                ("reset", "Reset", view.reset),
                ("back", "< Back", view.step_back),
                ("play", "Play", view.play_pause),
                ("step", "Step >", view.step_forward),
                ("end", "End", view.to_end),
                ("slower", "Slower", view.slower),
                ("faster", "Faster", view.faster),
            ],
            [(f"algo:{k.name}", k.label, _bind(view.set_choice, k)) for k in SearchKind],
            [(f"heur:{h}", h, _bind(view.set_heuristic, h)) for h in HEURISTICS],
            [
                ("moves", connectivity_label(True), self._toggle_moves),
                ("lighter", "weight down", _bind(view.change_weight, -WEIGHT_STEP)),
                ("weight", "x1.5", _noop),
                ("heavier", "weight up", _bind(view.change_weight, WEIGHT_STEP)),
            ],
            [
                ("parents", "Parents: on", self._toggle_parents),
                ("numbers", "Numbers: on", self._toggle_numbers),
                ("compare", "Compare", self.toggle_compare),
                ("close", "Close", view.close),
            ],
        ]
        # Lay the rows out from x = 0, then slide everything left so the panel hugs the widest.
        top = -MARGIN - STATUS_LINES * TEXT_SCALE * LINE_HEIGHT - 0.045
        width, lines = 0.0, 0
        for row in rows:
            row_width, row_lines = self._add_row(row, top - lines * ROW_GAP)
            width, lines = max(width, row_width), lines + row_lines
        self._left = -(width + MARGIN)
        for widget in self.buttons.values():
            widget.set_x(widget.get_x() + self._left)
        wrap = width / TEXT_SCALE
        self._status_width = width
        self._status = _text(self._root, (self._left, -MARGIN - TEXT_SCALE), TEXT_SCALE, wrap=wrap)
        help_top = top - lines * ROW_GAP + 0.03
        self._help = _text(self._root, (self._left, help_top), HELP_SCALE, wrap=width / HELP_SCALE)
        self._help.text = key_help
        help_lines = self._help.textNode.get_num_rows()  # wrapped lines count too
        self._note = _text(
            self._root,
            (self._left, help_top - help_lines * HELP_SCALE * LINE_HEIGHT - 0.01),
            HELP_SCALE,
            wrap=width / HELP_SCALE,
        )
        bottom = help_top - (help_lines + NOTE_LINES) * HELP_SCALE * LINE_HEIGHT - 0.02
        self._root["frameSize"] = (self._left - MARGIN / 2, -MARGIN / 2, bottom, -MARGIN / 2)
        self._bottom = bottom
        # The table hangs below the toolbar; its frame is sized to its rows when they change.
        self._table_top = bottom - 0.015
        self._table_left = -(TABLE_WIDTH + MARGIN)
        self._table_bottom = self._table_top
        self._table_root = DirectFrame(parent=parent, frameColor=PANEL_COLOR)
        # Narrower than its columns, the table shrinks about its top-right corner to fit.
        self._table_scale = min(1.0, (self._room + MARGIN) / (TABLE_WIDTH + MARGIN))
        self._table_root.set_scale(self._table_scale)
        self._table_root.set_z(self._table_top * (1.0 - self._table_scale))
        self._table_title = _text(
            self._table_root, (self._table_left, self._table_top - 0.05), TEXT_SCALE
        )
        self._table_columns = [
            _text(
                self._table_root,
                (self._table_left + x, self._table_top - 0.1),
                TABLE_SCALE,
                align=align,
            )
            for _, x, align in TABLE_COLUMNS
        ]
        self._table_note = _text(self._table_root, (self._table_left, 0.0), HELP_SCALE)
        self.compare_open = False
        self.rows: list[ComparisonRow] = []
        self._compared_for: tuple[Any, ...] | None = None
        self._table_root.hide()
        self._texts: dict[int, str] = {}
        self._status_at_s = -math.inf

    def _add_row(
        self, row: list[tuple[str, str, Callable[[], None]]], z: float
    ) -> tuple[float, int]:
        """Place a row of buttons from x = 0 at height `z`; return its width and lines.

        A button that would reach past the panel's room starts a new line under the others.
        """
        x, widest, lines = 0.0, 0.0, 1
        for key, label, command in row:
            widget = DirectButton(
                parent=self._root,
                text=label,
                scale=BUTTON_SCALE,
                command=command,
                relief=DGG.FLAT,
                pad=(0.35, 0.25),
                frameColor=BUTTON_COLOR,
                text_fg=TEXT_COLOR,
                text_align=TextNode.A_left,
            )
            left, _, _, _ = widget.getBounds()
            wide = widget.getWidth() * BUTTON_SCALE
            if x > 0 and x + wide > self._room:
                x, lines = 0.0, lines + 1
            widget.set_pos(x - left * BUTTON_SCALE, 0.0, z - (lines - 1) * ROW_GAP)
            x += wide + BUTTON_GAP
            widest = max(widest, x - BUTTON_GAP)
            self.buttons[key] = widget
        return widest, lines

    @property
    def height(self) -> float:
        """How far down from its corner the panel reaches now, its parent's units (0: closed)."""
        if self._root.is_hidden():
            return 0.0
        if self._table_root.is_hidden():
            return -self._bottom
        top, scale = self._table_top, self._table_scale
        return -(top + (self._table_bottom - top) * scale)

    # --- toggles that live in the panel ------------------------------------------------------

    def _toggle_moves(self) -> None:
        self._view.set_diagonal(not self._view.settings.diagonal)

    def _toggle_parents(self) -> None:
        self._view.show_parents = not self._view.show_parents

    def _toggle_numbers(self) -> None:
        self._view.show_numbers = not self._view.show_numbers

    def toggle_compare(self) -> None:
        """Show or hide the comparison table (computed when shown)."""
        self.compare_open = not self.compare_open
        self._compared_for = None

    # --- per frame ---------------------------------------------------------------------------

    def refresh(self) -> None:
        """Match the widgets to the view: shown or hidden, texts, chosen buttons, the table."""
        view = self._view
        if not view.opened:
            self._root.hide()
            self._table_root.hide()
            return
        self._root.show()
        now = self._clock()
        # Playing changes the step every frame; re-laying out the text that often is wasted.
        if not view.playing or now - self._status_at_s >= STATUS_EVERY_S:
            if self._set(self._status, view.status_text()):
                self._fit_status()
            self._status_at_s = now
        self._set(self._note, f"note: {view.message}" if view.message else "")
        settings = view.settings
        self._label("play", "Pause" if view.playing else "Play")
        self._label("moves", connectivity_label(settings.diagonal))
        self._label("weight", f"x{settings.weight:g}")
        self._label("parents", f"Parents: {'on' if view.show_parents else 'off'}")
        self._label("numbers", f"Numbers: {'on' if view.show_numbers else 'off'}")
        for kind in SearchKind:
            self._mark(f"algo:{kind.name}", settings.choice is kind)
        for heuristic in HEURISTICS:
            self._mark(f"heur:{heuristic}", heuristic == settings.heuristic)
        self._mark("compare", self.compare_open)
        self._refresh_table()

    def _refresh_table(self) -> None:
        if not self.compare_open:
            self._table_root.hide()
            return
        self._table_root.show()
        problem = self._view.problem_for_comparison()
        if problem is None:
            self._set(self._table_title, "compare: " + (self._view.message or "no search"))
            for column in self._table_columns:
                self._set(column, "")
            return
        key = (problem.start, problem.goal, problem.mask_key, problem.rule, problem.weight)
        now = self._clock()
        ticked, self._table_ticked_s = self._table_ticked_s, now
        due = self._table_gate.tick(0.0 if ticked is None else max(0.0, now - ticked), key)
        if key == self._compared_for:
            return
        # The first table of an opened panel comes at once; later ones when the gate lets them.
        if self._compared_for is None or due:
            self.rows = compare_searches(
                problem.walkable,
                problem.start,
                problem.goal,
                diagonal=problem.rule.value,
                weight=problem.weight,
                costs=problem.costs,
                repeat=COMPARE_REPEAT,
                cost_scale=problem.cell_size,
            )
            self._compared_for = key
            self._show_rows(problem.start, problem.goal, moves_label(problem.rule))

    def _show_rows(self, start: tuple[int, int], goal: tuple[int, int], moves: str) -> None:
        self._set(self._table_title, f"compare: Start {start} -> End {goal}, {moves}")
        columns: list[list[str]] = [[title] for title, _, _ in TABLE_COLUMNS]
        for row in self.rows:
            cells = table_cells(row)
            for column, cell in zip(columns, cells, strict=True):
                column.append(_marked(cell) if not row.optimal and row.found else cell)
        for widget, lines in zip(self._table_columns, columns, strict=True):
            self._set(widget, "\n".join(lines))
        # The table's lines lie as far apart as the font packs them (`sim.engine.fonts`).
        table_line = self._table_columns[0].textNode.get_line_height()
        note_z = self._table_top - 0.1 - (len(self.rows) + 1.6) * TABLE_SCALE * table_line
        self._table_note.text_pos = (self._table_left, note_z)
        self._set(
            self._table_note,
            "red *: not a shortest path; gap = cost above Dijkstra's\n"
            f"ms: the Python reference search, best of {COMPARE_REPEAT} runs",
        )
        bottom = note_z - 2 * HELP_SCALE * LINE_HEIGHT - 0.01
        self._table_bottom = bottom
        self._table_root["frameSize"] = (
            self._table_left - MARGIN / 2,
            -MARGIN / 2,
            bottom,
            self._table_top,
        )

    # --- small helpers -----------------------------------------------------------------------

    def _fit_status(self) -> None:
        """Draw the status smaller until it wraps into `STATUS_LINES` rows, above the buttons.

        The rows of buttons sit under room for that many rows: a longer status (a bidirectional
        search's meeting, a long note) ran over the Reset button.
        """
        node = self._status.textNode
        scale = TEXT_SCALE
        node.set_wordwrap(self._status_width / scale)
        while node.get_num_rows() > STATUS_LINES and scale * STATUS_SHRINK >= MIN_STATUS_SCALE:
            scale *= STATUS_SHRINK
            node.set_wordwrap(self._status_width / scale)
        self._status.setScale(scale)
        # The first baseline sits a text height below the top: a smaller text starts higher.
        self._status.setPos(self._left, -MARGIN - scale)

    @property
    def status_scale(self) -> float:
        """The status text's scale now (`TEXT_SCALE`, or less for a long status)."""
        return float(self._status.getScale()[0])

    @property
    def status_node(self) -> NodePath:
        """The status text's node (its bounds, for a test that it clears the buttons)."""
        return self._status

    # --- small helpers -----------------------------------------------------------------------

    def _set(self, widget: OnscreenText, text: str) -> bool:
        """Give `widget` `text`; True if that changed it."""
        if self._texts.get(id(widget)) == text:
            return False
        widget.text = text
        self._texts[id(widget)] = text
        return True

    def _label(self, key: str, text: str) -> None:
        widget = self.buttons[key]
        if widget["text"] != text:
            widget["text"] = text

    def _mark(self, key: str, chosen: bool) -> None:
        widget = self.buttons[key]
        color = CHOSEN_COLOR if chosen else BUTTON_COLOR
        if tuple(widget["frameColor"]) != color:
            widget["frameColor"] = color
            widget["text_fg"] = CHOSEN_TEXT_COLOR if chosen else TEXT_COLOR

    def button_pixels(self, window_size: tuple[int, int]) -> dict[str, list[int]]:
        """The middle of every button in window pixels (origin top left), for the report."""
        width, height = window_size
        pixels = {}
        for key, widget in self.buttons.items():
            left, right, bottom, top = widget.getBounds()
            # render2d spans -1..1 on both axes, +y up; pixels count down from the top.
            middle = widget.get_top().get_relative_point(
                widget, ((left + right) / 2, 0.0, (bottom + top) / 2)
            )
            pixels[key] = [
                round((middle[0] + 1.0) / 2.0 * width),
                round((1.0 - middle[2]) / 2.0 * height),
            ]
        return pixels

    def destroy(self) -> None:
        """Remove every widget."""
        self._root.destroy()
        self._table_root.destroy()


def table_cells(row: ComparisonRow) -> list[str]:
    """One comparison row as the table's cells: search, expanded, ms, cost, gap."""
    if not row.found:
        return [row.name, str(row.expanded), f"{row.ms:.2f}", "no path", "-"]
    # A gap is never negative, and the default font's "+" is too small to read: no sign.
    gap = "0" if row.optimal or row.gap is None else f"{row.gap:.2f} *"
    return [row.name, str(row.expanded), f"{row.ms:.2f}", f"{row.cost:.2f}", gap]


def _marked(text: str) -> str:
    return f"\1{_NOT_SHORTEST}\1{text}\2"


def _text(
    parent: NodePath,
    pos: tuple[float, float],
    scale: float,
    *,
    align: TextAlign = TextNode.A_left,
    wrap: float | None = None,
) -> OnscreenText:
    return OnscreenText(
        parent=parent,
        pos=pos,
        scale=scale,
        fg=TEXT_COLOR,
        align=align,
        wordwrap=wrap,
        mayChange=True,
    )


def _bind(function: Callable[[Any], None], value: Any) -> Callable[[], None]:
    return lambda: function(value)


def _noop() -> None:
    """A button that only shows a value (weighted A*'s weight)."""
