from typing import Any

class Planner:
    def __init__(self, height: int, width: int, diagonal: bool, heuristic: int, /) -> None: ...
    def plan(
        self,
        walkable: Any,
        costs: Any | None,
        start: int,
        goal: int,
        h_factor: float,
        /,
        *,
        fresh: bool,
    ) -> tuple[bool, tuple[tuple[int, int], ...], float, int, int, bool]: ...
