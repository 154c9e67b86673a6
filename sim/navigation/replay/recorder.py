"""`Replay`: what every replay of a search offers, and `record`, which makes one for any search.

A search declares how it is recorded (`sim.navigation.searches.declaration.Recording`): the
best-first family by its relaxation events (`ExpansionLog`, stepped by `SearchReplay`), the
searches with loops of their own by reading their whole state each step (`SearchTape`, stepped
by `TapeReplay`). Both replays speak `Replay`, so a view draws one without asking which it is.

>>> import numpy as np
>>> from sim.navigation.catalogue import SearchKind
>>> replay = record(SearchKind.BIDIRECTIONAL, np.ones((1, 5), dtype=bool), (0, 0), (0, 4))
>>> replay.seek(99); replay.meeting_cell, replay.kind.hints.two_frontiers
((0, 2), True)
>>> record(SearchKind.JPS, np.ones((2, 2), dtype=bool), (0, 0), (1, 1), rule=DiagonalRule.NEVER)
Traceback (most recent call last):
...
ValueError: jps moves by the no-corner-cutting rule only (8-connected, diagonal=True), not 'never'
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import Cell
from sim.navigation.heuristics import Heuristic, parse_heuristic
from sim.navigation.query import PathResult, SearchSettings, check_weight
from sim.navigation.replay.log import ExpansionLog, SearchReplay
from sim.navigation.replay.tape import SearchTape, TapeReplay
from sim.navigation.searches.declaration import SearchKind, SearchProblem, Tape


class ReplayLog(Protocol):
    """The recording under a replay: the search's problem, how far it is recorded, its end."""

    @property
    def kind(self) -> SearchKind:
        """The search recorded."""

    @property
    def height(self) -> int:
        """Rows of the grid."""

    @property
    def width(self) -> int:
        """Columns of the grid."""

    @property
    def start(self) -> Cell:
        """The start cell."""

    @property
    def goal(self) -> Cell:
        """The goal cell."""

    @property
    def recorded(self) -> int:
        """How many steps are recorded so far."""

    @property
    def finished(self) -> bool:
        """Whether the whole search is recorded."""

    def record_until(self, steps: int | None) -> int:
        """Record until `steps` steps exist or the search ends (None: to the end)."""

    def total_steps(self) -> int:
        """How many steps the whole search makes (records to the end)."""

    def result(self) -> PathResult:
        """The search's result (records to the end)."""


class Replay(Protocol):
    """A cursor over a recorded search: its state after `step` steps, moved both ways.

    The arrays are read-only ``[row, col]`` views of the state now; read them again after a
    move. A step is one expansion (a jump point for JPS, a cell of either half for
    bidirectional A*).
    """

    @property
    def log(self) -> ReplayLog:
        """The recording replayed."""

    @property
    def kind(self) -> SearchKind:
        """The search replayed, as it declares itself."""

    @property
    def step(self) -> int:
        """How many steps the state shown is after."""

    @property
    def at_end(self) -> bool:
        """Whether the search is fully recorded and the cursor on its last step."""

    @property
    def status(self) -> NDArray[np.uint8]:
        """`CellStatus` of every cell."""

    @property
    def g(self) -> NDArray[np.float64]:
        """Cost from the cell's end (inf where unseen)."""

    @property
    def f(self) -> NDArray[np.float64]:
        """The priority the cell was queued with (inf where unseen)."""

    @property
    def parent(self) -> NDArray[np.intp]:
        """Flat parent (-1 for the roots and unseen cells)."""

    @property
    def side(self) -> NDArray[np.uint8]:
        """1 where the forward half holds the cell, 2 the backward one; 0 for one-way searches."""

    @property
    def current(self) -> Cell | None:
        """The cell expanded by the last step; None at step 0."""

    @property
    def meeting_cell(self) -> Cell | None:
        """Where the halves' best path meets (two-way searches), else None."""

    @property
    def path(self) -> tuple[Cell, ...]:
        """The path found once at the end (vertices for a straight path); else ``()``."""

    def forward(self, count: int = 1) -> int:
        """Move up to `count` steps forward; return how many it moved."""

    def back(self, count: int = 1) -> int:
        """Move up to `count` steps back; return how many it moved."""

    def seek(self, step: int) -> None:
        """Move to `step`, clamped to ``[0, total]``."""

    def reset(self) -> None:
        """Go back to step 0."""

    def snapshot(self) -> Any:
        """The state now as a frozen value (equal states compare equal)."""


def record(
    kind: SearchKind,
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    *,
    rule: DiagonalRule = DiagonalRule.NO_CORNER_CUTTING,
    heuristic: str = Heuristic.OCTILE.value,
    weight: float = 1.0,
    costs: NDArray[Any] | None = None,
) -> Replay:
    """A replay of `kind` from `start` to `goal`, recorded lazily, at step 0.

    A search that takes no heuristic searches with zero, one that takes no weight with 1,
    whatever is handed in. The views hold the heuristic by name: it becomes a `Heuristic`
    here, once, and the search and its recording get one `SearchSettings`.

    Raises:
        ValueError: in words, for what the search refuses (its declared check, then its own).
    """
    settings = SearchSettings(
        rule,
        parse_heuristic(heuristic) if kind.takes_heuristic else Heuristic.ZERO,
        kind.algorithm,
        check_weight(weight) if kind.takes_weight else 1.0,
        costs,
    )
    problem = SearchProblem(walkable, start, goal, settings)
    if isinstance(kind.recording, Tape):
        return TapeReplay(SearchTape.with_settings(kind, problem))
    kind.check(problem)
    return SearchReplay(ExpansionLog.with_settings(walkable, start, goal, settings, kind))
