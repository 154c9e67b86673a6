"""The compiled search core (`_kernel.c`): the same loop as `Search.advance`, in C.

`solve` runs a checked `Query` (`sim.navigation.query`) in C and returns the `PathResult` the
Python reference returns: same cells (laid out on first read, `lazy_cells`), the same cost to
the last bit, the same expansion count. `search_flat` is the checked boundary. `choose` decides, for
`find_path`'s ``implementation`` argument, whether C runs a query. When the extension cannot be
imported (a failed compile: it is built with ``optional=True``), `KERNEL_AVAILABLE` is False,
one warning is issued (on first import of this module), and "auto" keeps to Python.

`field_flat` is the same kind of boundary for `field._reverse_dijkstra`: the distance field
of a goal, bit-identical to the Python loop; `clearance_flat` for `clearance.clearance`: the
distance from each cell to the nearest wall, the same integers as the numpy reference.

The kernel runs the algorithms in `COMPILED_ALGORITHMS`; any other (depth-first search) is a
ValueError here, and runs only in Python.

Jump point search has its own extension (`_jps.c`, `JPS_AVAILABLE`, warned about once when it
is not built): `solve` runs a jps query there (`jps_flat` is its checked boundary) and
returns what `sim.navigation.searches.jps` returns, bit for bit.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.grid import Cell
from sim.navigation.grid import heuristic_scale as grid_heuristic_scale
from sim.navigation.heuristics import Heuristic
from sim.navigation.link_graph import LinkGraph
from sim.navigation.query import (
    DEFAULT_SETTINGS,
    JPS_HEURISTICS,
    Algorithm,
    Implementation,
    PathResult,
    Query,
    Reason,
    SearchSettings,
    check_weight,
    parse_implementation,
    priority_terms,
    reason_before_search,
)
from sim.navigation.searches import lazy_cells

KERNEL_AVAILABLE: bool
"""Whether the compiled extension imported; `find_path` runs in C when it is True."""
try:
    from sim.navigation.searches import _kernel

    KERNEL_AVAILABLE = True
except ImportError as error:  # pragma: no cover - depends on the build
    KERNEL_AVAILABLE = False
    warnings.warn(
        f"sim.navigation.searches._kernel is not built ({error}); searching in pure Python",
        RuntimeWarning,
        stacklevel=2,
    )

JPS_AVAILABLE: bool
"""Whether the compiled jump point search (`_jps.c`) imported."""
try:
    from sim.navigation.searches import _jps

    JPS_AVAILABLE = True
except ImportError as error:  # pragma: no cover - depends on the build
    JPS_AVAILABLE = False
    warnings.warn(
        f"sim.navigation.searches._jps is not built ({error}); "
        "jump point search runs in pure Python",
        RuntimeWarning,
        stacklevel=2,
    )

LINKS_AVAILABLE: bool
"""Whether the compiled search with links (`_linked.c`) imported; else links run in Python."""
try:
    from sim.navigation.searches import _linked

    LINKS_AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the build
    LINKS_AVAILABLE = False

_MAX_CELLS = 2**31 - 1

Ends = tuple[int, int, int, int]
"""``(height, width, start_flat, goal_flat)`` of a query `flat_ends` has checked."""
Answer = tuple[bool, tuple[Cell, ...], float, int]
"""A search's answer with its cells laid out: found, cells, cost, expanded."""
FlatAnswer = tuple[bool, bytes | tuple[Cell, ...], float, int]
"""What a C search returns: found, its path flat (`lazy_cells`; else ``()``), cost, expanded."""


