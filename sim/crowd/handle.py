"""What a handle on a crowd's agent needs: the crowd it joins, and values read through it.

An agent's owner (the scene's `AgentController`) keeps none of the agent's state: each value is
a `Kept` attribute, read and written in the agent's row of its `Crowd`.
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar, overload

from sim.crowd.crowd import Crowd

T = TypeVar("T")
O_co = TypeVar("O_co", covariant=True)


class CrowdHost(Protocol[O_co]):
    """The scene's crowd as an agent joins it (the scene's `CrowdSim` component is one).

    `O_co` is what a plan is to the agent's owner.
    """

    @property
    def crowd(self) -> Crowd:
        """The crowd that owns the agents' state."""

    def write_node(self, index: int) -> None:
        """Show driven agent `index` where the crowd put it, now."""

    def outcome_of(self, index: int) -> O_co | None:
        """Driven agent `index`'s plan as its owner reports plans (`Crowd.field_plan`)."""


class Handle(Protocol):
    """An agent's handle: its crowd (`_agents`) and its index there (`_index`)."""

    _agents: Crowd
    _index: int


class Kept(Generic[T]):
    """A value of the agent that its crowd keeps, by the attribute's name (`Crowd.get`).

    The name is the attribute's without a leading underscore.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name.lstrip("_")

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Kept[T]: ...

    @overload
    def __get__(self, obj: Handle, owner: type | None = None) -> T: ...

    def __get__(self, obj: Handle | None, owner: type | None = None) -> Kept[T] | T:
        if obj is None:
            return self
        value: T = obj._agents.get(obj._index, self.name)
        return value

    def __set__(self, obj: Handle, value: T) -> None:
        obj._agents.set(obj._index, self.name, value)
