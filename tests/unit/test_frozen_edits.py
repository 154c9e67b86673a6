"""Frozen arrays and row checks under edits: every answer is a fresh search's on a copy.

The compiled jump point search keeps packed copies per array address and checks the rows it
reads against a snapshot, except for a frozen array (read-only, backed by ``bytes``), whose
copies it trusts. Hypothesis interleaves in-place edits (a cell, a row, the whole array, a
view, a slice, ``np.copyto``) with queries through every entry point and on every form of the
array (itself, a read-only view, a transposed or strided view, a reshape, a frozen copy) and
asks for the answer the compiled A* gives on a fresh copy. Arrays over a ``bytearray``, a
``memoryview`` or an ``mmap`` are not frozen and follow their buffer's edits; a frozen array's
``bytes`` outlive it while its copies are kept, and no new array at a reused address is
answered from an old copy.
"""

from __future__ import annotations

import gc
import mmap
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import SearchSettings, find_path, find_path_with, find_paths, freeze, is_frozen
from sim.navigation.searches.kernel import JPS_AVAILABLE

pytestmark = pytest.mark.skipif(not JPS_AVAILABLE, reason="sim.navigation.searches._jps not built")

Grid = NDArray[np.bool_]
HEIGHT, WIDTH = 14, 19
ENTRY_POINTS = ("auto", "jps", "with", "paths")
FORMS = ("self", "read_only", "transposed", "strided", "reshaped", "frozen", "frozen_view")


def expected(walkable: Grid, start: tuple[int, int], goal: tuple[int, int]) -> tuple[bool, float]:
    """The compiled A*'s answer on a fresh copy: no cache of jump point search is involved."""
    result = find_path(np.array(walkable, dtype=bool), start, goal, algorithm="astar")
    return result.found, result.cost


def answer(entry: str, walkable: Grid, start: tuple[int, int], goal: tuple[int, int]) -> Any:
    if entry == "auto":
        return find_path(walkable, start, goal)
    if entry == "jps":
        return find_path(walkable, start, goal, algorithm="jps")
    if entry == "with":
        return find_path_with(walkable, start, goal, SearchSettings.parse(algorithm="jps"))
    return find_paths(walkable, [start], [goal], algorithm="jps")[0]


def form(name: str, walkable: Grid) -> Grid:
    """`walkable` as the caller may hand it; cells read as (row, col) of the returned array."""
    if name == "read_only":
        view = walkable.view()
        view.flags.writeable = False
        return view
    if name == "transposed":
        return walkable.T
    if name == "strided":
        return walkable[:, ::2]
    if name == "reshaped":
        return walkable.reshape(WIDTH, HEIGHT)
    if name == "frozen":
        return freeze(walkable)
    if name == "frozen_view":
        return freeze(walkable)[1:, 2:]
    return walkable


def check(entry: str, walkable: Grid, start: tuple[int, int], goal: tuple[int, int]) -> None:
    result = answer(entry, walkable, start, goal)
    found, cost = expected(walkable, start, goal)
    assert result.found == found
    if found:
        assert result.cost == pytest.approx(cost, rel=1e-12)
        path = np.array(result.cells)
        assert tuple(path[0]) == start
        assert tuple(path[-1]) == goal
        assert walkable[path[:, 0], path[:, 1]].all()
        assert len(path) == 1 or np.abs(np.diff(path, axis=0)).max() <= 1


cells = st.tuples(st.integers(0, HEIGHT - 1), st.integers(0, WIDTH - 1))
edits = st.one_of(
    st.tuples(st.just("cell"), cells, st.booleans()),
    st.tuples(st.just("row"), st.integers(0, HEIGHT - 1), st.booleans()),
    st.tuples(st.just("wall"), st.integers(1, WIDTH - 2), st.integers(0, HEIGHT - 1)),
    st.tuples(st.just("all"), st.integers(0, 2**16), st.just(0)),
    st.tuples(st.just("view"), cells, st.booleans()),
    st.tuples(st.just("slice"), st.integers(0, HEIGHT - 1), st.integers(0, 2**16)),
    st.tuples(st.just("copyto"), st.integers(0, 2**16), st.just(0)),
)
queries = st.tuples(st.just("query"), st.sampled_from(ENTRY_POINTS), st.sampled_from(FORMS))
steps = st.lists(st.one_of(edits, queries), min_size=1, max_size=25)


def random_grid(seed: int, shape: tuple[int, ...] = (HEIGHT, WIDTH)) -> Grid:
    return np.random.default_rng(seed).random(shape) >= 0.25


