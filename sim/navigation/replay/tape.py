"""Record searches with loops of their own step by step, and replay them both ways.

`ExpansionLog` records the searches of `sim.navigation.searches.best_first` by their relaxation
events; searches with loops of their own keep other state (jump points queued from afar, two
halves, parents out of sight of the grid's moves), so `SearchTape` records them more plainly:
after each expansion it reads the search's whole state (a cell's status, g, f, parent and, for
bidirectional, the half that reached it) and stores only the cells that changed, their old and
new values. `TapeReplay` applies those changes forward and restores the old values backward,
one step at a time, so ``k`` steps forward and ``k`` back give the state before bit for bit.

Which searches it records, how it starts them and how it reads their state, each search
declares itself (`sim.navigation.searches.declaration.Tape`, in the search's ``SEARCHES``): jps
shows the jump points queued so far and their parent jump points, bidirectional both halves
(`side`, and `meeting_cell` where their best path meets), theta its any-angle parents, the path's
cells being its vertices.

Both replays speak `sim.navigation.replay.recorder.Replay`, so the views draw either. Reading
the whole state costs O(cells) a step: fine for the scenes the view shows, not for a 512x512
map (record those with `find_path`).

>>> walkable = np.ones((3, 5), dtype=bool)
>>> tape = SearchTape(walkable, (0, 0), (0, 4), algorithm="bidirectional")
>>> replay = TapeReplay(tape)
>>> before = replay.snapshot(); replay.seek(99); replay.at_end, replay.meeting_cell
(True, (0, 2))
>>> replay.seek(0); replay.snapshot() == before
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import Cell
from sim.navigation.query import PathResult, SearchSettings
from sim.navigation.searches.declaration import SearchKind, SearchProblem, Tape, TapeFrame


@dataclass(frozen=True, slots=True)
class TapeState:
    """A tape replay's whole state as a value: equal states compare equal with ``==``."""

    step: int
    current: Cell | None
    meeting: Cell | None
    arrays: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class _Change:
    """What one step changed in one array: the cells, their old and new values."""

    cells: NDArray[np.intp]
    old: NDArray[Any]
    new: NDArray[Any]


