"""Multi-agent path finding on grids: problems, Moving AI MAPF files, a plan checker, solvers.

Panda3D-free, like `sim.navigation` (whose distance fields and map reader it uses). The face:
`MapfProblem` and its costs, `load_problem` for the benchmark's ``.map``/``.scen`` pairs,
`check_plan` listing every rule a plan breaks, `solve` with ``pibt``, ``lacam`` or ``cbs``,
and the plan file format of Kei18's mapf-visualizer (`format_plan`, `parse_plan`).
"""

from sim.mapf.problem import (
    LowerBounds,
    MapfProblem,
    arrival_time,
    distance_tables,
    lower_bounds,
    plan_costs,
)
from sim.mapf.solvers import SOLVERS, MapfResult, solve

__all__ = [
    "SOLVERS",
    "LowerBounds",
    "MapfProblem",
    "MapfResult",
    "arrival_time",
    "distance_tables",
    "lower_bounds",
    "plan_costs",
    "solve",
]
