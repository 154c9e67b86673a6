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
    first: Any,
    target: Any,
    hop: Any,
    bound_cells: Any,
    bound_offsets: Any,
    /,
) -> tuple[bool, bytes | tuple[()], float, int]: ...
def field(
    walkable: Any,
    costs: Any | None,
    height: int,
    width: int,
    goal: int,
    diagonal: int,
    first: Any,
    target: Any,
    hop: Any,
    out: Any,
    /,
) -> None: ...
