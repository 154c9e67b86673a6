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
