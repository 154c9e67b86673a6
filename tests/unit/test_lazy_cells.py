"""`PathResult.cells` laid out on first read (`lazy_cells`): the same tuple every reader saw before.

The compiled searches hand a found path back flat; these tests hold the cells laid out from it to
the Python searches' eager ones for random queries under every algorithm and rule, through
`find_path`, `find_paths` and the jump tables, and hold a lazy result to an eager one under every
reader of a frozen dataclass (``==``, hash, repr, pickling, copy, `dataclasses.replace`).
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.navigation import PathResult, find_path, find_paths
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.query import Reason
from sim.navigation.searches import kernel, lazy_cells
from sim.navigation.searches.jump_table import JUMP_TABLE_AVAILABLE, JumpTable
from tests.helpers.problems import layouts

pytestmark = pytest.mark.skipif(
    not (kernel.KERNEL_AVAILABLE and kernel.JPS_AVAILABLE), reason="needs the compiled searches"
)

COMPILED = ("astar", "dijkstra", "bfs", "greedy")


@st.composite
def grids(draw: st.DrawFn) -> tuple[Any, ...]:
    """A random, maze or room grid and up to 12 pairs of its walkable cells."""
    walkable, rng = draw(layouts(max_side=40, room=4))
    open_cells = np.argwhere(walkable)
    count = draw(st.integers(1, 12)) if len(open_cells) else 0
    starts = [
        tuple(int(v) for v in open_cells[i]) for i in rng.integers(len(open_cells), size=count)
    ]
    goals = [
        tuple(int(v) for v in open_cells[i]) for i in rng.integers(len(open_cells), size=count)
    ]
    return np.ascontiguousarray(walkable), starts, goals


@settings(max_examples=120, deadline=None)
@given(grids(), st.sampled_from(COMPILED), st.sampled_from(list(DiagonalRule)))
def test_best_first_cells_laid_out_equal_the_python_search(
    case: tuple[Any, ...], algorithm: str, rule: DiagonalRule
) -> None:
    walkable, starts, goals = case
    options: dict[str, Any] = {"algorithm": algorithm, "diagonal": rule.value}
    batch = find_paths(walkable, starts, goals, implementation="c", **options)
    for start, goal, batched in zip(starts, goals, batch, strict=True):
        compiled = find_path(walkable, start, goal, implementation="c", **options)
        python = find_path(walkable, start, goal, implementation="python", **options)
        assert lazy_cells.laid_out(compiled) is not compiled.found
        assert lazy_cells.laid_out(batched) is not batched.found
        assert compiled.cells == python.cells
        assert batched == python
        assert compiled == python


@settings(max_examples=120, deadline=None)
@given(grids())
def test_jump_point_cells_laid_out_equal_the_python_search(case: tuple[Any, ...]) -> None:
    walkable, starts, goals = case
    batch = find_paths(walkable, starts, goals, algorithm="jps")
    for start, goal, batched in zip(starts, goals, batch, strict=True):
        compiled = find_path(walkable, start, goal, algorithm="jps", implementation="c")
        python = find_path(walkable, start, goal, algorithm="jps", implementation="python")
        assert lazy_cells.laid_out(compiled) is not compiled.found
        assert compiled == python
        assert batched == python


@pytest.mark.skipif(not JUMP_TABLE_AVAILABLE, reason="needs the compiled jump tables")
@settings(max_examples=60, deadline=None)
@given(grids())
def test_jump_table_cells_laid_out_equal_an_eager_layout(case: tuple[Any, ...]) -> None:
    """The table's path (another shortest path, maybe) laid out in C equals numpy's layout of
    the same flat cells, and costs what the path's steps cost."""
    walkable, starts, goals = case
    table = JumpTable.build(walkable)
    width = walkable.shape[1]
    for start, goal in zip(starts, goals, strict=True):
        result = table.find_path(start, goal)
        answer = table.search(start[0] * width + start[1], goal[0] * width + goal[1])
        assert lazy_cells.laid_out(result) is not result.found
        if result.found:
            assert isinstance(answer[1], bytes)
            assert result.cells == lazy_cells.cells_of_python(answer[1])
        reference = find_path(walkable, start, goal, algorithm="jps", implementation="python")
        assert result.found is reference.found
        assert result.cost == pytest.approx(reference.cost, rel=1e-12)
        assert len(result.cells) == len(reference.cells) or not result.found


def lazy_and_eager() -> tuple[PathResult, PathResult]:
    """One compiled result, cells unread, and the same values built with a tuple of cells."""
    walkable = np.ones((30, 40), dtype=bool)
    walkable[10, 2:38] = False
    lazy = find_path(walkable, (0, 0), (29, 39), algorithm="jps")
    assert lazy.found
    assert not lazy_cells.laid_out(lazy)
    python = find_path(walkable, (0, 0), (29, 39), algorithm="jps", implementation="python")
    eager = PathResult(True, python.cells, python.cost, python.expanded, Reason.FOUND)
    return lazy, eager


READERS: dict[str, Callable[[PathResult], object]] = {
    "eq": lambda result: result,
    "hash": hash,
    "repr": repr,
    "pickle": lambda result: pickle.loads(pickle.dumps(result)),
    "copy": copy.copy,
    "replace": lambda result: dataclasses.replace(result, expanded=0),
    "astuple": dataclasses.astuple,
    "asdict": dataclasses.asdict,
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_reader_sees_the_eager_result(reader: str) -> None:
    lazy, eager = lazy_and_eager()
    assert READERS[reader](lazy) == READERS[reader](eager)
    assert type(lazy.cells) is tuple
    assert lazy.cells is lazy.cells  # laid out once, kept


def test_the_field_stays_frozen_and_named() -> None:
    lazy, _ = lazy_and_eager()
    with pytest.raises(dataclasses.FrozenInstanceError):
        lazy.cells = ()  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(lazy)] == [
        "found",
        "cells",
        "cost",
        "expanded",
        "reason",
    ]


def test_the_python_descriptor_reads_as_the_compiled_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A build without `_kernel` lays out flat paths with `lazy_cells.LazyCells`: the same."""
    compiled_lazy, eager = lazy_and_eager()
    slot = PathResult.__dict__["cells"].slot
    monkeypatch.setattr(PathResult, "cells", lazy_cells.LazyCells(slot))
    lazy, _ = lazy_and_eager()
    assert not lazy_cells.laid_out(lazy)
    assert lazy == eager
    assert hash(lazy) == hash(eager)
    assert lazy_cells.laid_out(lazy)
    assert compiled_lazy == eager


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 600),
    st.lists(st.integers(0, 2**31 - 2), min_size=1, max_size=50),
)
def test_cells_of_in_c_and_python_agree(width: int, cells: list[int]) -> None:
    flat = np.array([width, *cells], dtype=np.int32).tobytes()
    expected = tuple(divmod(cell, width) for cell in cells)
    assert kernel.eager_answer((True, flat, 0.0, 0))[1] == expected
    assert lazy_cells.cells_of_python(flat) == expected


@pytest.mark.parametrize("flat", [b"", b"\x01\x00", np.array([0, 3], dtype=np.int32).tobytes()])
def test_a_broken_flat_path_is_an_error_not_a_bad_read(flat: bytes) -> None:
    with pytest.raises(ValueError, match="flat path"):
        lazy_cells.cells_of(flat)


def test_the_pairs_laid_out_are_left_to_no_collection() -> None:
    """Pairs of two ints make no cycle: laid out untracked, so a long path's layout does not
    set the collector walking every pair made so far."""
    lazy, _ = lazy_and_eager()
    assert not any(gc.is_tracked(pair) for pair in lazy.cells)
