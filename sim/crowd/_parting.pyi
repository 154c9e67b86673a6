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
