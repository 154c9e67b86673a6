"""The no-path shading draws a region as one quad per run of cells along a row."""

from __future__ import annotations

import numpy as np
import pytest

from sim.components.no_path import row_run_quads

SEEDS = range(20)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{seed}" for seed in SEEDS])
def test_runs_cover_the_mask_exactly_once(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mask = rng.random(tuple(rng.integers(1, 12, size=2))) < 0.6
    origin, size, z = (-3.0, 2.0), 0.5, 0.012
    quads = row_run_quads(mask, origin, size, z)
    covered = np.zeros(mask.shape, dtype=int)
    for quad in quads.astype(np.float64):
        (x0, y0, _), (x1, _, _), (_, y1, _), _ = quad
        cols = slice(round((x0 - origin[0]) / size), round((x1 - origin[0]) / size))
        rows = slice(round((y0 - origin[1]) / size), round((y1 - origin[1]) / size))
        assert rows.stop - rows.start == 1  # one row each
        covered[rows, cols] += 1
    assert np.array_equal(covered, mask.astype(int))
    assert np.all(quads[:, :, 2] == np.float32(z))
    # Fewer quads than cells wherever two cells of a row touch.
    assert len(quads) == int(np.sum(mask[:, 0]) + np.sum(mask[:, 1:] & ~mask[:, :-1]))


def test_an_empty_mask_draws_nothing() -> None:
    assert row_run_quads(np.zeros((3, 4), dtype=bool), (0.0, 0.0), 1.0, 0.0).shape == (0, 4, 3)
