"""The no-deadlock rule's first half: which agents stopped making way, and who jams with them.

The rule (`JamSettings`): an agent that is moving (not arrived, not in a joint plan, not
pressing at its goal's cluster of arrived agents) is **stalled** when its distance to its goal
along the grid (a 4-connected distance field from its goal's cell, `GoalDistances`, one per
goal cell shared by every agent chasing it) has not fallen below its lowest yet by
`progress_cells` cells during the last `window_s` seconds (`ProgressWatch`). Stalled agents
and every agent touching one (discs closer than their radii plus `contact_cells` of a cell),
chained through stalled agents, make one **jam** (`jam_groups`) when at most a quarter of them
(`MAKING_WAY_SHARE`) are still making way and an agent bound for another goal stands within
`opposed_cells` of them (a queue whose front moves, or of agents all bound for one goal, is no
jam; in a crowd of two dozen pressing at a door from both sides a few always gain half a cell
round its rim, and waiting for none to left them pressing 3-5 s): the group handed to the
multi-agent planner (`sim.crowd.jams.handoff`). An agent that only closes up behind a stalled
one bound for its own goal (`closing_up`) is not making way: the front it follows stands.

The watch keeps one lowest distance and one time per agent index in arrays, so a crowd of
thousands costs a few array operations a check, and checks run every `check_every_s`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.crowd.avoidance import find_neighbours
from sim.navigation.field import distance_field

MAKING_WAY_SHARE = 0.25
"""A group in which more than this share of agents still make way is a queue, not a jam."""


@dataclass(frozen=True, slots=True)
class JamSettings:
    """The no-deadlock rule's tunables; seconds and cells.

    Attributes:
        window_s: An agent whose distance to its goal fell by less than `progress_cells`
            cells over this long is stalled.
        progress_cells: The progress, in cells along the grid, that resets the window.
        check_every_s: How often stalls are looked for.
        contact_cells: Discs closer than their radii's sum plus this much of a cell touch.
        opposed_cells: A jam needs an agent bound elsewhere within this many cells of it.
        funnel_cells: Groups converging on a one-cell passage from its two sides are handed
            off once they come within this many steps of it (`sim.crowd.jams.funnel`), before
            they stall there; 0: only stalls are.
        margin_cells: The jam's window is its agents' cells' bounding box grown by this many
            cells on every side, then grown again (doubled) while no joint plan is found,
            up to the whole grid.
        max_members: A jam with more agents in its window is left to avoidance: a joint plan
            moves its members a cell a step, each waiting for the others, so a plan for a
            crowd holds it up longer than avoidance does (the 60 of scenes/crossing.toml took
            57 s with plans of 32, 48 s without them), but a one-cell door avoidance never
            clears: 32 fit a doorway swap of 16 a side (with 24, 14 a side stood for ever).
            That holds for a jam of two groups (a swap); one whose members chase more goals
            takes at most `mixed_max_members`.
        mixed_max_members: The most agents of a jam whose members chase three goals or more: in
            a dense crowd of many goal groups such a plan's window fills with others pressing
            in (16 groups x 625 agents: overlap 0.24 of two radii over 12 s at 32, 0.043 at 24).
        max_nodes: The configurations LaCAM* may search for a jam's plan (the best found by
            then is taken): a budget of work, not of time, so plans do not depend on the
            machine's load.
        tries: Seeds tried for a plan without rotations (`sim.crowd.jams.handoff.joint_paths`).
        time_limit_s: Wall-clock seconds a joint plan may take at most (a guard only).
        seed: The planner's seed: the same jam gives the same plan.
    """

    window_s: float = 1.0
    progress_cells: float = 0.5
    check_every_s: float = 0.25
    contact_cells: float = 1.0
    opposed_cells: float = 3.0
    margin_cells: int = 5
    funnel_cells: int = 3
    max_members: int = 32
    mixed_max_members: int = 24
    max_nodes: int = 10_000
    tries: int = 4
    time_limit_s: float = 1.0
    seed: int = 0


def member_limit(settings: JamSettings, goals: NDArray[np.int64]) -> int:
    """The most agents a jam chasing `goals` (each member's goal cell) may hand to a plan.

    >>> member_limit(JamSettings(), np.array([3, 3, 9])), member_limit(JamSettings(), np.arange(3))
    (32, 24)
    """
    swap = len(np.unique(goals)) <= 2
    return settings.max_members if swap else settings.mixed_max_members


class GoalDistances:
    """Each goal cell's 4-connected distance field on the current walkable mask, in cells."""

    def __init__(self) -> None:
        self._fields: dict[int, NDArray[np.float64]] = {}
        self._mask_version = -1

    def of(self, walkable: NDArray[np.bool_], mask_version: int, goal: int) -> NDArray[np.float64]:
        """The flat field toward flat cell `goal` (inf where it cannot be reached)."""
        if mask_version != self._mask_version:
            self._fields.clear()
            self._mask_version = mask_version
        found = self._fields.get(goal)
        if found is None:
            cell = divmod(goal, walkable.shape[1])
            found = distance_field(walkable, cell, diagonal=False).ravel()
            self._fields[goal] = found
        return found


class ProgressWatch:
    """Per agent index: its lowest distance to goal lately, and since when (see the module)."""

    def __init__(self) -> None:
        self._lowest = np.zeros(0)
        self._since = np.zeros(0)

    def _fit(self, indices: NDArray[np.int64]) -> None:
        size = int(indices.max()) + 1 if len(indices) else 0
        if size > len(self._lowest):
            grow = size - len(self._lowest)
            self._lowest = np.concatenate([self._lowest, np.full(grow, np.inf)])
            self._since = np.concatenate([self._since, np.full(grow, np.nan)])

    def observe(
        self,
        indices: NDArray[np.int64],
        distance: NDArray[np.float64],
        watched: NDArray[np.bool_],
        time_s: float,
        settings: JamSettings,
    ) -> NDArray[np.bool_]:
        """Take each agent's distance now; return which are stalled (see the module).

        Agents not `watched` (arrived, idle, in a joint plan) start their window again.
        """
        self._fit(indices)
        lowest, since = self._lowest[indices], self._since[indices]
        better = distance < lowest - settings.progress_cells
        restart = ~watched | better | np.isnan(since) | ~np.isfinite(distance)
        lowest = np.where(restart, distance, np.minimum(lowest, distance))
        since = np.where(restart, time_s, since)
        self._lowest[indices], self._since[indices] = lowest, since
        stalled: NDArray[np.bool_] = watched & ~restart & (time_s - since >= settings.window_s)
        return stalled

    def restart(self, indices: NDArray[np.int64], time_s: float) -> None:
        """Start these agents' windows again now (after a hand-off, or one that failed)."""
        self._fit(indices)
        self._lowest[indices] = np.inf
        self._since[indices] = time_s


def touch_neighbours(
    positions: NDArray[np.float64], radii: NDArray[np.float64], contact: float
) -> NDArray[np.intp]:
    """Each row's nearest rows (up to 8) that may touch it, for `jam_groups` and `closing_up`.

    One search of the crowd's spatial hash serves both (each made the same table before).
    """
    reach = 2.0 * float(radii.max()) + contact
    return find_neighbours(positions, neighbour_dist=reach, max_neighbours=8)


def jam_groups(
    positions: NDArray[np.float64],
    radii: NDArray[np.float64],
    stalled: NDArray[np.bool_],
    eligible: NDArray[np.bool_],
    progressing: NDArray[np.bool_],
    goals: NDArray[np.int64],
    *,
    contact: float,
    opposed: float,
    others: NDArray[np.bool_] | None = None,
    neighbours: NDArray[np.intp] | None = None,
) -> list[NDArray[np.intp]]:
    """The jams: stalled rows and the `eligible` rows touching them, chained through stalled ones.

    Two discs touch closer than their radii's sum plus `contact` (world units); a row looks
    for them among its `neighbours` (`touch_neighbours`, made here when not given), and a
    group grows from its lowest stalled row through the stalled rows it reaches. A group more
    than `MAKING_WAY_SHARE` of whose agents are `progressing` (moving toward their goals
    lately; in a group of up to 3, any one) is a queue, not a jam: its front still moves, so it
    is left to the crowd; so is a group with no agent of `others`
    (default: the `eligible` ones) chasing another goal (by `goals`, each row's goal cell)
    within `opposed` of it (world units): agents all bound for one goal drain as those in
    front arrive. Each group is sorted rows; groups come in the order of their lowest stalled
    row, so the same crowd gives the same groups.

    Thousands stall at once in a dense crowd of many goal groups: the stalled rows' contacts
    are measured in one pass, the walk through them runs on plain lists, and one opposed
    search (`opposed_near`) serves every group.

    >>> points = np.array([[0.0, 0.0], [0.8, 0.0], [1.6, 0.0], [9.0, 0.0], [9.8, 0.0]])
    >>> stalled = np.array([1, 0, 0, 1, 0], bool)
    >>> progressing = np.array([0, 0, 0, 0, 1], bool)
    >>> goals = np.array([7, 9, 9, 7, 7])
    >>> [g.tolist() for g in jam_groups(points, np.full(5, 0.4), stalled, np.ones(5, bool),
    ...                                 progressing, goals, contact=0.1, opposed=2.0)]
    [[0, 1]]
    """
    seeds = np.flatnonzero(stalled & eligible)
    if not len(seeds):
        return []
    if neighbours is None:
        neighbours = touch_neighbours(positions, radii, contact)
    contacts = _contacts(positions, radii, seeds, eligible, neighbours, contact)
    slot_of = np.full(len(positions), -1, dtype=np.intp)
    slot_of[seeds] = np.arange(len(seeds))
    slots = slot_of.tolist()
    taken = bytearray(len(positions))
    queues = progressing.tolist()
    found: list[list[int]] = []
    for seed in seeds.tolist():
        if taken[seed]:
            continue
        taken[seed] = 1
        members, frontier = [seed], [seed]
        while frontier:
            for other in contacts[slots[frontier.pop()]]:
                if other < 0 or taken[other]:
                    continue
                taken[other] = 1
                members.append(other)
                if slots[other] >= 0:
                    frontier.append(other)
        if sum(queues[row] for row in members) <= int(MAKING_WAY_SHARE * len(members)):
            found.append(members)
    if not found:
        return []
    held = np.concatenate([np.asarray(members, dtype=np.intp) for members in found])
    near = opposed_near(positions, held, eligible if others is None else others, goals, opposed)
    firsts = np.cumsum([0] + [len(members) for members in found[:-1]])
    hits = np.logical_or.reduceat(near, firsts)
    return [
        np.array(sorted(members), dtype=np.intp)
        for members, hit in zip(found, hits.tolist(), strict=True)
        if hit
    ]


def _contacts(
    positions: NDArray[np.float64],
    radii: NDArray[np.float64],
    seeds: NDArray[np.intp],
    eligible: NDArray[np.bool_],
    neighbours: NDArray[np.intp],
    contact: float,
) -> list[list[int]]:
    """Per seed row: its `eligible` neighbours touching it, nearest first, the rest -1."""
    if not neighbours.shape[1]:
        return [[] for _ in seeds]
    found = neighbours[seeds]
    valid = found >= 0
    other = np.where(valid, found, 0)
    gap = np.hypot(*(positions[other] - positions[seeds, None, :]).transpose(2, 0, 1))
    touching = valid & eligible[other] & (gap <= radii[seeds, None] + radii[other] + contact)
    listed: list[list[int]] = np.where(touching, other, -1).tolist()
    return listed


def opposed_near(
    positions: NDArray[np.float64],
    held: NDArray[np.intp],
    bound: NDArray[np.bool_],
    goals: NDArray[np.int64],
    reach: float,
) -> NDArray[np.bool_]:
    """Per `held` row: whether a `bound` row chasing another goal lies within `reach` of it.

    Only agents in neighbouring squares of side `reach` can be that near, so the others are
    bucketed by square once and each held row tests those of the nine round its own: a jam
    of the thousands standing at one goal scanned every agent once per member (a tenth of a
    second a check at 10,000 agents), and bucketing again for each jam cost a check 20 ms.

    >>> points = np.array([[0.0, 0.0], [2.5, 0.0], [9.0, 0.0]])
    >>> bound = np.ones(3, bool)
    >>> opposed_near(points, np.array([0, 2]), bound, np.array([1, 2, 2]), 2.0).tolist()
    [False, False]
    >>> opposed_near(points, np.array([0, 2]), bound, np.array([1, 2, 2]), 3.0).tolist()
    [True, False]
    """
    near = np.zeros(len(held), dtype=bool)
    others = np.flatnonzero(bound)
    if not len(others) or not len(held):
        return near
    size = reach if reach > 0.0 else 1.0
    other_squares = np.floor(positions[others] / size).astype(np.int64)
    held_squares = np.floor(positions[held] / size).astype(np.int64)
    low = np.minimum(other_squares.min(axis=0), held_squares.min(axis=0)) - 1
    span = int(max(other_squares[:, 1].max(), held_squares[:, 1].max()) - low[1]) + 2
    keys = (other_squares[:, 0] - low[0]) * span + (other_squares[:, 1] - low[1])
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    held_keys = (held_squares[:, 0] - low[0]) * span + (held_squares[:, 1] - low[1])
    slots = np.arange(len(held))
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            wanted = held_keys + dx * span + dy
            starts = np.searchsorted(sorted_keys, wanted, side="left")
            counts = np.searchsorted(sorted_keys, wanted, side="right") - starts
            total = int(counts.sum())
            if not total:
                continue
            firsts = np.repeat(np.cumsum(counts) - counts, counts)
            other = others[order[np.arange(total) - firsts + np.repeat(starts, counts)]]
            slot = np.repeat(slots, counts)
            gap = positions[other] - positions[held[slot]]
            close = gap[:, 0] * gap[:, 0] + gap[:, 1] * gap[:, 1] <= reach * reach
            near[slot[close & (goals[other] != goals[held[slot]])]] = True
    return near


def closing_up(
    positions: NDArray[np.float64],
    radii: NDArray[np.float64],
    stalled: NDArray[np.bool_],
    goals: NDArray[np.int64],
    distance: NDArray[np.float64],
    contact: float,
    neighbours: NDArray[np.intp] | None = None,
) -> NDArray[np.bool_]:
    """Which rows only close up behind a stalled one: the tail of a queue whose front stands.

    A row touching (as `jam_groups` says, among its `neighbours`: `touch_neighbours`, made
    here when not given) a `stalled` row bound for the same goal (`goals`) and nearer it
    (`distance`, along the grid) makes way only into the gap behind that front: its progress
    does not make the group a moving queue. Only rows with a stalled neighbour are measured.

    >>> points = np.array([[0.0, 0.0], [1.2, 0.0], [5.0, 0.0]])
    >>> closing_up(points, np.full(3, 0.4), np.array([1, 0, 0], bool), np.zeros(3, np.int64),
    ...            np.array([3.0, 4.0, 8.0]), 1.0).tolist()
    [False, True, False]
    """
    found = np.zeros(len(positions), dtype=bool)
    if not stalled.any():
        return found
    if neighbours is None:
        neighbours = touch_neighbours(positions, radii, contact)
    if not neighbours.shape[1]:
        return found
    valid = neighbours >= 0
    other = np.where(valid, neighbours, 0)
    rows = np.flatnonzero((valid & stalled[other]).any(axis=1) & ~stalled)
    valid, other = valid[rows], other[rows]
    gap = np.hypot(*(positions[other] - positions[rows, None, :]).transpose(2, 0, 1))
    touching = valid & (gap <= radii[rows, None] + radii[other] + contact)
    ahead = (goals[other] == goals[rows, None]) & (distance[other] < distance[rows, None])
    found[rows] = (touching & ahead & stalled[other]).any(axis=1)
    return found
