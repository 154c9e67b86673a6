"""The help overlay: every key that works now, grouped, on a dark card in the middle of the window.

F1 or ? opens it; F1, ? or Esc closes it (`captured` takes Esc while it is open, so Esc does not
quit then). The sections come from whoever composes the window (the app's controls table, for the
mode it is in), asked each time the overlay opens, so a key shows only where it applies. Other keys
go on working while it is open: it only reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from direct.gui.OnscreenText import OnscreenText
from direct.showbase.DirectObject import DirectObject
from panda3d.core import (
    CardMaker,
    NodePath,
    TextNode,
    TextProperties,
    TextPropertiesManager,
)

Section = tuple[str, Sequence[str]]
"""A titled group of help entries, e.g. ("Edit", ["V snap", "Q/E rotate"])."""

TEXT_SCALE = 0.042  # the largest the text gets; a window too small for it shrinks it
TITLE = "Keys  (F1, ? or Esc closes)"
TEXT_COLOR = (1.0, 1.0, 1.0, 1.0)
TITLE_COLOR = (1.0, 0.8, 0.4, 1.0)  # section titles: the only warm text on the card
CARD_COLOR = (0.04, 0.05, 0.07, 1.0)  # opaque: the scene under it must not show through
PADDING = 0.05  # between the card's edge and the text, in the parent's units
COLUMN_GAP = 0.08
COLUMNS = 3
_TITLE_PROPS = "help-title"


class HelpOverlay:
    """A card listing `sections()`, centred on `parent`, at most `size()` across and high.

    Args:
        parent: The node the card hangs on, its centre at the parent's origin (``aspect2d``).
        sections: The sections to list, asked on each open.
        size: The room the card may take, (width, height) in the parent's units (the window's
            aspect2d extent, less a margin).
        passes_to: Offered the keys `captured` leaves (a mode owner's own `captured`).
    """

    def __init__(
        self,
        parent: NodePath,
        sections: Callable[[], Sequence[Section]],
        size: Callable[[], tuple[float, float]],
        *,
        passes_to: Callable[[str], bool] = lambda _key: False,
    ) -> None:
        self._passes_to = passes_to
        self._keys = DirectObject()
        self._shift_down = False
        self._sections = sections
        self._size = size
        self.root = parent.attach_new_node("help-overlay")
        # Over every other panel: drawn in the popup bin, after the 2-D scene's own, and within
        # it in the order attached (the card, then the text).
        self.root.set_bin("gui-popup", 0)
        self.root.hide()
        self._texts: list[OnscreenText] = []
        self.scale = TEXT_SCALE
        """The text's scale as last laid out (smaller than `TEXT_SCALE` in a small window)."""
        manager = TextPropertiesManager.get_global_ptr()
        if not manager.has_properties(_TITLE_PROPS):
            title = TextProperties()
            title.set_text_color(*TITLE_COLOR)
            manager.set_properties(_TITLE_PROPS, title)

    @property
    def opened(self) -> bool:
        """Whether the overlay shows."""
        return not self.root.is_hidden()

    def toggle(self) -> None:
        """Open the overlay (laid out for the keys that work now), or close it."""
        if self.opened:
            self.close()
        else:
            self.open()

    def open(self) -> None:
        """Lay the sections out and show them."""
        self._lay_out(self._sections())
        self.root.show()

    def close(self) -> None:
        """Hide the overlay."""
        self.root.hide()

    def captured(self, key: str) -> bool:
        """Offered each key of the controls table first: True when it took the key.

        Esc closes an open overlay (and does not quit); other keys go to `passes_to`.
        """
        if self.opened and key == "escape":
            self.close()
            return True
        return self._passes_to(key)

    def bind(self) -> None:
        """Bind ?: Shift then /, or the "?" / "shift-/" event where the platform sends one.

        Panda3D names a key by its unshifted cap, so ? arrives as "/" while Shift is down (or
        as "shift-/" where modifier buttons are on). Shift is followed by its own events, so
        this works for any button thrower, a test's too; the MAPF timeline's plain "/" is
        bound elsewhere, on a listener of its own, as these are.
        """
        keys = self._keys
        keys.accept("shift", self._set_shift, [True])
        keys.accept("shift-up", self._set_shift, [False])
        keys.accept("/", self._slash)
        keys.accept("?", self.toggle)
        keys.accept("shift-/", self.toggle)

    def _set_shift(self, down: bool) -> None:
        self._shift_down = down

    def _slash(self) -> None:
        if self._shift_down:
            self.toggle()

    def text(self) -> str:
        """What the card says, column after column (empty until first opened)."""
        return "\n".join(str(text.text) for text in self._texts)

    def destroy(self) -> None:
        """Remove the card and its key bindings."""
        self._keys.ignore_all()
        self._clear()
        self.root.remove_node()

    # --- layout ------------------------------------------------------------------------------

    def _clear(self) -> None:
        for text in self._texts:
            text.destroy()
        self._texts = []
        for child in self.root.get_children():
            child.remove_node()

    def _lay_out(self, sections: Sequence[Section]) -> None:
        self._clear()
        card = self.root.attach_new_node(CardMaker("help-card").generate())
        card.set_color(*CARD_COLOR)
        columns = _columns([_section_lines(title, entries) for title, entries in sections])
        texts = [
            OnscreenText(
                parent=self.root,
                text="\n".join(lines),
                scale=1.0,
                fg=TEXT_COLOR,
                align=TextNode.A_left,
                mayChange=True,
            )
            for lines in [[TITLE, ""], *columns]
        ]
        heading, *body = texts
        widths = [text.textNode.get_width() for text in body]
        rows = max((len(lines) for lines in columns), default=0)
        line = heading.textNode.get_line_height()
        # Everything in text units (scale 1), then one scale makes it fit the room it has.
        width = sum(widths) + COLUMN_GAP / TEXT_SCALE * (len(widths) - 1)
        width = max(width, heading.textNode.get_width())
        height = (rows + 2) * line
        room_w, room_h = self._size()
        room_w, room_h = room_w - 2 * PADDING, room_h - 2 * PADDING
        self.scale = min(TEXT_SCALE, room_w / max(width, 1e-6), room_h / max(height, 1e-6))
        scale = self.scale
        left, top = -width * scale / 2, height * scale / 2
        heading.setScale(scale)
        heading.setPos(left, top - line * scale * 0.8)
        x = left
        for text, column_width in zip(body, widths, strict=True):
            text.setScale(scale)
            text.setPos(x, top - line * scale * 2.8)
            x += column_width * scale + COLUMN_GAP / TEXT_SCALE * scale
        self._texts = texts
        # The card was made first, so it is drawn first; now it takes the text's size.
        card.set_pos(left - PADDING, 0.0, -top - PADDING)
        card.set_scale(width * scale + 2 * PADDING, 1.0, 2 * top + 2 * PADDING)


def _section_lines(title: str, entries: Sequence[str]) -> list[str]:
    return [f"\1{_TITLE_PROPS}\1{title}\2", *entries, ""]


def _columns(sections: Sequence[list[str]]) -> list[list[str]]:
    """The sections in up to `COLUMNS` columns of about equal length, in reading order."""
    total = sum(len(lines) for lines in sections)
    target = total / COLUMNS if sections else 0
    columns: list[list[str]] = [[]]
    for lines in sections:
        if columns[-1] and len(columns[-1]) + len(lines) / 2 > target and len(columns) < COLUMNS:
            columns.append([])
        columns[-1].extend(lines)
    return [column[:-1] if column and column[-1] == "" else column for column in columns]
