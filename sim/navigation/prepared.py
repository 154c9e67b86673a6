"""Explicit options, checked once: `find_path` with settings seen before skips their checks.

`find_path(walkable, start, goal, algorithm="astar")` used to check its options on every call
(parse the names, resolve "auto", check what jump point search accepts, choose C or Python):
some 12 microseconds before C started, the whole of a short query. Without costs those checks
depend on the options alone, so `prepare` makes them once per distinct set of options and keeps
what the C call needs (`PreparedCall`); `plan` then checks only what depends on the query (the
array's type and shape, the two cells: `kernel.flat_ends`, the checks `sim.navigation.hot_path`
makes too, in one C call), asks the region cache, calls C directly and has C build the result
(`kernel.path_result`), the one the general path would return (a property test holds the two to
it). A call so prepared pays under 2 microseconds before its search. Anything else (costs,
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
_UNREACHABLE = PathResult.none(Reason.UNREACHABLE)
"""One frozen answer for every proven-unreachable query: building one costs a microsecond."""
MAX_PREPARED = 256
"""Distinct option sets kept; beyond it the table starts afresh (options are few in practice)."""


@dataclass(frozen=True, slots=True)
class PreparedCall:
    """What a query under one set of checked options hands the C kernel."""

    settings: SearchSettings
    jps: bool
    rule: DiagonalRule
    labelled: bool
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
    labelled = region_cache.rule_of(probe.rule) is not None
    if not kernel.choose(settings.implementation, algorithm):
        return None
    if algorithm is Algorithm.JPS:
        if probe.heuristic not in JPS_HEURISTICS:
            return None
        code = probe.heuristic.code
        return PreparedCall(
            settings, True, probe.rule, labelled, probe.rule.code, code, 1.0, 1.0, False
        )
    terms = priority_terms(algorithm, probe.heuristic, probe.weight, 1.0)
    return PreparedCall(
        settings,
        False,
        probe.rule,
        labelled,
        probe.rule.code,
        terms.heuristic.code,
        terms.h_factor,
        terms.g_weight,
        terms.unit_steps,
    )


def plan(call: PreparedCall, walkable: Any, start: Any, goal: Any) -> PathResult | None:
    """`find_path_with(walkable, start, goal, call.settings)`, or None for the general path.

    The query's checks are `sim.navigation.hot_path`'s (`kernel.flat_ends`): one C call.
    """
    ends = kernel.flat_ends(walkable, start, goal)
    if ends is None:
        return None
    height, width, start_flat, goal_flat = ends
    # The rules the cache labels share one labelling, the one known_apart_flat reads (and it
    # asks fewer questions than known_apart: the cells are checked already).
    if call.labelled and region_cache.known_apart_flat(walkable, start_flat, goal_flat):
        return _UNREACHABLE
    if call.jps:
        answer = kernel.jps_search(
            walkable, height, width, start_flat, goal_flat, call.heuristic_code
        )
    else:
        answer = kernel.search_terms(
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
    result = kernel.path_result(answer)
    if not result.found:
        region_cache.learn(Query.check(walkable, start, goal, call.settings), result)
    return result
