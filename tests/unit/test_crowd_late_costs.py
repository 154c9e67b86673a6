"""What a crowd gathered at its goal costs: the shortcuts must answer as the full scans did.

The jam rule's opposed check buckets the crowd (`sim.crowd.jams.detect.opposed_near`) and arrival
searches only the cluster's rim for touching agents when one target is chased
(`DrivenStep._touching_cluster`); both are checked against the scans they replace.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from sim.crowd.avoidance import find_neighbours
from sim.crowd.jams.detect import opposed_near
from sim.crowd.settings import StepSettings
from sim.crowd.step import DrivenStep


def scan_opposed(
    positions: np.ndarray, members: list[int], bound: np.ndarray, goals: np.ndarray, reach: float
) -> bool:
    others = np.flatnonzero(bound)
    for member in members:
        gap = positions[others] - positions[member]
        near = others[np.hypot(gap[:, 0], gap[:, 1]) <= reach]
        if (goals[near] != goals[member]).any():
            return True
    return False


@pytest.mark.parametrize("seed", range(4))
def test_the_bucketed_opposed_check_answers_as_the_scan(seed: int) -> None:
    rng = np.random.default_rng(seed)
    answers = set()
    for _ in range(400):
        n = int(rng.integers(1, 80))
        positions = rng.uniform(-8.0, 8.0, (n, 2)) * rng.choice([0.2, 1.0, 3.0])
        if rng.random() < 0.3:
            positions = np.round(positions)  # points on the buckets' edges
        goals = rng.integers(0, int(rng.integers(1, 4)), n)
        bound = rng.random(n) < 0.7
        members = sorted(rng.choice(n, int(rng.integers(0, n + 1)), replace=False).tolist())
        reach = float(rng.choice([0.5, 1.0, 2.0, 3.0, 7.3]))
        expected = scan_opposed(positions, members, bound, goals, reach)
        held = np.array(members, dtype=np.intp)
        near = opposed_near(positions, held, bound, goals, reach)
        assert [scan_opposed(positions, [m], bound, goals, reach) for m in members] == near.tolist()
        assert near.any() == expected
        answers.add(expected)
    assert answers == {True, False}


def full_touching(rows: Any, keys: np.ndarray, waiting: np.ndarray, arrived: np.ndarray) -> Any:
    """The search over every waiting and arrived agent, as arrival ran it before the rim."""
    subset = np.flatnonzero(waiting | arrived)
    radii = rows.radii[subset]
    margin = 1.0 + StepSettings().touch_margin
    neighbours = find_neighbours(
        rows.positions[subset], neighbour_dist=2.0 * float(radii.max()) * margin, max_neighbours=8
    )
    valid = neighbours >= 0
    other = np.where(valid, neighbours, 0)
    positions = rows.positions[subset]
    apart = np.hypot(*(positions[other] - positions[:, None, :]).transpose(2, 0, 1))
    touching = (
        valid
        & arrived[subset][other]
        & (keys[subset][other] == keys[subset][:, None])
        & (apart <= (radii[:, None] + radii[other]) * margin)
    )
    found = np.zeros(len(keys), dtype=bool)
    found[subset] = touching.any(axis=1) & waiting[subset]
    return found


@pytest.mark.parametrize("seed", range(3))
def test_the_rim_search_finds_the_waiting_agents_the_full_search_found(seed: int) -> None:
    rng = np.random.default_rng(seed)
    goal = np.array([20.0, 20.0])
    # A packed cluster round the goal and a ring of waiting agents pressing at its rim.
    angle = rng.uniform(0.0, 2.0 * np.pi, 1500)
    distance = np.sqrt(rng.uniform(0.0, 1.0, 1500)) * 9.0
    positions = goal + np.column_stack([np.cos(angle), np.sin(angle)]) * distance[:, None]
    to_goal = np.hypot(*(positions - goal).T)
    rows = SimpleNamespace(positions=positions, radii=np.full(1500, 0.3))
    waiting = (to_goal > 8.0) & (rng.random(1500) < 0.5)
    arrived = ~waiting & (to_goal < 8.6)
    keys = np.zeros(1500, dtype=np.int64)
    step = DrivenStep(grid=None, settings=StepSettings())  # type: ignore[arg-type]
    found = step._touching_cluster(rows, np.arange(1500), keys, waiting, arrived, to_goal)  # type: ignore[arg-type]
    expected = full_touching(rows, keys, waiting, arrived)
    np.testing.assert_array_equal(found, expected)
    assert 0 < expected.sum() < waiting.sum()
