from typing import Any

def push_apart(
    positions: Any,
    pressed: Any,
    local: Any,
    first: Any,
    second: Any,
    reach: Any,
    share: Any,
    normal: Any,
    against: Any,
    part_passes: int,
    settle_passes: int,
    settle_beyond: float,
    /,
) -> None: ...
def pairs(
    positions: Any,
    radii: Any,
    driven: Any,
    preferred: Any,
    neighbour_dist: float,
    keep: int,
    allow: float,
    slack: float,
    pressed: Any,
    local: Any,
    first: Any,
    second: Any,
    reach: Any,
    opposed: Any,
    /,
) -> tuple[int, int]: ...
