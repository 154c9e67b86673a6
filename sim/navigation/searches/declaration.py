"""What a search declares about itself, and the registry that collects the declarations.

A search is one module of `sim.navigation.searches` with a module-level ``SEARCHES``: a tuple
of `SearchKind` values, each saying everything the rest of the simulator asks of it (its name
and label, what it promises, what it refuses, its Python solver, whether the compiled kernel
serves it, how a replay of it is recorded, how the views draw it and how the comparison table
judges it). The registry finds those modules on first use (every module of the package not
starting with ``_`` whose source assigns ``SEARCHES = ...`` at the top level), so adding a
search is adding its module; `register` adds one at run time
(a test's, say) and `unregister` takes it away again.

To add a search: write its module here with its solver (a checked `Query` in, a `PathResult`
out) and its stepper, and end it with ``SEARCHES = (SearchKind(...),)``; a `Tape` recording
needs a function that starts the stepper for a `SearchProblem` and one that reads its state as
a `TapeFrame`. Its tests go beside the others. A search that runs a new `Algorithm` also needs
that algorithm in `sim.navigation.query` (its name and what a query of it refuses).

`SearchKind` reads like the enum it was: iterate it for every search in button order, index it
by name (``SearchKind["ASTAR"]``) or read a member as an attribute (``SearchKind.ASTAR``).

>>> SearchKind.THETA.label, SearchKind["DFS"].promise
('Theta*', 'baseline: not shortest')
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import Cell
from sim.navigation.heuristics import Heuristic
from sim.navigation.query import DEFAULT_SETTINGS, Algorithm, PathResult, Query, SearchSettings


class CellStatus(IntEnum):
    """Where a cell stands in the search: never reached, waiting on the frontier, or expanded."""

    UNSEEN = 0
    OPEN = 1
    CLOSED = 2


@dataclass(frozen=True, slots=True, eq=False)
class SearchProblem:
    """One search to record: a grid snapshot, its ends and the settings the search runs with.

    Attributes:
        walkable: ``[row, col]`` bool mask (held, not copied).
        start: first cell ``(row, col)``.
        goal: last cell ``(row, col)``.
        settings: how to search; a search that takes no heuristic gets zero, one that takes
            no weight 1 (`sim.navigation.replay.recorder.record` settles both).
    """

    walkable: NDArray[np.bool_]
    start: Cell
    goal: Cell
    settings: SearchSettings = DEFAULT_SETTINGS

    @property
    def rule(self) -> DiagonalRule:
        """The diagonal rule the search moves by."""
        return self.settings.rule

    @property
    def heuristic(self) -> Heuristic:
        """The heuristic (zero for a search that takes none)."""
        return self.settings.heuristic

    @property
    def weight(self) -> float:
        """The weight on the heuristic (1 for a search that takes none)."""
        return self.settings.weight

    @property
    def costs(self) -> NDArray[Any] | None:
        """Per-cell cost multipliers, or None for 1 everywhere."""
        return self.settings.costs


@dataclass(frozen=True, slots=True, eq=False)
class TapeFrame:
    """A stepper's whole state, read after an expansion, every array flat.

    Attributes:
        status: uint8 `CellStatus` per cell.
        g: float64 cost from the cell's end (inf where unseen).
        f: float64 priority the cell was queued with (inf where unseen).
        parent: intp flat parent (-1 for the roots and unseen cells).
        side: uint8 half that holds the cell: 1 forward, 2 backward, 0 for one-way searches.
        meeting: where the halves' best path meets, or None.
    """

    status: NDArray[np.uint8]
    g: NDArray[np.float64]
    f: NDArray[np.float64]
    parent: NDArray[np.intp]
    side: NDArray[np.uint8]
    meeting: Cell | None = None

    @classmethod
    def empty(cls, size: int) -> TapeFrame:
        """Nothing seen yet on a grid of `size` cells (fill it in place)."""
        return cls(
            np.zeros(size, dtype=np.uint8),
            np.full(size, np.inf),
            np.full(size, np.inf),
            np.full(size, -1, dtype=np.intp),
            np.zeros(size, dtype=np.uint8),
        )


class Stepper(Protocol):
    """A search run a few expansions at a time: what a tape recording drives."""

    @property
    def done(self) -> bool:
        """Whether the search has ended."""

    @property
    def expanded(self) -> int:
        """Expansions so far."""

    @property
    def current(self) -> Cell | None:
        """The cell (or jump point) expanded last."""

    def advance(self, max_expansions: int | None = None) -> bool:
        """Expand up to `max_expansions` more; return `done`."""

    def result(self) -> PathResult:
        """The result once done."""


@dataclass(frozen=True, slots=True)
class Expansions:
    """Recorded by `sim.navigation.replay.log.ExpansionLog`: the best-first loop's events.

    Cheap per step (only the expanded cell's neighbours are read), so a view records far ahead.
    """

    reads_whole_state: bool = False


@dataclass(frozen=True, slots=True)
class Tape:
    """Recorded by `sim.navigation.replay.tape.SearchTape`: the stepper's whole state per step.

    Attributes:
        start: sets the stepper up for a problem (ValueError naming what it refuses).
        read: the stepper's state now, for that problem (O(cells) a step).
    """

    start: Callable[[SearchProblem], Stepper]
    read: Callable[[Any, SearchProblem], TapeFrame]
    reads_whole_state: bool = True


Recording = Expansions | Tape
"""How a replay of a search is made."""


@dataclass(frozen=True, slots=True)
class ViewHints:
    """How the search views draw a search.

    Attributes:
        arrows: its parent arrows are drawn even when parents are hidden (JPS's jumps,
            Theta*'s any-angle parents say more than the cells do).
        two_frontiers: it searches from both ends: the backward half and the meeting cell
            get colours of their own.
        straight_path: its path's cells are vertices joined by straight segments, drawn as
            such (and counted as "vertices").
    """

    arrows: bool = False
    two_frontiers: bool = False
    straight_path: bool = False


@dataclass(frozen=True, slots=True)
class RowCase:
    """One row of the comparison table, as its judges see it.

    Attributes:
        heuristic: the heuristic the row ran with, None for a search that takes none.
        weight: the weight on the heuristic.
        diagonal: whether diagonal moves exist.
        uniform: whether every walkable cell costs the same.
    """

    heuristic: Heuristic | None
    weight: float
    diagonal: bool
    uniform: bool


def never_guaranteed(case: RowCase) -> bool:
    """The judge of a search that promises no shortest path anywhere."""
    return False


@dataclass(frozen=True, slots=True)
class TableFacts:
    """How `sim.navigation.replay.compare` runs and judges a search.

    Attributes:
        order: its place among the table's rows (rows sort by `own_loop`, then this).
        own_loop: it runs its own solver once per query (the rows of ``more=True``), not the
            shared best-first loop once per distance heuristic.
        note: the row's few words, given the case and whether a shortest path is guaranteed.
        guaranteed: whether it always returns a shortest path in that case.
        optimum: its cost is the optimum every row is measured against (Dijkstra's).
    """

    order: int
    own_loop: bool
    note: Callable[[RowCase, bool], str]
    guaranteed: Callable[[RowCase], bool] = never_guaranteed
    optimum: bool = False


def no_check(problem: SearchProblem) -> None:
    """The check of a search that refuses nothing its solver does not refuse itself."""


class _Catalogue(type):
    """`SearchKind`'s class side: the registered declarations, iterated in button order."""

    def __iter__(cls) -> Iterator[SearchKind]:
        return iter(_declared())

    def __len__(cls) -> int:
        return len(_declared())

    def __getitem__(cls, name: str) -> SearchKind:
        for kind in _declared():
            if kind.name == name:
                return kind
        raise KeyError(name)

    def __getattr__(cls, name: str) -> SearchKind:
        if not name.isupper():  # dunder and private lookups are not searches
            raise AttributeError(name)
        try:
            return cls[name]
        except KeyError:
            raise AttributeError(f"no search is declared as {name!r}") from None


@dataclass(frozen=True, slots=True, eq=False)
class SearchKind(metaclass=_Catalogue):
    """One search, as its module declares it; compared by identity, like an enum member.

    Attributes:
        name: what code and the report's button keys (``algo:ASTAR``) use.
        label: what people read ("A*"), and the report's ``algorithm``.
        algorithm: the `find_path` algorithm it runs.
        promise: what it promises about its path, in a few words.
        order: its place among the search view's buttons.
        solver: its Python solver: a checked `Query` in, a `PathResult` out.
        stepper: the Python class (or function) that runs it step by step.
        recording: how a replay of it is made.
        table: how the comparison table runs and judges it.
        shortest: whether it promises a shortest path (A*: when its heuristic is admissible).
        takes_heuristic: whether a heuristic steers it (the others search with zero).
        takes_weight: whether it weighs its heuristic by a weight above 1 (the others use 1).
        kernel: whether the compiled kernel runs it too.
        check: what it refuses before a replay is recorded (ValueError in words).
        hints: how the views draw it.
    """

    name: str
    label: str
    algorithm: Algorithm
    promise: str
    order: int
    solver: Callable[[Query], PathResult]
    stepper: Callable[..., Any]
    recording: Recording
    table: TableFacts
    shortest: bool = False
    takes_heuristic: bool = False
    takes_weight: bool = False
    kernel: bool = False
    check: Callable[[SearchProblem], None] = no_check
    hints: ViewHints = field(default_factory=ViewHints)

    def titled(self, weight: float) -> str:
        """The label, with the weight for weighted A*: "weighted A* x1.5", else "A*" etc."""
        return f"{self.label} x{weight:g}" if self.takes_weight else self.label

    def __str__(self) -> str:
        return self.label

    def __repr__(self) -> str:
        return f"<SearchKind.{self.name}>"


_registry: dict[str, SearchKind] = {}
"""Every declared search by name; filled from the package's modules on first read."""

_found: list[bool] = []
"""Empty until the package's modules have been read (then ``[True]``)."""


def register(kind: SearchKind) -> None:
    """Add a search to the catalogue (ValueError if its name is taken).

    A module of `sim.navigation.searches` needs no call: its ``SEARCHES`` are found.
    """
    _declared()
    _add(kind)


def unregister(kind: SearchKind) -> None:
    """Take a search `register` added out of the catalogue again (KeyError if it is not in)."""
    if _registry.get(kind.name) is not kind:
        raise KeyError(kind.name)
    del _registry[kind.name]


def _add(kind: SearchKind) -> None:
    if kind.name in _registry:
        raise ValueError(f"a search named {kind.name!r} is declared twice")
    if not kind.name.isupper():
        raise ValueError(f"a search's name is upper case, like ASTAR, got {kind.name!r}")
    _registry[kind.name] = kind


def _declared() -> list[SearchKind]:
    """The registered searches in button order, reading the package's modules the first time."""
    if not _found:
        # Marked first, so that a read of the catalogue from inside one of these imports
        # returns what is declared so far instead of importing again; no search module may
        # read it at import time (each would miss itself).
        _found.append(True)
        package = importlib.import_module(__name__.rpartition(".")[0])
        for info in pkgutil.iter_modules(package.__path__):
            name = f"{package.__name__}.{info.name}"
            if info.name.startswith("_") or not _declares_searches(name):
                continue
            for kind in importlib.import_module(name).SEARCHES:
                _add(kind)
    return sorted(_registry.values(), key=lambda kind: kind.order)


def _declares_searches(module_name: str) -> bool:
    """Whether a module of the package assigns ``SEARCHES`` at its top level.

    Read from its source, not by importing it: the modules that declare no search need not be
    imported (the compiled kernel's wrapper warns on import when its extension is not built,
    which a program that never searches should not see).
    """
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return False
    with open(spec.origin, encoding="utf-8") as source:
        return any(line.startswith("SEARCHES = ") for line in source)
