"""`find_path`: the entry point of the pathfinding core.

`find_path` takes its options as bools and names and turns them into `SearchSettings` once;
`find_path_with` takes such settings, for callers that hold them as values (the app). It
checks a query once (`Query.check`), then runs it on the compiled kernel
(`sim.navigation.searches.kernel`) or on the Python reference loop
(`sim.navigation.searches.best_first`); both give identical results, and neither checks the
arguments again in its own words. Many pairs on one array: `sim.navigation.batch.find_paths`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, TypedDict

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import Cell
from sim.navigation.link_graph import LinkGraph
from sim.navigation.links import NavLink
from sim.navigation.query import (
    AUTO,
    DEFAULT_SETTINGS,
    Algorithm,
    Implementation,
    PathResult,
    Query,
    Reason,
    SearchSettings,
    reason_before_search,
)
from sim.navigation.regions import cache as region_cache
from sim.navigation.regions.cache import proven_apart
from sim.navigation.searches import best_first as search

_UNREACHABLE = PathResult.none(Reason.UNREACHABLE)
"""One frozen answer for every proven-unreachable query: building one costs a microsecond."""

_common_plan: Callable[[Any, Any, Any], PathResult | None] | None = None
"""`hot_path.plan` once loaded: an import statement on every call would cost a microsecond."""


_prepared: ModuleType | None = None
"""`sim.navigation.prepared` once loaded: imported on first use, as hot_path is."""


def _load_prepared() -> ModuleType:
    global _prepared
    from sim.navigation import prepared

    _prepared = prepared
    return prepared


_call_cache: ModuleType | None = None
"""`sim.navigation.searches.call_cache` once loaded (importing kernel warns when unbuilt)."""


def _load_call_cache() -> ModuleType:
    global _call_cache
    from sim.navigation.searches import call_cache

    _call_cache = call_cache
    return call_cache


def _load_common_plan() -> Callable[[Any, Any, Any], PathResult | None]:
    global _common_plan
    # Imported on first use, like kernel below (hot_path imports it).
    from sim.navigation import hot_path

    _common_plan = hot_path.plan
    return _common_plan


class SearchOptions(TypedDict, total=False):
    """`find_path`'s options (but `links`) as keywords: what `find_paths` takes for every pair.

    One list, so that the two cannot drift apart: `find_paths` passes them on to
    `SearchSettings.parse` as given, and `find_path` spells them out in its signature (its
    common call reads them before any settings are built) with `SearchSettings.parse`'s
    defaults, which `tests/unit/test_find_paths.py` holds equal to this list.
    """

    diagonal: bool | str
    heuristic: str
    algorithm: str
    costs: NDArray[Any] | None
    weight: float
    implementation: str


def find_path(
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    *,
    diagonal: bool | str = True,
    heuristic: str = "octile",
    algorithm: str = "auto",
    costs: NDArray[Any] | None = None,
    weight: float = 1.0,
    implementation: str = "auto",
    links: Sequence[NavLink] | None = None,
) -> PathResult:
    """Find a path from `start` to `goal` (``(row, col)``) on a ``[row, col]`` walkable mask.

    Args:
        walkable: 2-D bool array, True where a path may go.
        start: first cell of the path; must lie in the grid.
        goal: last cell; a goal outside the grid gives ``found=False``.
        diagonal: the diagonal rule (`sim.navigation.diagonal`): "never" (4-connected),
            "no-corner-cutting" (8-connected, both corners a diagonal passes walkable: the
            Moving AI rule), "one-obstacle" (at least one of them walkable) or "always" (only
            the two end cells walkable); True is "no-corner-cutting" and False "never", their
            old meanings. astar, dijkstra, bfs, greedy, dfs and bidirectional run every rule,
            in C and in Python alike; jps and theta know "no-corner-cutting" (and theta
            "never") only, and "auto" runs A* under the others. Regions
            (`sim.navigation.regions.cache`) serve "never" and "no-corner-cutting" only: under
            the others an unreachable goal is found by searching.
        heuristic: manhattan, octile, euclidean, chebyshev or zero (see `heuristics` for
            which are admissible); used by astar, greedy, jps and bidirectional.
        algorithm: auto (the default), astar, dijkstra, bfs, greedy, dfs, jps, bidirectional or
            theta. "auto" runs the fastest exact search for the query
            (`sim.navigation.query.resolve_auto`): jump point search (`sim.navigation.searches.jps`)
            when every walkable cell costs 1, moves are 8-connected, the weight is 1 and the
            heuristic octile, else A*; both find a shortest path of the same cost, not always the
            same cells. "jps" forces jump point search and refuses what it cannot run
            (`sim.navigation.query.check_jps`): costs other than 1, 4-connected moves, manhattan, a
            weight above 1. With every option at its default, on an array of 256 x 256 cells or more
            queried again and again, jump point search may raise octile by landmark distance fields
            where the first queries show it pays (`sim.navigation.searches.landmarks`): the same
            cost, fewer expansions. "bidirectional" runs A* from both ends
            (`sim.navigation.searches.bidirectional`): A*'s cost under any moves and costs; weight 1
            only. "theta" runs Theta* (`sim.navigation.searches.theta`): an any-angle path whose
            ``cells`` are its *vertices* (start, turning cells, goal; consecutive ones see each
            other under the no-corner-cutting rule, `sim.navigation.line_of_sight.segment_is_clear`)
            and whose ``cost`` is the Euclidean length of its segments, never above A*'s; it takes
            no costs other than 1 and weight 1 only, and always estimates with the straight line.
        costs: optional per-cell multiplier, finite, from 0.25 to 100 on walkable cells
            (anything on blocked ones), charged on entering a cell. When some walkable cell
            costs less than 1, astar and greedy multiply the heuristic by the smallest
            walkable cost (`sim.navigation.grid.heuristic_scale`), so that an admissible
            heuristic stays admissible and A* optimal; with costs of 1 or more the heuristic
            is used as it is.
        weight: heuristic weight for astar, >= 1 (1 is plain A*); the cost stays within
            ``weight`` x optimal for an admissible heuristic.
        implementation: "c" runs the compiled kernel (`sim.navigation.searches.kernel`), "python"
            the loop of `Search` (of `JumpPointSearch` for jps), "auto" the kernel when it is built;
            both give identical results. The kernel does not run dfs, bidirectional or theta: "auto"
            runs them in Python, "c" refuses them.
        links: `sim.navigation.links.NavLink`s a path may take besides grid moves (jumps,
            ladders, teleports, one-way drops): a hop from a link's start to its end costs
            exactly its cost (`sim.navigation.links`). With links, "auto" runs A* (in C when
            built); jps and bidirectional run them in Python only ("c" refuses them) and theta
            refuses them. None or empty: no links.

    Returns:
        A PathResult; no path is ``found=False`` with a reason, never an exception. A goal
        known to lie in another region than the start (`sim.navigation.regions.cache`: from
        the second query with the same array, or after a search found it unreachable) is
        ``unreachable`` at once, with ``expanded == 0``.

    Raises:
        ValueError: naming the value, for a mask that is not 2-D bool, bad costs, a start outside
            the grid or a cell that is not two integers, an unknown heuristic or algorithm, a
            diagonal that is not True, False or a rule name, a weight below 1, what jps,
            bidirectional or theta cannot run, an unknown implementation, or "c" when the kernel is
            not built or does not run the algorithm.

    >>> walkable = np.array([[1, 1, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)
    >>> result = find_path(walkable, (0, 0), (2, 0))  # no corner cutting around (1, 0)
    >>> result.cells
    ((0, 0), (0, 1), (1, 1), (2, 1), (2, 0))
    >>> result.cost, result.reason
    (4.0, <Reason.FOUND: 'found'>)
    >>> find_path(walkable, (0, 0), (1, 0)).reason
    <Reason.GOAL_BLOCKED: 'goal blocked'>
    >>> round(find_path(walkable, (0, 0), (2, 2)).cost, 4)  # 1 + sqrt(2) + 1
    3.4142
    >>> road = np.ones((3, 10))
    >>> road[2, :] = 0.25  # a road along the last row: the detour by it beats 9 straight steps
    >>> result = find_path(np.ones((3, 10), dtype=bool), (0, 0), (0, 9), costs=road)
    >>> len(result.cells), round(result.cost, 4)  # 1 + sqrt(2)/4 + 8/4 + 1 + 1
    (13, 5.3536)
    """
    if costs is None and not links:
        # The whole call in C for options and arrays seen before (`call_cache`); None or
        # NotImplemented: the Python path below answers (and with NotImplemented, teaches it).
        cheap = _call_cache or _load_call_cache()
        if cheap.COMPILED and cheap.kernel.KERNEL_AVAILABLE and cheap.kernel.JPS_AVAILABLE:
            answer = cheap.call(
                walkable, start, goal, algorithm, diagonal, heuristic, weight, implementation
            )
            if answer is not None:
                if answer is not NotImplemented:
                    return answer  # type: ignore[no-any-return]
                result = _without_costs(
                    walkable, start, goal, diagonal, heuristic, algorithm, weight, implementation
                )
                cheap.learn(walkable, algorithm, diagonal, heuristic, weight, implementation)
                return result
        return _without_costs(
            walkable, start, goal, diagonal, heuristic, algorithm, weight, implementation
        )
    # Links, costs, or options `prepared` does not keep: each checked here in its own words.
    settings = SearchSettings.parse(
        diagonal=diagonal,
        heuristic=heuristic,
        algorithm=algorithm,
        costs=costs,
        weight=weight,
        implementation=implementation,
    )
    return find_path_with(walkable, start, goal, settings, links)


def _without_costs(
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    diagonal: bool | str,
    heuristic: str,
    algorithm: str,
    weight: float,
    implementation: str,
) -> PathResult:
    """`find_path` without costs and links, in Python: the default call, or prepared options."""
    if (
        algorithm == AUTO
        and heuristic == "octile"
        and (diagonal is True or (isinstance(diagonal, str) and diagonal == _MOVING_AI_RULE))
        and type(weight) in (float, int)
        and weight == 1
        and implementation == "auto"
    ):
        # The common call, recognised without building settings (those take microseconds),
        # and answered as `find_path_with` answers it, without that call's frame.
        if proven_apart(walkable, start, goal):
            return _UNREACHABLE
        common = (_common_plan or _load_common_plan())(walkable, start, goal)
        if common is not None:
            return common
        return _general(walkable, start, goal, DEFAULT_SETTINGS)
    # Options seen before are checked already: only the query is left to check.
    fast_path = _prepared or _load_prepared()
    call = fast_path.prepared(diagonal, heuristic, algorithm, weight, implementation)
    if call is not None:
        fast: PathResult | None = fast_path.plan(call, walkable, start, goal)
        if fast is not None:
            return fast
        return find_path_with(walkable, start, goal, call.settings)
    # Options `prepared` does not keep: each checked here in its own words.
    settings = SearchSettings.parse(
        diagonal=diagonal,
        heuristic=heuristic,
        algorithm=algorithm,
        weight=weight,
        implementation=implementation,
    )
    return find_path_with(walkable, start, goal, settings)


_MOVING_AI_RULE = DiagonalRule.NO_CORNER_CUTTING.value


def find_path_with(
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    settings: SearchSettings = DEFAULT_SETTINGS,
    links: Sequence[NavLink] | None = None,
) -> PathResult:
    """`find_path` with its options as one value: the same result, the same errors.

    With every option at its default (`SearchSettings.common`: no costs, the
    no-corner-cutting rule, octile, "auto", weight 1, "auto" implementation) a plain mask and
    two cells take the short way (`sim.navigation.hot_path`), whatever form the caller gave
    the options in. Without links and costs, settings whose queries answered before go through
    `find_path`'s one C call (`sim.navigation.searches.call_cache`) first, as their options.

    >>> from sim.navigation.diagonal import DiagonalRule
    >>> four = SearchSettings(rule=DiagonalRule.NEVER)
    >>> find_path_with(np.ones((2, 2), dtype=bool), (0, 0), (1, 1), four).cost
    2.0
    """
    if links:
        return _find_linked(walkable, start, goal, settings, links)
    if settings.costs is None:
        # The C call of `find_path` (`call_cache`), given these settings as its options.
        cheap = _call_cache or _load_call_cache()
        if cheap.COMPILED and cheap.kernel.KERNEL_AVAILABLE and cheap.kernel.JPS_AVAILABLE:
            options = _options_of(settings)
            answer = cheap.call(walkable, start, goal, *options)
            if answer is not None:
                if answer is not NotImplemented:
                    return answer  # type: ignore[no-any-return]
                result = _settled(walkable, start, goal, settings)
                cheap.learn(walkable, *options)
                return result
    return _settled(walkable, start, goal, settings)


_SETTINGS_KEPT = 8
"""How many settings objects `_options_of` remembers (the app holds one or two)."""

_options_of_settings: list[tuple[SearchSettings, tuple[object, ...]]] = []
"""Settings `find_path_with` was given lately and their `find_path` options, latest first."""


def _options_of(settings: SearchSettings) -> tuple[object, ...]:
    """`settings` as `find_path`'s five options, which `SearchSettings.parse` reads back.

    In `find_path`'s order: algorithm, diagonal, heuristic, weight, implementation. The same
    objects for the same settings object, found by identity (hashing the settings costs more
    than the call it serves), so that the C call matches them at once.
    """
    for kept, options in _options_of_settings:
        if kept is settings:
            return options
    algorithm = AUTO if settings.algorithm is None else settings.algorithm.value
    options = (
        algorithm,
        settings.rule.value,
        settings.heuristic.value,
        settings.weight,
        settings.implementation.value,
    )
    _options_of_settings.insert(0, (settings, options))
    del _options_of_settings[_SETTINGS_KEPT:]
    return options


def _settled(
    walkable: NDArray[np.bool_], start: Cell, goal: Cell, settings: SearchSettings
) -> PathResult:
    """`find_path_with` without links in Python: the common settings' short way, or the general."""
    if settings.common:
        # The common call: the same answer in a fraction of the general path's checks, and
        # an unreachable one proven again from the last proof without any Python (`_apart`).
        if proven_apart(walkable, start, goal):
            return _UNREACHABLE
        common = (_common_plan or _load_common_plan())(walkable, start, goal)
        if common is not None:
            return common
    return _general(walkable, start, goal, settings)


def _general(
    walkable: NDArray[np.bool_], start: Cell, goal: Cell, settings: SearchSettings
) -> PathResult:
    """The general path: every check in its own words (`Query.check`), then C or Python."""
    # Imported here: importing kernel warns once when the extension is not built, and a
    # caller that never searches should not see that.
    from sim.navigation.searches import kernel

    query = Query.check(walkable, start, goal, settings)
    in_c = kernel.choose(settings.implementation, query.algorithm)
    # A goal proven out of reach (`region_cache`) needs no search, in C or in Python alike.
    if region_cache.known_unreachable(query):
        return PathResult.none(Reason.UNREACHABLE)
    result = kernel.solve(query) if in_c else search.solve(query)
    region_cache.learn(query, result)
    return result


def _find_linked(
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    settings: SearchSettings,
    links: Sequence[NavLink],
) -> PathResult:
    """`find_path_with` for a query with links (`find_path` says what changes with them)."""
    # Imported here, as in `find_path_with`: importing kernel warns when it is not built.
    from sim.navigation.searches import kernel

    asked = settings
    if settings.algorithm is None:
        # Jump point search in C knows no links; A* in C does, and finds the same cost.
        settings = dataclasses.replace(settings, algorithm=Algorithm.ASTAR)
    query = Query.check(walkable, start, goal, settings)
    graph = LinkGraph.build(links, query.walkable)
    if graph is None:  # an iterable that held no link after all
        return find_path_with(walkable, start, goal, asked)
    if query.algorithm is Algorithm.THETA:
        raise ValueError("theta takes no links (its segments join cells that see each other)")
    query = dataclasses.replace(query, links=graph)
    in_c = False
    if query.algorithm in (Algorithm.JPS, Algorithm.BIDIRECTIONAL):
        if settings.implementation is Implementation.C:
            raise ValueError(
                f"{query.algorithm} with links runs in Python only; use implementation='python'"
            )
    else:
        in_c = kernel.choose(settings.implementation, query.algorithm)
        if in_c and not kernel.LINKS_AVAILABLE:
            if settings.implementation is Implementation.C:
                raise ValueError(
                    "implementation='c' but the compiled search with links is not built"
                )
            in_c = False
    # A goal that neither the grid nor the links join to the start needs no search.
    if _linked_apart(query, graph):
        return _UNREACHABLE
    return kernel.solve(query) if in_c else search.solve(query)


def _linked_apart(query: Query, links: LinkGraph) -> bool:
    """Whether the regions and the links prove `query` unreachable (`regions.linked`)."""
    from sim.navigation.regions import linked

    if reason_before_search(query.walkable, query.start, query.goal) is not None:
        return False
    regions = region_cache.followed_map(query.walkable, query.rule)
    return regions is not None and linked.apart(
        regions, query.walkable, query.start, query.goal, links
    )
