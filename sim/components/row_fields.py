"""Attributes an agent keeps in a row of a crowd's arrays once it has one, else on itself.

An `AgentController` exposes its state (`state`, `replans`, `arrivals`, ...) as plain
attributes that the report, the trace, the HUD and tests read. Once a `CrowdSim` gives the
agent a row, the same attributes live in the crowd's arrays (struct of arrays), where the
crowd updates thousands of agents with numpy: a `RowField` descriptor reads and writes the
row then, and the object's own attribute before (a controller without a crowd keeps its own).
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar, overload

T = TypeVar("T")


class RowStore(Protocol):
    """Whoever holds the rows: reads and writes one named value of one row."""

    def row_get(self, row: int, name: str) -> Any:
        """The value `name` of `row`."""

    def row_set(self, row: int, name: str, value: Any) -> None:
        """Set the value `name` of `row`."""


class RowField(Generic[T]):
    """An attribute stored in the owner's row when it has one.

    The owner has `_rows` (a `RowStore`, or None: no row) and `_row` (its row there).

    Without a row the value lives on the object itself, under ``_own_<name>``. Reading an
    attribute never set raises AttributeError, as a plain attribute would.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name.lstrip("_")
        self._own = f"_own_{self.name}"

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> RowField[T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> RowField[T] | T:
        if obj is None:
            return self
        rows: RowStore | None = getattr(obj, "_rows")  # noqa: B009 - any owner with a row
        if rows is not None:
            value: T = rows.row_get(getattr(obj, "_row"), self.name)  # noqa: B009
            return value
        own: T = getattr(obj, self._own)
        return own

    def __set__(self, obj: object, value: T) -> None:
        rows: RowStore | None = getattr(obj, "_rows")  # noqa: B009
        if rows is not None:
            rows.row_set(getattr(obj, "_row"), self.name, value)  # noqa: B009
        else:
            setattr(obj, self._own, value)

    def own_value(self, obj: object) -> T:
        """The value kept on the object itself (what a new row starts from)."""
        own: T = getattr(obj, self._own)
        return own
