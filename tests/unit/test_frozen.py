"""Frozen arrays (`sim.navigation.freeze`): searched without row checks, and only they.

A frozen array is read-only and backed by ``bytes``: numpy refuses to make it writeable, so
the compiled jump point search (`_jps_blocks.h`) skips comparing its rows with the packed
copies' snapshot. These tests count those comparisons (`_jps.checked_chunks`): none for a
frozen array, some for a writeable one or a read-only view of one after an edit, whose answers
must follow the edit. And every entry point that reads a walkable array answers a frozen one
as it answers the same cells writeable.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from sim.navigation import (
    PathResult,
    SearchSettings,
    find_path,
    find_path_with,
    find_paths,
    freeze,
    generate_layout,
    is_frozen,
)
from sim.navigation.searches import landmarks
from sim.navigation.searches.kernel import JPS_AVAILABLE
from sim.navigation.searches.offline import OfflineIndex

pytestmark = pytest.mark.skipif(not JPS_AVAILABLE, reason="sim.navigation.searches._jps not built")

Grid = NDArray[np.bool_]


def checked_chunks() -> int:
    from sim.navigation.searches import _jps

    return _jps.checked_chunks()


def open_map(side: int = 130, seed: int = 3) -> Grid:
    """A mostly open map with scattered walls: long scans over many rows and column words."""
    rng = np.random.default_rng(seed)
    walkable = rng.random((side, side)) >= 0.05
    walkable[0, 0] = walkable[-1, -1] = walkable[0, -1] = walkable[-1, 0] = True
    return walkable


def test_freeze_keeps_dtype_shape_and_values_and_cannot_be_thawed() -> None:
    source = np.arange(12, dtype=np.uint8).reshape(3, 4)[:, ::2]  # not contiguous
    frozen = freeze(source)
    assert frozen.dtype == source.dtype
    assert frozen.shape == source.shape
    assert np.array_equal(frozen, source)
    assert frozen.flags.c_contiguous
    assert is_frozen(frozen)
    assert is_frozen(frozen[1:])
    assert not frozen.flags.writeable
    with pytest.raises(ValueError, match="WRITEABLE"):
        frozen.flags.writeable = True
    with pytest.raises(ValueError, match="WRITEABLE"):
        frozen[1:].setflags(write=True)
    assert freeze(frozen) is frozen


def test_writeable_arrays_and_read_only_views_of_them_are_not_frozen() -> None:
    walkable = np.ones((4, 4), dtype=bool)
    view = walkable[:]
    view.flags.writeable = False
    assert not is_frozen(walkable)
    assert not is_frozen(view)
    assert not is_frozen(np.frombuffer(bytearray(16), dtype=bool))  # bytearray: mutable
    assert not is_frozen([[True]])


def test_a_frozen_array_is_answered_without_row_checks() -> None:
    walkable = freeze(open_map())
    find_path(walkable, (0, 0), (129, 129), algorithm="jps")  # builds its copies
    before = checked_chunks()
    for goal in ((129, 129), (0, 129), (129, 0), (64, 64)):
        assert find_path(walkable, (0, 0), goal, algorithm="jps").found
    assert checked_chunks() == before


def test_a_writeable_array_edited_in_place_gets_the_new_answer() -> None:
    walkable = open_map()
    first = find_path(walkable, (0, 0), (129, 129), algorithm="jps")
    walkable[:, 65] = False  # a wall across the map, the middle row left open
    walkable[65, 65] = True
    before = checked_chunks()
    second = find_path(walkable, (0, 0), (129, 129), algorithm="jps")
    assert checked_chunks() > before
    assert (65, 65) in second.cells
    assert second.cost > first.cost
    fresh = find_path(walkable.copy(), (0, 0), (129, 129), algorithm="jps")
    assert second.cost == fresh.cost


def test_a_read_only_view_of_a_writeable_array_keeps_its_checks() -> None:
    walkable = open_map()
    view = walkable[:]
    view.flags.writeable = False
    first = find_path(view, (0, 0), (129, 129), algorithm="jps")
    walkable[:, 65] = False  # edited through its base: a wall with one gap
    walkable[65, 65] = True
    before = checked_chunks()
    second = find_path(view, (0, 0), (129, 129), algorithm="jps")
    assert checked_chunks() > before
    assert (65, 65) in second.cells
    assert second.cost > first.cost


def test_a_frozen_copy_follows_no_edit_of_its_source() -> None:
    source = open_map()
    frozen = freeze(source)
    cost = find_path(frozen, (0, 0), (129, 129), algorithm="jps").cost
    source[:, 65] = False
    assert not find_path(source, (0, 0), (129, 129), algorithm="jps").found
    assert find_path(frozen, (0, 0), (129, 129), algorithm="jps").cost == cost


def same(a: PathResult, b: PathResult) -> bool:
    return a.found == b.found and a.cost == b.cost


@pytest.mark.parametrize("algorithm", ["auto", "jps", "astar"])
def test_every_entry_point_answers_a_frozen_array_as_its_writeable_twin(algorithm: str) -> None:
    walkable = open_map(seed=5)
    frozen = freeze(walkable)
    rng = np.random.default_rng(1)
    cells = np.argwhere(walkable)
    starts = cells[rng.integers(len(cells), size=12)]
    goals = cells[rng.integers(len(cells), size=12)]
    settings = SearchSettings.parse(algorithm=algorithm)
    batch_frozen = find_paths(frozen, starts, goals, algorithm=algorithm)
    batch = find_paths(walkable, starts, goals, algorithm=algorithm)
    for index, (start, goal) in enumerate(zip(starts, goals, strict=True)):
        ends = (int(start[0]), int(start[1])), (int(goal[0]), int(goal[1]))
        expected = find_path(walkable, *ends, algorithm=algorithm)
        assert same(find_path(frozen, *ends, algorithm=algorithm), expected)
        assert same(find_path_with(frozen, *ends, settings), expected)
        assert same(batch_frozen[index], batch[index])


def test_the_offline_index_and_landmarks_take_a_frozen_array() -> None:
    walkable = freeze(generate_layout("maze", 256, 256, seed=2, corridor=2))
    index = OfflineIndex.build(walkable)
    cells = np.flatnonzero(walkable)
    start, goal = int(cells[0]), int(cells[-1])
    found = index.search_if_matches(start, goal, walkable)
    assert found is not None
    assert found[0]
    landmarks.forget()
    before = checked_chunks()
    answers = [find_path(walkable, divmod(start, 256), divmod(goal, 256)) for _ in range(8)]
    marks = landmarks.landmarks_of(walkable)
    assert marks is not None  # the mazes pay for fields
    # A view of its own bytes as the snapshot: no comparison a query, and no hold on the array.
    assert np.shares_memory(marks.snapshot, walkable)
    assert marks.snapshot.base is not walkable
    assert all(a.cost == pytest.approx(found[2], rel=1e-12) for a in answers)
    assert checked_chunks() == before
    landmarks.forget()