class SearchTape:
    """Every step of one search recorded by tape (jps, bidirectional, theta), once, lazily.

    Args:
        walkable: ``[row, col]`` bool mask.
        start: first cell ``(row, col)``.
        goal: last cell ``(row, col)``.
        algorithm: the search: a `SearchKind` recorded by tape, or the `find_path` name of
            one ("jps", "bidirectional" or "theta").
        diagonal: True, False or a diagonal rule's name (jps needs no-corner-cutting).
        heuristic: for jps and bidirectional (theta always uses the straight line).
        costs: cell costs (bidirectional only; jps and theta refuse costs other than 1).

    Raises:
        ValueError: naming the value, as the search's declared check and the search itself
            do (jps on 4-connected moves, theta with costs, an unknown algorithm, ...).

    >>> tape = SearchTape(np.ones((3, 3), dtype=bool), (0, 0), (2, 2), algorithm="jps")
    >>> tape.total_steps(), tape.result().cells
    (2, ((0, 0), (1, 1), (2, 2)))
    """

    def __init__(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        *,
        algorithm: str | SearchKind,
        diagonal: bool | str = True,
        heuristic: str = "octile",
        costs: NDArray[Any] | None = None,
    ) -> None:
        kind = algorithm if isinstance(algorithm, SearchKind) else _tape_kind(algorithm)
        recording = _tape_of(kind)
        settings = SearchSettings.parse(diagonal=diagonal, heuristic=heuristic, costs=costs)
        self._begin(kind, recording, SearchProblem(walkable, start, goal, settings))

    @classmethod
    def with_settings(cls, kind: SearchKind, problem: SearchProblem) -> SearchTape:
        """A tape of `kind` on `problem` (its settings' weight is not read), recording nothing."""
        recording = _tape_of(kind)
        tape = cls.__new__(cls)
        tape._begin(kind, recording, problem)
        return tape

    def _begin(self, kind: SearchKind, recording: Tape, problem: SearchProblem) -> None:
        self.kind = kind
        self.algorithm = kind.algorithm.value
        self._problem = problem
        kind.check(self._problem)
        self._search = recording.start(self._problem)
        self._read = recording.read
        self.height, self.width = (int(side) for side in problem.walkable.shape)
        start, goal = problem.start, problem.goal
        self.start: Cell = (int(start[0]), int(start[1]))
        self.goal: Cell = (int(goal[0]), int(goal[1]))
        rule = self.rule = problem.rule
        self.diagonal = rule is not DiagonalRule.NEVER  # whether the 4 diagonal moves exist
        frame = self._frame()
        self.initial = _arrays(frame)
        self._last = self.initial
        self.initial_meeting = frame.meeting
        self._changes: list[tuple[_Change, ...]] = []
        self._current: list[Cell] = []
        self._meetings: list[Cell | None] = []
        self._finished = self._search.done
        self._result: PathResult | None = None

    @property
    def recorded(self) -> int:
        """How many steps have been recorded so far."""
        return len(self._changes)

    @property
    def finished(self) -> bool:
        """Whether the whole search has been recorded."""
        return self._finished

    def record_until(self, steps: int | None) -> int:
        """Record until `steps` steps exist or the search ends (None: to the end)."""
        if steps is not None and (isinstance(steps, bool) or steps < 0):
            raise ValueError(f"steps must be >= 0 or None, got {steps!r}")
        search = self._search
        while not self._finished and (steps is None or len(self._changes) < steps):
            before = search.expanded
            search.advance(1)
            if search.expanded > before:
                frame = self._frame()
                state = _arrays(frame)
                self._changes.append(
                    tuple(_diff(old, new) for old, new in zip(self._last, state, strict=True))
                )
                self._last = state
                self._current.append(search.current)  # type: ignore[arg-type]
                self._meetings.append(frame.meeting)
            self._finished = search.done
        return len(self._changes)

    def total_steps(self) -> int:
        """Return how many steps the whole search makes (records to the end if needed)."""
        return self.record_until(None)

    def result(self) -> PathResult:
        """Return the search's result (records to the end if needed)."""
        if self._result is None:
            self.record_until(None)
            self._result = self._search.result()
        return self._result

    def expanded_cell(self, step: int) -> Cell:
        """Return the cell expanded by step `step` (1 to `recorded`)."""
        if not 1 <= step <= len(self._changes):
            raise ValueError(f"step must be 1..{len(self._changes)} (recorded), got {step!r}")
        return self._current[step - 1]

    def meeting_at(self, step: int) -> Cell | None:
        """Where bidirectional's halves meet after `step` steps (None before, or not bidir)."""
        return self.initial_meeting if step == 0 else self._meetings[step - 1]

    def changes(self, step: int) -> tuple[_Change, ...]:
        """What step `step` (1 to `recorded`) changed, one entry per array of `TapeState`."""
        return self._changes[step - 1]

    def _frame(self) -> TapeFrame:
        """The search's whole state now, as its module reads it."""
        return self._read(self._search, self._problem)


def _arrays(frame: TapeFrame) -> tuple[NDArray[Any], ...]:
    """Status, g, f, parent and side: the arrays a tape stores the changes of, in this order."""
    return frame.status, frame.g, frame.f, frame.parent, frame.side


def _tape_of(kind: SearchKind) -> Tape:
    """How `kind` is recorded by tape, or ValueError if it is not."""
    if not isinstance(kind.recording, Tape):
        raise ValueError(f"{kind.label} is not recorded by tape")
    return kind.recording


def _tape_kind(algorithm: str) -> SearchKind:
    """The search recorded by tape that `find_path` calls `algorithm`."""
    kinds = [kind for kind in SearchKind if isinstance(kind.recording, Tape)]
    for kind in kinds:
        if kind.algorithm.value == algorithm:
            return kind
    names = tuple(dict.fromkeys(kind.algorithm.value for kind in kinds))
    raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {names}")


