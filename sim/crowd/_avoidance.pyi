from typing import Any

def avoid(
    positions: Any,
    velocities: Any,
    preferred: Any,
    radii: Any,
    max_speeds: Any,
    priority: Any | None,
    active: Any | None,
    sidestep: Any | None,
    dt: float,
    time_horizon: float,
    neighbour_dist: float,
    max_neighbours: int,
    out: Any,
    seen: Any | None = None,
    /,
) -> None: ...
def neighbours(
    positions: Any,
    neighbour_dist: float,
    max_neighbours: int,
    out: Any,
    /,
) -> None: ...
