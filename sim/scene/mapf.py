"""Read the scene's `[mapf]` table: how the agents with ``planner = "mapf"`` plan together.

Every key is optional (`MapfSpec` holds the defaults); a bad value ends in the usual one-line
`SceneError`, e.g. ``scenes/x.toml: mapf.solver: expected "lacam", "pibt" or "cbs", got "a*"``.
"""

from __future__ import annotations

from typing import Final

from sim.mapf.solvers import SOLVERS
from sim.scene import values
from sim.scene.spec import MapfSpec
from sim.scene.values import Reader, Table

MAPF_KEYS: Final = ("solver", "time_limit_s", "connectivity")
# A joint plan runs inside a frame: a minute is already far past any interactive use.
MAX_TIME_LIMIT_S: Final = 60.0
# 4 is the benchmark's rule; 8 adds diagonal steps without corner cutting (sim.mapf.problem).
SUPPORTED_CONNECTIVITY: Final = (4, 8)

_time_limit = values.within(1e-3, MAX_TIME_LIMIT_S)


def read_mapf(at: Reader, value: object) -> MapfSpec:
    """Read one `[mapf]` table at key path `at`."""
    table = Table(at, value, MAPF_KEYS)
    default = MapfSpec()
    return MapfSpec(
        solver=table.get("solver", _solver, default.solver),
        time_limit_s=table.get("time_limit_s", _time_limit, default.time_limit_s),
        connectivity=table.get("connectivity", _connectivity, default.connectivity),
    )


def _solver(at: Reader, value: object) -> str:
    text = values.string(at, value)
    if text not in SOLVERS:
        raise at.error(f"expected {values.either(SOLVERS)}, got {values.short(text)}")
    return text


def _connectivity(at: Reader, value: object) -> int:
    number = values.integer(at, value)
    if number not in SUPPORTED_CONNECTIVITY:
        raise at.error(f"must be 4 or 8, got {values.short(number)}")
    return number