def flat_ends_python(walkable: Any, start: Any, goal: Any) -> Ends | None:
    """`flat_ends` in Python: the same checks, for a build without `_kernel`."""
    if not (
        type(walkable) is np.ndarray
        and walkable.ndim == 2
        and walkable.dtype.char == "?"
        and walkable.flags.c_contiguous
        and 0 < walkable.size <= _MAX_CELLS
        and type(start) is tuple
        and type(goal) is tuple
        and len(start) == 2
        and len(goal) == 2
    ):
        return None
    start_row, start_col = start
    goal_row, goal_col = goal
    if not (
        type(start_row) is int
        and type(start_col) is int
        and type(goal_row) is int
        and type(goal_col) is int
    ):
        return None
    height, width = walkable.shape
    if not (
        0 <= start_row < height
        and 0 <= start_col < width
        and 0 <= goal_row < height
        and 0 <= goal_col < width
    ):
        return None
    start_flat = start_row * width + start_col
    goal_flat = goal_row * width + goal_col
    if not (walkable.item(start_flat) and walkable.item(goal_flat)):
        return None
    return height, width, start_flat, goal_flat


def path_result_python(answer: FlatAnswer) -> PathResult:
    """`path_result` in Python, for a build without `_kernel`."""
    found, cells, cost, expanded = eager_answer(answer)
    return PathResult(found, cells, cost, expanded, Reason.FOUND if found else Reason.UNREACHABLE)


def eager_answer(answer: FlatAnswer) -> Answer:
    """A C search's answer with its flat path laid out as ``(row, col)`` pairs now."""
    found, cells, cost, expanded = answer
    return found, lazy_cells.cells_of(cells) if type(cells) is bytes else (), cost, expanded


flat_ends: Callable[[Any, Any, Any], Ends | None] = flat_ends_python
"""The checks of the common query shape in one call, shared by `sim.navigation.hot_path` and
`sim.navigation.prepared`: ``(height, width, start_flat, goal_flat)`` when `walkable` is a
C-contiguous 2-D numpy bool array (of the class itself) of 1 to 2**31 - 1 cells, `start` and
`goal` tuples of two ints (not bools) naming walkable cells inside it; else None, and the
caller leaves the query to the general path (`Query.check`), which says what is wrong. Nothing
is kept between calls: an array edited, reshaped or retyped in place is read as it is now.
Compiled (``_kernel.flat_ends``, a fifth of a microsecond) when the kernel is built."""

path_result: Callable[[FlatAnswer], PathResult] = path_result_python
"""A C search's answer as the `PathResult` `solve` returns (FOUND, else UNREACHABLE); built in
C (``_kernel.result``, without the frozen dataclass's ``__init__``) when the kernel is built,
its cells then laid out on their first read (`lazy_cells`)."""

if KERNEL_AVAILABLE:
    _kernel.configure(np.ndarray, PathResult, Reason.FOUND, Reason.UNREACHABLE)
    flat_ends = _kernel.flat_ends
    path_result = _kernel.result

COMPILED_ALGORITHMS: tuple[Algorithm, ...] = (
    Algorithm.ASTAR,
    Algorithm.DIJKSTRA,
    Algorithm.BFS,
    Algorithm.GREEDY,
)
"""The algorithms the compiled kernel runs: those whose priority is g_weight * g + h_weight * h."""


def choose(implementation: Implementation | str, algorithm: Algorithm | None = None) -> bool:
    """Return whether C runs a query with `algorithm` (None: the distance field) as asked.

    "c" is C or a ValueError (an algorithm it does not run, or its extension not built);
    "python" is never C; "auto" is C when the extension that runs the algorithm is built
    (`_kernel`, or `_jps` for jump point search). A name that is no `Implementation` is a
    ValueError (`sim.navigation.query.parse_implementation`).

    >>> choose(Implementation.PYTHON), choose("auto", Algorithm.DFS)
    (False, False)
    """
    implementation = parse_implementation(implementation)
    if algorithm is Algorithm.JPS:
        if implementation is Implementation.C and not JPS_AVAILABLE:
            raise ValueError("implementation='c' but the compiled jump point search is not built")
        return implementation is not Implementation.PYTHON and JPS_AVAILABLE
    if implementation is Implementation.C:
        if algorithm is not None:
            _check_compiled(algorithm)
        if not KERNEL_AVAILABLE:
            raise ValueError("implementation='c' but the compiled kernel is not built")
        return True
    runs = algorithm is None or algorithm in COMPILED_ALGORITHMS
    return implementation is Implementation.AUTO and KERNEL_AVAILABLE and runs


