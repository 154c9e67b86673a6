from typing import Any

def label(walkable: Any, height: int, width: int, labels: Any, sizes: Any, /) -> int: ...
def diff(current: Any, snapshot: Any, out: Any, /) -> int: ...
def same(current: Any, snapshot: Any, /) -> bool: ...
def update(
    current: Any,
    snapshot: Any,
    labels: Any,
    sizes: Any,
    height: int,
    width: int,
    next_label: int,
    cells: Any,
    /,
) -> tuple[int, int]: ...
def boundary(
    labels: Any, height: int, width: int, seed: int, region_size: int, out: Any, /
) -> int: ...
def sealed(current: Any, cells: Any, /) -> bool: ...
