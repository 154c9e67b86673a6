from typing import Any

def search(
    walkable: Any,
    height: int,
    width: int,
    start: int,
    goal: int,
    heuristic: int,
    h_weight: float,
    /,
) -> tuple[bool, tuple[tuple[int, int], ...], float, int]: ...
