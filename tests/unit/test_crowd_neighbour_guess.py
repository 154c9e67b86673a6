"""The C neighbour search's first, shorter look (`guess_limit` in `_hash.h`) changes no list.

In a dense crowd the search first looks only as far as a guess from its block's density and
falls back to the whole range when that holds fewer than it keeps; either way every list must
be the one comparing every pair gives: nearest first, ties by index.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.crowd.avoidance import find_neighbours

pytest.importorskip("sim.crowd._avoidance", reason="sim.crowd._avoidance not built")


def packed_crowd(seed: int) -> np.ndarray:
    """A crowd packed round a goal, thinning outward, with stragglers and stacked discs.

    Dense enough that a neighbour range holds many times the list's length (the guess runs),
    and uneven enough that the guess falls short at the crowd's rim (the fallback runs).
    """
    rng = np.random.default_rng(seed)
    count = int(rng.integers(600, 1500))
    radius = rng.uniform(2.0, 6.0) * np.sqrt(rng.uniform(0.0, 1.0, count)) ** rng.uniform(1, 3)
    angle = rng.uniform(0.0, 2.0 * np.pi, count)
    points = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    stragglers = rng.uniform(-15.0, 15.0, (count // 20, 2))
    points = np.concatenate([points, stragglers]) + rng.uniform(-50.0, 50.0, 2)
    points[::37] = points[0]  # stacked discs: ties broken by index
    lattice = np.arange(0.0, 3.0, 0.5)  # equal distances on a grid: more ties
    grid = np.stack(np.meshgrid(lattice, lattice), axis=-1).reshape(-1, 2)
    return np.concatenate([points, points[1] + grid])


@pytest.mark.parametrize("seed", range(10))
def test_lists_in_a_packed_crowd_are_every_pair_compared(seed: int) -> None:
    points = packed_crowd(seed)
    rng = np.random.default_rng(1000 + seed)
    neighbour_dist = float(rng.choice([1.5, 3.0, 6.8]))
    keep = int(rng.choice([4, 8, 10, 16]))
    c = find_neighbours(
        points, neighbour_dist=neighbour_dist, max_neighbours=keep, implementation="c"
    )
    python = find_neighbours(
        points, neighbour_dist=neighbour_dist, max_neighbours=keep, implementation="python"
    )
    np.testing.assert_array_equal(c, python)
    full = (c >= 0).all(axis=1)
    assert full.mean() > 0.5, "most agents have a full list: the guess runs"
    assert not full.all(), "some agents at the rim do not"
