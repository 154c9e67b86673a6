"""EditHistory without a scene: order, grouping, and what a new edit does to redo."""

from __future__ import annotations

import pytest

from sim.editor.history import Edit, EditGroup, EditHistory


class Counter:
    """An edit of a shared log: `redo` appends its name, `undo` appends `-name`."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.label, self._log = name, log

    def undo(self) -> None:
        self._log.append(f"-{self.label}")

    def redo(self) -> None:
        self._log.append(self.label)


def labelled(edit: Edit | None) -> str:
    assert edit is not None
    return edit.label


@pytest.fixture
def log() -> list[str]:
    return []


def test_undo_takes_back_the_last_first_and_redo_makes_it_again(log):
    history = EditHistory()
    for name in "abc":
        history.record(Counter(name, log))
    assert [labelled(history.undo()), labelled(history.undo())] == ["c", "b"]
    assert (history.undo_depth, history.redo_depth) == (1, 2)
    assert labelled(history.redo()) == "b"
    assert log == ["-c", "-b", "b"]


def test_nothing_to_undo_or_redo_is_none():
    history = EditHistory()
    assert history.undo() is None
    assert history.redo() is None


def test_a_new_edit_after_an_undo_clears_redo(log):
    history = EditHistory()
    history.record(Counter("a", log))
    history.undo()
    history.record(Counter("b", log))
    assert history.redo_depth == 0
    assert history.redo() is None


def test_a_group_is_one_undo_its_parts_undone_last_first(log):
    history = EditHistory()
    with history.grouped("generate maze"):
        for name in "abc":
            history.record(Counter(name, log))
        assert history.undo_depth == 0, "the group is recorded when it closes"
    assert history.undo_depth == 1
    group = history.undo()
    assert isinstance(group, EditGroup)
    assert group.label == "generate maze"
    assert log == ["-c", "-b", "-a"]
    history.redo()
    assert log[3:] == ["a", "b", "c"]


def test_groups_nest_and_an_empty_group_records_nothing(log):
    history = EditHistory()
    with history.grouped("empty"):
        pass
    assert history.undo_depth == 0
    with history.grouped("outer"):
        history.record(Counter("a", log))
        with history.grouped("inner"):
            history.record(Counter("b", log))
            history.record(Counter("c", log))
    assert history.undo_depth == 1
    history.undo()
    assert log == ["-c", "-b", "-a"]


def test_a_group_that_raises_keeps_what_it_recorded(log):
    history = EditHistory()

    def half_made() -> None:
        with history.grouped("half"):
            history.record(Counter("a", log))
            raise RuntimeError

    with pytest.raises(RuntimeError):
        half_made()
    assert history.undo_depth == 1
    history.record(Counter("b", log))
    assert history.undo_depth == 2, "the group is closed: later edits stand alone"
