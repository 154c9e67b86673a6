"""A found path's cells laid out when they are read: `PathResult.cells` from a flat path.

A `PathResult`'s cells are a tuple of ``(row, col)`` pairs: a tuple and two ints a cell. On a
long path (1,400 cells on a 512 x 512 maze) building them costs more than the jump point search
that found the path, and a caller that wants the cost, the length or the next few cells pays for
all of them. So the compiled searches hand a found path back flat: a bytes object of int32, the
grid's width and then the flat cells (``_flat_path.h``), and `PathResult` keeps it in its
``cells`` slot until ``cells`` is first read. `install` puts a data descriptor in the place of
that slot's: a read finds the flat path, lays it out (`cells_of`), stores the tuple in the slot
and returns it; every later read returns the same tuple. Every reader (``==``, ``hash``,
``repr``, pickling, `dataclasses.replace` and `dataclasses.astuple`, which read the field by
name) sees the tuple of pairs it saw before; only the time moves, to the first read.

The descriptor is ``_kernel.LazyCells`` when the kernel is built (a read costs what a slot's
does), else `LazyCells` here. The package installs it on import (`sim.navigation.searches`), so
it is in place before any compiled search can answer.

>>> from sim.navigation.query import Reason
>>> flat = np.array([3, 0, 4, 8], dtype=np.int32).tobytes()  # width 3, cells 0, 4, 8
>>> result = PathResult(True, flat, 2.8284271247461903, 3, Reason.FOUND)
>>> result.cells
((0, 0), (1, 1), (2, 2))
>>> result == PathResult(True, ((0, 0), (1, 1), (2, 2)), 2.8284271247461903, 3, Reason.FOUND)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell
from sim.navigation.query import PathResult

COMPILED: bool
"""Whether the descriptor and `cells_of` run in C (``_kernel`` is built)."""
try:
    from sim.navigation.searches import _kernel

    COMPILED = True
except ImportError:  # pragma: no cover - depends on the build
    COMPILED = False


def cells_of_python(flat: bytes) -> tuple[Cell, ...]:
    """`cells_of` in Python, for a build without `_kernel`."""
    numbers = np.frombuffer(flat, dtype=np.int32)
    rows, cols = np.divmod(numbers[1:], int(numbers[0]))
    return tuple(zip(rows.tolist(), cols.tolist(), strict=True))


def cells_of(flat: bytes) -> tuple[Cell, ...]:
    """The ``(row, col)`` pairs of a flat path (int32: the grid's width, then flat cells).

    >>> cells_of(np.array([5, 7, 8], dtype=np.int32).tobytes())
    ((1, 2), (1, 3))
    """
    if COMPILED:
        return _kernel.cells_of(flat)
    return cells_of_python(flat)


class LazyCells:
    """The ``cells`` field of `PathResult`: a flat path in its slot is laid out on first read.

    `sim.navigation.searches._kernel.LazyCells` is the same descriptor in C.
    """

    __slots__ = ("_slot",)

    def __init__(self, slot: Any) -> None:
        self._slot = slot

    def __get__(self, result: object, owner: type | None = None) -> Any:
        if result is None:
            return self
        value = self._slot.__get__(result, owner)
        if type(value) is bytes:
            value = cells_of_python(value)
            self._slot.__set__(result, value)
        return value

    def __set__(self, result: object, value: object) -> None:
        self._slot.__set__(result, value)


def install() -> None:
    """Put the lazy descriptor in the place of `PathResult`'s ``cells`` slot, once."""
    slot = PathResult.__dict__["cells"]
    if isinstance(slot, LazyCells) or (COMPILED and isinstance(slot, _kernel.LazyCells)):
        return
    descriptor = _kernel.LazyCells(slot) if COMPILED else LazyCells(slot)
    setattr(PathResult, "cells", descriptor)  # noqa: B010 - a class attribute, not a field


def laid_out(result: PathResult) -> bool:
    """Whether `result`'s cells are a tuple already (read once, or never flat), without a read.

    >>> from sim.navigation.query import Reason
    >>> laid_out(PathResult.none(Reason.UNREACHABLE))
    True
    """
    return type(_stored(result)) is not bytes


def flat_cells(result: PathResult, width: int) -> NDArray[np.int32]:
    """`result`'s cells as flat cells (``row * width + col``) of a grid `width` cells wide.

    A flat path still in the slot is read as it is, never laid out as pairs (what
    `sim.navigation.batch.PathBatch` wants from a result); a tuple is turned flat.

    >>> from sim.navigation.query import Reason
    >>> flat = np.array([3, 0, 4, 8], dtype=np.int32).tobytes()
    >>> flat_cells(PathResult(True, flat, 2.8284271247461903, 3, Reason.FOUND), 3).tolist()
    [0, 4, 8]
    """
    stored = _stored(result)
    if type(stored) is bytes:
        return np.frombuffer(stored, dtype=np.int32)[1:]
    return np.array([row * width + col for row, col in stored], dtype=np.int32)


def _stored(result: PathResult) -> Any:
    """What `result`'s cells slot holds: a flat path (bytes) or the tuple of pairs."""
    descriptor = PathResult.__dict__["cells"]
    slot = descriptor._slot if isinstance(descriptor, LazyCells) else descriptor.slot
    return slot.__get__(result, PathResult)
