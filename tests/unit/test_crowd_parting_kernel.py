"""The C parting pushes (`_parting.push_apart`) against the numpy reference, to the last bit."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from sim.crowd.disc_walls import Walls
from sim.crowd.parting import _Pairs, _part_passes
from sim.crowd.rows import AgentRows
from sim.crowd.settings import StepSettings


@dataclass(frozen=True)
class Grid:
    """What parting reads of a crowd's grid."""

    origin: tuple[float, float] = (-10.0, -10.0)
    grid_cell_size: float = 1.0


_parting = pytest.importorskip("sim.crowd._parting", reason="sim.crowd._parting not built")


def crowd_case(seed: int) -> tuple[AgentRows, _Pairs, Walls, Grid, np.ndarray]:
    """A jostled crowd on a 20 x 20 grid with a wall through it, and its overlapping pairs."""
    rng = np.random.default_rng(seed)
    walkable = np.ones((20, 20), dtype=bool)
    walkable[8:12, 9] = False
    grid = Grid()
    n = int(rng.integers(20, 300))
    rows = AgentRows()
    for _ in range(n):
        rows.add(positions=rng.uniform(-9.5, 9.5, 2), radii=float(rng.uniform(0.2, 0.45)))
    rows.flush()
    first, second = np.nonzero(np.triu(np.ones((n, n), dtype=bool), 1))
    gap = rows.positions[second] - rows.positions[first]
    reach = rows.radii[first] + rows.radii[second]
    close = np.hypot(gap[:, 0], gap[:, 1]) < reach * 1.1
    first, second, reach = first[close], second[close], reach[close]
    # Each pair from both ends, as parting lists them.
    first, second = np.concatenate([first, second]), np.concatenate([second, first])
    reach = np.concatenate([reach, reach])
    pressed = np.unique(first)
    local = np.searchsorted(pressed, first)
    give = rng.choice([0.0, 0.1, 1.0], n, p=[0.1, 0.2, 0.7])
    both = give[first] + give[second]
    share = np.divide(give[first], both, out=np.zeros_like(both), where=both > 0)
    pairs = _Pairs(pressed, local, first, second, reach, share)
    here = rows.positions[pressed] - np.asarray(grid.origin)
    return rows, pairs, Walls(walkable), grid, here


@pytest.mark.parametrize("seed", range(10))
def test_c_pushes_equal_numpy_to_the_last_bit(seed: int) -> None:
    settings = StepSettings()
    moved = {}
    for implementation in ("auto", "python"):
        rows, pairs, walls, grid, here = crowd_case(seed)
        assert len(pairs.first), "the case has pairs to push"
        before = rows.positions.copy()
        _part_passes(rows, pairs, walls, here, grid, settings, implementation)  # type: ignore[arg-type]
        assert not np.array_equal(rows.positions, before), "something was pushed"
        moved[implementation] = rows.positions
    np.testing.assert_array_equal(moved["auto"], moved["python"])


def test_settling_passes_only_push_the_deep_pairs() -> None:
    settings = StepSettings(part_passes=0, settle_passes=1, settle_beyond=0.5)
    rows, pairs, walls, grid, here = crowd_case(3)
    before = rows.positions.copy()
    _part_passes(rows, pairs, walls, here, grid, settings)  # type: ignore[arg-type]
    gap = before[pairs.second] - before[pairs.first]
    deep = np.hypot(gap[:, 0], gap[:, 1]) < 0.5 * pairs.reach
    untouched = np.setdiff1d(np.arange(len(before)), pairs.first[deep & (pairs.share > 0)])
    np.testing.assert_array_equal(rows.positions[untouched], before[untouched])


def test_the_kernel_refuses_an_index_out_of_range() -> None:
    rows, pairs, *_ = crowd_case(0)
    with pytest.raises(ValueError, match="outside"):
        _parting.push_apart(
            rows.positions,
            pairs.pressed,
            pairs.local,
            pairs.first,
            pairs.second + len(rows.positions),
            pairs.reach,
            pairs.share,
            np.zeros((len(pairs.pressed), 2)),
            np.zeros(len(pairs.pressed), dtype=bool),
            2,
            2,
            0.04,
        )


@pytest.mark.parametrize("seed", range(12))
def test_the_pairs_found_in_c_are_numpys(seed: int) -> None:
    from sim.crowd.parting import find_pairs

    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 400))
    rows = AgentRows()
    for _ in range(count):
        rows.add(
            positions=rng.uniform(0.0, rng.uniform(2.0, 20.0), 2),
            radii=rng.choice([0.2, 0.3, 0.4]),
            driven=bool(rng.random() < 0.8),
            preferred=rng.normal(0.0, 1.0, 2) * (rng.random() < 0.9),
        )
    rows.flush()
    rows.positions[::9] = rows.positions[0]  # stacked discs: ties broken by index
    allow = float(rng.choice([0.0, 0.05]))
    c, numpy = find_pairs(rows, allow), find_pairs(rows, allow, "python")
    for name in ("pressed", "local", "first", "second", "reach", "opposed"):
        np.testing.assert_array_equal(getattr(c, name), getattr(numpy, name), err_msg=name)
    assert count < 50 or len(c.first) > 0, "a crowd this dense has pairs to part"


