from typing import Any

def search(
    walkable: Any,
    costs: Any | None,
    height: int,
    width: int,
    start: int,
    goal: int,
    diagonal: int,
    heuristic: int,
    h_weight: float,
    g_weight: float,
    unit: bool,
    /,
) -> tuple[bool, tuple[tuple[int, int], ...], float, int]: ...
def field(
    walkable: Any,
    costs: Any | None,
    height: int,
    width: int,
    goal: int,
    diagonal: int,
    out: Any,
    /,
) -> None: ...
def clearance(
    walkable: Any,
    height: int,
    width: int,
    out: Any,
    /,
) -> None: ...
def configure(
    array_type: type, result_type: type, found: object, unreachable: object, /
) -> None: ...
def result(answer: tuple[bool, tuple[tuple[int, int], ...], float, int], /) -> Any: ...
def flat_ends(walkable: Any, start: Any, goal: Any, /) -> tuple[int, int, int, int] | None: ...
def batch(
    walkable: Any,
    costs: Any | None,
    height: int,
    width: int,
    starts: Any,
    goals: Any,
    diagonal: int,
    heuristic: int,
    h_weight: float,
    g_weight: float,
    unit: bool,
    /,
) -> list[Any]: ...
def pairs(
    walkable: Any, starts: Any, goals: Any, starts_flat: Any, goals_flat: Any, searchable: Any, /
) -> int: ...
