"""The pieces of a jam's joint plan: start cells, the way onto them, the plan, the turn lag.

`sim.crowd.jams.handoff` puts them together: each member starts on a cell of its own near
where it stands (`start_cells`), goes there first without running into the others
(`gather_waits`), and the plan (`joint_paths`, LaCAM* on a budget of work) moves them on with
agents that follow another round a turn lagging behind it (`turn_lag`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from sim.crowd.jams.detect import JamSettings
from sim.crowd.jams.prioritized import Work, agent_orders, prioritized_paths
from sim.crowd.joint import nearest_free_cells, rotations, turn_delays
from sim.mapf import MapfProblem, distance_tables, native
from sim.mapf.lacam import lacam
from sim.mapf.problem import UNREACHABLE, paths_from_configs

GATHER_SAMPLES = 11  # points of a step at which two agents' ways to their start cells are compared
GATHER_MAX_WAIT = 3  # steps an agent waits at most before it goes to its start cell
APART_ROUNDS = 4  # times discs of a plan passing too close are pushed apart in a frame
SWAP_REACH = 1.5  # cells: the farthest a trade of start cells may send an agent
TURN_OVERLAP = 0.05  # of two radii: how deep discs may touch round a turn in a joint plan


def turn_lag(radius_cells: float) -> float:
    """The lag, in steps, that keeps discs of `radius_cells` apart round a turn (`turn_delays`).

    In lock step the two come within ``1 / sqrt(2)`` of a cell; lagging ``f`` of a step keeps
    them ``(1 + f) / sqrt(2)`` apart, which must be two radii less `TURN_OVERLAP` of them.

    >>> round(turn_lag(0.4), 3), turn_lag(0.3)
    (0.075, 0.0)
    """
    apart = 2.0 * radius_cells * (1.0 - TURN_OVERLAP)
    return float(np.clip(apart * np.sqrt(2.0) - 1.0, 0.0, 0.5))


def start_cells(
    walkable: NDArray[np.bool_],
    cells: NDArray[np.intp],
    positions: NDArray[np.float64],
    centres: NDArray[np.float64],
) -> list[int]:
    """Each agent's start cell in a joint plan: distinct, walkable, near where it stands.

    Agents nearest their cells' centres choose first: each takes the free cell among its own
    and the 8 around it (a diagonal one only past two free sides) whose centre is nearest it,
    so agents sharing a cell spread the way they stand and their first moves do not cross;
    for one with none of those free, the agents on the way to the nearest free cell each move
    a cell along it and it keeps its own (`_shift_along`; a packed one-cell corridor), else it
    takes the nearest free cell (`nearest_free_cells`). Then
    two agents trade cells wherever that shortens their two ways together (and neither gets
    farther than `SWAP_REACH` cells), until no trade does: ways that cross always shorten
    when traded, so no two agents' first moves cross. `cells` and the result are flat cells of
    `walkable`, `centres` their world centres.
    """
    height, width = walkable.shape
    free = walkable.ravel().copy()
    offsets = np.hypot(*(positions - centres[cells]).T)
    chosen = [-1] * len(cells)
    for agent in np.lexsort((np.arange(len(cells)), offsets)):
        row, col = divmod(int(cells[agent]), width)
        near = []
        for d_row in (-1, 0, 1):
            for d_col in (-1, 0, 1):
                r, c = row + d_row, col + d_col
                if not (0 <= r < height and 0 <= c < width) or not free[r * width + c]:
                    continue
                if d_row and d_col and not (walkable[row, c] and walkable[r, col]):
                    continue
                near.append(r * width + c)
        if near:
            gaps = np.hypot(*(centres[near] - positions[agent]).T)
            cell = near[int(np.lexsort((near, gaps))[0])]
        else:
            cell = _shift_along(walkable, free, chosen, int(cells[agent]))
            if cell is None:
                cell = nearest_free_cells(free.reshape(walkable.shape), [int(cells[agent])])[0]
        free[cell] = False
        chosen[agent] = int(cell)
    return _uncrossed(chosen, positions, centres)


def _shift_along(
    walkable: NDArray[np.bool_], free: NDArray[np.bool_], chosen: list[int], cell: int
) -> int | None:
    """Make room on `cell` by shifting the agents on the way to the nearest free cell.

    A packed row (a one-cell corridor) has no free cell round an agent; the nearest one lies
    past others, and a start there would take it through them. So each agent on the shortest
    4-connected way from `cell` to that free cell moves one cell along it (`chosen` changes
    in place, `free` too) and `cell` is the agent's: everyone moves by a cell at most, all the
    same way. None when `cell` is a wall or no free cell is reachable.
    """
    height, width = walkable.shape
    passable = walkable.ravel()
    if not passable[cell]:
        return None
    parent = {cell: cell}
    queue = [cell]
    found = None
    for here in queue:
        if free[here]:
            found = here
            break
        row, col = divmod(here, width)
        for r, c in ((row - 1, col), (row, col - 1), (row, col + 1), (row + 1, col)):
            step = r * width + c
            if 0 <= r < height and 0 <= c < width and passable[step] and step not in parent:
                parent[step] = here
                queue.append(step)
    if found is None:
        return None
    owner = {taken: agent for agent, taken in enumerate(chosen) if taken >= 0}
    while found != cell:
        behind = parent[found]
        agent = owner.get(behind)
        if agent is None:
            return None
        chosen[agent] = found
        free[found] = False
        found = behind
    free[cell] = True
    return cell


def _uncrossed(
    chosen: list[int], positions: NDArray[np.float64], centres: NDArray[np.float64]
) -> list[int]:
    """`chosen` with pairs traded while that shortens their ways (see `start_cells`)."""
    reach = SWAP_REACH * float(np.hypot(*(centres[1] - centres[0]))) if len(centres) > 1 else 0.0
    cells = list(chosen)
    for _ in range(len(cells) * len(cells)):  # each trade shortens the sum: it ends
        traded = False
        for a in range(len(cells)):
            for b in range(a + 1, len(cells)):
                now = _way(positions[a], centres[cells[a]]) + _way(positions[b], centres[cells[b]])
                way_a, way_b = (
                    _way(positions[a], centres[cells[b]]),
                    _way(positions[b], centres[cells[a]]),
                )
                if way_a + way_b < now - 1e-9 and max(way_a, way_b) <= reach:
                    cells[a], cells[b] = cells[b], cells[a]
                    traded = True
        if not traded:
            break
    return cells


def _way(start: NDArray[np.float64], end: NDArray[np.float64]) -> float:
    return float(np.hypot(*(end - start)))


def gather_waits(
    first: NDArray[np.float64], ends: NDArray[np.float64], radii: NDArray[np.float64]
) -> NDArray[np.float64]:
    """How many steps each agent waits before it goes from `first` to its start cell's centre.

    Each glides in a straight line over one step. Agents are taken one at a time, those whose
    start cells lie farthest from where the others stand first (their way is open), each
    waiting the fewest steps, at most `GATHER_MAX_WAIT`, that keep it from coming closer than
    their radii (less `TURN_OVERLAP` of them; or than they stand now) to an agent taken
    before it, as that one stands, glides or has arrived; when no wait does, the one that
    keeps them farthest apart. So nobody waits for longer than a few steps (a wait settled
    pair by pair grew to 15 steps in a crowd at a door, and held the whole plan up that long).

    >>> gather_waits(np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([[1.0, 0.0], [1.0, 1.0]]),
    ...              np.full(2, 0.4)).tolist()
    [1.0, 0.0]
    """
    count = len(first)
    waits = np.zeros(count)
    if count < 2:
        return waits
    samples = np.linspace(0.0, 1.0, GATHER_SAMPLES)
    apart = np.hypot(*(first[:, None, :] - first[None, :, :]).transpose(2, 0, 1))
    wanted = np.minimum((radii[:, None] + radii[None, :]) * (1.0 - TURN_OVERLAP), apart)
    # Ways of at most a cell and a half from points farther apart never meet.
    glide = float(np.hypot(*(ends - first).T).max())
    near = apart <= 2.0 * glide + 2.0 * float(radii.max())
    others = ~np.eye(count, dtype=bool)
    clearance = np.where(
        others, np.hypot(*(ends[:, None, :] - first[None]).transpose(2, 0, 1)), np.inf
    )
    order = np.lexsort((np.arange(count), -clearance.min(axis=1)))
    taken: list[int] = []
    for agent in order:
        best_wait, best_margin = 0.0, -np.inf
        for wait in range(GATHER_MAX_WAIT + 1):
            waits[agent] = float(wait)
            margin = min(
                (
                    _closest(first, ends, waits, int(agent), other, samples) - wanted[agent, other]
                    for other in taken
                    if near[agent, other]
                ),
                default=np.inf,
            )
            if margin > best_margin + 1e-9:
                best_wait, best_margin = float(wait), margin
            if margin >= -1e-9:
                break
        waits[agent] = best_wait
        taken.append(int(agent))
    return waits


def kept_apart(
    positions: NDArray[np.float64], radii: NDArray[np.float64], rounds: int = APART_ROUNDS
) -> NDArray[np.float64]:
    """`positions` with any two discs closer than their radii (less `TURN_OVERLAP`) pushed apart.

    A plan's glides are straight: from where agents stood to their start cells, two of them
    may pass closer than that where no wait of either helps (a diagonal glide past a neighbour
    that stands next to its cell's centre). Each such pair moves apart along the line between
    them, half the shortfall each, `rounds` times over; discs far enough apart are not moved,
    so on the plan's cells (a cell apart) nothing changes.

    >>> kept_apart(np.array([[0.0, 0.0], [0.6, 0.0]]), np.full(2, 0.4)).round(2).tolist()
    [[-0.08, 0.0], [0.68, 0.0]]
    """
    moved = np.array(positions, dtype=np.float64)
    wanted = (radii[:, None] + radii[None, :]) * (1.0 - TURN_OVERLAP)
    for _ in range(rounds):
        gap = moved[None, :, :] - moved[:, None, :]
        apart = np.hypot(gap[..., 0], gap[..., 1])
        np.fill_diagonal(apart, np.inf)
        short = np.maximum(wanted - apart, 0.0)
        if not short.any():
            break
        unit = gap / np.where(apart > 1e-9, apart, 1.0)[..., None]
        moved -= 0.5 * (short[..., None] * unit).sum(axis=1)
    return moved


def _closest(
    first: NDArray[np.float64],
    ends: NDArray[np.float64],
    waits: NDArray[np.float64],
    a: int,
    b: int,
    samples: NDArray[np.float64],
) -> float:
    """The closest agents `a` and `b` come while each glides to its end after its wait."""
    times = np.concatenate([samples + k for k in range(int(max(waits[a], waits[b])) + 1)])
    moved_a = np.clip(times - waits[a], 0.0, 1.0)[:, None]
    moved_b = np.clip(times - waits[b], 0.0, 1.0)[:, None]
    at_a = first[a] + (ends[a] - first[a]) * moved_a
    at_b = first[b] + (ends[b] - first[b]) * moved_b
    return float(np.hypot(*(at_a - at_b).T).min())


def joint_paths(
    problem: MapfProblem,
    settings: JamSettings,
    groups: Sequence[int] | None = None,
    *,
    lag: float = 0.0,
) -> tuple[tuple[int, ...], ...]:
    """The jam's plan: the best of prioritized planning's and LaCAM*'s; () when none found one.

    Prioritized planning (`sim.crowd.jams.prioritized`) tries its orders, `groups` (each
    agent's goal beyond the window; default: its local goal) telling the groups apart, all
    within one budget of counted expansions sized from the window (`Work.for_window`). LaCAM*
    searches within `settings.max_nodes` configurations: a budget of work, not of time, so
    the same problem gives the same plan on any machine, however loaded (the time limit only
    guards the frame); a plan of its in which agents rotate round a 2 x 2 block
    (`sim.crowd.joint.rotations`: discs that close cannot) is searched again with the next
    seeds, up to `settings.tries` in all. The plan with the fewest rotations, then the
    shortest (the jam lasts until its last agent is through: its steps, each with the longest
    turn lag `lag` in it, `sim.crowd.joint.turn_delays`), then the fewest moves, wins.

    A member walled off from its local goal in the window (the agents standing in it as
    obstacles) has no plan at all: () at once. Neither planner could find one, and LaCAM*
    would spend its whole budget on each seed proving nothing (in a crowd of 16 goal groups
    four in five of its searches were such, each about ten times a solvable one's cost).
    """
    tables = distance_tables(problem)
    if (tables[np.arange(problem.agents), list(problem.starts)] >= UNREACHABLE).any():
        return ()
    best: tuple[tuple[int, float, int], tuple[tuple[int, ...], ...]] | None = None
    keys = problem.goals if groups is None else groups
    work = Work.for_window(int(problem.walkable.sum()), problem.agents)
    for order in agent_orders(problem, tables, keys):
        paths = prioritized_paths(problem, tables, order, work)
        if paths:
            score = _score(paths, problem.width, lag)
            if best is None or score < best[0]:
                best = (score, paths)
    for attempt in range(settings.tries):
        seed = settings.seed + attempt
        if native.choose("auto"):
            configs, _, _ = native.lacam_configs(
                problem,
                tables,
                time_limit_s=settings.time_limit_s,
                seed=seed,
                max_nodes=settings.max_nodes,
            )
        else:
            outcome = lacam(
                problem,
                tables,
                time_limit_s=settings.time_limit_s,
                seed=seed,
                node_limit=settings.max_nodes,
            )
            configs = [list(config) for config in outcome.configs]
        paths = paths_from_configs(configs)
        if not paths:
            continue
        score = _score(paths, problem.width, lag)
        if best is None or score < best[0]:
            best = (score, paths)
        if score[0] == 0:
            break
    return () if best is None else best[1]


def _score(paths: tuple[tuple[int, ...], ...], width: int, lag: float) -> tuple[int, float, int]:
    """A plan's rotations, steps with their lags, and moves: lower is better (`joint_paths`)."""
    cells = np.array(paths, dtype=np.intp).T
    turns = sum(len(cycles) for cycles in rotations(cells))
    delays = turn_delays(cells, width, lag) if lag > 0.0 and len(cells) > 1 else np.zeros((0, 0))
    duration = len(cells) + float(delays.max(axis=1).sum()) if delays.size else float(len(cells))
    moves = int((cells[1:] != cells[:-1]).sum())
    return (turns, duration, moves)
