"""`find_path` in one C call: options checked once, the query answered without Python between.

`sim.navigation.prepared` made a call with explicit options check them once, and
`sim.navigation.hot_path` made the default call skip the general checks; what was left was
the Python between them and C: a key built from the options, the array and cells checked in
one C call, the region cache asked in another, the search in a third, the `PathResult` in a
fourth, each with its frame (about 1.4 us a call on a 49 x 49 map, where the search of a
27-cell path takes 0.5). `call` (``_kernel.call``) does all of it in one C function:

- it matches the five options (``algorithm``, ``diagonal``, ``heuristic``, ``weight``,
  ``implementation``, as given) against the sets `learn` has kept: the same objects, or of the
  very same type (str, bool, int, float) and equal, so True never stands for 1 nor 1 for 1.0;
- it makes `sim.navigation.searches.kernel.flat_ends`'s checks of the array and the cells;
- under the rules the region cache labels (`sim.navigation.regions.cache`) it reads the
  array's region labels from a memo that holds the array and its map weakly and is dropped as
  soon as the map's ``version`` moves or the array changes shape: a start and goal of one
  region are searched here, any other query goes the Python way, which may prove it
  unreachable at once. Labels behind an array edited in place cannot make an answer wrong:
  a same-region query is searched on the array as it is now (jump point search checks its
  packed copies against it row by row), and a search that finds no path there is left to the
  Python path, which searches again and learns from it (`region_cache.learn`);
- with every option at its default, on an array `landmarks.search` may serve (`landmarks.MIN_CELLS`
  to `landmarks.MAX_CELLS` cells, the ends farther apart than `landmarks.NEAR_CELLS`) it hands
  the checked query to `landmarks.search` itself, as `sim.navigation.hot_path` would, and builds
  the `PathResult` from its answer: the landmark fields' and jump tables' decisions stay
  Python's, the checks and the frames between are gone (about 2 us of an 8 us query on
  Berlin_0_256); a not-found answer there (labels behind the array) is answered by `missed`,
  which learns from it as `hot_path.plan` does. The function is the one `landmarks.search`
  named at import: replacing that name later does not reach `call`.

It answers a `PathResult` (the one the Python path returns, field for field: a property test
holds the two to it), None when the Python path answers (anything it cannot answer exactly so:
another array type, a cell that is not a tuple of two ints, a blocked or outside cell, options
of other types, the Python implementation, other regions), or NotImplemented when the Python
path answers and `learn` should be told after it (options not seen yet, an array without a
labels memo). Without the compiled kernels `call` always answers None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation import prepared
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.heuristics import Heuristic
from sim.navigation.query import PathResult, Query, SearchSettings
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import array_cache, jump_cache, kernel, landmarks

KIND_DEFAULTS, KIND_JPS, KIND_KERNEL, KIND_PYTHON = 0, 1, 2, 3
"""How `call` answers a kept set of options (``_kernel.c``'s ``KIND_*``): the default call,
jump point search, the compiled best-first loop, or never (the Python path answers)."""

COMPILED = kernel.KERNEL_AVAILABLE and kernel.JPS_AVAILABLE
LANE_RETRY = 64
"""The queries a declined lane waits before `offer` is asked again (``_plain_lane.h`` caps it)."""
"""Whether `call` runs in C: both searches are built."""


def _never(*_: Any) -> None:
    """`call` without the compiled kernels: the Python path answers every query."""


def missed(walkable: Any, start: Any, goal: Any, answer: kernel.FlatAnswer) -> PathResult:
    """`landmarks.search`'s not-found `answer` for a query `call` handed it, as `PathResult`.

    `call` checked the query as `sim.navigation.hot_path.plan` does; this ends it as that
    does: the region cache learns the goal unreachable (`region_cache.learn`).
    """
    result = kernel.path_result(answer)
    region_cache.learn(Query.check(walkable, start, goal), result)
    return result


def offer(walkable: NDArray[np.bool_]) -> tuple[int, float, float, float] | int:
    """A plain lane for `walkable`'s default queries (``_plain_lane.h``), or queries to wait.

    Offered once fields have been judged not to pay on it and while no offline index is built
    or building: ``(found queries until landmarks' next decision or -1, rent left in ns, rent
    of a query, rent of a jump point)``, jump_cache's figures. Otherwise the queries after
    which asking again may find one (while probing, those before its decision; else
    ``LANE_RETRY``, C's cap).
    """
    probes = landmarks.probes_left(walkable)
    rent = None if probes is None else jump_cache.rent_left(walkable)
    if probes is None or rent is None:
        return landmarks.probing_left(walkable) or LANE_RETRY
    return probes, rent, jump_cache.RENT_NS_PER_QUERY, jump_cache.RENT_NS_PER_EXPANSION


def settle(
    walkable: NDArray[np.bool_],
    expanded: bytes,
    queries: int,
    rent_ns: float,
    seed: int,
    touched: int = 0,
) -> None:
    """A lane's counts into jump_cache's and landmarks' notes, in the order `search` adds them.

    `expanded` holds the found queries' jump points (int64 each), `queries` every query, found
    or not, and `rent_ns` their rent; `seed` is the last query's start, `touched` its
    ``array_cache.clock`` stamp (the notes count as used then, as that query would have made
    them).
    """
    jump_cache.settle(walkable, queries, rent_ns, touched)
    landmarks.settle(walkable, np.frombuffer(expanded, dtype=np.int64).tolist(), seed, touched)


call: Callable[..., Any] = _never
"""``call(walkable, start, goal, algorithm, diagonal, heuristic, weight, implementation)``:
a `PathResult`, None or NotImplemented (see the module)."""

if COMPILED:
    from sim.navigation.searches import _jps, _kernel

    _kernel.call_setup(
        _jps.plain,
        landmarks.MIN_CELLS,
        landmarks.MAX_CELLS,
        landmarks.NEAR_CELLS,
        landmarks.search,
        missed,
    )
    _kernel.lane_setup(offer, settle)
    array_cache.dropped.append(_kernel.lane_drop)
    array_cache.clock.append(_kernel.lane_tick)
    array_cache.touched.append(_kernel.lanes_touched)
    call = _kernel.call


def learn(
    walkable: NDArray[np.bool_],
    algorithm: object,
    diagonal: object,
    heuristic: object,
    weight: object,
    implementation: object,
) -> None:
    """Keep what `call` needs for these options and this array; after the Python path answered.

    The options are checked by then (the Python path raised for any it refuses); they are
    settled once as `sim.navigation.prepared` settles them. The array's labels are kept once
    the region cache has labelled it (its second query), never labelled here.
    """
    if not COMPILED:
        return
    options = (algorithm, diagonal, heuristic, weight, implementation)
    ready = prepared.prepared(diagonal, heuristic, algorithm, weight, implementation)  # type: ignore[arg-type]
    if ready is not None:
        kind = KIND_JPS if ready.jps else KIND_KERNEL
        _kernel.call_learn(
            options,
            kind,
            ready.labelled,
            ready.rule_code,
            ready.heuristic_code,
            ready.h_factor,
            ready.g_weight,
            ready.unit_steps,
        )
        labelled = ready.labelled
    else:
        settings = SearchSettings.parse(
            diagonal=diagonal,
            heuristic=heuristic,  # type: ignore[arg-type]
            algorithm=algorithm,  # type: ignore[arg-type]
            weight=weight,  # type: ignore[arg-type]
            implementation=implementation,  # type: ignore[arg-type]
        )
        labelled = settings.common
        rule, code = DiagonalRule.NO_CORNER_CUTTING.code, Heuristic.OCTILE.code
        kind = KIND_DEFAULTS if labelled else KIND_PYTHON
        _kernel.call_learn(options, kind, labelled, rule, code, 1.0, 1.0, False)
    # `call` reads only C-contiguous numpy arrays: a strided view's labels are never asked.
    if labelled and isinstance(walkable, np.ndarray) and walkable.flags.c_contiguous:
        regions = region_cache.labelled(walkable)
        if regions is not None and regions.shape == walkable.shape:
            labels, _, _, version = regions.proof_parts()
            _kernel.remember_labels(walkable, regions, labels, version)
