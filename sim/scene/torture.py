"""Read a scene's `[torture]` table: the limits a crowd torture case is judged against.

The scenes under ``scenes/torture/`` are cases the crowd must pass (``sim bench
--crowd-suite``). Each states how long it may take::

    [torture]
    time_limit_s = 40.0     # every agent must have arrived within this many simulated seconds
    free_flow_s = 9.0       # optional: the case's free-flow time, instead of the computed one
    gate = [8.0, 1.0, 8.0, 4.0]   # optional: a segment x0, y0, x1, y1 whose crossings are
                                  # the case's flow (agents per second through a doorway)

Without `free_flow_s` the bench computes it: the slowest agent alone on its shortest path at
its speed. A bad value is the usual one-line `SceneError`, e.g.
``scenes/torture/x.toml: torture.time_limit_s: must be > 0, got -1``.
"""

from __future__ import annotations

from typing import Final

from sim.scene import values
from sim.scene.spec import TortureSpec
from sim.scene.values import Reader, Table

TORTURE_KEYS: Final = ("time_limit_s", "free_flow_s", "gate")
# A case is run 20 times per bench; past an hour of simulated time it is no torture case.
MAX_TIME_LIMIT_S: Final = 3600.0

_seconds = values.within(1e-3, MAX_TIME_LIMIT_S)

Segment = tuple[float, float, float, float]


def read_torture(at: Reader, value: object) -> TortureSpec:
    """Read one `[torture]` table at key path `at`; `time_limit_s` is required.

    >>> read_torture(Reader("x.toml", "torture"), {"time_limit_s": 30})
    TortureSpec(time_limit_s=30.0, free_flow_s=None, gate=None)
    """
    table = Table(at, value, TORTURE_KEYS)
    return TortureSpec(
        time_limit_s=table.get("time_limit_s", _seconds),
        free_flow_s=table.get("free_flow_s", _seconds, None),
        gate=table.get("gate", _segment, None),
    )


def _segment(at: Reader, value: object) -> Segment:
    x0, y0, x1, y1 = values.numbers(at, value, (4,), values.coordinate)
    if (x0, y0) == (x1, y1):
        raise at.error("the gate's two ends must differ")
    return (x0, y0, x1, y1)
