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
        bound_cells: Any | None = None,
        bound_offsets: Any | None = None,
    ) -> tuple[bool, tuple[tuple[int, int], ...], float, int, int, bool]: ...
    def set_links(
        self,
        out_first: Any,
        out_target: Any,
        out_hop: Any,
        in_first: Any,
        in_target: Any,
        in_hop: Any,
        /,
    ) -> None: ...
