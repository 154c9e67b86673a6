"""Parting takes its pairs from ORCA's lists of the frame: the same pairs as a search anew."""

from __future__ import annotations

import numpy as np
import pytest

from sim.crowd.avoidance import NOT_SEARCHED, avoid, find_neighbours
from sim.crowd.parting import SeenNeighbours, find_pairs
from sim.crowd.rows import AgentRows

pytest.importorskip("sim.crowd._parting", reason="sim.crowd._parting not built")
pytest.importorskip("sim.crowd._avoidance", reason="sim.crowd._avoidance not built")

MAX_NEIGHBOURS = 10


def crowd(seed: int) -> tuple[AgentRows, np.ndarray]:
    """A crowd packed from sparse to touching, some rows not driven, and who avoids."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(2, 500))
    side = float(rng.uniform(0.6, 3.0)) * np.sqrt(count)
    rows = AgentRows()
    for _ in range(count):
        rows.add(
            positions=rng.uniform(0.0, side, 2),
            radii=rng.choice([0.3, 0.4]),
            driven=bool(rng.random() < 0.85),
            preferred=rng.normal(0.0, 1.0, 2),
        )
    rows.flush()
    if seed % 2:
        rows.positions[::11] = rows.positions[0]  # stacked discs: ties broken by index
    active = rng.random(count) < 0.98
    return rows, active


def orca_lists(
    rows: AgentRows, active: np.ndarray, neighbour_dist: float, implementation: str = "auto"
) -> tuple[np.ndarray, SeenNeighbours]:
    """ORCA's velocities and the lists it searched, as the step takes them."""
    width = min(MAX_NEIGHBOURS, max(len(rows) - 1, 0))
    near = np.empty((len(rows), width), dtype=np.int64)
    seen = SeenNeighbours(rows.positions.copy(), near, neighbour_dist)
    chosen = avoid(
        rows.positions,
        rows.velocities,
        rows.preferred,
        rows.radii,
        np.ones(len(rows)),
        dt=1.0 / 60.0,
        time_horizon=2.0,
        neighbour_dist=neighbour_dist,
        max_neighbours=MAX_NEIGHBOURS,
        active=active,
        implementation=implementation,
        seen=near,
    )
    return chosen, seen


@pytest.mark.parametrize("implementation", ["c", "python"])
def test_orca_lists_are_the_neighbour_search_s(implementation: str) -> None:
    rows, active = crowd(3)
    chosen, seen = orca_lists(rows, active, 2.0, implementation)
    expected = find_neighbours(rows.positions, neighbour_dist=2.0, max_neighbours=MAX_NEIGHBOURS)
    np.testing.assert_array_equal(seen.near[active], expected[active])
    assert (seen.near[~active, 0] == NOT_SEARCHED).all()
    plain = avoid(
        rows.positions,
        rows.velocities,
        rows.preferred,
        rows.radii,
        np.ones(len(rows)),
        dt=1.0 / 60.0,
        time_horizon=2.0,
        neighbour_dist=2.0,
        max_neighbours=MAX_NEIGHBOURS,
        active=active,
        implementation=implementation,
    )
    np.testing.assert_array_equal(chosen, plain)


# Moves of a frame (most lists vouch for their rows), larger ones (some do not: a few rows
# searched in a hash) and far ones (none do: the threaded search over every row).
@pytest.mark.parametrize("move", [0.02, 0.3, 3.0])
@pytest.mark.parametrize("seed", range(8))
def test_pairs_from_orca_lists_are_a_new_search_s(seed: int, move: float) -> None:
    rows, active = crowd(seed)
    rng = np.random.default_rng(seed + 100)
    neighbour_dist = float(rng.choice([1.2, 2.0, 4.0]))
    _, seen = orca_lists(rows, active, neighbour_dist)
    rows.positions += rng.uniform(-move, move, rows.positions.shape) * rows.driven[:, None]
    allow = float(rng.choice([0.0, 0.05]))
    shared = find_pairs(rows, allow, seen=seen)
    for other in (find_pairs(rows, allow), find_pairs(rows, allow, "python")):
        for name in ("pressed", "local", "first", "second", "reach", "opposed"):
            np.testing.assert_array_equal(getattr(shared, name), getattr(other, name), err_msg=name)


def test_lists_that_vouch_for_their_rows_are_what_parting_searches() -> None:
    rows, active = crowd(5)
    _, seen = orca_lists(rows, active, 2.0)
    assert len(find_pairs(rows, 0.0).first) > 0
    # Lists that claim nobody stood within 2 (all short, none unsearched) are believed, so
    # the pairs come from them and not from a hash: none are found.
    empty = SeenNeighbours(seen.positions, np.full_like(seen.near, -1), 1e6)
    assert len(find_pairs(rows, 0.0, seen=empty).first) == 0
    # Rows ORCA did not search are searched anew.
    unsearched = np.full_like(seen.near, -1)
    unsearched[:, 0] = NOT_SEARCHED
    found = find_pairs(rows, 0.0, seen=SeenNeighbours(seen.positions, unsearched, 1e6))
    np.testing.assert_array_equal(found.first, find_pairs(rows, 0.0).first)


def test_lists_of_other_rows_are_refused() -> None:
    rows, active = crowd(6)
    _, seen = orca_lists(rows, active, 2.0)
    bad = seen.near.copy()
    bad[0, 0] = len(rows)
    with pytest.raises(ValueError, match="outside the rows"):
        find_pairs(rows, 0.0, seen=SeenNeighbours(seen.positions, bad, 2.0))
