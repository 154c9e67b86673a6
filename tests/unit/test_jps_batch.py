"""The compiled jump point search's batch entry (``_jps.batch``): single calls' answers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.navigation import find_path, find_paths
from sim.navigation.maps.generators import generate_layout
from sim.navigation.query import JPS_HEURISTICS
from sim.navigation.searches import kernel, kernel_batch
from tests.helpers.problems import layouts

pytestmark = pytest.mark.skipif(not kernel.JPS_AVAILABLE, reason="needs the compiled jps")


@st.composite
def grids(draw: st.DrawFn) -> tuple[Any, ...]:
    """A random, maze or room grid and up to 40 pairs of its walkable cells."""
    walkable, rng = draw(layouts(max_side=40, room=4))
    open_cells = np.flatnonzero(walkable.reshape(-1))
    count = draw(st.integers(0, 40)) if len(open_cells) else 0
    starts = rng.choice(open_cells, count).astype(np.int64) if count else np.empty(0, np.int64)
    goals = rng.choice(open_cells, count).astype(np.int64) if count else np.empty(0, np.int64)
    heuristic = draw(st.sampled_from(JPS_HEURISTICS))
    return np.ascontiguousarray(walkable), starts, goals, heuristic


@settings(max_examples=200, deadline=None)
@given(grids())
def test_the_batch_answers_as_single_calls(case: tuple[Any, ...]) -> None:
    walkable, starts, goals, heuristic = case
    height, width = walkable.shape
    batch = kernel_batch.jps_batch(walkable, starts, goals, heuristic.code)
    single = [
        kernel.path_result(
            kernel.jps_search(walkable, height, width, int(s), int(g), heuristic.code)
        )
        for s, g in zip(starts, goals, strict=True)
    ]
    assert batch == single


def test_an_edit_between_batches_is_read() -> None:
    """The packed copies are compared with the array once per batch: an edit made between two
    batches is seen by the second."""
    walkable = np.ones((8, 70), dtype=bool)
    ends = np.array([0], dtype=np.int64), np.array([69], dtype=np.int64)
    assert kernel_batch.jps_batch(walkable, *ends, 1)[0].cost == 69.0
    walkable[0:7, 35] = False
    after = kernel_batch.jps_batch(walkable, *ends, 1)[0]
    assert after.cost > 69.0
    assert after.cells == find_path(walkable, (0, 0), (0, 69), algorithm="jps").cells


def test_find_paths_uses_one_call_on_small_maps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Default and explicit jps go through the batch entry below the landmarks' sizes."""
    calls: list[int] = []
    real = kernel_batch.jps_batch

    def counting(*args: Any) -> Any:
        calls.append(len(args[1]))
        return real(*args)

    monkeypatch.setattr(kernel_batch, "jps_batch", counting)
    walkable = generate_layout("rooms", 48, 48, seed=3, room=6)
    cells = np.argwhere(walkable)[::7]
    all_options: list[dict[str, Any]] = [{}, {"algorithm": "jps"}]
    for options in all_options:
        results = find_paths(walkable, cells, cells[::-1], **options)
        assert [r.cost for r in results] == [
            find_path(walkable, tuple(s), tuple(g), **options).cost
            for s, g in zip(cells.tolist(), cells[::-1].tolist(), strict=True)
        ]
    assert len(calls) == 2


def test_bad_pairs_fail_before_any_search() -> None:
    walkable = np.ones((3, 3), dtype=bool)
    walkable[1, 1] = False
    good = np.array([0, 8], dtype=np.int64)
    with pytest.raises(ValueError, match="pair 1"):
        kernel_batch.jps_batch(walkable, good, np.array([8, 4], dtype=np.int64), 1)
    with pytest.raises(ValueError, match="pair 0"):
        kernel_batch.jps_batch(walkable, np.array([9], np.int64), np.array([0], np.int64), 1)
    with pytest.raises(ValueError, match="one length"):
        kernel_batch.jps_batch(walkable, good, good[:1], 1)
    with pytest.raises(ValueError, match="heuristic"):
        kernel_batch.jps_batch(walkable, good, good, 9)
