"""Connected regions: labels, updates after edits, boundaries and the proof that cells are apart.

Every labelling is checked against a flood-fill oracle written here from the move rules alone,
once with 4-connected moves and once with 8-connected moves that never cut a corner: the two
oracles must give the same partition (the fact that lets one labelling serve both), and ours
must match them, as a partition (numbers may differ), in C and in the pure-Python fallback,
from scratch and after long random sequences of edits given cell by cell or found by a diff.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sim.navigation.regions.labels import REGIONS_AVAILABLE, RegionMap, label_regions
from tests.helpers.grids import ascii_grid, grid
from tests.helpers.problems import PROPERTY_SETTINGS

IMPLEMENTATIONS = (
    pytest.param(
        "c",
        marks=pytest.mark.skipif(
            not REGIONS_AVAILABLE, reason="sim.navigation.regions._regions not built"
        ),
    ),
    "python",
)
FEW_EXAMPLES = settings(PROPERTY_SETTINGS, max_examples=120)

ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def oracle_labels(walkable: NDArray[np.bool_], *, diagonal: bool) -> NDArray[np.int64]:
    """Flood fill on (row, col) by the move rule: diagonal steps need both orthogonal cells."""
    height, width = walkable.shape
    labels = np.full(walkable.shape, -1, dtype=np.int64)
    moves = ORTHOGONAL + (DIAGONAL if diagonal else ())
    count = 0
    for row in range(height):
        for col in range(width):
            if not walkable[row, col] or labels[row, col] >= 0:
                continue
            labels[row, col] = count
            frontier = deque([(row, col)])
            while frontier:
                r, c = frontier.popleft()
                for dr, dc in moves:
                    nr, nc = r + dr, c + dc
                    if not (0 <= nr < height and 0 <= nc < width) or not walkable[nr, nc]:
                        continue
                    if dr and dc and not (walkable[r + dr, c] and walkable[r, c + dc]):
                        continue
                    if labels[nr, nc] < 0:
                        labels[nr, nc] = count
                        frontier.append((nr, nc))
            count += 1
    return labels


def same_partition(ours: NDArray[Any], theirs: NDArray[Any]) -> bool:
    """Blocked cells agree and the labels map one to one."""
    if not np.array_equal(ours < 0, theirs < 0):
        return False
    open_ = theirs >= 0
    pairs = set(zip(ours[open_].tolist(), theirs[open_].tolist(), strict=True))
    return len(pairs) == len(set(ours[open_].tolist())) == len(set(theirs[open_].tolist()))


def assert_matches_oracle(regions: RegionMap, walkable: NDArray[np.bool_], context: str) -> None:
    labels = regions.labels
    picture = f"{context}\n{ascii_grid(walkable)}"
    assert same_partition(labels, oracle_labels(walkable, diagonal=True)), picture
    assert same_partition(labels, oracle_labels(walkable, diagonal=False)), picture
    counts = np.bincount(labels[labels >= 0].ravel())
    for region in np.flatnonzero(counts):
        assert regions.size_of(int(region)) == counts[region], picture
    assert regions.count == len(np.flatnonzero(counts)), picture


def masks(
    max_side: int = 24, walls_in_ten: tuple[int, ...] = (0, 2, 3, 4, 5, 7)
) -> st.SearchStrategy[NDArray[np.bool_]]:
    """Grids of 1 to `max_side` a side with walls of a drawn density (0 to 70 %)."""

    @st.composite
    def draw_mask(draw: st.DrawFn) -> NDArray[np.bool_]:
        height, width = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
        walls = draw(st.sampled_from(walls_in_ten))
        elements = st.sampled_from((True,) * (10 - walls) + (False,) * walls)
        return draw(hnp.arrays(np.bool_, (height, width), elements=elements))

    return draw_mask()


@dataclass(frozen=True)
class Edits:
    walkable: NDArray[np.bool_]
    batches: tuple[tuple[int, ...], ...]  # flat cells toggled together
    by_diff: tuple[bool, ...]  # whether each batch is found by a diff (else listed)

    def __repr__(self) -> str:
        return f"Edits(batches={self.batches}, by_diff={self.by_diff})\n{ascii_grid(self.walkable)}"


@st.composite
def edit_sequences(draw: st.DrawFn) -> Edits:
    walkable = draw(masks(16))
    size = walkable.size
    batches = draw(
        st.lists(
            st.lists(st.integers(0, size - 1), min_size=1, max_size=6).map(tuple),
            min_size=1,
            max_size=40,
        )
    )
    by_diff = draw(st.lists(st.booleans(), min_size=len(batches), max_size=len(batches)))
    return Edits(walkable, tuple(batches), tuple(by_diff))


def test_eight_connected_regions_are_four_connected_regions_on_a_corner() -> None:
    # The diagonal (0, 0) -> (1, 1) would cut the corner of a wall: no move joins them.
    walkable = grid("""
        .#
        #.
    """)
    assert same_partition(oracle_labels(walkable, diagonal=True), np.array([[0, -1], [-1, 1]]))
    labels, sizes = label_regions(walkable)
    assert labels.tolist() == [[0, -1], [-1, 1]]
    assert sizes.tolist() == [1, 1]


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@FEW_EXAMPLES
@given(walkable=masks())
def test_labels_match_the_flood_fill_oracles(walkable: NDArray[np.bool_], implementation: str):
    eight, four = oracle_labels(walkable, diagonal=True), oracle_labels(walkable, diagonal=False)
    assert same_partition(eight, four), ascii_grid(walkable)
    labels, sizes = label_regions(walkable, implementation=implementation)
    assert same_partition(labels, eight), ascii_grid(walkable)
    assert sizes.tolist() == np.bincount(labels[labels >= 0].ravel()).tolist()
    # Numbered in scan order: the first open cell of each region, row by row.
    firsts = [int(labels.flat[cell]) for cell in np.flatnonzero(walkable)]
    assert list(dict.fromkeys(firsts)) == list(range(len(sizes)))


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@FEW_EXAMPLES
@given(edits=edit_sequences())
def test_updates_keep_the_labels_a_partition_of_the_mask(edits: Edits, implementation: str):
    walkable = edits.walkable.copy()
    regions = RegionMap(walkable, implementation=implementation)
    for number, (batch, by_diff) in enumerate(zip(edits.batches, edits.by_diff, strict=True)):
        cells = np.array(batch)
        before = walkable.copy()
        walkable.reshape(-1)[cells] ^= True
        changed = regions.update(walkable, None if by_diff else cells)
        assert changed == int(np.count_nonzero(before != walkable))
        assert_matches_oracle(regions, walkable, f"after batch {number}: {batch}")


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_a_long_random_walk_of_edits_on_a_maze(implementation: str) -> None:
    # A maze of one-cell corridors: almost every blocked cell splits its region, almost every
    # opened one merges two; seeded, 600 edits one or a few at a time.
    rng = np.random.default_rng(17)
    walkable = np.zeros((21, 21), dtype=bool)
    walkable[1::2, 1:-1] = True
    walkable[1:-1, 1::4] = True
    regions = RegionMap(walkable, implementation=implementation)
    for step in range(600):
        cells = rng.integers(0, walkable.size, size=int(rng.integers(1, 4)))
        walkable.reshape(-1)[cells] ^= True
        regions.update(walkable, cells if step % 2 else None)
        if step % 25 == 0:
            assert_matches_oracle(regions, walkable, f"step {step}")
    assert_matches_oracle(regions, walkable, "at the end")


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_many_changes_at_once_label_again(implementation: str) -> None:
    rng = np.random.default_rng(3)
    walkable = rng.random((40, 40)) < 0.6
    regions = RegionMap(walkable, implementation=implementation)
    walkable[:] = rng.random((40, 40)) < 0.6  # far more changes than an update settles
    assert regions.update(walkable) > 64
    assert_matches_oracle(regions, walkable, "relabelled")


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_listed_cells_that_did_not_change_cost_nothing(implementation: str) -> None:
    walkable = grid("""
        ..#..
        ..#..
    """)
    regions = RegionMap(walkable, implementation=implementation)
    labels = regions.labels.copy()
    assert regions.update(walkable, np.arange(walkable.size)) == 0
    assert np.array_equal(regions.labels, labels)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@FEW_EXAMPLES
@given(walkable=masks(), pick=st.integers(0, 10**6))
def test_the_boundary_is_every_cell_next_to_the_region(
    walkable: NDArray[np.bool_], pick: int, implementation: str
):
    open_cells = np.argwhere(walkable)
    if len(open_cells) == 0:
        assert RegionMap(walkable, implementation=implementation).count == 0
        return
    row, col = open_cells[pick % len(open_cells)]
    cell = (int(row), int(col))
    regions = RegionMap(walkable, implementation=implementation)
    labels = regions.labels
    inside = labels == labels[cell]
    height, width = walkable.shape
    expected = set()
    for row, col in np.argwhere(inside):
        for dr, dc in ORTHOGONAL:
            r, c = row + dr, col + dc
            if 0 <= r < height and 0 <= c < width and not inside[r, c]:
                expected.add(int(r * width + c))
    found = regions.boundary(cell).tolist()
    assert len(found) == len(set(found))
    assert set(found) == expected
    assert not walkable.reshape(-1)[found].any()
    assert regions.sealed(walkable, cell)


@dataclass(frozen=True)
class ApartCase:
    walkable: NDArray[np.bool_]
    edits: tuple[int, ...]
    start: tuple[int, int]
    goal: tuple[int, int]

    def __repr__(self) -> str:
        return f"ApartCase({self.start} -> {self.goal}, edits={self.edits})\n" + ascii_grid(
            self.walkable
        )


@st.composite
def apart_cases(draw: st.DrawFn) -> ApartCase:
    """Start and goal in different regions where there are two; the edits open cells next to
    the start's region (which may join the two) and toggle a few others."""
    walkable = draw(masks(14, walls_in_ten=(4, 5, 6)))  # walls enough for many regions
    height, width = walkable.shape
    labels = oracle_labels(walkable, diagonal=False)
    open_cells = [(int(row), int(col)) for row, col in np.argwhere(walkable)] or [(0, 0)]
    start = open_cells[draw(st.integers(0, 10**6)) % len(open_cells)]
    others = [cell for cell in open_cells if labels[cell] != labels[start]] or open_cells
    goal = others[draw(st.integers(0, 10**6)) % len(others)]
    next_to_start = sorted(
        {
            (r + dr) * width + c + dc
            for r, c in np.argwhere(labels == labels[start])
            for dr, dc in ORTHOGONAL
            if 0 <= r + dr < height and 0 <= c + dc < width and not walkable[r + dr, c + dc]
        }
    )
    opened = draw(st.lists(st.integers(0, 10**6), max_size=3))
    toggled = draw(st.lists(st.integers(0, walkable.size - 1), max_size=4))
    edits = tuple(next_to_start[i % len(next_to_start)] for i in opened if next_to_start)
    return ApartCase(walkable, edits + tuple(toggled), start, goal)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(PROPERTY_SETTINGS, max_examples=200)