def solve(query: Query) -> PathResult:
    """Run a checked `Query` in C: the result of `search.solve`, bit for bit.

    Raises:
        ValueError: for an algorithm C does not run (see `COMPILED_ALGORITHMS`; jps runs in
            `_jps`), or when its extension is not built.
    """
    if query.algorithm is not Algorithm.JPS:
        _check_compiled(query.algorithm)
    early = reason_before_search(query.walkable, query.start, query.goal)
    if early is not None:
        return PathResult.none(early)
    if query.links is not None:
        return linked_solve(query)
    # The query is checked: the C functions are called as the unchecked entries call them, and
    # their answers left flat for `path_result` (cells laid out on first read).
    walkable = np.ascontiguousarray(query.walkable)
    height, width = walkable.shape
    (start_row, start_col), (goal_row, goal_col) = query.start, query.goal
    start, goal = start_row * width + start_col, goal_row * width + goal_col
    if query.algorithm is Algorithm.JPS:
        _check_jps()
        return path_result(jps_search(walkable, height, width, start, goal, query.heuristic.code))
    _check_kernel()
    costs = None if query.costs is None else np.ascontiguousarray(query.costs)
    terms = priority_terms(query.algorithm, query.heuristic, query.weight, query.heuristic_scale)
    answer = _kernel.search(
        walkable,
        costs,
        height,
        width,
        start,
        goal,
        query.rule.code,
        terms.heuristic.code,
        terms.h_factor,
        terms.g_weight,
        terms.unit_steps,
    )
    return path_result(answer)


def find_path(
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    settings: SearchSettings = DEFAULT_SETTINGS,
) -> PathResult:
    """`sim.navigation.find_path` in C only, never falling back: the same result.

    `settings.implementation` is not read: this is C.

    Raises:
        ValueError: as `Query.check` does, and as `solve` does.
    """
    return solve(Query.check(walkable, start, goal, settings))


def search_flat(
    walkable: NDArray[np.bool_],
    costs: NDArray[np.float64] | None,
    start: int,
    goal: int,
    *,
    rule: DiagonalRule,
    heuristic: Heuristic,
    algorithm: Algorithm,
    weight: float,
    heuristic_scale: float | None = None,
) -> Answer:
    """Search from flat cell `start` to flat `goal`; return found, cells, cost, expanded.

    The boundary of the C code: `walkable` must be a C-contiguous 2-D bool array, `costs`
    None or a C-contiguous float64 array of its shape (finite, 0.25 to 100 on walkable cells,
    not checked here), `start` and `goal` walkable flat cells, `rule` a `DiagonalRule`,
    `heuristic_scale` None (then
    computed from the arrays: `sim.navigation.grid.heuristic_scale`) or that value, in
    (0, 1]. Anything else is a ValueError before C reads a byte (and the C function checks
    sizes and indices again). C multiplies the heuristic by ``weight * heuristic_scale``
    (`PriorityTerms.h_factor`), the same float the Python loop uses.
    """
    _check_kernel()
    size = _check_buffers(walkable, costs)
    for name, cell in (("start", start), ("goal", goal)):
        if isinstance(cell, bool) or not isinstance(cell, int | np.integer):
            raise ValueError(f"{name} must be a flat cell index (int), got {cell!r}")
        if not 0 <= cell < size:
            raise ValueError(f"{name} {cell} lies outside the {size} cells of the grid")
        if not walkable.flat[cell]:
            raise ValueError(f"{name} {cell} is not a walkable cell")
    if not isinstance(rule, DiagonalRule):
        raise ValueError(f"rule must be a DiagonalRule, got {rule!r}")
    if heuristic_scale is None:
        heuristic_scale = grid_heuristic_scale(walkable, costs)
    if not (isinstance(heuristic_scale, float) and 0.0 < heuristic_scale <= 1.0):
        raise ValueError(f"heuristic_scale must be a float in (0, 1], got {heuristic_scale!r}")
    terms = priority_terms(algorithm, heuristic, check_weight(weight), heuristic_scale)
    _check_compiled(algorithm)
    height, width = walkable.shape
    return eager_answer(
        _kernel.search(
            walkable,
            costs,
            height,
            width,
            int(start),
            int(goal),
            rule.code,
            terms.heuristic.code,
            terms.h_factor,
            terms.g_weight,
            terms.unit_steps,
        )
    )


