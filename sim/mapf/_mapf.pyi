def distances(
    walkable: bytes, height: int, width: int, connectivity: int, goals: bytes, /
) -> bytes: ...
def pibt(
    walkable: bytes,
    height: int,
    width: int,
    connectivity: int,
    starts: bytes,
    goals: bytes,
    tables: object,
    seed: int,
    time_limit_s: float,
    max_steps: int,
    /,
) -> tuple[bool, bytes | None]: ...
def lacam(
    walkable: bytes,
    height: int,
    width: int,
    connectivity: int,
    starts: bytes,
    goals: bytes,
    tables: object,
    seed: int,
    time_limit_s: float,
    max_nodes: int,
    first_plan: bool,
    /,
) -> tuple[bool, int, bytes]: ...
