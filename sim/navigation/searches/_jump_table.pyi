from typing import Any, overload

def build(walkable: Any, height: int, width: int, table: Any, /) -> None: ...
def repair(walkable: Any, height: int, width: int, table: Any, cells: Any, /) -> int: ...
@overload
def search(
    walkable: Any, height: int, width: int, table: Any, start: int, goal: int, /
) -> tuple[bool, bytes | tuple[()], float, int]: ...
@overload
def search(
    walkable: Any,
    height: int,
    width: int,
    table: Any,
    start: int,
    goal: int,
    compare: Any,
    fields: Any = None,
    unit: float = 1.0,
    /,
) -> tuple[bool, bytes | tuple[()], float, int] | None: ...
def lower(
    walkable: Any,
    height: int,
    width: int,
    fields: Any,
    landmark: int,
    straight: int,
    diagonal: int,
    seeds: Any,
    /,
) -> int: ...