def linked_solve(query: Query) -> PathResult:
    """Run a query with links (`query.links`) in C (`_linked.c`): `best_first.solve`'s result.

    The same cells, cost and expansions, bit for bit. Its start and goal must be walkable
    (`reason_before_search` found nothing).

    Raises:
        ValueError: for an algorithm other than astar, dijkstra, bfs and greedy (no C search
            walks links with jump points), or when `_linked` is not built.
    """
    links = query.links
    if links is None or query.algorithm not in COMPILED_ALGORITHMS or not LINKS_AVAILABLE:
        raise ValueError("the compiled search with links runs astar, dijkstra, bfs and greedy")
    walkable = np.ascontiguousarray(query.walkable)
    height, width = walkable.shape
    terms = priority_terms(query.algorithm, query.heuristic, query.weight, query.heuristic_scale)
    bounds = links.bounds(query.goal, terms.heuristic, terms.h_scale)
    bound_cells = np.array([row * width + col for row, col, _ in bounds], dtype=np.int32)
    bound_offsets = np.array([terms.h_weight * d for _, _, d in bounds], dtype=np.float64)
    first, target, hop = links.csr()
    (start_row, start_col), (goal_row, goal_col) = query.start, query.goal
    answer = _linked.search(
        walkable,
        None if query.costs is None else np.ascontiguousarray(query.costs),
        height,
        width,
        start_row * width + start_col,
        goal_row * width + goal_col,
        query.rule.code,
        terms.heuristic.code,
        terms.h_factor,
        terms.g_weight,
        terms.unit_steps,
        first,
        target,
        hop,
        bound_cells,
        bound_offsets,
    )
    return path_result(answer)


def linked_field(
    walkable: NDArray[np.bool_],
    costs: NDArray[np.float64] | None,
    goal: int,
    rule: DiagonalRule,
    links: LinkGraph,
) -> NDArray[np.float64]:
    """`field._reverse_dijkstra_python` with links, in C (`_linked.field`): the same floats.

    `walkable` and `costs` as `field_flat` takes them, `goal` a flat cell of the grid.

    Raises:
        ValueError: when `_linked` is not built.
    """
    if not LINKS_AVAILABLE:
        raise ValueError("the compiled search with links is not built")
    height, width = walkable.shape
    out = np.empty(height * width, dtype=np.float64)
    first, target, hop = links.csr(reverse=True)
    _linked.field(walkable, costs, height, width, goal, rule.code, first, target, hop, out)
    return out