def edit(walkable: Grid, step: tuple[Any, ...]) -> None:
    kind, where, value = step
    if kind == "cell" or kind == "row":
        walkable[where] = value
    elif kind == "wall":  # a column closed but for one gap: the answers change a lot
        walkable[:, where] = False
        walkable[value, where] = True
    elif kind == "all":
        walkable[...] = random_grid(where)
    elif kind == "view":
        view = walkable[1:, :]  # an edit through a view lands in the same memory
        view[where[0] - 1, where[1]] = value
    elif kind == "slice":
        walkable[where:] = random_grid(value, (HEIGHT - where, WIDTH))
    else:
        np.copyto(walkable, random_grid(where))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**16),
    steps=steps,
    rows=st.lists(st.integers(0, HEIGHT - 1), min_size=2, max_size=2),
)
def test_any_interleaving_of_edits_and_queries_answers_as_a_fresh_copy(
    seed: int, steps: list[tuple[Any, ...]], rows: list[int]
) -> None:
    walkable = random_grid(seed)
    # From the left edge to the right one, kept open: every wall between changes the answer.
    ends = [(rows[0], 0), (rows[1], WIDTH - 1)]
    for step in steps:
        if step[0] != "query":
            edit(walkable, step)
            walkable[:, [0, -1]] = True
            continue
        grid = form(step[2], walkable)
        start = (ends[0][0] % grid.shape[0], ends[0][1] % grid.shape[1])
        goal = (ends[1][0] % grid.shape[0], ends[1][1] % grid.shape[1])
        if grid[start] and grid[goal]:
            check(step[1], grid, start, goal)


def corridor(flip: bool) -> bytes:
    """A grid whose answer tells which of two contents the search read."""
    grid = np.ones((HEIGHT, WIDTH), dtype=bool)
    grid[:, WIDTH // 2] = False
    grid[0 if flip else HEIGHT - 1, WIDTH // 2] = True
    return grid.tobytes()


@pytest.mark.parametrize("kind", ["bytearray", "memoryview", "mmap"])
def test_arrays_over_writeable_buffers_are_not_frozen_and_follow_their_edits(kind: str) -> None:
    keep: Any
    if kind == "mmap":
        keep = mmap.mmap(-1, HEIGHT * WIDTH)
        keep[:] = corridor(True)
        buffer: Any = keep
    else:
        keep = bytearray(corridor(True))
        buffer = keep if kind == "bytearray" else memoryview(keep)
    walkable = np.frombuffer(buffer, dtype=bool).reshape(HEIGHT, WIDTH)
    read_only = walkable.view()
    read_only.flags.writeable = False
    assert not is_frozen(walkable)
    assert not is_frozen(read_only)
    ends = (HEIGHT // 2, 0), (HEIGHT // 2, WIDTH - 1)
    for entry in ENTRY_POINTS:
        for flip in (True, False, True):
            keep[:] = corridor(flip)  # written through the buffer, not the array
            check(entry, read_only, *ends)
            check(entry, walkable, *ends)
    del walkable, read_only, buffer
    gc.collect()
    if kind == "mmap":
        keep.close()


def test_user_made_arrays_over_bytes_are_frozen_and_any_nonzero_byte_is_walkable() -> None:
    raw = np.random.default_rng(4).integers(0, 4, size=HEIGHT * WIDTH, dtype=np.uint8)
    raw[[0, -1]] = 7
    walkable = np.frombuffer(raw.tobytes(), dtype=bool).reshape(HEIGHT, WIDTH)
    assert is_frozen(walkable)
    for entry in ENTRY_POINTS:
        check(entry, walkable, (0, 0), (HEIGHT - 1, WIDTH - 1))


def test_a_dead_frozen_arrays_address_is_never_answered_from_its_copies() -> None:
    ends = (HEIGHT // 2, 0), (HEIGHT // 2, WIDTH - 1)
    costs = {}
    for flip in (True, False):
        grid = np.frombuffer(corridor(flip), dtype=bool).reshape(HEIGHT, WIDTH)
        costs[flip] = expected(grid, *ends)
    assert costs[True] != costs[False]
    addresses: set[int] = set()
    reused = 0
    for round_ in range(300):
        flip = bool(round_ % 2)
        # A fresh bytes object of the same size each round: CPython's allocator hands the
        # address of the one just freed back often, frozen or writeable alike.
        data = corridor(flip)
        walkable = np.frombuffer(data, dtype=bool).reshape(HEIGHT, WIDTH)
        address = walkable.__array_interface__["data"][0]
        reused += address in addresses
        addresses.add(address)
        result = answer(("jps", "auto", "with", "paths")[round_ % 4], walkable, *ends)
        assert (result.found, result.cost) == costs[flip]
        writeable = np.frombuffer(bytearray(corridor(not flip)), dtype=bool)
        result = find_path(writeable.reshape(HEIGHT, WIDTH), *ends, algorithm="jps")
        assert (result.found, result.cost) == costs[not flip]
        del data, walkable, writeable
    assert reused > 0  # the case this test is about did happen
