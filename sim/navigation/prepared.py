"""Explicit options, checked once: `find_path` with settings seen before skips their checks.

`find_path(walkable, start, goal, algorithm="astar")` used to check its options on every call
(parse the names, resolve "auto", check what jump point search accepts, choose C or Python):
some 12 microseconds before C started, the whole of a short query. Without costs those checks
depend on the options alone, so `prepare` makes them once per distinct set of options and keeps
what the C call needs (`PreparedCall`); `plan` then checks only what depends on the query (the
array's type and shape, the two cells), asks the region cache, and calls C directly, returning
the result the general path would (a property test holds the two to it). Anything else (costs,
a search C does not run, the Python implementation, any call that ends in an error or an early
"no path" reason) goes the general way, which says it in its own words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.navigation.diagonal import DiagonalRule
from sim.navigation.query import (
    JPS_HEURISTICS,
    Algorithm,
    Implementation,
    PathResult,
    Query,
    Reason,
    SearchSettings,
    priority_terms,
)
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import kernel

OptionKey = tuple[Any, ...]

_PREPARED: dict[OptionKey, PreparedCall | None] = {}
"""Options seen before, by their values and types; None: the general path is theirs."""
MAX_PREPARED = 256
"""Distinct option sets kept; beyond it the table starts afresh (options are few in practice)."""


@dataclass(frozen=True, slots=True)
class PreparedCall:
    """What a query under one set of checked options hands the C kernel."""

    settings: SearchSettings
    jps: bool
    rule: DiagonalRule
    rule_code: int
    heuristic_code: int
    h_factor: float
    g_weight: float
    unit_steps: bool


def prepared(
    diagonal: bool | str, heuristic: str, algorithm: str, weight: float, implementation: str
) -> PreparedCall | None:
    """The checked options of a call without costs, or None for the general path.

    Raises:
        ValueError: as `SearchSettings.parse` does, for options it refuses (then nothing is
            kept, and the next such call raises again).
    """
    key = (
        type(diagonal),
        diagonal,
        type(heuristic),
        heuristic,
        type(algorithm),
        algorithm,
        type(weight),
        weight,
        type(implementation),
        implementation,
        # Whether C runs a search is part of the answer (tests switch the kernels off).
        kernel.KERNEL_AVAILABLE,
        kernel.JPS_AVAILABLE,
    )
    try:
        return _PREPARED[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable option: the general path checks it
        return None
    settings = SearchSettings.parse(
        diagonal=diagonal,
        heuristic=heuristic,
        algorithm=algorithm,
        costs=None,
        weight=weight,
        implementation=implementation,
    )
    call = _prepare(settings)
    if len(_PREPARED) >= MAX_PREPARED:
        _PREPARED.clear()
    _PREPARED[key] = call
    return call


def _prepare(settings: SearchSettings) -> PreparedCall | None:
    """Settle `settings` without an array: what the general path's checks would decide.

    The common settings (however spelled) are `sim.navigation.hot_path`'s, which may add
    landmark fields on large arrays: they go the way `find_path_with` sends them.
    """
    if settings.implementation is Implementation.PYTHON or settings.common:
        return None
    # An explicit array-free check: the same query on a one-cell grid.
    probe = Query.check(np.ones((1, 2), dtype=bool), (0, 0), (0, 1), settings)
    algorithm = probe.algorithm
    if not kernel.choose(settings.implementation, algorithm):
        return None
    if algorithm is Algorithm.JPS:
        if probe.heuristic not in JPS_HEURISTICS:
            return None
        code = probe.heuristic.code
        return PreparedCall(settings, True, probe.rule, probe.rule.code, code, 1.0, 1.0, False)
    terms = priority_terms(algorithm, probe.heuristic, probe.weight, 1.0)
    return PreparedCall(
        settings,
        False,
        probe.rule,
        probe.rule.code,
        terms.heuristic.code,
        terms.h_factor,
        terms.g_weight,
        terms.unit_steps,
    )


def plan(call: PreparedCall, walkable: Any, start: Any, goal: Any) -> PathResult | None:
    """`find_path_with(walkable, start, goal, call.settings)`, or None for the general path."""
    if not (
        type(walkable) is np.ndarray
        and walkable.ndim == 2
        and walkable.dtype.char == "?"
        and walkable.flags.c_contiguous
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
    if region_cache.known_apart(walkable, start, goal, call.rule):
        return PathResult.none(Reason.UNREACHABLE)
    if call.jps:
        found, cells, cost, expanded = kernel.jps_search(
            walkable, height, width, start_flat, goal_flat, call.heuristic_code
        )
    else:
        found, cells, cost, expanded = kernel.search_terms(
            walkable,
            height,
            width,
            start_flat,
            goal_flat,
            call.rule_code,
            call.heuristic_code,
            call.h_factor,
            call.g_weight,
            call.unit_steps,
        )
    if found:
        return PathResult(True, cells, cost, expanded, Reason.FOUND)
    result = PathResult(False, cells, cost, expanded, Reason.UNREACHABLE)
    region_cache.learn(Query.check(walkable, start, goal, call.settings), result)
    return result
