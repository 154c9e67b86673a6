"""Parting gives a jam plan's members a wall's give: a crowd pressing in moves them little."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from sim.crowd.disc_walls import Walls
from sim.crowd.grid import CrowdGrid
from sim.crowd.parting import WALLED_GIVE, part_discs
from sim.crowd.rows import AgentRows
from sim.crowd.settings import StepSettings


@dataclass(frozen=True)
class Grid:
    """What parting reads of a crowd's grid."""

    origin: tuple[float, float] = (0.0, 0.0)
    grid_cell_size: float = 1.0


def _pressed_pair() -> AgentRows:
    """Two driven discs of radius 0.4 in an open room, 0.5 apart (their sum: 0.8)."""
    rows = AgentRows()
    rows.add(positions=(5.0, 5.0), radii=0.4, driven=True, speeds=3.0)
    rows.add(positions=(5.5, 5.0), radii=0.4, driven=True, speeds=3.0)
    rows.flush()
    return rows


def _moves(stepped: list[int]) -> np.ndarray:
    rows = _pressed_pair()
    before = rows.positions.copy()
    walls = Walls(np.ones((10, 10), dtype=bool))
    driven = np.array(stepped, dtype=np.intp)
    grid = cast("CrowdGrid", Grid())  # parting reads only its origin and cell size
    part_discs(rows, driven, walls, np.zeros(len(driven), bool), 1 / 60, grid, StepSettings())
    return np.hypot(*(rows.positions - before).T)


def test_both_stepped_discs_give_way_alike() -> None:
    moved = _moves([0, 1])
    assert moved[0] > 0.05
    assert np.isclose(moved[0], moved[1])


def test_a_driven_disc_outside_the_step_gives_way_as_little_as_against_a_wall() -> None:
    # Row 1 is driven but a joint plan moves it this frame: the step leaves it out.
    moved = _moves([0])
    assert moved[0] > 0.05
    assert np.isclose(moved[1] / moved[0], WALLED_GIVE, rtol=0.05)
