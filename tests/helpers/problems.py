"""Random search problems for the navigation property tests (Hypothesis strategies).

Hypothesis runs derandomized (the same examples every run) and keeps no database.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sim.navigation.maps.generators import generate_layout
from tests.helpers.grids import ascii_grid

PROPERTY_SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=300,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)

# A few distinct levels: random floats would make near-ties that only differ far below any
# meaningful precision and say nothing about the search.
COST_LEVELS = (1.0, 1.0, 1.0, 1.25, 1.5, 2.0, 3.0, 7.5)


@dataclass(frozen=True)
class Problem:
    walkable: NDArray[np.bool_]
    costs: NDArray[np.float64] | None
    start: tuple[int, int]
    goal: tuple[int, int]

    def __repr__(self) -> str:
        return f"Problem(start={self.start}, goal={self.goal})\n{ascii_grid(self.walkable)}"


@st.composite
def problems(draw: st.DrawFn, *, with_costs: bool = True) -> Problem:
    """A grid up to 40x40, walls of a drawn density, optional costs, walkable start and goal."""
    height = draw(st.integers(1, 40))
    width = draw(st.integers(1, 40))
    walls_in_six = draw(st.sampled_from((0, 1, 2, 3)))  # about 0 %, 17 %, 33 % or 50 % walls
    elements = st.sampled_from((True,) * (6 - walls_in_six) + (False,) * walls_in_six)
    walkable = draw(hnp.arrays(np.bool_, (height, width), elements=elements))
    costs = None
    if with_costs and draw(st.booleans()):
        costs = draw(hnp.arrays(np.float64, (height, width), elements=st.sampled_from(COST_LEVELS)))
    start = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    goal = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    walkable = walkable.copy()
    walkable[start] = walkable[goal] = True
    return Problem(walkable, costs, start, goal)


@st.composite
def layouts(
    draw: st.DrawFn, *, max_side: int, room: int
) -> tuple[NDArray[np.bool_], np.random.Generator]:
    """A random, maze or rooms grid of 1 to `max_side` cells a side, and the generator it used.

    Random walls below 10 cells a side (or when drawn so), else `generate_layout`'s maze or
    rooms (rooms of `room` cells); the generator, seeded by Hypothesis, is left for the test
    to draw its cells from.
    """
    height = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["random", "maze", "rooms"]))
    if kind == "random" or min(height, width) < 10:
        walkable = rng.random((height, width)) >= draw(st.sampled_from([0.0, 0.2, 0.35, 0.5]))
    else:
        walkable = generate_layout(kind, height, width, seed=seed % 1000, room=room)
    return walkable, rng