def jps_flat(
    walkable: NDArray[np.bool_],
    start: int,
    goal: int,
    *,
    heuristic: Heuristic = Heuristic.OCTILE,
) -> Answer:
    """Jump point search from flat cell `start` to flat `goal`; return found, cells, cost, expanded.

    The boundary of the C function ``_jps.search``, as `search_flat` is of ``_kernel.search``:
    `walkable` must be a C-contiguous 2-D bool array (every cell costing 1), `start` and `goal`
    walkable flat cells, `heuristic` one of `sim.navigation.query.JPS_HEURISTICS`. Anything
    else is a ValueError before C reads a byte (and the C function checks sizes, indices and
    the buffer's type again).
    """
    _check_jps()
    size = _check_buffers(walkable, None)
    for name, cell in (("start", start), ("goal", goal)):
        if isinstance(cell, bool) or not isinstance(cell, int | np.integer):
            raise ValueError(f"{name} must be a flat cell index (int), got {cell!r}")
        if not 0 <= cell < size:
            raise ValueError(f"{name} {cell} lies outside the {size} cells of the grid")
        if not walkable.flat[cell]:
            raise ValueError(f"{name} {cell} is not a walkable cell")
    if heuristic not in JPS_HEURISTICS:
        raise ValueError(f"jps does not take the heuristic {heuristic!r}")
    height, width = walkable.shape
    # Weight 1 and no costs (heuristic scale 1): A*'s h_factor is 1.0 (PriorityTerms.h_factor).
    return eager_answer(
        _jps.search(walkable, height, width, int(start), int(goal), heuristic.code, 1.0)
    )


def jps_search(
    walkable: NDArray[np.bool_],
    height: int,
    width: int,
    start: int,
    goal: int,
    heuristic_code: int = Heuristic.OCTILE.code,
) -> FlatAnswer:
    """`jps_flat` without its checks, for `sim.navigation.hot_path` and `.prepared`.

    The caller has made every check `jps_flat` makes (`JPS_AVAILABLE`, a C-contiguous 2-D bool
    array of `height` x `width`, walkable flat cells inside it, the code of a heuristic of
    `JPS_HEURISTICS`); the C function still checks sizes, indices and the buffer's type, so a
    slip is a ValueError, never a bad read.
    """
    return _jps.search(walkable, height, width, start, goal, heuristic_code, 1.0)


def search_terms(
    walkable: NDArray[np.bool_],
    height: int,
    width: int,
    start: int,
    goal: int,
    rule_code: int,
    heuristic_code: int,
    h_factor: float,
    g_weight: float,
    unit_steps: bool,
) -> FlatAnswer:
    """`search_flat` without costs and without its checks, for `sim.navigation.prepared`.

    The caller has made `search_flat`'s checks (`KERNEL_AVAILABLE`, an algorithm C runs, the
    buffer, walkable flat cells) and settled the priority terms once for its options; the C
    function still checks sizes, indices and the buffer's type.
    """
    return _kernel.search(
        walkable,
        None,
        height,
        width,
        start,
        goal,
        rule_code,
        heuristic_code,
        h_factor,
        g_weight,
        unit_steps,
    )


class LandmarkFields(Protocol):
    """What the C search reads of `landmarks.Landmarks`, named here so no import circles back."""

    @property
    def fields(self) -> NDArray[np.float64]:
        """``[cell, landmark]`` float64 distance fields."""

    @property
    def snapshot(self) -> NDArray[np.bool_]:
        """The array the fields were built from."""


def jps_landmarks(
    walkable: NDArray[np.bool_],
    height: int,
    width: int,
    start: int,
    goal: int,
    landmarks: LandmarkFields,
) -> FlatAnswer | None:
    """`jps_search` with the heuristic raised by `landmarks` (`sim.navigation.searches.landmarks`).

    None, without a search, when `walkable` no longer holds the bytes the landmarks were
    built from (C compares them first). The caller has made `jps_search`'s checks; C checks
    sizes, indices and the buffers' types again.
    """
    return _jps.search_landmarks(
        walkable, height, width, start, goal, landmarks.fields, landmarks.snapshot
    )


