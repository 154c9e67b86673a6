"""The compiled search core (`_kernel.c`): the same loop as `Search.advance`, in C.

`find_path` here takes the arguments of `sim.navigation.search.find_path`, checks them the
same way (same errors, same early "no path" reasons) and returns the identical `PathResult`:
same cells, the same cost to the last bit, the same expansion count. `search_flat` is the
checked boundary just above the C function. When the extension cannot be imported (a failed
compile: it is built with ``optional=True``), `KERNEL_AVAILABLE` is False, one warning is
issued, and `search.find_path` keeps using the Python reference.

`field_flat` is the same kind of boundary for `field._reverse_dijkstra`: the distance field
of a goal, bit-identical to the Python loop.

The kernel runs the algorithms in `COMPILED_ALGORITHMS`; any other (depth-first search) is a
ValueError here, and runs only in Python.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell, check_costs, check_walkable
from sim.navigation.heuristics import Heuristic, parse_heuristic
from sim.navigation.search import (
    Algorithm,
    PathResult,
    Reason,
    _check_cell,
    _parse_algorithm,
)

KERNEL_AVAILABLE: bool
"""Whether the compiled extension imported; `search.find_path` uses it when True."""
try:
    from sim.navigation import _kernel

    KERNEL_AVAILABLE = True
except ImportError as error:  # pragma: no cover - depends on the build
    KERNEL_AVAILABLE = False
    warnings.warn(
        f"sim.navigation._kernel is not built ({error}); searching in pure Python",
        RuntimeWarning,
        stacklevel=2,
    )

_HEURISTIC_CODES = {
    Heuristic.MANHATTAN: 0,
    Heuristic.OCTILE: 1,
    Heuristic.EUCLIDEAN: 2,
    Heuristic.CHEBYSHEV: 3,
    Heuristic.ZERO: 4,
}
_MAX_CELLS = 2**31 - 1

COMPILED_ALGORITHMS: tuple[Algorithm, ...] = (
    Algorithm.ASTAR,
    Algorithm.DIJKSTRA,
    Algorithm.BFS,
    Algorithm.GREEDY,
)
"""The algorithms the compiled kernel runs: those whose priority is g_weight * g + h_weight * h."""


def find_path(
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    *,
    diagonal: bool = True,
    heuristic: str = "octile",
    algorithm: str = "astar",
    costs: NDArray[Any] | None = None,
    weight: float = 1.0,
) -> PathResult:
    """Run `search.find_path` in C: same arguments, errors and result (see there).

    Raises:
        ValueError: as `search.find_path` does, when the kernel is not available, and for an
            algorithm it does not run (see `COMPILED_ALGORITHMS`).
    """
    walkable = check_walkable(walkable)
    checked_costs = check_costs(costs, walkable)
    chosen_algorithm = _parse_algorithm(algorithm)
    _check_compiled(chosen_algorithm)
    chosen = parse_heuristic(heuristic)
    # The checks of Search.__init__, in its order and with its messages.
    if isinstance(weight, bool) or not isinstance(weight, int | float | np.integer | np.floating):
        raise ValueError(f"weight must be a number >= 1, got {weight!r}")
    if not (math.isfinite(weight) and weight >= 1.0):
        raise ValueError(f"weight must be a finite number >= 1, got {weight!r}")
    start_row, start_col = _check_cell("start", start)
    goal_row, goal_col = _check_cell("goal", goal)
    height, width = walkable.shape
    if not (0 <= start_row < height and 0 <= start_col < width):
        raise ValueError(f"start {start!r} lies outside the {height}x{width} grid [row, col]")
    if not (0 <= goal_row < height and 0 <= goal_col < width):
        return PathResult(False, (), math.inf, 0, Reason.GOAL_OUTSIDE)
    if not walkable[start_row, start_col]:
        return PathResult(False, (), math.inf, 0, Reason.START_BLOCKED)
    if not walkable[goal_row, goal_col]:
        return PathResult(False, (), math.inf, 0, Reason.GOAL_BLOCKED)
    found, cells, cost, expanded = search_flat(
        np.ascontiguousarray(walkable),
        None if checked_costs is None else np.ascontiguousarray(checked_costs),
        start_row * width + start_col,
        goal_row * width + goal_col,
        diagonal=bool(diagonal),
        heuristic=chosen,
        algorithm=chosen_algorithm,
        weight=float(weight),
    )
    return PathResult(found, cells, cost, expanded, Reason.FOUND if found else Reason.UNREACHABLE)


def search_flat(
    walkable: NDArray[np.bool_],
    costs: NDArray[np.float64] | None,
    start: int,
    goal: int,
    *,
    diagonal: bool,
    heuristic: Heuristic,
    algorithm: Algorithm,
    weight: float,
) -> tuple[bool, tuple[Cell, ...], float, int]:
    """Search from flat cell `start` to flat `goal`; return found, cells, cost, expanded.

    The boundary of the C code: `walkable` must be a C-contiguous 2-D bool array, `costs`
    None or a C-contiguous float64 array of its shape (finite and >= 1 on walkable cells, not
    checked here), `start` and `goal` walkable flat cells. Anything else is a ValueError before
    C reads a byte (and the C function checks sizes and indices again).
    """
    if not KERNEL_AVAILABLE:
        raise ValueError("the compiled kernel sim.navigation._kernel is not available")
    if not isinstance(walkable, np.ndarray) or walkable.ndim != 2 or walkable.dtype != np.bool_:
        raise ValueError(f"walkable must be a 2-D numpy bool array, got {_describe(walkable)}")
    if not walkable.flags.c_contiguous:
        raise ValueError("walkable must be C-contiguous (use np.ascontiguousarray)")
    size = walkable.size
    if not 0 < size <= _MAX_CELLS:
        raise ValueError(f"walkable must have 1 to 2**31 - 1 cells, got {walkable.shape}")
    if costs is not None:
        if not isinstance(costs, np.ndarray) or costs.dtype != np.float64:
            raise ValueError(f"costs must be a float64 numpy array or None, got {_describe(costs)}")
        if costs.shape != walkable.shape:
            raise ValueError(f"costs must have shape {walkable.shape}, got {costs.shape}")
        if not costs.flags.c_contiguous:
            raise ValueError("costs must be C-contiguous (use np.ascontiguousarray)")
    for name, cell in (("start", start), ("goal", goal)):
        if isinstance(cell, bool) or not isinstance(cell, int | np.integer):
            raise ValueError(f"{name} must be a flat cell index (int), got {cell!r}")
        if not 0 <= cell < size:
            raise ValueError(f"{name} {cell} lies outside the {size} cells of the grid")
        if not walkable.flat[cell]:
            raise ValueError(f"{name} {cell} is not a walkable cell")
    if not (math.isfinite(weight) and weight >= 1.0):
        raise ValueError(f"weight must be a finite number >= 1, got {weight!r}")
    _check_compiled(algorithm)

    # The data-driven variants of search.Search: priority g_weight * g + h_weight * h.
    if algorithm is Algorithm.ASTAR:
        h_weight, g_weight = weight, 1.0
    elif algorithm is Algorithm.GREEDY:
        h_weight, g_weight = 1.0, 0.0
    else:  # dijkstra and bfs, which counts moves (unit below)
        heuristic, h_weight, g_weight = Heuristic.ZERO, 1.0, 1.0
    height, width = walkable.shape
    return _kernel.search(
        walkable,
        costs,
        height,
        width,
        int(start),
        int(goal),
        diagonal,
        _HEURISTIC_CODES[heuristic],
        h_weight,
        g_weight,
        algorithm is Algorithm.BFS,
    )


def field_flat(
    walkable: NDArray[np.bool_],
    costs: NDArray[np.float64] | None,
    goal: int,
    *,
    diagonal: bool,
) -> NDArray[np.float64]:
    """Return the flat cost from every cell to flat `goal`, as `field._reverse_dijkstra` does.

    The boundary of the C function ``_kernel.field``: `walkable` must be a C-contiguous 2-D
    bool array, `costs` None or a C-contiguous float64 array of its shape (finite and >= 1 on
    walkable cells, not checked here), `goal` a flat cell index inside the grid. A blocked
    `goal` is allowed and gives ``inf`` everywhere, as in Python. Anything else is a ValueError
    before C reads a byte (and the C function checks sizes and indices again).
    """
    if not KERNEL_AVAILABLE:
        raise ValueError("the compiled kernel sim.navigation._kernel is not available")
    if not isinstance(walkable, np.ndarray) or walkable.ndim != 2 or walkable.dtype != np.bool_:
        raise ValueError(f"walkable must be a 2-D numpy bool array, got {_describe(walkable)}")
    if not walkable.flags.c_contiguous:
        raise ValueError("walkable must be C-contiguous (use np.ascontiguousarray)")
    size = walkable.size
    if not 0 < size <= _MAX_CELLS:
        raise ValueError(f"walkable must have 1 to 2**31 - 1 cells, got {walkable.shape}")
    if costs is not None:
        if not isinstance(costs, np.ndarray) or costs.dtype != np.float64:
            raise ValueError(f"costs must be a float64 numpy array or None, got {_describe(costs)}")
        if costs.shape != walkable.shape:
            raise ValueError(f"costs must have shape {walkable.shape}, got {costs.shape}")
        if not costs.flags.c_contiguous:
            raise ValueError("costs must be C-contiguous (use np.ascontiguousarray)")
    if isinstance(goal, bool) or not isinstance(goal, int | np.integer):
        raise ValueError(f"goal must be a flat cell index (int), got {goal!r}")
    if not 0 <= goal < size:
        raise ValueError(f"goal {goal} lies outside the {size} cells of the grid")
    height, width = walkable.shape
    out = np.empty(size, dtype=np.float64)
    _kernel.field(walkable, costs, height, width, int(goal), bool(diagonal), out)
    return out


def _check_compiled(algorithm: Algorithm) -> None:
    """Raise ValueError for an algorithm the C loop does not run (it would run it wrongly)."""
    if algorithm not in COMPILED_ALGORITHMS:
        raise ValueError(
            f"the compiled kernel does not run {algorithm}; use implementation='auto' or 'python'"
        )


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.ndim}-D {value.dtype} array"
    return type(value).__name__
