"""Where a distance field's best way down from a cell is a link hop rather than a grid move.

A field computed with links (`sim.navigation.field.field_on_graph` with a `LinkGraph`) walks
each link backwards, so a cell at a link's start may be cheaper to leave by the link than by
any grid neighbour. `field_hops` finds those cells, comparing them as the field's own descent
does (`descend_on_graph`: grid moves first, a link only when strictly better), and names the
link each hop takes (the cheapest joining the two cells that way, `link_hops`).

>>> import numpy as np
>>> from sim.navigation.field import field_on_graph
>>> from sim.navigation.link_graph import LinkGraph
>>> from sim.navigation.links import NavLink
>>> from sim.navigation.moves import MoveGraph
>>> walkable = np.array([[True, False, True]])
>>> graph = MoveGraph.build(walkable)
>>> drop = NavLink((0, 0), (0, 2), cost=3.0, bidirectional=False)
>>> linked = LinkGraph.build([drop], walkable)
>>> field_hops(graph, field_on_graph(graph, 2, links=linked), linked)
{0: Hop(end=2, link=NavLink(start=(0, 0), end=(0, 2), cost=3.0, bidirectional=False, \
kind='jump', width=1))}
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.navigation.field import descend_on_graph
from sim.navigation.link_graph import LinkGraph
from sim.navigation.links import NavLink, link_hops
from sim.navigation.moves import MoveGraph


@dataclass(frozen=True, slots=True)
class Hop:
    """A field's way down from a link's start: to flat cell `end` over `link`."""

    end: int
    link: NavLink


def field_hops(graph: MoveGraph, field: list[float], links: LinkGraph | None) -> dict[int, Hop]:
    """Per flat cell whose best step down `field` is a link, that `Hop` (none without links)."""
    if links is None:
        return {}
    width = graph.width
    costs = np.asarray(graph.cell_cost, dtype=np.float64).reshape(graph.height, width)
    hops = {}
    for start in links.out:
        best = descend_on_graph(graph, field, start, links)
        if best is None or best == descend_on_graph(graph, field, start):
            continue
        pair = [divmod(start, width), divmod(best, width)]
        link = link_hops(pair, links.links, costs)[0]
        if link is not None:
            hops[start] = Hop(best, link)
    return hops
