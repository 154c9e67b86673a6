"""Where a jam's joint plans are made: the cost of planning, not what the plans do.

The crowd's jams are planned again and again (newcomers join a plan, windows grow); these
tests pin the short-cuts that keep that cheap without changing a plan.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.crowd.jams import local, window
from sim.crowd.jams.detect import JamSettings
from sim.mapf import MapfProblem, native
from sim.mapf.checker import check_plan, flat_to_pairs


def _split_row() -> np.ndarray:
    """Three rows of five cells, the middle column walled: two halves that never meet."""
    walkable = np.ones((3, 5), bool)
    walkable[:, 2] = False
    return walkable


def _no_search(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("LaCAM* searched a problem that has no plan")


def test_a_member_walled_off_from_its_goal_gets_no_plan_and_no_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Agent 0 stands left of the wall, its goal right of it; agent 1 stays on its side.
    problem = MapfProblem(_split_row(), (0, 5), (3, 6))
    monkeypatch.setattr(native, "lacam_configs", _no_search)
    monkeypatch.setattr(local, "lacam", _no_search)
    assert local.joint_paths(problem, JamSettings(), [1, 2]) == ()


def test_a_problem_with_every_goal_in_reach_is_still_planned() -> None:
    problem = MapfProblem(_split_row(), (0, 5, 3), (6, 0, 9))
    paths = local.joint_paths(problem, JamSettings(), [1, 2, 3])
    assert paths
    assert [path[-1] for path in paths] == list(problem.goals)
    assert check_plan(problem, flat_to_pairs(problem, paths)) == []


def test_near_points_finds_what_measuring_every_pair_finds() -> None:
    rng = np.random.default_rng(7)
    positions = rng.uniform(0.0, 40.0, size=(3000, 2))
    points = positions[rng.choice(3000, size=12, replace=False)] + 0.1
    reach = 1.7
    gaps = positions[:, None, :] - points[None, :, :]
    every_pair = (np.hypot(gaps[..., 0], gaps[..., 1]) <= reach).any(axis=1)
    found = window.near_points(positions, points, reach)
    assert found.sum() >= 12
    assert np.array_equal(found, every_pair)
    assert not window.near_points(positions, np.zeros((0, 2)), reach).any()


def test_sorted_union_is_numpys_union() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 500, size=300), rng.integers(0, 500, size=40)
    assert window.sorted_union(a, b, 500).tolist() == np.union1d(a, b).tolist()