@given(case=apart_cases())
def test_apart_is_sound_on_a_stale_map_and_exact_once_it_catches_up(
    case: ApartCase, implementation: str
):
    walkable = case.walkable.copy()
    regions = RegionMap(walkable, implementation=implementation)
    regions.apart(walkable, case.start, case.goal)  # builds the boundary it may check later
    walkable.reshape(-1)[list(case.edits)] ^= True  # behind the map's back
    oracle = oracle_labels(walkable, diagonal=True)
    both_open = bool(walkable[case.start] and walkable[case.goal])
    truly_apart = both_open and oracle[case.start] != oracle[case.goal]
    answer = regions.apart(walkable, case.start, case.goal)
    assert not answer or truly_apart, "apart claimed for cells a path joins"
    regions.update(walkable)
    assert regions.apart(walkable, case.start, case.goal) == truly_apart


def test_apart_needs_only_the_smaller_region_sealed() -> None:
    walkable = grid("""
        ..#.....
        ..#.....
        ###.....
    """)
    regions = RegionMap(walkable)
    assert regions.apart(walkable, (0, 0), (2, 7))
    walkable[2, 7] = False  # far from the small region: the proof still holds, no update
    walkable[1, 6] = False
    assert regions.apart(walkable, (0, 0), (0, 7))
    assert regions.region_of((2, 7)) >= 0, "the map did not need to catch up"
    walkable[0, 2] = True  # a boundary cell of the small region opens: they join
    assert not regions.apart(walkable, (0, 0), (0, 7))
    assert regions.count == 1


