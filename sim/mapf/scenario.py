"""Moving AI MAPF instances: a ``.map`` grid and the first K lines of a ``.scen`` file.

The benchmark of Stern et al. (2019) reuses the grid benchmark's formats (read by
`sim.navigation.maps.movingai`): one agent per scenario line, x the column and y the row.
The line's optimal length is the single agent's 8-connected length (diagonals cost sqrt(2)),
not used here: MAPF steps cost 1 each, 4- or 8-connected, and `sim.mapf.problem.lower_bounds`
computes its own distances.
"""

from __future__ import annotations

from pathlib import Path

from sim.mapf.problem import MapfProblem
from sim.navigation.maps.movingai import check_scenarios, read_map, read_scenarios


def load_problem(
    map_path: str | Path, scen_path: str | Path, agents: int, *, connectivity: int = 4
) -> MapfProblem:
    """Read the map and the first `agents` scenario lines as a `MapfProblem`.

    `connectivity` is the problem's move rule: 4 (the benchmark's) or 8.

    Raises:
        OSError: a file cannot be read.
        ValueError: one clear message for a malformed file (a `MapFormatError`, naming the
            file and line), a scenario of another map or size, `agents` < 1 or beyond the
            file, a start or goal on a wall or off the map, two agents with the same start
            or the same goal.
    """
    grid = read_map(map_path)
    scenarios = read_scenarios(scen_path)
    if agents < 1:
        raise ValueError(f"the number of agents must be at least 1, got {agents}")
    if agents > len(scenarios):
        raise ValueError(
            f"{scen_path} holds {len(scenarios)} agents, fewer than the {agents} asked for"
        )
    chosen = scenarios[:agents]
    check_scenarios(grid, chosen, scen_source=str(scen_path))
    try:
        return MapfProblem.from_cells(
            grid.walkable,
            [scenario.start for scenario in chosen],
            [scenario.goal for scenario in chosen],
            name=Path(map_path).name,
            connectivity=connectivity,
        )
    except ValueError as error:
        raise ValueError(f"{scen_path}: {error}") from None
