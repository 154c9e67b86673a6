"""What the jam rule costs in a dense crowd: the cheaper search answers as the walk it replaced.

`jam_groups` measures the stalled rows' contacts in one pass, walks them on plain lists and
runs one opposed search for every group; `closing_up` measures only rows next to a stalled
one. Both are checked against the per-agent walk they replaced (kept here as the reference),
on random crowds dense enough that a row has more touching neighbours than the eight it
looks at (so the walk's direction matters).
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.crowd.avoidance import find_neighbours
from sim.crowd.jams.detect import MAKING_WAY_SHARE, closing_up, jam_groups, touch_neighbours
from tests.unit.test_crowd_late_costs import scan_opposed


def walked_groups(
    positions: np.ndarray,
    radii: np.ndarray,
    stalled: np.ndarray,
    eligible: np.ndarray,
    progressing: np.ndarray,
    goals: np.ndarray,
    contact: float,
    opposed: float,
    others: np.ndarray,
) -> list[list[int]]:
    """The jams as the rule found them before: a walk from each seed, one agent at a time."""
    reach = 2.0 * float(radii.max()) + contact
    neighbours = find_neighbours(positions, neighbour_dist=reach, max_neighbours=8)
    taken = np.zeros(len(positions), dtype=bool)
    groups = []
    for seed in np.flatnonzero(stalled & eligible):
        if taken[seed]:
            continue
        taken[seed] = True
        members, frontier = [int(seed)], [int(seed)]
        while frontier:
            current = frontier.pop()
            for other in neighbours[current]:
                if other < 0 or taken[other] or not eligible[other]:
                    continue
                gap = float(np.hypot(*(positions[other] - positions[current])))
                if gap > radii[current] + radii[other] + contact:
                    continue
                taken[other] = True
                members.append(int(other))
                if stalled[other]:
                    frontier.append(int(other))
        if progressing[members].sum() > int(MAKING_WAY_SHARE * len(members)):
            continue
        if scan_opposed(positions, members, others, goals, opposed):
            groups.append(sorted(members))
    return groups


def walked_closing_up(
    positions: np.ndarray,
    radii: np.ndarray,
    stalled: np.ndarray,
    goals: np.ndarray,
    distance: np.ndarray,
    contact: float,
) -> list[bool]:
    reach = 2.0 * float(radii.max()) + contact
    neighbours = find_neighbours(positions, neighbour_dist=reach, max_neighbours=8)
    behind = []
    for row, listed in enumerate(neighbours):
        found = False
        for other in listed[listed >= 0]:
            gap = float(np.hypot(*(positions[other] - positions[row])))
            touching = gap <= radii[row] + radii[other] + contact
            ahead = goals[other] == goals[row] and distance[other] < distance[row]
            found |= bool(touching and ahead and stalled[other])
        behind.append(found and not stalled[row])
    return behind


def random_crowd(seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    side = float(np.sqrt(n)) * float(rng.choice([0.4, 0.8, 1.5]))
    positions = rng.uniform(0.0, side, (n, 2))
    radii = rng.choice([0.3, 0.4], n)
    stalled = rng.random(n) < rng.choice([0.2, 0.6, 0.95])
    eligible = rng.random(n) < 0.9
    progressing = ~stalled & (rng.random(n) < 0.3)
    goals = rng.integers(0, int(rng.integers(1, 5)), n)
    others = eligible | (rng.random(n) < 0.5)
    distance = np.round(rng.uniform(0.0, 20.0, n))
    return positions, radii, stalled, eligible, progressing, goals, others, distance


@pytest.mark.parametrize("seed", range(40))
def test_the_jams_are_those_the_walk_found(seed: int) -> None:
    positions, radii, stalled, eligible, progressing, goals, others, _ = random_crowd(seed)
    for contact, opposed in ((0.25, 3.0), (1.0, 1.5)):
        expected = walked_groups(
            positions, radii, stalled, eligible, progressing, goals, contact, opposed, others
        )
        found = jam_groups(
            positions,
            radii,
            stalled,
            eligible,
            progressing,
            goals,
            contact=contact,
            opposed=opposed,
            others=others,
        )
        assert [group.tolist() for group in found] == expected


def test_the_crowds_have_jams_and_rows_with_more_contacts_than_are_looked_at() -> None:
    """The comparison above is worth something: jams are found, and the walk's way matters."""
    jams = crowded = 0
    for seed in range(40):
        positions, radii, stalled, eligible, progressing, goals, others, _ = random_crowd(seed)
        jams += len(
            jam_groups(
                positions,
                radii,
                stalled,
                eligible,
                progressing,
                goals,
                contact=1.0,
                opposed=1.5,
                others=others,
            )
        )
        full = find_neighbours(positions, neighbour_dist=1.8, max_neighbours=64)
        crowded += int(((full >= 0).sum(axis=1) > 8).any())
    assert jams > 20
    assert crowded > 10


@pytest.mark.parametrize("seed", range(20))
def test_closing_up_is_what_the_walk_found(seed: int) -> None:
    positions, radii, stalled, _, _, goals, _, distance = random_crowd(seed)
    expected = walked_closing_up(positions, radii, stalled, goals, distance, 1.0)
    shared = touch_neighbours(positions, radii, 1.0)
    assert closing_up(positions, radii, stalled, goals, distance, 1.0).tolist() == expected
    assert closing_up(positions, radii, stalled, goals, distance, 1.0, shared).tolist() == expected
