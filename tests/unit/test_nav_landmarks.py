"""Landmarks (`sim.navigation.searches.landmarks`): A*'s costs, C equal to Python, never
a stale answer.

"Identical" means ``==`` on the cells, the cost (to the last bit) and the expansion count
between the compiled search with landmarks and the Python reference with the same fields;
against plain A* the cost is equal up to the order the steps were summed in (another path of
the same length may sum its steps in another order), as for jump point search without them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import JumpPointSearch, PathResult, find_path, read_map, read_scenarios
from sim.navigation.maps.movingai import sample_scenarios
from sim.navigation.searches import jump_cache, kernel, landmarks
from sim.navigation.searches.kernel import JPS_AVAILABLE, jps_landmarks, jps_search, path_result
from tests.helpers.grids import ascii_grid
from tests.helpers.oracles import assert_legal_path, oracle_cost, steps_cost
from tests.helpers.paths import movingai_dir
from tests.helpers.problems import PROPERTY_SETTINGS, Problem, problems

pytestmark = pytest.mark.skipif(not JPS_AVAILABLE, reason="sim.navigation.searches._jps not built")

MAP_PATHS = sorted(movingai_dir().glob("*.map"))
SCENARIOS_PER_MAP = 10


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    landmarks.forget()
    yield
    landmarks.forget()


def with_landmarks(
    walkable: NDArray[np.bool_],
    start: tuple[int, int],
    goal: tuple[int, int],
    marks: landmarks.Landmarks,
) -> PathResult:
    width = walkable.shape[1]
    found = jps_landmarks(
        walkable,
        walkable.shape[0],
        walkable.shape[1],
        start[0] * width + start[1],
        goal[0] * width + goal[1],
        marks,
    )
    assert found is not None
    return path_result(found)


@PROPERTY_SETTINGS
@given(problem=problems(with_costs=False), count=st.integers(1, 9), seed_index=st.integers(0))
def test_costs_what_astar_costs_and_c_equals_python(
    problem: Problem, count: int, seed_index: int
) -> None:
    walkable, start, goal = problem.walkable, problem.start, problem.goal
    open_cells = np.flatnonzero(walkable)
    marks = landmarks.build(walkable, int(open_cells[seed_index % len(open_cells)]), count)
    c = with_landmarks(walkable, start, goal, marks)
    python = JumpPointSearch(walkable, start, goal, landmarks=marks).run()
    context = f"{start} -> {goal}, landmarks {marks.cells}\n{ascii_grid(walkable, c.cells)}"
    assert (c.found, c.cells, c.cost, c.expanded) == (
        python.found,
        python.cells,
        python.cost,
        python.expanded,
    ), context
    expected = oracle_cost(walkable, start, goal, diagonal=True)
    if math.isinf(expected):
        assert not c.found, context
        return
    assert c.found, context
    assert math.isclose(c.cost, expected, rel_tol=1e-12), context
    assert_legal_path(walkable, c.cells, start, goal, diagonal=True)
    assert c.cost == steps_cost(c.cells), context


@pytest.mark.parametrize("map_path", MAP_PATHS or [None], ids=lambda p: p.stem if p else "none")
def test_published_optimum_and_astars_cost_on_every_shared_map(map_path: Path | None) -> None:
    if map_path is None:
        pytest.skip(f"no Moving AI maps in {movingai_dir()} (set MOVINGAI_DIR)")
    walkable = read_map(map_path).walkable
    scenarios = sample_scenarios(
        read_scenarios(map_path.with_name(map_path.name + ".scen")), SCENARIOS_PER_MAP, seed=23
    )
    width = walkable.shape[1]
    first = scenarios[0].start
    marks = landmarks.build(walkable, first[0] * width + first[1])
    for scenario in scenarios:
        context = f"{map_path.stem} line {scenario.line}"
        result = with_landmarks(walkable, scenario.start, scenario.goal, marks)
        astar = find_path(walkable.copy(), scenario.start, scenario.goal, algorithm="astar")
        assert result.found, context
        assert scenario.accepts(result.cost), context
        assert math.isclose(result.cost, astar.cost, rel_tol=1e-12), context
        assert_legal_path(walkable, result.cells, scenario.start, scenario.goal, diagonal=True)


def test_the_reference_matches_c_on_a_big_maze() -> None:
    map_path = movingai_dir() / "maze512-1-0.map"
    if not map_path.is_file():
        pytest.skip(f"no {map_path}")
    walkable = read_map(map_path).walkable
    scenario = sample_scenarios(read_scenarios(f"{map_path}.scen"), 1, seed=5)[0]
    marks = landmarks.build(walkable, scenario.start[0] * 512 + scenario.start[1])
    c = with_landmarks(walkable, scenario.start, scenario.goal, marks)
    python = JumpPointSearch(walkable, scenario.start, scenario.goal, landmarks=marks).run()
    assert (c.cells, c.cost, c.expanded) == (python.cells, python.cost, python.expanded)
    plain = JumpPointSearch(walkable, scenario.start, scenario.goal).run()
    assert c.expanded < plain.expanded / 2  # the point of it


# ---- when `search` builds, and that a changed array is never searched with old fields ----


def cluttered(side: int = 64, seed: int = 1) -> NDArray[np.bool_]:
    walkable = np.random.default_rng(seed).random((side, side)) >= 0.4
    walkable[0, :] = walkable[:, 0] = True  # a border road: most cells reach most others
    return walkable


def query(walkable: NDArray[np.bool_], start: int, goal: int) -> tuple[bool, float, int]:
    found, _cells, cost, expanded = landmarks.search(
        walkable, walkable.shape[0], walkable.shape[1], start, goal
    )
    return found, cost, expanded


def plain(walkable: NDArray[np.bool_], start: int, goal: int) -> tuple[bool, float, int]:
    found, _cells, cost, expanded = jps_search(
        walkable, walkable.shape[0], walkable.shape[1], start, goal
    )
    return found, cost, expanded


def pairs(walkable: NDArray[np.bool_], count: int, seed: int = 0) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    cells = np.flatnonzero(walkable)
    return [(int(a), int(b)) for a, b in rng.choice(cells, (count, 2))]


@pytest.fixture
def eager(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build on small grids after the probes, whatever they expanded."""
    monkeypatch.setattr(landmarks, "MIN_CELLS", 1)
    monkeypatch.setattr(landmarks, "PAYS_EXPANDED", -1)


