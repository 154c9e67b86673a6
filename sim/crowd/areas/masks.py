"""Small integers for the sets of areas driven agents keep to, and each set's grid.

Mask 0 is every area (the scene's grid itself); each other set of areas gets the next integer
the first time a driven agent keeps to it, and a `MaskedGrid` the crowd's step and fields use
for its agents. A target's driven agents form one group per mask: the group's key is the
target's key times `MASK_STRIDE` plus the mask (`group_key`).

>>> group_key(3, 2), target_of(group_key(3, 2)), mask_of(group_key(3, 2))
(196610, 3, 2)
"""

from __future__ import annotations

from collections.abc import Collection
from typing import cast

from sim.crowd.areas.masked import MaskedGrid
from sim.crowd.grid import CrowdGrid

MASK_STRIDE = 1 << 16
"""Masks a target's group keys leave room for."""


def group_key(target: int, mask: int) -> int:
    """The key of the group of `target`'s driven agents that keep to `mask`."""
    return target * MASK_STRIDE + mask


def target_of(key: int) -> int:
    """The target of group `key`."""
    return key // MASK_STRIDE


def mask_of(key: int) -> int:
    """The mask of group `key`."""
    return key % MASK_STRIDE


class Masks:
    """The sets of areas seen so far, by mask, and their grids (see the module)."""

    def __init__(self, grid: CrowdGrid) -> None:
        self._grid = grid
        self._ids: dict[frozenset[str] | None, int] = {None: 0}
        self._areas: list[frozenset[str] | None] = [None]
        self._grids: dict[int, MaskedGrid] = {}

    def mask_for(self, areas: Collection[str] | None) -> int:
        """The mask of agents kept to `areas` (None: every area, mask 0)."""
        key = None if areas is None else frozenset(areas)
        mask = self._ids.get(key)
        if mask is None:
            if len(self._areas) >= MASK_STRIDE:
                raise ValueError(f"more than {MASK_STRIDE - 1} sets of areas in one crowd")
            mask = self._ids[key] = len(self._areas)
            self._areas.append(key)
        return mask

    def areas(self, mask: int) -> frozenset[str] | None:
        """The areas of `mask` (None: every area)."""
        return self._areas[mask]

    def grid(self, mask: int) -> CrowdGrid:
        """The grid agents of `mask` walk on: the scene's, within their areas' cells."""
        areas = self._areas[mask]
        allowed = None if areas is None else self._grid.allowed_cells(areas)
        if allowed is None:
            return self._grid
        masked = self._grids.get(mask)
        if masked is None:
            masked = self._grids[mask] = MaskedGrid(self._grid, allowed)
        masked.reallow(allowed)
        # Its members are read-only properties where the protocol lists plain attributes.
        return cast("CrowdGrid", masked)
