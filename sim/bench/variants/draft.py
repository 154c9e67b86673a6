"""A torture variant's scene as a user would write it: walls, markers and agents on whole cells.

`Draft` collects the objects of one variant on a grid of unit cells with its origin at (0, 0)
and gives the scene's document (`Draft.document`, what `tomllib` would read from its file;
`sim.scene.file.parse_scene` validates it, `tomlkit` writes it out). Walls block whole cells
(a cube a tenth of a cell short of them, as the hand-written torture scenes do, so it never
grazes a neighbour); agents stand on cell centres unless given a point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.config import AGENT_MODEL_RADIUS

Cell = tuple[int, int]
"""A cell as (column, row): world x, y of its min corner on these unit-cell grids."""

EAST_HEADING = -90.0
WEST_HEADING = 90.0
WALL_HEIGHT = 0.5


@dataclass(frozen=True, slots=True)
class Mix:
    """How a variant mixes its agents: sizes, speeds, priorities, an extra wall.

    `radii` and `speeds` are the values agents draw from (one value: all alike);
    `priorities` True draws each agent's `avoidance_priority` from 0-99 (else all 50);
    `extra_wall` adds one wall block (1 or 2 cells) somewhere the agents can still get past.
    """

    radii: tuple[float, ...] = (AGENT_MODEL_RADIUS,)
    speeds: tuple[float, ...] = (3.0,)
    priorities: bool = False
    extra_wall: bool = False

    def __post_init__(self) -> None:
        if not self.radii or not all(0.1 <= radius <= 0.45 for radius in self.radii):
            raise ValueError(f"radii must be 1+ values in 0.1 .. 0.45 cells, got {self.radii!r}")
        if not self.speeds or not all(0.5 <= speed <= 6.0 for speed in self.speeds):
            raise ValueError(f"speeds must be 1+ values in 0.5 .. 6 units/s, got {self.speeds!r}")

    def params(self) -> dict[str, Any]:
        """The mix as a variant's parameters (plain JSON values)."""
        return {
            "radii": list(self.radii),
            "speeds": list(self.speeds),
            "priorities": self.priorities,
            "extra_wall": self.extra_wall,
        }


class Draft:
    """One variant's scene under construction (see the module)."""

    def __init__(
        self, name: str, columns: int, rows: int, mix: Mix, rng: np.random.Generator
    ) -> None:
        if columns < 2 or rows < 1:
            raise ValueError(f"a variant needs at least 2 x 1 cells, got {columns} x {rows}")
        self.name, self.columns, self.rows = name, columns, rows
        self.mix, self._rng = mix, rng
        self.blocked: set[Cell] = set()
        self.taken: set[Cell] = set()
        """Cells an agent or a marker stands on: no extra wall goes there."""
        self._objects: list[dict[str, Any]] = []

    def wall(self, name: str, first: Cell, last: Cell) -> None:
        """Block every cell from `first` to `last` (corners, both included)."""
        c0, c1, r0, r1 = first[0], last[0], first[1], last[1]
        c0, c1 = min(c0, c1), max(c0, c1)
        r0, r1 = min(r0, r1), max(r0, r1)
        self._check(first)
        self._check(last)
        self.blocked.update((c, r) for c in range(c0, c1 + 1) for r in range(r0, r1 + 1))
        self._objects.append(
            {
                "name": name,
                "tag": "Obstacle",
                "model": "cube",
                "pos": [(c0 + c1 + 1) / 2.0, (r0 + r1 + 1) / 2.0, 0.0],
                "scale": [c1 - c0 + 0.9, r1 - r0 + 0.9, WALL_HEIGHT],
            }
        )

    def marker(self, name: str, x: float, y: float, *, tag: str = "Untagged") -> None:
        """A goal marker (a small cube) at world (x, y)."""
        self.taken.add((int(x), int(y)))
        self._objects.append(
            {"name": name, "tag": tag, "model": "cube", "pos": [x, y, 0.0], "scale": 0.3}
        )

    def agent(
        self,
        name: str,
        at: Cell | tuple[float, float],
        heading: float,
        target: str | None,
        **agent: Any,
    ) -> None:
        """An agent at a cell's centre (int pair) or a world point, its size and speed mixed.

        `agent` keys override the mix (a standing crowd keeps its own, say).
        """
        if isinstance(at[0], int) and isinstance(at[1], int):
            x, y = at[0] + 0.5, at[1] + 0.5
        else:
            x, y = float(at[0]), float(at[1])
        self.taken.add((int(x), int(y)))
        table: dict[str, Any] = {}
        if target is not None:
            table["target"] = target
        table["radius"] = float(self._rng.choice(self.mix.radii))
        table["speed"] = float(self._rng.choice(self.mix.speeds))
        if self.mix.priorities:
            table["avoidance_priority"] = int(self._rng.integers(0, 100))
        table.update(agent)
        self._objects.append(
            {
                "name": name,
                "tag": "Agent",
                "model": "agent",
                "pos": [x, y, 0.0],
                "heading": heading,
                "agent": table,
            }
        )

    def pick(self, first: Cell, last: Cell, count: int) -> list[Cell]:
        """`count` distinct free cells of the rectangle `first` .. `last`, seeded.

        Raises:
            ValueError: when the rectangle has fewer free cells than `count`.
        """
        cells = [
            (c, r)
            for c in range(first[0], last[0] + 1)
            for r in range(first[1], last[1] + 1)
            if (c, r) not in self.blocked and (c, r) not in self.taken
        ]
        if len(cells) < count:
            raise ValueError(f"{self.name}: {count} agents do not fit {len(cells)} free cells")
        chosen = self._rng.choice(len(cells), size=count, replace=False)
        return [cells[int(index)] for index in sorted(chosen)]

    def extra_wall_cells(self) -> list[list[Cell]]:
        """Candidate extra walls (1 or 2 free cells each) in a seeded order, none on `taken`."""
        free = [
            (c, r)
            for c in range(self.columns)
            for r in range(self.rows)
            if (c, r) not in self.blocked and (c, r) not in self.taken
        ]
        order = self._rng.permutation(len(free))
        walls = []
        for index in order:
            c, r = free[int(index)]
            along = (c + 1, r) if self._rng.random() < 0.5 else (c, r + 1)
            if along in free and along not in self.taken:
                walls.append([(c, r), along])
            else:
                walls.append([(c, r)])
        return walls

    def document(
        self, time_limit_s: float, *, gate: tuple[float, float, float, float] | None = None
    ) -> dict[str, Any]:
        """The scene's document, as `tomllib` would read it from the variant's file."""
        torture: dict[str, Any] = {"time_limit_s": round(time_limit_s, 2)}
        if gate is not None:
            torture["gate"] = list(gate)
        return {
            "version": 1,
            "name": f"Torture variant: {self.name}",
            "grid": {
                "origin": [0.0, 0.0],
                "rows": self.rows,
                "columns": self.columns,
                "cell_size": 1.0,
                "connectivity": 8,
            },
            "torture": torture,
            "objects": [dict(item) for item in self._objects],
        }

    def _check(self, cell: Cell) -> None:
        if not (0 <= cell[0] < self.columns and 0 <= cell[1] < self.rows):
            raise ValueError(
                f"{self.name}: cell {cell} lies outside the {self.columns} x {self.rows} grid"
            )