class TapeReplay:
    """A cursor over a `SearchTape`: the state after `step` steps, moved both ways.

    `status`, `g`, `f`, `parent` and `side` are read-only ``[row, col]`` views of arrays the
    cursor updates in place.
    """

    def __init__(self, tape: SearchTape) -> None:
        self.log = tape
        self._arrays = [array.copy() for array in tape.initial]
        shape = (tape.height, tape.width)
        self._views = tuple(_read_only(array.reshape(shape)) for array in self._arrays)
        self._step = 0

    @property
    def kind(self) -> SearchKind:
        """The search replayed."""
        return self.log.kind

    @property
    def step(self) -> int:
        """How many steps the shown state is after."""
        return self._step

    @property
    def at_end(self) -> bool:
        """Whether the search is fully recorded and the cursor is on its last step."""
        log = self.log
        if self._step == log.recorded and not log.finished:
            log.record_until(self._step + 1)
        return log.finished and self._step == log.recorded

    @property
    def status(self) -> NDArray[np.uint8]:
        """``[row, col]`` `CellStatus` now."""
        return self._views[0]

    @property
    def g(self) -> NDArray[np.float64]:
        """``[row, col]`` cost from the cell's end now (inf where unseen)."""
        return self._views[1]

    @property
    def f(self) -> NDArray[np.float64]:
        """``[row, col]`` the priority the cell was queued with (inf where unseen)."""
        return self._views[2]

    @property
    def parent(self) -> NDArray[np.intp]:
        """``[row, col]`` flat parent (-1 for the ends' roots and unseen cells)."""
        return self._views[3]

    @property
    def side(self) -> NDArray[np.uint8]:
        """``[row, col]`` 1 forward, 2 backward (bidirectional), else 0."""
        return self._views[4]

    @property
    def current(self) -> Cell | None:
        """The cell expanded by step `step`; None at step 0."""
        return None if self._step == 0 else self.log.expanded_cell(self._step)

    @property
    def meeting_cell(self) -> Cell | None:
        """Where bidirectional's halves meet now, or None."""
        return self.log.meeting_at(self._step)

    @property
    def path(self) -> tuple[Cell, ...]:
        """The path found (theta: its vertices) once `at_end` and found; else ``()``."""
        return self.log.result().cells if self.at_end else ()

    def forward(self, count: int = 1) -> int:
        """Move up to `count` steps forward; return how many it moved."""
        _check_count(count)
        available = self.log.record_until(self._step + count)
        return self._move_to(min(self._step + count, available))

    def back(self, count: int = 1) -> int:
        """Move up to `count` steps back; return how many it moved."""
        _check_count(count)
        return -self._move_to(max(self._step - count, 0))

    def seek(self, step: int) -> None:
        """Move to `step`, clamped to ``[0, total]``."""
        if isinstance(step, bool) or not isinstance(step, int | np.integer):
            raise ValueError(f"step must be an integer, got {step!r}")
        target = max(int(step), 0)
        self._move_to(min(target, self.log.record_until(target)))

    def reset(self) -> None:
        """Go back to step 0."""
        self.seek(0)

    def snapshot(self) -> TapeState:
        """Return the state now as a frozen value."""
        return TapeState(
            self._step,
            self.current,
            self.meeting_cell,
            tuple(array.tobytes() for array in self._arrays),
        )

    def _move_to(self, target: int) -> int:
        moved = target - self._step
        for step in range(self._step + 1, target + 1):
            for array, change in zip(self._arrays, self.log.changes(step), strict=True):
                array[change.cells] = change.new
        for step in range(self._step, target, -1):
            for array, change in zip(self._arrays, self.log.changes(step), strict=True):
                array[change.cells] = change.old
        self._step = target
        return moved


def _diff(old: NDArray[Any], new: NDArray[Any]) -> _Change:
    # NaN never appears (g and f are finite or inf), so != finds every changed value.
    cells = np.flatnonzero(old != new)
    return _Change(cells, old[cells].copy(), new[cells].copy())


def _check_count(count: int) -> None:
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
        raise ValueError(f"count must be an integer >= 0, got {count!r}")


def _read_only(values: NDArray[Any]) -> NDArray[Any]:
    view = values.view()
    view.flags.writeable = False
    return view
