"""`Walls` in C (`_disc_walls.c`) against its numpy form, to the last bit, disc by disc."""

from __future__ import annotations

import numpy as np
import pytest

from sim.crowd.disc_walls import WALLS_KERNEL_AVAILABLE, Walls

pytestmark = pytest.mark.skipif(
    not WALLS_KERNEL_AVAILABLE, reason="sim.crowd._disc_walls not built"
)


def case(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A random mask and discs on it, beside walls, on blocked cells and off the grid."""
    rng = np.random.default_rng(seed)
    height, width = (int(v) for v in rng.integers(1, 30, 2))
    walkable = rng.random((height, width)) > rng.uniform(0.0, 0.6)
    m = 500
    centres = np.column_stack(
        [rng.uniform(-1.5, width + 1.5, m), rng.uniform(-1.5, height + 1.5, m)]
    )
    # Some exactly on cell lines and corners, where the rounding matters most.
    centres[::7] = np.round(centres[::7] * 2.0) / 2.0
    radii = rng.uniform(0.0, 0.7, m)
    moves = rng.normal(0.0, 0.3, (m, 2))
    moves[::5] = 0.0
    return walkable, centres, radii, moves


@pytest.mark.parametrize("seed", range(20))
def test_hit_c_equals_numpy(seed: int) -> None:
    walkable, centres, radii, _ = case(seed)
    c, numpy = Walls(walkable), Walls(walkable, implementation="python")
    np.testing.assert_array_equal(c.hit(centres, radii), numpy.hit(centres, radii))


@pytest.mark.parametrize("seed", range(20))
def test_nearest_c_equals_numpy(seed: int) -> None:
    walkable, centres, _, _ = case(seed)
    c, numpy = Walls(walkable), Walls(walkable, implementation="python")
    for got, expected in zip(c.nearest(centres), numpy.nearest(centres), strict=True):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("seed", range(20))
def test_slide_c_equals_numpy(seed: int) -> None:
    walkable, centres, radii, moves = case(seed)
    c, numpy = Walls(walkable), Walls(walkable, implementation="python")
    for got, expected in zip(
        c.slide(centres, moves, radii), numpy.slide(centres, moves, radii), strict=True
    ):
        np.testing.assert_array_equal(got, expected)


def test_a_disc_slides_along_a_wall_in_c() -> None:
    walls = Walls(np.array([[True, False], [True, True]]))  # (row 0, col 1) blocked
    new, held = walls.slide(np.array([[0.5, 0.5]]), np.array([[0.2, 0.2]]), np.array([0.4]))
    assert new.round(3).tolist() == [[0.5, 0.7]]
    assert held.tolist() == [False]


def test_an_unknown_implementation_is_refused() -> None:
    with pytest.raises(ValueError, match="implementation"):
        Walls(np.ones((2, 2), dtype=bool), implementation="fortran")


@pytest.mark.parametrize("seed", range(20))
def test_lines_clear_c_equals_numpy(seed: int) -> None:
    from sim.navigation.clearance import clearance

    walkable, _, _, _ = case(seed)
    rng = np.random.default_rng(seed)
    open_cells = np.flatnonzero(walkable)
    if not len(open_cells):
        return
    starts, ends = rng.choice(open_cells, 300), rng.choice(open_cells, 300)
    room = clearance(walkable)
    c, numpy = Walls(walkable), Walls(walkable, implementation="python")
    seen = np.zeros(2, dtype=bool)
    for samples, radius in ((2, 0.0), (15, 0.3), (46, 0.45)):
        expected = numpy.lines_clear(room, starts, ends, samples, radius)
        seen[expected.astype(int)] = True
        np.testing.assert_array_equal(c.lines_clear(room, starts, ends, samples, radius), expected)
    assert seen.all() or walkable.all(), "both answers tested"
