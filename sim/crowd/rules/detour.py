"""Detour: an agent held up by agents standing in its way plans round them after a wait.

Avoidance steers round one agent standing in the open, but a corridor blocked by agents that
stand (arrived at posts of their own, or simply waiting) leaves an agent that plans on the grid
pressing against them for ever: its path is still the shortest. So an agent that has made less
than `HELD_FRACTION` of its speed toward its next waypoint for `DETOUR_WAIT_S` seconds while
agents stand on the next `AHEAD_CELLS` cells of its path (`standing_on`: slower than
`STANDING_FRACTION` of their speed) plans again with the cells they stand on blocked, and
keeps planning round those cells for `DETOUR_HOLD_S` seconds (its routine replans too), so it
does not turn back as soon as it has left them behind. Where no way goes round them it plans
through them as before. `DetourWait` keeps one agent's clock and cells; the crowd ticks it as
each self-steered agent commits its step (`Crowd.detour_cells` gives the cells).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from sim.crowd.grid import CrowdGrid
from sim.crowd.rows import AgentRows
from sim.crowd.state import AgentState

DETOUR_WAIT_S = 0.75
"""The stated wait: seconds held up by standing agents before planning round them."""
DETOUR_HOLD_S = 20.0
"""Seconds an agent keeps planning round the cells it found blocked."""
HELD_FRACTION = 0.2
"""An agent making less than this fraction of its speed toward its next waypoint is held up."""
STANDING_FRACTION = 0.05
"""Agents slower than this fraction of their speed stand."""
AHEAD_CELLS = 6
"""How many cells of its path ahead an agent looks at for agents standing on them."""

MOVING = tuple(AgentState).index(AgentState.MOVING)

Cell = tuple[int, int]
Point = tuple[float, float]


def cells_ahead(
    route: Sequence[Point], cell_of: Callable[[Point], Cell], count: int = AHEAD_CELLS
) -> list[Cell]:
    """The first `count` cells a walk along `route` (its position, then waypoints) enters.

    >>> cells_ahead([(0.5, 0.5), (3.5, 0.5)], lambda p: (int(p[1]), int(p[0])), 3)
    [(0, 0), (0, 1), (0, 2)]
    """
    found: list[Cell] = []
    for (x0, y0), (x1, y1) in itertools.pairwise(route):
        steps = max(1, math.ceil(2.0 * math.hypot(x1 - x0, y1 - y0)))  # two looks a cell
        for step in range(steps + 1):
            t = step / steps
            cell = cell_of((x0 + (x1 - x0) * t, y0 + (y1 - y0) * t))
            if not found or found[-1] != cell:
                found.append(cell)
            if len(found) >= count:
                return found
    return found


def standing_on(
    cells: NDArray[np.intp],
    velocities: NDArray[np.float64],
    speeds: NDArray[np.float64],
    row: int,
    ahead: NDArray[np.intp],
) -> NDArray[np.intp]:
    """The cells of `ahead` (flat) on which an agent other than `row` stands.

    `cells` (n,) is the flat cell each row stands on; standing is slower than
    `STANDING_FRACTION` of its speed.

    >>> standing_on(np.array([4, 7, 9]), np.zeros((3, 2)), np.ones(3), 0, np.array([4, 9, 5]))
    array([9])
    """
    standing = np.hypot(velocities[:, 0], velocities[:, 1]) < STANDING_FRACTION * speeds
    standing[row] = False
    return np.intersect1d(ahead, cells[standing])


class DetourWait:
    """One agent's wait behind standing agents, and the cells it plans round for a while."""

    def __init__(self) -> None:
        self.waited_s = 0.0
        self.cells: frozenset[Cell] = frozenset()
        self._hold_s = 0.0

    def tick(self, dt: float, *, held: bool, blocked: Iterable[Cell]) -> bool:
        """Count `dt` seconds; True when a plan round the `blocked` cells is due now.

        `held`: it made less than `HELD_FRACTION` of its speed toward its waypoint; `blocked`:
        the cells of the agents standing in its lane ahead (none: nothing holds it up).

        >>> wait = DetourWait()
        >>> [wait.tick(0.4, held=True, blocked=[(2, 3)]) for _ in range(2)], wait.cells
        ([False, True], frozenset({(2, 3)}))
        """
        if self._hold_s > 0.0:
            self._hold_s -= dt
            if self._hold_s <= 0.0:
                self.cells = frozenset()
        cells = frozenset(blocked)
        self.waited_s = self.waited_s + dt if held and cells else 0.0
        if self.waited_s < DETOUR_WAIT_S or cells <= self.cells:
            return False
        self.waited_s = 0.0
        self.cells |= cells
        self._hold_s = DETOUR_HOLD_S
        return True

    def clear(self) -> None:
        """Forget the wait and the cells (a new goal, a reset)."""
        self.waited_s, self.cells, self._hold_s = 0.0, frozenset(), 0.0


def watch_detour(
    rows: AgentRows, row: int, wait: DetourWait | None, grid: CrowdGrid, dt: float
) -> DetourWait | None:
    """Tick self-steered row `row`'s `wait` for the step it just committed; return the wait.

    A new wait once it is first held up; None while it never was (most agents, most frames).
    """
    waypoints = rows.waypoints[row]
    held = False
    if waypoints and not rows.joint[row] and rows.state[row] == MOVING:
        # Held: it makes little way toward its waypoint (sliding along a wall makes none).
        toward = np.asarray(waypoints[0]) - rows.positions[row]
        length = math.hypot(*toward)
        made = float(rows.velocities[row] @ toward) / length if length > 1e-9 else 0.0
        held = made < HELD_FRACTION * rows.speeds[row]
    if wait is None and not held:
        return None
    wait = wait or DetourWait()
    standing: list[Cell] = []
    if held:
        x, y = rows.positions[row]
        ahead = cells_ahead([(float(x), float(y)), *waypoints], grid.clamped_cell)
        standing = _standing_on_cells(rows, row, ahead, grid)
    wait.tick(dt, held=held, blocked=standing)
    return wait


def _standing_on_cells(rows: AgentRows, row: int, ahead: list[Cell], grid: CrowdGrid) -> list[Cell]:
    size, (x0, y0) = grid.grid_cell_size, grid.origin
    columns = grid.walkable.shape[1]
    cols = np.floor((rows.positions[:, 0] - x0) / size).astype(np.intp)
    rows_of = np.floor((rows.positions[:, 1] - y0) / size).astype(np.intp)
    wanted = np.array([r * columns + c for r, c in ahead], dtype=np.intp)
    found = standing_on(rows_of * columns + cols, rows.velocities, rows.speeds, row, wanted)
    return [(int(flat) // columns, int(flat) % columns) for flat in found]
