"""Links between cells that are not neighbours: jumps, ladders, teleports, one-way drops.

A `NavLink` is Unity's NavMeshLink and Godot's NavigationLink on a grid: an edge from `start`
to `end` (``(row, col)`` cells, like `find_path`'s) that every planner may take besides its
grid moves. Using it costs exactly its `cost` (terrain costs are not added on top); a one-way
link (``bidirectional=False``) is walked from `start` to `end` only. A path that uses one lists
both ends one after the other in `PathResult.cells`, and its cost includes the link's.

`check_links` checks links against a walkable mask once, with one line naming the link and what
is wrong; `link_hops` tells, step by step, which link a path uses (a caller that animates a jump
or a ladder needs to know). `sim.navigation.link_graph` turns checked links into the tables the
searches read.

>>> walkable = np.ones((3, 5), dtype=bool)
>>> walkable[:, 2] = False  # a wall between the columns 0-1 and 3-4
>>> drop = NavLink((0, 1), (0, 3), cost=2.0, bidirectional=False)
>>> check_links([drop], walkable)
(NavLink(start=(0, 1), end=(0, 3), cost=2.0, bidirectional=False, kind='jump', width=1),)
>>> link_hops([(1, 1), (0, 1), (0, 3)], [drop])
[None, NavLink(start=(0, 1), end=(0, 3), cost=2.0, bidirectional=False, kind='jump', width=1)]
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

Cell = tuple[int, int]

LINK_KINDS = ("jump", "ladder", "teleport")
"""The kinds of link: the planners treat them alike; the app draws and animates each its way."""

_SQRT2 = math.sqrt(2.0)


@dataclass(frozen=True, slots=True)
class NavLink:
    """An edge between two cells that need not be neighbours.

    Attributes:
        start: the cell it leaves from, ``(row, col)``.
        end: the cell it arrives at, ``(row, col)``.
        cost: the price of using it, >= 0 and finite, in the units of a grid step (1 per
            straight step on a cell of cost 1); the cells' terrain costs are not added.
        bidirectional: whether it may also be walked from `end` to `start`.
        kind: one of `LINK_KINDS`: how the app draws it and how an agent crosses it.
        width: how many parallel lanes it spans, >= 1: lane ``i`` joins the cells shifted by
            the same offset across the link's main direction (`lanes`).
    """

    start: Cell
    end: Cell
    cost: float = 1.0
    bidirectional: bool = True
    kind: str = "jump"
    width: int = 1


def lanes(link: NavLink) -> tuple[tuple[Cell, Cell], ...]:
    """The ``(start, end)`` cell pairs a link of `link.width` joins, its own pair first.

    Lanes lie side by side across the link's main direction (across the rows when it runs more
    along the columns, else across the columns), offsets 0, 1, -1, 2, -2, ...: a width of 3
    centres the link's own pair.

    >>> lanes(NavLink((2, 0), (2, 4), width=3))
    (((2, 0), (2, 4)), ((3, 0), (3, 4)), ((1, 0), (1, 4)))
    """
    (start_row, start_col), (end_row, end_col) = link.start, link.end
    across_rows = abs(end_col - start_col) >= abs(end_row - start_row)
    pairs = []
    for lane in range(link.width):
        offset = (lane + 1) // 2 * (1 if lane % 2 else -1)
        d_row, d_col = (offset, 0) if across_rows else (0, offset)
        pairs.append(((start_row + d_row, start_col + d_col), (end_row + d_row, end_col + d_col)))
    return tuple(pairs)


def check_links(
    links: Iterable[Any], walkable: NDArray[np.bool_], *, walls_allowed: bool = False
) -> tuple[NavLink, ...]:
    """Return `links` as a tuple of NavLink with plain-int cells, or raise ValueError.

    Every lane's ends (`lanes`) must lie on the grid and, unless `walls_allowed`, on walkable
    cells. The planners allow walls: an obstacle moved onto a link's end at run time shuts the
    link (no planner walks a link while either end is blocked) rather than failing the query;
    a scene's links are checked without, so a link drawn into a wall is an error.

    Raises:
        ValueError: one line naming the link (its index and ends) and what is wrong: not a
            NavLink, an end that is not two integers, an end off the grid, an end inside a
            wall (a blocked cell), a negative or non-finite cost, an unknown kind, a width
            that is not an integer >= 1.

    >>> check_links([NavLink((0, 0), (0, 7))], np.ones((2, 3), dtype=bool))
    Traceback (most recent call last):
    ...
    ValueError: link 0 (0, 0) -> (0, 7): end (0, 7) lies outside the 2x3 grid [row, col]
    >>> check_links([NavLink((0, 0), (1, 1), cost=-1.0)], np.ones((2, 2), dtype=bool))
    Traceback (most recent call last):
    ...
    ValueError: link 0 (0, 0) -> (1, 1): cost must be a finite number >= 0, got -1.0
    """
    return _checked(links, walkable.shape, None if walls_allowed else walkable)


def check_link_values(links: Iterable[Any], shape: tuple[int, ...]) -> tuple[NavLink, ...]:
    """`check_links` with walls allowed, for a grid of `shape`: no mask needed.

    >>> check_link_values([NavLink((0, 0), (1, 1), kind="rope")], (2, 2))
    Traceback (most recent call last):
    ...
    ValueError: link 0 (0, 0) -> (1, 1): kind must be one of jump, ladder, teleport, got 'rope'
    """
    return _checked(links, shape, None)


def _checked(
    links: Iterable[Any], shape: tuple[int, ...], walkable: NDArray[np.bool_] | None
) -> tuple[NavLink, ...]:
    """`check_links`' checks; the walls only when `walkable` is given."""
    height, width = shape
    checked = []
    for index, link in enumerate(links):
        if not isinstance(link, NavLink):
            raise ValueError(f"link {index} must be a NavLink, got {link!r}")
        name = f"link {index} {link.start!r} -> {link.end!r}"
        start, end = _cell(name, "start", link.start), _cell(name, "end", link.end)
        cost = link.cost
        if (
            isinstance(cost, bool)
            or not isinstance(cost, int | float | np.integer | np.floating)
            or not (math.isfinite(cost) and cost >= 0)
        ):
            raise ValueError(f"{name}: cost must be a finite number >= 0, got {cost!r}")
        if link.kind not in LINK_KINDS:
            kinds = ", ".join(LINK_KINDS)
            raise ValueError(f"{name}: kind must be one of {kinds}, got {link.kind!r}")
        lane_count = link.width
        if isinstance(lane_count, bool) or not isinstance(lane_count, int) or lane_count < 1:
            raise ValueError(f"{name}: width must be an integer >= 1, got {lane_count!r}")
        if not isinstance(link.bidirectional, bool):
            raise ValueError(f"{name}: bidirectional must be true or false")
        clean = NavLink(start, end, float(cost), link.bidirectional, link.kind, lane_count)
        for pair in lanes(clean):
            for which, (row, col) in zip(("start", "end"), pair, strict=True):
                if not (0 <= row < height and 0 <= col < width):
                    where = f"lies outside the {height}x{width} grid [row, col]"
                    raise ValueError(f"{name}: {which} {(row, col)!r} {where}")
                if walkable is not None and not walkable[row, col]:
                    raise ValueError(f"{name}: {which} {(row, col)!r} lies inside a wall")
        checked.append(clean)
    return tuple(checked)


