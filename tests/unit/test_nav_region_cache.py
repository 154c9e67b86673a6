"""`find_path` answers a goal in another region at once, and never with a stale "unreachable".

The first query on an array may search; once a search came back unreachable (or from the
second query on the same array) the repeat is proven before any search: found=False,
reason unreachable, expanded 0, in C and in Python alike. Edits in place between queries are
read as they are: an edit that joins the regions gives the path at the next query, one that
cuts them apart again gives "unreachable" again.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import IncrementalSearch, PathResult, Reason, find_path
from sim.navigation.query import Algorithm
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches.incremental import INCREMENTAL_AVAILABLE
from sim.navigation.searches.kernel import COMPILED_ALGORITHMS, KERNEL_AVAILABLE
from tests.helpers.grids import ascii_grid, grid
from tests.helpers.problems import PROPERTY_SETTINGS

IMPLEMENTATIONS = (
    pytest.param("c", marks=pytest.mark.skipif(not KERNEL_AVAILABLE, reason="kernel not built")),
    "python",
)
ALGORITHMS = tuple(algorithm.value for algorithm in Algorithm)

# Two rooms: the left one (3 cells) walled off from the right one by column 2.
ROOMS = """
    ..#....
    .##....
    ###....
"""
LEFT, RIGHT = (0, 0), (2, 6)


@pytest.fixture(autouse=True)
def empty_cache() -> Iterator[None]:
    region_cache.clear()
    yield
    region_cache.clear()


def plan(walkable: NDArray[np.bool_], implementation: str, algorithm: str = "astar") -> PathResult:
    if implementation == "c" and Algorithm(algorithm) not in COMPILED_ALGORITHMS:
        implementation = "auto"  # the kernel refuses dfs; "auto" runs it in Python
    return find_path(walkable, LEFT, RIGHT, implementation=implementation, algorithm=algorithm)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_after_one_search_every_repeat_is_instant(implementation: str, algorithm: str) -> None:
    walkable = grid(ROOMS)
    first = plan(walkable, implementation, algorithm)
    assert (first.found, first.reason) == (False, Reason.UNREACHABLE)
    assert first.expanded > 0, "the first query searches the left room"
    for _ in range(3):
        again = plan(walkable, implementation, algorithm)
        assert again == PathResult.none(Reason.UNREACHABLE)
        assert again.expanded == 0


def test_c_and_python_give_the_same_early_answer() -> None:
    walkable = grid(ROOMS)
    find_path(walkable, LEFT, RIGHT)
    c = find_path(walkable, LEFT, RIGHT, implementation="auto")
    python = find_path(walkable, LEFT, RIGHT, implementation="python")
    assert c == python == PathResult.none(Reason.UNREACHABLE)


def test_the_second_query_on_an_array_labels_it_even_when_reachable() -> None:
    walkable = grid(ROOMS)
    find_path(walkable, (0, 3), RIGHT)
    assert region_cache.labelled(walkable) is None, "a one-off query pays no labelling"
    find_path(walkable, (0, 3), RIGHT)
    assert region_cache.labelled(walkable) is not None
    unreachable = find_path(walkable, LEFT, RIGHT)
    assert (unreachable.reason, unreachable.expanded) == (Reason.UNREACHABLE, 0)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_an_edit_that_joins_the_rooms_gives_the_path_at_once(implementation: str) -> None:
    walkable = grid(ROOMS)
    plan(walkable, implementation)
    walkable[0, 2] = True  # a door in the wall
    joined = plan(walkable, implementation)
    assert joined.found
    assert joined.cells[0] == LEFT
    assert joined.cells[-1] == RIGHT
    walkable[0, 2] = False  # shut again
    shut = plan(walkable, implementation)
    assert (shut.found, shut.reason) == (False, Reason.UNREACHABLE)
    assert plan(walkable, implementation).expanded == 0


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_an_edit_that_cuts_the_way_is_seen_at_once(implementation: str) -> None:
    walkable = grid("""
        .......
        .......
        .......
    """)
    assert plan(walkable, implementation).found
    assert plan(walkable, implementation).found  # labelled now: one region
    walkable[:, 3] = False
    cut = plan(walkable, implementation)
    assert (cut.found, cut.reason) == (False, Reason.UNREACHABLE)
    assert plan(walkable, implementation).expanded == 0


def test_edits_away_from_the_sealed_room_keep_the_answer_instant() -> None:
    walkable = grid(ROOMS)
    find_path(walkable, LEFT, RIGHT)
    walkable[1, 5] = False  # in the other room: the left room's walls still stand
    walkable[0, 6] = False
    result = find_path(walkable, LEFT, RIGHT)
    assert (result.reason, result.expanded) == (Reason.UNREACHABLE, 0)


def test_the_early_reasons_come_first() -> None:
    walkable = grid(ROOMS)
    find_path(walkable, LEFT, RIGHT)
    assert find_path(walkable, LEFT, (0, 9)).reason is Reason.GOAL_OUTSIDE
    walkable[RIGHT] = False
    assert find_path(walkable, LEFT, RIGHT).reason is Reason.GOAL_BLOCKED
    walkable[RIGHT] = True
    walkable[LEFT] = False
    assert find_path(walkable, LEFT, RIGHT).reason is Reason.START_BLOCKED


def test_four_and_eight_connected_queries_share_the_labels() -> None:
    walkable = grid("""
        .#..
        #...
    """)
    first = find_path(walkable, (0, 0), (1, 1), diagonal=True)  # the corner is not cut
    assert (first.reason, first.expanded) == (Reason.UNREACHABLE, 1)
    four = find_path(walkable, (0, 0), (1, 1), diagonal=False)
    assert (four.reason, four.expanded) == (Reason.UNREACHABLE, 0)


def test_a_strided_view_is_answered_from_its_own_cells() -> None:
    base = np.ones((3, 8), dtype=bool)
    base[:, 2] = False
    view = base[:, ::2]  # column 1 of the view is the wall
    find_path(view, (0, 0), (0, 3))
    assert find_path(view, (0, 0), (0, 3)).expanded == 0
    base[1, 2] = True
    assert find_path(view, (0, 0), (0, 3)).found


def test_an_array_reshaped_in_place_is_labelled_again() -> None:
    walkable = grid(ROOMS)
    find_path(walkable, LEFT, RIGHT)
    walkable.shape = (7, 3)  # the same object, other rows: (0, 0) and (4, 0) are joined now
    result = find_path(walkable, (0, 0), (4, 0))
    assert result == find_path(walkable.copy(), (0, 0), (4, 0))
    assert result.found


def test_the_cache_never_keeps_an_array_alive() -> None:
    walkable = grid(ROOMS)
    find_path(walkable, LEFT, RIGHT)
    assert region_cache.labelled(walkable) is not None
    alive = weakref.ref(walkable)
    del walkable
    gc.collect()
    assert alive() is None
    assert region_cache.followed() == 0


def test_the_cache_follows_a_few_arrays_at_most() -> None:
    arrays = [grid(ROOMS) for _ in range(region_cache.MAX_ARRAYS + 5)]
    for walkable in arrays:
        find_path(walkable, LEFT, RIGHT)
    assert region_cache.followed() == region_cache.MAX_ARRAYS
    assert region_cache.labelled(arrays[0]) is None, "the least recently used went first"
    assert find_path(arrays[-1], LEFT, RIGHT).expanded == 0


def test_told_changes_keep_the_labels_current_without_a_diff() -> None:
    walkable = grid(ROOMS)
    find_path(walkable, LEFT, RIGHT)
    regions = region_cache.labelled(walkable)
    assert regions is not None
    walkable[0, 2] = True
    region_cache.cells_changed(walkable, np.array([2]))
    assert regions.region_of(LEFT) == regions.region_of(RIGHT)
    assert find_path(walkable, LEFT, RIGHT).found


def test_apart_now_decides_exactly_and_labels_on_first_use() -> None:
    walkable = grid(ROOMS)
    assert region_cache.apart_now(walkable, LEFT, RIGHT, diagonal=True)
    walkable[0, 2] = True
    assert not region_cache.apart_now(walkable, LEFT, RIGHT, diagonal=True)


@dataclass(frozen=True)
class EditedQueries:
    walkable: NDArray[np.bool_]
    steps: tuple[tuple[tuple[int, ...], tuple[int, int], tuple[int, int]], ...]

    def __repr__(self) -> str:
        return f"EditedQueries(steps={self.steps})\n{ascii_grid(self.walkable)}"


@st.composite
def edited_queries(draw: st.DrawFn) -> EditedQueries:
    height, width = draw(st.integers(2, 12)), draw(st.integers(2, 12))
    walkable = np.random.default_rng(draw(st.integers(0, 2**16))).random((height, width)) < 0.55
    cell = st.tuples(st.integers(0, height - 1), st.integers(0, width - 1))
    steps = draw(
        st.lists(
            st.tuples(
                st.lists(st.integers(0, height * width - 1), max_size=3).map(tuple), cell, cell
            ),
            min_size=1,
            max_size=25,
        )
    )
    return EditedQueries(walkable, tuple(steps))


@settings(PROPERTY_SETTINGS, max_examples=150)
@given(case=edited_queries(), diagonal=st.booleans())
def test_never_a_stale_answer_through_edits_in_place(case: EditedQueries, diagonal: bool):
    region_cache.clear()
    walkable = case.walkable.copy()
    for edits, start, goal in case.steps:
        walkable.reshape(-1)[list(edits)] ^= True
        result = find_path(walkable, start, goal, diagonal=diagonal)
        fresh = find_path(walkable.copy(), start, goal, diagonal=diagonal)  # a new array
        assert (result.found, result.reason, result.cost) == (fresh.found, fresh.reason, fresh.cost)


@pytest.mark.parametrize(
    "implementation",
    [
        pytest.param(
            "c",
            marks=pytest.mark.skipif(not INCREMENTAL_AVAILABLE, reason="_incremental not built"),
        ),
        "python",
    ],
)
def test_incremental_search_answers_sealed_rounds_at_once_with_the_same_paths(
    implementation: str,
) -> None:
    # One-cell corridors; cells near the start toggle every round, often cutting it off. One
    # planner plans on the array itself (labelled: sealed rounds answered at once); the other
    # on a new copy each round, which the cache never labels, so it always searches.
    rng = np.random.default_rng(11)
    walkable = np.zeros((15, 15), dtype=bool)
    walkable[1::2, 1:-1] = True
    walkable[1:-1, 1::4] = True
    start, goal = (1, 1), (13, 13)
    ours = IncrementalSearch(implementation=implementation)
    plain = IncrementalSearch(implementation=implementation)
    spared = 0  # unreachable rounds the plain planner had to search, ours answered at once
    for number in range(80):
        for _ in range(2):
            cell = (1 + int(rng.integers(0, 4)), 1 + int(rng.integers(0, 4)))
            if cell != start:
                walkable[cell] = not walkable[cell]
        got = ours.plan(walkable, start, goal)
        expected = plain.plan(walkable.copy(), start, goal)
        context = f"round {number}\n{ascii_grid(walkable, got.cells)}"
        assert (got.found, got.reason, got.cells, got.cost) == (
            expected.found,
            expected.reason,
            expected.cells,
            expected.cost,
        ), context
        if not got.found:
            spared += got.expanded == 0 and expected.expanded > 0
    assert spared >= 10


def test_without_the_extension_the_python_regions_answer() -> None:
    script = (
        "import sys\n"
        "sys.modules['sim.navigation.regions._regions'] = None  # as if the compile had failed\n"
        "import numpy as np\n"
        "from sim.navigation import find_path\n"
        "from sim.navigation.regions import labels as regions\n"
        "assert not regions.REGIONS_AVAILABLE\n"
        "walkable = np.array([[1, 0, 1]], dtype=bool)\n"
        "first = find_path(walkable, (0, 0), (0, 2))\n"
        "again = find_path(walkable, (0, 0), (0, 2))\n"
        "print(first.expanded, again.expanded, again.reason.value)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["1", "0", "unreachable"]