def field_flat(
    walkable: NDArray[np.bool_],
    costs: NDArray[np.float64] | None,
    goal: int,
    *,
    diagonal: DiagonalRule | bool,
) -> NDArray[np.float64]:
    """Return the flat cost from every cell to flat `goal`, as `field._reverse_dijkstra` does.

    The boundary of the C function ``_kernel.field``: `walkable` must be a C-contiguous 2-D
    bool array, `costs` None or a C-contiguous float64 array of its shape (finite, 0.25 to 100
    on walkable cells, not checked here), `goal` a flat cell index inside the grid. A blocked
    `goal` is allowed and gives ``inf`` everywhere, as in Python. `diagonal` is the rule (True
    and False, its old spellings, still pass), checked here as the buffers are. Anything else
    is a ValueError before C reads a byte (and the C function checks sizes and indices again).
    """
    _check_kernel()
    size = _check_buffers(walkable, costs)
    if isinstance(goal, bool) or not isinstance(goal, int | np.integer):
        raise ValueError(f"goal must be a flat cell index (int), got {goal!r}")
    if not 0 <= goal < size:
        raise ValueError(f"goal {goal} lies outside the {size} cells of the grid")
    height, width = walkable.shape
    out = np.empty(size, dtype=np.float64)
    _kernel.field(walkable, costs, height, width, int(goal), parse_diagonal(diagonal).code, out)
    return out


MAX_CLEARANCE_SIDE = 2**25
"""The longest side `clearance_flat` takes: squared lattice distances stay exact in a float."""


def clearance_flat(walkable: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Return ``[row, col]`` each cell centre's squared distance to the nearest wall, in half cells.

    The boundary of the C function ``_kernel.clearance``, the same integers as
    `sim.navigation.clearance`'s numpy reference: `walkable` must be a C-contiguous 2-D bool
    array of at most `MAX_CLEARANCE_SIDE` cells a side; anything else is a ValueError before C
    reads a byte (and the C function checks the sizes again).
    """
    _check_kernel()
    _check_buffers(walkable, None)
    height, width = walkable.shape
    if max(height, width) > MAX_CLEARANCE_SIDE:
        raise ValueError(f"walkable must be at most 2**25 cells a side, got {walkable.shape}")
    out = np.empty((height, width), dtype=np.int64)
    _kernel.clearance(walkable, height, width, out)
    return out


def check_compiled(algorithm: Algorithm) -> None:
    """Raise ValueError unless `_kernel` is built and runs `algorithm` (the batch call's check)."""
    _check_kernel()
    _check_compiled(algorithm)


def _check_kernel() -> None:
    """Raise ValueError when `_kernel` is not built (`jps_flat` needs only `_jps`)."""
    if not KERNEL_AVAILABLE:
        raise ValueError("the compiled kernel sim.navigation.searches._kernel is not available")


def _check_jps() -> None:
    """Raise ValueError when `_jps` is not built."""
    if not JPS_AVAILABLE:
        raise ValueError(
            "the compiled jump point search sim.navigation.searches._jps is not available"
        )


def _check_buffers(walkable: object, costs: object) -> int:
    """Check the arrays C will read (see `search_flat`); return the number of cells."""
    if not isinstance(walkable, np.ndarray) or walkable.ndim != 2 or walkable.dtype != np.bool_:
        raise ValueError(f"walkable must be a 2-D numpy bool array, got {_describe(walkable)}")
    if not walkable.flags.c_contiguous:
        raise ValueError("walkable must be C-contiguous (use np.ascontiguousarray)")
    size = int(walkable.size)
    if not 0 < size <= _MAX_CELLS:
        raise ValueError(f"walkable must have 1 to 2**31 - 1 cells, got {walkable.shape}")
    if costs is not None:
        if not isinstance(costs, np.ndarray) or costs.dtype != np.float64:
            raise ValueError(f"costs must be a float64 numpy array or None, got {_describe(costs)}")
        if costs.shape != walkable.shape:
            raise ValueError(f"costs must have shape {walkable.shape}, got {costs.shape}")
        if not costs.flags.c_contiguous:
            raise ValueError("costs must be C-contiguous (use np.ascontiguousarray)")
    return size


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
