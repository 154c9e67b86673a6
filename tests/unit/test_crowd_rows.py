"""AgentRows: rows added one by one grow the arrays in place; values, order and drops hold."""

from __future__ import annotations

import numpy as np

from sim.crowd.rows import COLUMNS, AgentRows


def test_rows_added_one_by_one_reallocate_only_when_the_buffer_doubles() -> None:
    rows = AgentRows()
    buffers: list[np.ndarray] = []  # kept alive, so no two share an id
    for number in range(1000):
        rows.add(positions=(float(number), 0.0), radii=0.5)
        rows.flush()
        base = rows.positions.base if rows.positions.base is not None else rows.positions
        if not any(base is seen for seen in buffers):
            buffers.append(base)
    # A copy per agent (a concatenation each flush) would give a new buffer every time.
    assert len(buffers) <= 12
    assert len(rows) == 1000
    np.testing.assert_array_equal(rows.positions[:, 0], np.arange(1000.0))
    assert rows.positions.flags.c_contiguous


def test_flushed_rows_take_their_defaults_and_keep_earlier_writes() -> None:
    rows = AgentRows()
    rows.add(radii=0.4)
    rows.flush()
    rows.positions[0] = (3.0, 4.0)  # written in place between flushes, as a frame does
    rows.add(radii=0.6, driven=True)
    rows.add()
    rows.flush()
    assert rows.positions[0].tolist() == [3.0, 4.0]
    assert rows.radii.tolist() == [0.4, 0.6, 0.0]
    assert rows.driven.tolist() == [False, True, False]
    assert np.isnan(rows.rest_from[2]).all()
    assert all(len(getattr(rows, name)) == 3 for name in COLUMNS)


def test_keep_drops_rows_then_adding_goes_on_after_the_kept() -> None:
    rows = AgentRows()
    for number in range(5):
        rows.add(radii=float(number), owners=number)
    moved = rows.keep(np.array([True, False, True, False, True]))
    assert moved.tolist() == [0, -1, 1, -1, 2]
    rows.add(radii=9.0, owners=9)
    rows.flush()
    assert rows.radii.tolist() == [0.0, 2.0, 4.0, 9.0]
    assert rows.owners == [0, 2, 4, 9]
