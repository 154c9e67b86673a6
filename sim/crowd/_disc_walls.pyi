from typing import Any

def hit(
    open: Any, bits: Any, height: int, width: int, centres: Any, radii: Any, out: Any, /
) -> None: ...
def nearest(
    open: Any, bits: Any, height: int, width: int, centres: Any, distance: Any, normal: Any, /
) -> None: ...
def slide(
    open: Any,
    bits: Any,
    height: int,
    width: int,
    centres: Any,
    moves: Any,
    radii: Any,
    new: Any,
    held: Any,
    /,
) -> None: ...
def lines_clear(
    open: Any,
    bits: Any,
    height: int,
    width: int,
    room: Any,
    starts: Any,
    ends: Any,
    samples: int,
    radius: float,
    out: Any,
    /,
) -> None: ...
