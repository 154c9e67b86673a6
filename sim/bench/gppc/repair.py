"""The repair of the offline index after cube moves, timed: the offline planner's cost of an edit.

The editor moves a cube (one blocked cell) to a free neighbouring cell about once a second: the
cell it leaves opens, the one it enters closes. `cube_moves` drops a cube on a random walkable
cell of a map and walks it `moves` steps, repairing the table after each step
(`JumpTable.update`, or `OfflineIndex.update` which also lowers the landmark fields around the
cell that opened, with the two cells) and timing each repair; at the end the table must equal
a fresh build of the edited map byte for byte and an offline index's fields must still bound
every step (`lipschitz_violations`), or the figures would time a wrong repair.

Run alone: ``python -m sim.bench.gppc.repair MAP... [--moves N] [--seed S]`` prints each map's
build time, bytes and repair figures (``sim bench --gppc`` runs it for ``jps+``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from sim.navigation import read_map
from sim.navigation.searches.jump_table import JumpTable
from sim.navigation.searches.offline import OfflineIndex, lipschitz_violations

MOVES = 40
"""Steps one cube walks per map."""
STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))


@dataclass(frozen=True, slots=True)
class RepairFigures:
    """The repairs of one map: how many, their mean and slowest time, mean entries rewritten."""

    moves: int
    mean_ms: float
    max_ms: float
    mean_entries: float


def cube_moves(
    walkable: NDArray[np.bool_], table: JumpTable, *, seed: int, moves: int = MOVES
) -> RepairFigures:
    """Walk a cube `moves` steps on a copy of `walkable`, repairing `table` after each.

    `table` must hold `walkable`'s cells; it holds the edited copy's afterwards.

    Raises:
        RuntimeError: when the repaired table differs from a fresh build.

    >>> grid = np.ones((8, 8), dtype=bool)
    >>> figures = cube_moves(grid, JumpTable.build(grid), seed=1, moves=5)
    >>> figures.moves, figures.mean_entries > 0
    (5, True)
    """
    rng = np.random.default_rng(seed)
    edited = walkable.copy()
    height, width = edited.shape
    open_cells = np.flatnonzero(edited)
    cube = divmod(int(open_cells[rng.integers(open_cells.size)]), width)
    edited[cube] = False
    table.update(edited, [cube])
    times, entries = [], []
    for _ in range(moves):
        free = [
            (cube[0] + d_row, cube[1] + d_col)
            for d_row, d_col in STEPS
            if 0 <= cube[0] + d_row < height
            and 0 <= cube[1] + d_col < width
            and edited[cube[0] + d_row, cube[1] + d_col]
        ]
        if not free:
            break  # walled in: it stays, as a cube in a pit would
        target = free[int(rng.integers(len(free)))]
        edited[cube], edited[target] = True, False
        began = time.perf_counter()
        entries.append(table.update(edited, [cube, target]))
        times.append((time.perf_counter() - began) * 1000.0)
        cube = target
    if not np.array_equal(table.entries, JumpTable.build(edited).entries):
        raise RuntimeError("a repaired jump table differs from a fresh build")
    if isinstance(table, OfflineIndex) and lipschitz_violations(table):
        raise RuntimeError("repaired landmark fields no longer bound every step")
    return RepairFigures(
        len(times),
        statistics.fmean(times) if times else 0.0,
        max(times, default=0.0),
        statistics.fmean(entries) if entries else 0.0,
    )


def main(argv: list[str]) -> int:
    """Build each map's offline index, walk a cube over it, print one line per map."""
    parser = argparse.ArgumentParser(prog="python -m sim.bench.gppc.repair")
    parser.add_argument("maps", nargs="+", type=Path)
    parser.add_argument("--moves", type=int, default=MOVES)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for map_path in args.maps:
        walkable = read_map(map_path).walkable
        table = OfflineIndex.build(walkable)
        figures = cube_moves(walkable, table, seed=args.seed, moves=args.moves)
        print(
            f"{map_path.stem} {walkable.shape[0]}x{walkable.shape[1]}: build "
            f"{table.build_ms:.1f} ms, {table.nbytes / 2**20:.2f} MB; {figures.moves} cube steps, "
            f"repair mean {figures.mean_ms:.3f} ms, max {figures.max_ms:.3f} ms, "
            f"{figures.mean_entries:.0f} entries rewritten a step",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