def build_for(walkable: NDArray[np.bool_]) -> None:
    for start, goal in pairs(walkable, 3 * landmarks.PROBE_QUERIES, seed=99):
        query(walkable, start, goal)
    assert landmarks.build_ms(walkable) is not None


@pytest.mark.usefixtures("eager")
def test_repeated_queries_build_and_answer_as_the_plain_search() -> None:
    walkable = cluttered()
    build_for(walkable)
    fewer = 0
    for start, goal in pairs(walkable, 40):
        found, cost, expanded = query(walkable, start, goal)
        plain_found, plain_cost, plain_expanded = plain(walkable, start, goal)
        assert found == plain_found
        assert cost == plain_cost or math.isclose(cost, plain_cost, rel_tol=1e-12)
        fewer += expanded < plain_expanded
    assert fewer > 10


@pytest.mark.usefixtures("eager")
@pytest.mark.parametrize("edit", ["open", "block"])
def test_an_array_edited_in_place_is_never_searched_with_old_fields(edit: str) -> None:
    walkable = cluttered()
    build_for(walkable)
    marks = landmarks.landmarks_of(walkable)
    assert marks is not None
    # Opening walls makes shortcuts the old fields overestimate: an exact search must see them.
    rng = np.random.default_rng(7)
    walls = np.flatnonzero(~walkable) if edit == "open" else np.flatnonzero(walkable)[5:]
    for cell in rng.choice(walls, 200, replace=False):
        walkable.flat[cell] = edit == "open"
    for start, goal in pairs(walkable, 30, seed=3):
        assert (
            jps_landmarks(walkable, walkable.shape[0], walkable.shape[1], start, goal, marks)
            is None
        )
        found, cost, _ = query(walkable, start, goal)
        expected = oracle_cost(walkable, divmod(start, 64), divmod(goal, 64), diagonal=True)
        assert found == (not math.isinf(expected))
        assert not found or math.isclose(cost, expected, rel_tol=1e-12)
    assert landmarks.landmarks_of(walkable) is not marks  # dropped, or rebuilt from the new cells


@pytest.mark.usefixtures("eager")
def test_an_edited_array_goes_to_an_offline_index_that_is_repaired_not_rebuilt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jump_cache, "SWITCH_AFTER_QUERIES", 0)  # the index answers at once
    walkable = cluttered()
    build_for(walkable)
    rng = np.random.default_rng(8)
    walkable.flat[rng.choice(np.flatnonzero(~walkable), 20, replace=False)] = True
    index = None
    for round_ in range(4):
        for start, goal in pairs(walkable, 10, seed=round_):
            found, cost, _ = query(walkable, start, goal)
            expected = oracle_cost(walkable, divmod(start, 64), divmod(goal, 64), diagonal=True)
            assert found == (not math.isinf(expected))
            assert not found or math.isclose(cost, expected, rel_tol=1e-12)
        assert landmarks.landmarks_of(walkable) is None  # the stale fields are gone
        kept = jump_cache.table_of(walkable)
        assert kept is not None
        assert index is None or kept is index  # repaired, not rebuilt
        index = kept
        cube = rng.choice(np.flatnonzero(walkable))
        walkable.flat[cube] = False  # a cube steps: one cell closes, a wall cell opens
        walkable.flat[rng.choice(np.flatnonzero(~walkable))] = True


def near_pairs(walkable: NDArray[np.bool_]) -> list[tuple[int, int]]:
    """Walkable starts with walkable goals 0, 1 and 2 rows and columns away."""
    width = walkable.shape[1]
    found = []
    for start in np.flatnonzero(walkable)[100:400:60]:
        row, col = divmod(int(start), width)
        for goal in ((row, col), (row + 1, col), (row - 1, col + 1), (row + 2, col - 2)):
            if walkable[goal]:
                found.append((int(start), goal[0] * width + goal[1]))
    return found


