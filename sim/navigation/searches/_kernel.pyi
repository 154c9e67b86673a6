from collections.abc import Callable
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
    /,
) -> tuple[bool, bytes | tuple[()], float, int]: ...
def field(
    walkable: Any,
    costs: Any | None,
    height: int,
    width: int,
    goal: int,
    diagonal: int,
    out: Any,
    /,
) -> None: ...
def clearance(
    walkable: Any,
    height: int,
    width: int,
    out: Any,
    /,
) -> None: ...
def configure(
    array_type: type, result_type: type, found: object, unreachable: object, /
) -> None: ...
def result(answer: tuple[bool, bytes | tuple[tuple[int, int], ...], float, int], /) -> Any: ...
def flat_ends(walkable: Any, start: Any, goal: Any, /) -> tuple[int, int, int, int] | None: ...
def batch(
    walkable: Any,
    costs: Any | None,
    height: int,
    width: int,
    starts: Any,
    goals: Any,
    diagonal: int,
    heuristic: int,
    h_weight: float,
    g_weight: float,
    unit: bool,
    /,
) -> list[Any]: ...
def batch_arrays(
    walkable: Any,
    costs: Any | None,
    height: int,
    width: int,
    starts: Any,
    goals: Any,
    diagonal: int,
    heuristic: int,
    h_weight: float,
    g_weight: float,
    unit: bool,
    /,
) -> tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes]: ...
def apart(labels: Any, starts_flat: Any, goals_flat: Any, searchable: Any, /) -> list[int]: ...
def pairs(
    walkable: Any, starts: Any, goals: Any, starts_flat: Any, goals_flat: Any, searchable: Any, /
) -> int: ...
def pairs_in_region(
    walkable: Any, starts: Any, goals: Any, labels: Any, starts_flat: Any, goals_flat: Any, /
) -> bool: ...
def cells_of(flat: bytes, /) -> tuple[tuple[int, int], ...]: ...
def found_results(answers: list[Any], /) -> list[Any] | None: ...
def call(
    walkable: Any,
    start: Any,
    goal: Any,
    algorithm: Any,
    diagonal: Any,
    heuristic: Any,
    weight: Any,
    implementation: Any,
    /,
) -> Any: ...
def call_setup(
    jps_api: Any,
    min_cells: int,
    max_cells: int,
    near_cells: int,
    landmark_search: Callable[[Any, int, int, int, int], Any] | None = None,
    landmark_missed: Callable[[Any, Any, Any, Any], Any] | None = None,
    /,
) -> None: ...
def call_learn(
    options: tuple[Any, Any, Any, Any, Any],
    kind: int,
    labelled: bool,
    rule: int,
    heuristic: int,
    h_factor: float,
    g_weight: float,
    unit_steps: bool,
    /,
) -> None: ...
def remember_labels(walkable: Any, regions: Any, labels: Any, version: int, /) -> None: ...
def lane_setup(offer: Any, settle: Any, /) -> None: ...
def lane_drop(key: int | None, /) -> None: ...
def lane_tick() -> int: ...
def lanes_touched() -> dict[int, int]: ...

class LazyCells:
    slot: Any
    def __init__(self, slot: Any, /) -> None: ...
    def __get__(self, instance: object, owner: type | None = None, /) -> Any: ...
    def __set__(self, instance: object, value: object, /) -> None: ...
