"""Undo and redo: the editor's record of the edits made in the running scene.

Each kind of edit (a drag, an added or removed obstacle, a terrain cost, a generated layout, an
inspector change, a rotation) is an `Edit` that knows how to take itself back and make itself
again; the history only keeps them in order. An edit is recorded once it has been applied, so
`record` never applies anything, and a new edit after an undo drops what could have been redone,
as every editor users know does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Edit(Protocol):
    """One user edit that can be taken back and made again, any number of times."""

    @property
    def label(self) -> str:
        """A few words for the HUD ("move End", "rotate obstacle3"): "undo <label>"."""
        ...

    def undo(self) -> None:
        """Put the scene back as it was just before the edit."""
        ...

    def redo(self) -> None:
        """Make the edit again, from the state `undo` left."""
        ...


class EditGroup:
    """Edits made as one (a generated layout: new obstacles, Start and End moved): one undo.

    Undone last first, redone first first, so each part finds the scene as it left it.
    """

    def __init__(self, label: str, edits: list[Edit]) -> None:
        self._label = label
        self.edits = edits

    @property
    def label(self) -> str:
        """The group's own words, not its parts'."""
        return self._label

    def undo(self) -> None:
        """Take every part back, the last one first."""
        for edit in reversed(self.edits):
            edit.undo()

    def redo(self) -> None:
        """Make every part again, in the order they were made."""
        for edit in self.edits:
            edit.redo()


class EditHistory:
    """The edits made so far, the undone ones apart until a new edit drops them."""

    def __init__(self) -> None:
        self._done: list[Edit] = []
        self._undone: list[Edit] = []
        self._groups: list[list[Edit]] = []  # the groups open now, innermost last

    @property
    def undo_depth(self) -> int:
        """How many edits Ctrl+Z can take back."""
        return len(self._done)

    @property
    def redo_depth(self) -> int:
        """How many undone edits Ctrl+Shift+Z (or Ctrl+Y) can make again."""
        return len(self._undone)

    def record(self, edit: Edit) -> None:
        """Keep `edit`, already applied; the edits that were undone can no longer be redone.

        Inside `grouped` the edit joins the open group instead.
        """
        if self._groups:
            self._groups[-1].append(edit)
            return
        self._done.append(edit)
        self._undone.clear()

    @contextmanager
    def grouped(self, label: str) -> Iterator[None]:
        """Record the edits made inside the block as one `EditGroup` called `label`.

        A block that records nothing records nothing; groups may nest (the inner one becomes
        one part of the outer). If the block raises, what it recorded so far is still kept:
        those edits were applied.

        >>> history = EditHistory()
        >>> with history.grouped("generate maze"):
        ...     pass
        >>> history.undo_depth
        0
        """
        edits: list[Edit] = []
        self._groups.append(edits)
        try:
            yield
        finally:
            self._groups.pop()
            if edits:
                self.record(EditGroup(label, edits))

    def undo(self) -> Edit | None:
        """Take the last edit back and return it; None when there is nothing to undo."""
        if not self._done:
            return None
        edit = self._done.pop()
        edit.undo()
        self._undone.append(edit)
        return edit

    def redo(self) -> Edit | None:
        """Make the last undone edit again and return it; None when there is nothing to redo."""
        if not self._undone:
            return None
        edit = self._undone.pop()
        edit.redo()
        self._done.append(edit)
        return edit
