"""A scene's links (`[[links]]`): jumps, ladders, teleports and one-way drops between two points.

Each entry joins the cell under `from = [x, y]` to the cell under `to = [x, y]` (world units,
as objects' `pos`), with `cost` (>= 0, in grid steps: 1 is one straight step on plain ground),
`bidirectional` (false: a one-way drop, walked from `from` to `to` only), `kind` (`"jump"`,
`"ladder"` or `"teleport"`: how it is drawn and crossed) and `width` (parallel lanes, >= 1).
The planners take them as `sim.navigation.links.NavLink`s (`nav_links`); a link's end off the
grid or inside an obstacle is the scene's one-line error, in `check_links`'s words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray

from sim.navigation.links import LINK_KINDS, NavLink, check_links
from sim.scene import values
from sim.scene.spec import LinkSpec
from sim.scene.values import Reader, Table

LINK_KEYS: Final = ("from", "to", "cost", "bidirectional", "kind", "width")
MAX_LINK_COST: Final = 1e6  # a link dearer than a million steps is one no path takes
MAX_LINK_WIDTH: Final = 1000


_DEFAULT: Final = LinkSpec((0.0, 0.0), (0.0, 0.0))


def _cost(at: Reader, value: object) -> float:
    result = values.number(at, value)
    if not 0.0 <= result <= MAX_LINK_COST:
        raise at.error(f"must be within 0..{MAX_LINK_COST:.0f}, got {values.short(value)}")
    return result


def _kind(at: Reader, value: object) -> str:
    if not isinstance(value, str) or value not in LINK_KINDS:
        raise at.error(f"must be one of {', '.join(LINK_KINDS)}, got {values.short(value)}")
    return value


def _width(at: Reader, value: object) -> int:
    result = values.count(at, value)
    if result > MAX_LINK_WIDTH:
        raise at.error(f"must be at most {MAX_LINK_WIDTH}, got {values.short(value)}")
    return result


def read_link(at: Reader, value: object) -> LinkSpec:
    """Read one `[[links]]` table at key path `at`."""
    table = Table(at, value, LINK_KEYS)
    return LinkSpec(
        start=table.get("from", values.pair),
        end=table.get("to", values.pair),
        cost=table.get("cost", _cost, _DEFAULT.cost),
        bidirectional=table.get("bidirectional", values.boolean, _DEFAULT.bidirectional),
        kind=table.get("kind", _kind, _DEFAULT.kind),
        width=table.get("width", _width, _DEFAULT.width),
    )


def read_links(at: Reader, value: object) -> tuple[LinkSpec, ...]:
    """Read the `[[links]]` array of tables."""
    if not isinstance(value, list):
        raise at.error(f"expected an array of tables, got {values.describe(value)}")
    return tuple(read_link(at.at(index), item) for index, item in enumerate(value))


def cell_of(
    point: tuple[float, float], origin: tuple[float, float], cell_size: float
) -> tuple[int, int]:
    """The ``(row, col)`` under world `point`; off the grid too (check_links says so).

    >>> cell_of((2.5, -0.5), (0.0, -1.0), 1.0)
    (0, 2)
    """
    return (
        math.floor((point[1] - origin[1]) / cell_size),
        math.floor((point[0] - origin[0]) / cell_size),
    )


def nav_links(
    links: Sequence[LinkSpec], origin: tuple[float, float], cell_size: float
) -> tuple[NavLink, ...]:
    """The planners' links of a scene's, in the same order (not checked)."""
    return tuple(
        NavLink(
            cell_of(link.start, origin, cell_size),
            cell_of(link.end, origin, cell_size),
            link.cost,
            link.bidirectional,
            link.kind,
            link.width,
        )
        for link in links
    )


def check_scene_links(
    at: Reader,
    links: Sequence[LinkSpec],
    walkable: NDArray[np.bool_],
    origin: tuple[float, float],
    cell_size: float,
) -> tuple[NavLink, ...]:
    """The scene's links as checked NavLinks, on the grid its obstacles leave at the start.

    Raises:
        SceneError: ``links[i]: ...`` with `check_links`'s words for the first bad link.
    """
    for index, link in enumerate(links):
        try:
            check_links(nav_links([link], origin, cell_size), walkable)
        except ValueError as error:
            problem = str(error).split(": ", 1)[1]
            shown = f"from {list(link.start)} to {list(link.end)}"
            raise at.at("links").at(index).error(f"{shown}: {problem}") from None
    return check_links(nav_links(links, origin, cell_size), walkable)
