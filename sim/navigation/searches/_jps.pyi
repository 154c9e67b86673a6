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
) -> tuple[bool, bytes | tuple[()], float, int]: ...
def search_landmarks(
    walkable: Any,
    height: int,
    width: int,
    start: int,
    goal: int,
    fields: Any,
    snapshot: Any,
    unit: float = 1.0,
    /,
) -> tuple[bool, bytes | tuple[()], float, int] | None: ...
def batch(
    walkable: Any,
    height: int,
    width: int,
    starts: Any,
    goals: Any,
    heuristic: int,
    /,
) -> list[tuple[bool, bytes | tuple[()], float, int]]: ...
def batch_arrays(
    walkable: Any,
    height: int,
    width: int,
    starts: Any,
    goals: Any,
    heuristic: int,
    /,
) -> tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes]: ...
def checked_chunks() -> int: ...

plain: Any
"""A capsule: the plain search behind ``_kernel.call``."""