def edge_pairs(limit: float) -> AgentRows:
    """Pairs of discs (radii 0.5) apart by `limit` times 1 +- up to 3e-6, at every angle.

    The C kernel skips hypot for a pair whose squared length is beyond the limit's square by
    more than a millionth (and, finding pairs, short of it by as much); these straddle both
    margins and the limit itself.
    """
    scales = 1.0 + np.linspace(-3e-6, 3e-6, 61)
    rows = AgentRows()
    for k, scale in enumerate(scales):
        angle = 0.37 * k
        centre = np.array([3.0 * (k % 8) + 1.5, 3.0 * (k // 8) + 1.5])
        half = 0.5 * limit * scale * np.array([np.cos(angle), np.sin(angle)])
        for sign in (-1.0, 1.0):
            rows.add(positions=centre + sign * half, radii=0.5, driven=True, preferred=(1.0, 0.0))
    rows.flush()
    return rows


@pytest.mark.parametrize(
    ("part_passes", "settle_passes", "limit"), [(1, 0, 1.0), (0, 1, 1.0 - 0.04)]
)
def test_pushes_at_the_edge_of_skipping_hypot_equal_numpy(
    part_passes: int, settle_passes: int, limit: float
) -> None:
    settings = StepSettings(part_passes=part_passes, settle_passes=settle_passes)
    grid = Grid(origin=(0.0, 0.0))
    moved = {}
    for implementation in ("auto", "python"):
        rows = edge_pairs(limit)
        n = len(rows)
        first, second = np.arange(n), np.arange(n) ^ 1  # each pair from both ends
        pairs = _Pairs(first, first, first, second, np.ones(n), np.full(n, 0.5))
        walls = Walls(np.ones((40, 40), dtype=bool))
        before = rows.positions.copy()
        _part_passes(rows, pairs, walls, rows.positions.copy(), grid, settings, implementation)  # type: ignore[arg-type]
        assert 0 < (rows.positions != before).any(axis=1).sum() < n, "some pushed, some not"
        moved[implementation] = rows.positions
    np.testing.assert_array_equal(moved["auto"], moved["python"])


def test_pairs_found_at_the_edge_of_skipping_hypot_are_numpys() -> None:
    from sim.crowd.parting import PAIR_SLACK, find_pairs

    rows = edge_pairs(1.0 + PAIR_SLACK)
    c, numpy = find_pairs(rows, 0.0), find_pairs(rows, 0.0, "python")
    for name in ("pressed", "local", "first", "second", "reach", "opposed"):
        np.testing.assert_array_equal(getattr(c, name), getattr(numpy, name), err_msg=name)
    assert 0 < len(c.first) < len(rows), "some pairs kept, some not"


def packed_case(seed: int) -> tuple[AgentRows, _Pairs, Walls, Grid]:
    """A crowd packed tighter than its discs, pressed against a wall: deep pairs settle.

    Rows in a jittered lattice closer than their radii's sum, a few of them not driven (they
    never give way), and parting's own pairs (`find_pairs`) with its shares.
    """
    from sim.crowd.parting import find_pairs

    rng = np.random.default_rng(seed)
    walkable = np.ones((30, 30), dtype=bool)
    walkable[:, 20:] = False
    grid = Grid(origin=(0.0, 0.0))
    side = int(rng.integers(12, 30))
    spacing = float(rng.uniform(0.5, 0.62))
    rows = AgentRows()
    for k in range(side * side):
        x, y = 1.0 + spacing * (k % side + 0.5 * (k // side % 2)), 1.0 + spacing * (k // side)
        rows.add(
            positions=np.array([min(x, 19.6), y]) + rng.normal(0.0, 0.05, 2),
            radii=float(rng.choice([0.3, 0.33])),
            driven=bool(rng.random() < 0.95),
            preferred=(1.0, 0.0),
        )
    rows.flush()
    found = find_pairs(rows, 0.0)
    give = np.where(rng.random(len(rows.radii)) < 0.1, 0.1, 1.0) * rows.driven
    both = give[found.first] + give[found.second]
    share = np.divide(give[found.first], both, out=np.zeros_like(both), where=both > 0)
    pairs = _Pairs(found.pressed, found.local, found.first, found.second, found.reach, share)
    return rows, pairs, Walls(walkable), grid


@pytest.mark.parametrize("seed", range(8))
def test_pushes_of_only_the_discs_that_moved_equal_the_full_passes(seed: int) -> None:
    """The kernel measures again only the discs near one that moved; numpy measures all."""
    settings = StepSettings()
    moved = {}
    for implementation in ("auto", "python"):
        rows, pairs, walls, grid = packed_case(seed)
        here = rows.positions[pairs.pressed] - np.asarray(grid.origin)
        _part_passes(rows, pairs, walls, here, grid, settings, implementation)  # type: ignore[arg-type]
        moved[implementation] = rows.positions
    np.testing.assert_array_equal(moved["auto"].view(np.uint64), moved["python"].view(np.uint64))
    # The case is one the worklist matters to: settling ran, and left some discs where they were.
    rows, pairs, walls, grid = packed_case(seed)
    here = rows.positions[pairs.pressed] - np.asarray(grid.origin)
    _part_passes(rows, pairs, walls, here, grid, StepSettings(settle_passes=0))  # type: ignore[arg-type]
    unsettled = rows.positions
    settled_by = (moved["auto"] != unsettled).any(axis=1)[pairs.pressed]
    assert 0 < settled_by.sum() < len(pairs.pressed)