@pytest.mark.usefixtures("eager")
def test_near_queries_leave_the_fields_and_the_index_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jump_cache, "SWITCH_AFTER_QUERIES", 0)
    walkable = cluttered()
    build_for(walkable)
    far_start, far_goal = pairs(walkable, 1, seed=11)[0]

    def refuse(*_args: object) -> None:
        raise AssertionError("a near query used the fields or the index")

    compiled = kernel.jps_landmarks
    monkeypatch.setattr(kernel, "jps_landmarks", refuse)
    near = near_pairs(walkable)
    assert len(near) > 10
    for start, goal in near:
        assert query(walkable, start, goal) == plain(walkable, start, goal)
    with pytest.raises(AssertionError, match="near query"):
        query(walkable, far_start, far_goal)  # the patch is where a far query goes
    monkeypatch.setattr(kernel, "jps_landmarks", compiled)
    walkable.flat[np.flatnonzero(~walkable)[0]] = True  # edited: from now on the offline index
    query(walkable, far_start, far_goal)
    index = jump_cache.table_of(walkable)
    assert index is not None
    monkeypatch.setattr(index, "search_if_matches", refuse)
    for start, goal in near:
        assert query(walkable, start, goal) == plain(walkable, start, goal)
    with pytest.raises(AssertionError, match="near query"):
        query(walkable, far_start, far_goal)


@pytest.mark.usefixtures("eager")
def test_an_array_reshaped_in_place_is_never_searched_with_old_fields() -> None:
    walkable = cluttered()
    build_for(walkable)
    walkable.shape = (32, 128)  # the same bytes, other cells
    for start, goal in pairs(walkable, 10, seed=6):
        assert query(walkable, start, goal) == plain(walkable, start, goal)


@pytest.mark.usefixtures("eager")
def test_fields_belong_to_their_array_not_its_id() -> None:
    walkable = cluttered()
    build_for(walkable)
    del walkable  # its id may come back with the next array
    other = cluttered(seed=2)
    for start, goal in pairs(other, landmarks.PROBE_QUERIES - 1, seed=4):
        assert query(other, start, goal) == plain(other, start, goal)
    assert landmarks.build_ms(other) is None  # probing anew


def test_open_maps_and_small_maps_are_left_alone() -> None:
    open_map = np.ones((256, 256), dtype=bool)
    small = cluttered()
    for walkable in (open_map, small):
        for start, goal in pairs(walkable, 4 * landmarks.PROBE_QUERIES):
            query(walkable, start, goal)
        assert landmarks.build_ms(walkable) is None


def test_a_cluttered_large_map_builds_once_it_pays() -> None:
    walkable = cluttered(side=256, seed=5)
    built_at = None
    for index, (start, goal) in enumerate(pairs(walkable, 3 * landmarks.PROBE_QUERIES)):
        query(walkable, start, goal)
        if built_at is None and landmarks.build_ms(walkable) is not None:
            built_at = index
    assert built_at is not None
    assert built_at < 2 * landmarks.PROBE_QUERIES


# ---- the boundaries ----


def test_the_reference_refuses_fields_of_other_cells_or_heuristics() -> None:
    walkable = cluttered(side=8)
    marks = landmarks.build(walkable, 0, 2)
    with pytest.raises(ValueError, match="octile heuristic only"):
        JumpPointSearch(walkable, (0, 0), (0, 7), heuristic="euclidean", landmarks=marks)
    changed = walkable.copy()
    changed[7, 7] = not changed[7, 7]
    with pytest.raises(ValueError, match="other cells"):
        JumpPointSearch(changed, (0, 0), (0, 7), landmarks=marks)


@pytest.mark.parametrize(
    ("count", "seed", "message"),
    [(0, 0, "1 to 32"), (33, 0, "1 to 32"), (2, 64, "not a walkable"), (2, -1, "not a walkable")],
)
def test_build_checks_its_arguments(count: int, seed: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        landmarks.build(np.ones((8, 8), dtype=bool), seed, count)


def test_compiled_search_checks_the_fields_and_snapshot() -> None:
    from sim.navigation.searches import _jps

    walkable = np.ones((4, 4), dtype=bool)
    marks = landmarks.build(walkable, 0, 2)
    for fields, snapshot in (
        (marks.fields[:8], marks.snapshot),  # too few rows
        (marks.fields.astype(np.float32), marks.snapshot),
        (marks.fields, marks.snapshot[:2]),
        (np.zeros((16, 33)), marks.snapshot),  # more landmarks than C takes
    ):
        with pytest.raises(ValueError, match=r"search_landmarks needs|contiguous"):
            _jps.search_landmarks(walkable, 4, 4, 0, 15, fields, snapshot)
    assert _jps.search_landmarks(walkable, 4, 4, 0, 15, marks.fields, marks.snapshot) is not None
    walkable[1, 1] = False
    assert _jps.search_landmarks(walkable, 4, 4, 0, 15, marks.fields, marks.snapshot) is None