def test_apart_is_false_for_blocked_or_outside_cells() -> None:
    walkable = grid(".#.")
    regions = RegionMap(walkable)
    assert regions.apart(walkable, (0, 0), (0, 2))
    assert not regions.apart(walkable, (0, 0), (0, 1))  # the goal is blocked: not "apart"
    assert not regions.apart(walkable, (0, 0), (0, 3))  # off the grid
    assert not regions.apart(walkable, (0, 0), (-1, 0))


def test_a_strided_view_is_read_as_it_is() -> None:
    base = np.ones((4, 8), dtype=bool)
    base[:, 2] = False  # column 1 of the view below
    view = base[:, ::2]
    regions = RegionMap(view)
    assert regions.apart(view, (0, 0), (0, 3))
    base[3, 2] = True
    assert not regions.apart(view, (0, 0), (0, 3))


def test_a_mask_of_another_shape_is_refused() -> None:
    regions = RegionMap(np.ones((2, 3), dtype=bool))
    with pytest.raises(ValueError, match=r"shape \(3, 2\)"):
        regions.update(np.ones((3, 2), dtype=bool))


def test_bad_masks_and_implementations_are_refused() -> None:
    with pytest.raises(ValueError, match="dtype bool"):
        label_regions(np.ones((2, 2)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="implementation must be auto, c or python"):
        RegionMap(np.ones((2, 2), dtype=bool), implementation="fortran")