def _cell(name: str, which: str, cell: object) -> Cell:
    """`cell` as two plain ints, or ValueError naming the link and the end."""
    parts: tuple[Any, ...] = tuple(cell) if isinstance(cell, tuple | list) else ()
    if len(parts) == 2 and not any(isinstance(part, bool) for part in parts):
        try:
            return operator.index(parts[0]), operator.index(parts[1])
        except TypeError:
            pass
    raise ValueError(f"{name}: {which} must be a (row, col) pair of integers, got {cell!r}")


def link_hops(
    cells: Sequence[Cell],
    links: Iterable[NavLink],
    costs: NDArray[Any] | None = None,
) -> list[NavLink | None]:
    """For each step ``cells[i] -> cells[i + 1]`` of a path, the link it uses, or None.

    A step between cells that are not neighbours is always a link: the cheapest one joining
    them in that direction (a one-way link only from its start). A step between neighbours is
    a link only when that is strictly cheaper than the grid step (1 or sqrt(2) times the cost
    of the cell entered, from `costs` or 1): the rule every planner relaxes by, grid moves
    first, so its path's cost tells the two apart the same way. A step between neighbours
    whose grid move the diagonal rule forbids and that a link joins reads as the grid move
    here (this function does not know the mask).

    Raises:
        ValueError: for a step between cells that are not neighbours and that no link joins.

    >>> hop = NavLink((0, 0), (0, 1), cost=0.5)
    >>> link_hops([(0, 0), (0, 1), (0, 0)], [hop])
    [NavLink(start=(0, 0), end=(0, 1), cost=0.5, bidirectional=True, kind='jump', width=1), \
NavLink(start=(0, 0), end=(0, 1), cost=0.5, bidirectional=True, kind='jump', width=1)]
    """
    joins: dict[tuple[Cell, Cell], NavLink] = {}
    for link in links:
        for start, end in lanes(link):
            ways = ((start, end), (end, start)) if link.bidirectional else ((start, end),)
            for way in ways:
                known = joins.get(way)
                if known is None or link.cost < known.cost:
                    joins[way] = link
    hops: list[NavLink | None] = []
    for here, there in itertools.pairwise(cells):
        joined = joins.get(((here[0], here[1]), (there[0], there[1])))
        d_row, d_col = abs(there[0] - here[0]), abs(there[1] - here[1])
        if max(d_row, d_col) > 1:
            if joined is None:
                raise ValueError(f"step {here!r} -> {there!r} is no grid move and no link")
            hops.append(joined)
            continue
        entered = 1.0 if costs is None else float(costs[there[0], there[1]])
        step = (_SQRT2 if d_row and d_col else 1.0) * entered
        hops.append(joined if joined is not None and joined.cost < step else None)
    return hops
