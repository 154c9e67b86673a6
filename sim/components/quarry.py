"""Quarry: the object an agent goes to (`AgentConfig.target`, End, or Start on patrol)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.config import Tag

if TYPE_CHECKING:
    from sim.engine import GameObject, World


class Quarry:
    """The object an agent chases by name (`AgentConfig.target`), found again once it is gone.

    The object is kept while it lives under that name; destroyed (or another name asked), the
    world is searched again.
    """

    def __init__(self) -> None:
        self._kept: tuple[str, GameObject | None] | None = None

    def find(self, world: World | None, name: str) -> GameObject | None:
        """The live object called `name` in `world`, or None."""
        kept = self._kept
        chased = None if kept is None or kept[0] != name else kept[1]
        if chased is None or not chased.alive:
            found = None if world is None else world.find(name)
            chased = found if found is not None and found.alive else None
            self._kept = (name, chased)
        return chased

    def target(self, world: World | None, name: str | None, *, to_start: bool) -> GameObject | None:
        """Where an agent goes: Start when `to_start` (patrol), else `name`'s object or End."""
        if world is None:
            return None
        if to_start:
            return world.find_with_tag(Tag.START)
        return world.find_with_tag(Tag.END) if name is None else self.find(world, name)
