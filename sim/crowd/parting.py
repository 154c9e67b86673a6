"""Parting: a crowd's discs pressed into each other are pushed apart after they move.

ORCA keeps discs apart as long as each moves as it chose. A wall that stops or turns one
leaves its neighbours' choices wrong, and where a crowd presses into a gap the trade-offs of a
full neighbourhood let discs sink into each other a little; `part_discs` undoes that each
frame, so no overlap outgrows a few hundredths of the radii's sum (see `StepSettings`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.crowd.avoidance import find_neighbours
from sim.crowd.disc_walls import Walls
from sim.crowd.grid import CrowdGrid
from sim.crowd.rows import AgentRows, lengths, put_rows, take_rows
from sim.crowd.settings import StepSettings

PARTING_KERNEL_AVAILABLE: bool
"""Whether `_parting.c` imported; parting pushes in numpy without it (the same result)."""
try:
    from sim.crowd import _parting

    PARTING_KERNEL_AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the build
    PARTING_KERNEL_AVAILABLE = False

WALLED_GIVE = 0.1  # how far an agent against a wall gives way when parted, against 1
PAIR_NEIGHBOURS = 8  # parting watches at most this many nearest of each disc
PAIR_SLACK = 0.1  # among those closer than their radii's sum and this fraction of it
SEPARATION_ROUNDS = 2  # a round more when walls refused part of the last one's pushes
WALL_CONTACT = 0.05  # cells: a disc this near a wall is against it


@dataclass(frozen=True, slots=True)
class SeenNeighbours:
    """The neighbour lists ORCA found this frame, before the agents moved.

    `near` (rows, width) each row's nearest closer than `neighbour_dist` at `positions`
    (rows, 2), -1 padded, -2 first for a row not searched (`avoidance.avoid`'s `seen`).
    Parting's C search takes its pairs from these wherever they surely hold every row near
    enough after the move (see `_parting.c`), and gives the same pairs as a search anew.
    """

    positions: NDArray[np.float64]
    near: NDArray[np.int64]
    neighbour_dist: float


@dataclass(frozen=True, slots=True)
class _Pairs:
    """The pairs `part_discs` parts.

    Rows `first` and `second` of each pair, the rows pushed (`pressed`) and each pair's
    `first` among them (`local`), the distance wanted apart (`reach`) and `first`'s share of
    each push.
    """

    pressed: NDArray[np.intp]
    local: NDArray[np.intp]
    first: NDArray[np.intp]
    second: NDArray[np.intp]
    reach: NDArray[np.float64]
    share: NDArray[np.float64]


def part_discs(
    rows: AgentRows,
    driven: NDArray[np.intp],
    walls: Walls,
    against_wall: NDArray[np.bool_],
    dt: float,
    grid: CrowdGrid,
    settings: StepSettings,
    seen: SeenNeighbours | None = None,
) -> None:
    """Part the driven discs that overlap deeper than `part_beyond` of their radii's sum.

    On the way, it notes which agents have a neighbour wanting the opposite way
    (`opposed`: those may sidestep next frame).

    ORCA keeps discs apart as long as each moves as it chose; a wall that stops or turns
    one leaves its neighbours' choices wrong, and where a crowd presses into a gap the
    trade-offs of a full neighbourhood let discs sink in a little. Each overlapping pair
    is pushed apart along the line between the centres by the depth beyond the
    allowance, shared by how far each can give way: not at all for an agent the crowd does
    not drive, `WALLED_GIVE` for one a wall stopped or turned last frame and for a driven
    one outside this step's `driven` rows (a jam's joint plan moves it: a full push from a
    crowd pressing in carried it 0.2 of a cell into the plan's next member), 1 otherwise. The
    pushes are repeated `part_passes` times on the same pairs, so a disc pressed from
    several sides settles, then up to `settle_passes` times on the pairs still deep; their
    sum slides along walls like any move. `seen`, ORCA's lists of this frame, spares the
    search a hash of its own.
    """
    radii = rows.radii
    found = find_pairs(rows, settings.part_beyond, seen=seen)
    rows.opposed[driven] = False
    rows.opposed |= found.opposed
    pressed, local, first, second = found.pressed, found.local, found.first, found.second
    reach = found.reach
    if not len(first):
        return
    held = rows.walled.copy()
    held[driven] |= against_wall
    held |= rows.driven
    held[driven] = rows.walled[driven] | against_wall
    give = np.where(held, WALLED_GIVE, 1.0) * rows.driven
    start = take_rows(rows.positions, pressed)
    size = grid.grid_cell_size
    for _ in range(SEPARATION_ROUNDS):
        both = give[first] + give[second]
        share = np.divide(give[first], both, out=np.zeros_like(both), where=both > 0)
        origin = take_rows(rows.positions, pressed)
        here = _cell_space(grid, origin)
        pairs = _Pairs(pressed, local, first, second, reach, share)
        _part_passes(rows, pairs, walls, here, grid, settings)
        # The whole push then slides along walls as one move, as any move does; where a
        # wall refuses part of it, those agents hold still and their partners part again.
        pushed = _cell_space(grid, take_rows(rows.positions, pressed))
        wanted_move = pushed - here
        moved, _ = walls.slide(here, wanted_move, radii[pressed] / size)
        put_rows(rows.positions, pressed, origin + (moved - here) * size)
        refused = (moved != here + wanted_move).any(axis=1)
        if not refused.any():
            break
        give[pressed[refused]] = 0.0
    # The push counts in the velocity ORCA reads next frame (it is how the agent moved),
    # up to the agent's speed.
    step = take_rows(rows.positions, pressed) - start
    rows.distance[pressed] += lengths(step)
    velocity = take_rows(rows.velocities, pressed) + step / dt
    speed = lengths(velocity)
    limit = rows.speeds[pressed]
    over = speed > limit
    fast = np.flatnonzero(over)
    put_rows(velocity, fast, take_rows(velocity, fast) * (limit[fast] / speed[fast])[:, None])
    put_rows(rows.velocities, pressed, velocity)


@dataclass(frozen=True, slots=True)
class FoundPairs:
    """What `find_pairs` found: the rows pressed, the pairs about to touch, who is opposed.

    `pressed` are the driven rows with a neighbour; each pair's `first` (one of them, and its
    index among them, `local`), `second` and `reach` (their radii's sum less the allowance);
    `opposed` (rows,) marks the rows with a neighbour wanting the opposite way.
    """

    pressed: NDArray[np.intp]
    local: NDArray[np.intp]
    first: NDArray[np.intp]
    second: NDArray[np.intp]
    reach: NDArray[np.float64]
    opposed: NDArray[np.bool_]


def find_pairs(
    rows: AgentRows,
    allow: float,
    implementation: str = "auto",
    seen: SeenNeighbours | None = None,
) -> FoundPairs:
    """The pairs `part_discs` parts, from each row's `PAIR_NEIGHBOURS` nearest.

    The C kernel (`_parting.pairs`, its neighbour search ORCA's, or ORCA's own lists when
    `seen` holds them) runs it when it is built ("auto"); `implementation="python"` runs the
    numpy reference it matches exactly, which searches anew.
    """
    radii = rows.radii
    # Pairs a little apart count too: pushes elsewhere may bring them together.
    reach_dist = 2.0 * float(radii.max()) * (1.0 + PAIR_SLACK) if len(radii) else 0.0
    if implementation == "auto" and PARTING_KERNEL_AVAILABLE:
        return _pairs_c(rows, allow, reach_dist, seen)
    neighbours = find_neighbours(
        rows.positions, neighbour_dist=reach_dist, max_neighbours=PAIR_NEIGHBOURS
    )
    valid = neighbours >= 0
    pressed = np.flatnonzero(valid.any(axis=1) & rows.driven)
    # Each end of a pair moves its own share; a pair is listed from both ends when each
    # is among the other's nearest, as in a crowd it nearly always is.
    local, slot = np.nonzero(valid[pressed])
    first, second = pressed[local], neighbours[pressed][local, slot]
    reach = (radii[first] + radii[second]) * (1.0 - allow)
    wanted = rows.preferred
    against_flow = (wanted[first] * wanted[second]).sum(axis=1) < 0.0
    opposed = np.zeros(len(radii), dtype=np.bool_)
    opposed[first[against_flow]] = True
    # Only pairs about to touch are pushed: this frame's pushes are too small to bring
    # others together.
    gap = rows.positions[second] - rows.positions[first]
    close = np.hypot(gap[:, 0], gap[:, 1]) < reach * (1.0 + PAIR_SLACK)
    return FoundPairs(pressed, local[close], first[close], second[close], reach[close], opposed)


def _pairs_c(
    rows: AgentRows, allow: float, reach_dist: float, seen: SeenNeighbours | None
) -> FoundPairs:
    count = len(rows.radii)
    keep = min(PAIR_NEIGHBOURS, max(count - 1, 0))
    positions = np.ascontiguousarray(rows.positions)  # the C hash checks the spread
    pressed = np.empty(count, dtype=np.int64)
    local, first, second = (np.empty(count * keep, dtype=np.int64) for _ in range(3))
    reach = np.empty(count * keep)
    opposed = np.empty(count, dtype=np.bool_)
    shared = seen is not None and seen.near.shape[0] == count
    before = np.ascontiguousarray(seen.positions) if seen is not None and shared else None
    lists = np.ascontiguousarray(seen.near) if seen is not None and shared else None
    m, p = _parting.pairs(
        positions,
        np.ascontiguousarray(rows.radii),
        np.ascontiguousarray(rows.driven),
        np.ascontiguousarray(rows.preferred),
        reach_dist,
        keep,
        allow,
        PAIR_SLACK,
        pressed,
        local,
        first,
        second,
        reach,
        opposed,
        before,
        lists,
        seen.neighbour_dist if seen is not None else 0.0,
    )
    return FoundPairs(
        pressed[:m].astype(np.intp, copy=False),
        local[:p].astype(np.intp, copy=False),
        first[:p].astype(np.intp, copy=False),
        second[:p].astype(np.intp, copy=False),
        reach[:p],
        opposed,
    )


def _part_passes(
    rows: AgentRows,
    pairs: _Pairs,
    walls: Walls,
    here: NDArray[np.float64],
    grid: CrowdGrid,
    settings: StepSettings,
    implementation: str = "auto",
) -> None:
    """Push the pairs apart `part_passes` times, then settle the deep ones (see above).

    The C kernel (`_parting.push_apart`) runs the passes when it is built ("auto");
    `implementation="python"` runs the numpy reference it matches to the bit.
    """
    pressed, local, first, second = pairs.pressed, pairs.local, pairs.first, pairs.second
    reach, share = pairs.reach, pairs.share
    # A disc against a wall is not pushed into it: that part of each push is dropped.
    wall_gap, wall_normal = walls.nearest(here)
    against = wall_gap <= rows.radii[pressed] / grid.grid_cell_size + WALL_CONTACT
    if implementation == "auto" and PARTING_KERNEL_AVAILABLE and rows.positions.flags.c_contiguous:
        _parting.push_apart(
            rows.positions,
            pressed.astype(np.int64, copy=False),
            local.astype(np.int64, copy=False),
            first.astype(np.int64, copy=False),
            second.astype(np.int64, copy=False),
            np.ascontiguousarray(reach),
            np.ascontiguousarray(share),
            np.ascontiguousarray(wall_normal),
            np.ascontiguousarray(against),
            settings.part_passes,
            settings.settle_passes,
            settings.settle_beyond,
        )
        return
    for index in range(settings.part_passes + settings.settle_passes):
        positions = rows.positions
        gap = positions[second] - positions[first]
        apart = np.hypot(gap[:, 0], gap[:, 1])
        depth = np.maximum(reach - apart, 0.0)
        if index >= settings.part_passes:  # settling: only the pairs still deep
            depth[depth <= settings.settle_beyond * reach] = 0.0
        if not depth.any():
            break
        scale = np.divide(depth, apart, out=np.zeros_like(depth), where=apart > 0) * share
        push = -np.column_stack(
            [
                np.bincount(local, gap[:, 0] * scale, len(pressed)),
                np.bincount(local, gap[:, 1] * scale, len(pressed)),
            ]
        )
        into = np.minimum((push * wall_normal).sum(axis=1), 0.0) * against
        rows.positions[pressed] += push - into[:, None] * wall_normal


def _cell_space(grid: CrowdGrid, positions: NDArray[np.float64]) -> NDArray[np.float64]:
    cell_space: NDArray[np.float64] = (positions - np.asarray(grid.origin)) / grid.grid_cell_size
    return cell_space
