"""The compiled kernel returns exactly what the Python reference returns, and checks its input.

Identical means ``==`` on everything: cells, cost (to the last bit), expanded count, reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sim.navigation import Heuristic, find_path, read_map, read_scenarios
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.field import distance_field, field_on_graph
from sim.navigation.moves import MoveGraph
from sim.navigation.query import Algorithm, SearchSettings
from sim.navigation.searches import kernel
from sim.navigation.searches.kernel import (
    COMPILED_ALGORITHMS,
    KERNEL_AVAILABLE,
    field_flat,
    search_flat,
)
from tests.helpers.grids import ascii_grid
from tests.helpers.paths import movingai_dir

needs_kernel = pytest.mark.skipif(
    not KERNEL_AVAILABLE, reason="sim.navigation.searches._kernel not built"
)

ALL_HEURISTICS = tuple(h.value for h in Heuristic)
# Only what the kernel runs: the Python reference has more (dfs), which the kernel refuses.
ALGORITHMS = tuple(algorithm.value for algorithm in COMPILED_ALGORITHMS)
MAP_NAMES = sorted(path.stem for path in movingai_dir().glob("*.map"))
SCENARIOS_PER_MAP = 30
MAP_OPTIONS = ((True, "octile"), (False, "manhattan"), (True, "euclidean"))


def both(walkable: NDArray[np.bool_], start: Any, goal: Any, **options: Any) -> tuple[Any, Any]:
    """Run the kernel and the reference on the same query (A* unless `options` say otherwise).

    Each on its own copy of the mask: on one array the second call would find the first's
    "unreachable" remembered (`region_cache`) and answer it without searching.
    """
    options.setdefault("algorithm", "astar")  # the kernel's own searches, not jump points
    c = find_path(walkable.copy(), start, goal, implementation="c", **options)
    python = find_path(walkable.copy(), start, goal, implementation="python", **options)
    return c, python


def assert_identical(c: Any, python: Any, context: str) -> None:
    assert c.found == python.found, context
    assert c.reason == python.reason, context
    assert c.cells == python.cells, context
    assert c.cost == python.cost, context  # exact: same sums in the same order
    assert c.expanded == python.expanded, context


@st.composite
def grids(draw: st.DrawFn) -> tuple[NDArray[np.bool_], NDArray[np.float64] | None, Any, Any]:
    """A grid up to 40x40 with random walls and maybe random float costs >= 1; any start/goal."""
    height = draw(st.integers(1, 40))
    width = draw(st.integers(1, 40))
    walls_in_six = draw(st.sampled_from((0, 1, 2, 3)))
    elements = st.sampled_from((True,) * (6 - walls_in_six) + (False,) * walls_in_six)
    walkable = draw(hnp.arrays(np.bool_, (height, width), elements=elements))
    costs = None
    if draw(st.booleans()):
        floats = st.floats(1.0, 20.0, allow_nan=False, allow_infinity=False)
        levels = st.sampled_from((1.0, 1.0, 1.5, 2.0, 3.0))
        costs = draw(hnp.arrays(np.float64, (height, width), elements=floats | levels))
    start = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    goal = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    if draw(st.integers(0, 9)) > 0:  # mostly walkable ends, sometimes blocked ones
        walkable = walkable.copy()
        walkable[start] = walkable[goal] = True
    return walkable, costs, start, goal


@needs_kernel
@settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    grid=grids(),
    diagonal=st.booleans(),
    heuristic=st.sampled_from(ALL_HEURISTICS),
    weight=st.sampled_from((1.0, 1.5, 3.0)),
    algorithm=st.sampled_from(ALGORITHMS),
)
def test_kernel_matches_reference_on_random_grids(
    grid: tuple[NDArray[np.bool_], NDArray[np.float64] | None, Any, Any],
    diagonal: bool,
    heuristic: str,
    weight: float,
    algorithm: str,
) -> None:
    walkable, costs, start, goal = grid
    options = {
        "diagonal": diagonal,
        "heuristic": heuristic,
        "weight": weight,
        "algorithm": algorithm,
        "costs": costs,
    }
    c, python = both(walkable, start, goal, **options)
    assert_identical(c, python, f"{options} {start} -> {goal}\n{ascii_grid(walkable)}")


@needs_kernel
@pytest.mark.parametrize("name", MAP_NAMES or ["(no maps)"])
def test_kernel_matches_reference_on_movingai_maps(name: str) -> None:
    folder = movingai_dir()
    if not MAP_NAMES:
        pytest.skip(f"no Moving AI maps in {folder}")
    walkable = read_map(folder / f"{name}.map").walkable
    scenarios = read_scenarios(Path(folder / f"{name}.map.scen"))
    picks = np.linspace(0, len(scenarios) - 1, SCENARIOS_PER_MAP).round().astype(int)
    for number, index in enumerate(picks):
        scenario = scenarios[index]
        diagonal, heuristic = MAP_OPTIONS[number % len(MAP_OPTIONS)]
        c, python = both(
            walkable, scenario.start, scenario.goal, diagonal=diagonal, heuristic=heuristic
        )
        assert_identical(c, python, f"{name} line {scenario.line}, {heuristic}, {diagonal=}")
        assert c.found


@needs_kernel
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"walkable": np.ones((3, 3), dtype=np.uint8)}, "walkable must be a 2-D numpy bool"),
        ({"walkable": np.ones(9, dtype=bool)}, "walkable must be a 2-D numpy bool"),
        ({"walkable": [[True] * 3] * 3}, "walkable must be a 2-D numpy bool"),
        ({"walkable": np.ones((3, 6), dtype=bool)[:, ::2]}, "walkable must be C-contiguous"),
        ({"walkable": np.ones((0, 3), dtype=bool)}, "1 to 2..31 - 1 cells"),
        ({"costs": np.ones((3, 3), dtype=np.float32)}, "costs must be a float64"),
        ({"costs": np.ones((3, 4))}, r"costs must have shape \(3, 3\)"),
        ({"costs": np.ones((3, 6))[:, ::2]}, "costs must be C-contiguous"),
        ({"costs": np.asfortranarray(np.ones((3, 3)))}, "costs must be C-contiguous"),
        ({"start": 9}, "start 9 lies outside the 9 cells"),
        ({"goal": -1}, "goal -1 lies outside the 9 cells"),
        ({"start": 1.0}, "start must be a flat cell index"),
        ({"start": True}, "start must be a flat cell index"),
        ({"goal": 4}, "goal 4 is not a walkable cell"),
        ({"weight": 0.5}, "weight must be a finite number >= 1"),
    ],
    ids=lambda value: None if isinstance(value, dict) else "",
)
def test_search_flat_rejects_bad_input(options: dict[str, Any], message: str) -> None:
    walkable = np.ones((3, 3), dtype=bool)
    walkable[1, 1] = False
    arguments: dict[str, Any] = {
        "walkable": walkable,
        "costs": None,
        "start": 0,
        "goal": 8,
        "rule": DiagonalRule.NO_CORNER_CUTTING,
        "heuristic": Heuristic.OCTILE,
        "algorithm": Algorithm.ASTAR,
        "weight": 1.0,
    }
    arguments.update(options)
    with pytest.raises(ValueError, match=message):
        search_flat(**arguments)


@needs_kernel
@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((np.ones(8, dtype=bool), None, 3, 3, 0, 8), "walkable must be 9 contiguous bytes"),
        ((np.ones(9, dtype=np.int16), None, 3, 3, 0, 8), "walkable must be 9 contiguous bytes"),
        ((np.ones(9, dtype=bool), np.ones(8), 3, 3, 0, 8), "costs must be 9 contiguous float64"),
        ((np.ones(9, dtype=bool), np.ones(9, np.float32), 3, 3, 0, 8), "costs must be 9"),
        ((np.ones(9, dtype=bool), None, 3, 3, 0, 9), "outside the 9 cells"),
        ((np.ones(9, dtype=bool), None, 3, 3, -1, 8), "outside the 9 cells"),
        ((np.ones(9, dtype=bool), None, 3, -3, 0, 8), "grid of 3 x -3 cells"),
        ((np.ones(9, dtype=bool), None, 2**20, 2**20, 0, 8), "need 1 to 2..31 - 1 cells"),
        ((np.zeros(9, dtype=bool), None, 3, 3, 0, 8), "must be walkable"),
    ],
    ids=lambda value: "" if isinstance(value, str) else None,
)
def test_c_function_checks_sizes_and_indices(args: tuple[Any, ...], message: str) -> None:
    from sim.navigation.searches import _kernel

    walkable, costs, height, width, start, goal = args
    with pytest.raises(ValueError, match=message):
        _kernel.search(walkable, costs, height, width, start, goal, True, 1, 1.0, 1.0, False)


@needs_kernel
def test_c_function_rejects_non_contiguous_buffers() -> None:
    from sim.navigation.searches import _kernel

    strided = np.ones(18, dtype=bool)[::2]
    with pytest.raises(ValueError, match="contiguous"):
        _kernel.search(strided, None, 3, 3, 0, 8, True, 1, 1.0, 1.0, False)


@needs_kernel
def test_kernel_reuses_buffers_across_grid_sizes() -> None:
    # A big search, a small one, a big one again: the cached workspace must come back clean.
    big, small = np.ones((60, 50), dtype=bool), np.ones((5, 7), dtype=bool)
    for walkable, goal in ((big, (59, 49)), (small, (4, 6)), (big, (30, 2)), (small, (0, 6))):
        c, python = both(walkable, (0, 0), goal)
        assert_identical(c, python, f"{walkable.shape} -> {goal}")


def test_kernel_find_path_refuses_dfs() -> None:
    # Before search.Algorithm had DFS, "dfs" was an unknown algorithm; either way, no search.
    refused = r"unknown algorithm 'dfs'|the compiled kernel does not run dfs; use implementation="
    with pytest.raises(ValueError, match=refused):
        kernel.find_path(
            np.ones((3, 3), dtype=bool), (0, 0), (2, 2), SearchSettings(algorithm=Algorithm.DFS)
        )


@needs_kernel
def test_search_flat_refuses_dfs() -> None:
    dfs: Any = getattr(Algorithm, "DFS", "dfs")
    refused = "the compiled kernel does not run dfs; use implementation='auto' or 'python'"
    with pytest.raises(ValueError, match=refused):
        search_flat(
            np.ones((3, 3), dtype=bool),
            None,
            0,
            8,
            rule=DiagonalRule.NO_CORNER_CUTTING,
            heuristic=Heuristic.OCTILE,
            algorithm=dfs,
            weight=1.0,
        )


def test_implementation_must_be_known() -> None:
    with pytest.raises(ValueError, match="implementation must be auto, c or python"):
        find_path(np.ones((2, 2), dtype=bool), (0, 0), (1, 1), implementation="fortran")


def test_compiled_kernel_is_in_use() -> None:
    if not KERNEL_AVAILABLE and not os.environ.get("CI"):
        pytest.skip(
            "sim.navigation.searches._kernel not built (outside CI the fallback is allowed)"
        )
    assert KERNEL_AVAILABLE, "CI must run the compiled kernel: did the C extension fail to build?"


def test_without_the_extension_python_runs_with_one_warning() -> None:
    code = (
        "import sys, warnings\n"
        "sys.modules['sim.navigation.searches._kernel'] = None  # as if the compile had failed\n"
        "warnings.simplefilter('error')\n"
        "import numpy as np\n"
        "from sim.navigation import find_path\n"
        "try:\n"
        "    find_path(np.ones((2, 2), dtype=bool), (0, 0), (1, 1))\n"
        "except RuntimeWarning as warning:\n"
        "    print('warned:', warning)\n"
        "warnings.simplefilter('ignore')\n"
        "print(find_path(np.ones((2, 2), dtype=bool), (0, 0), (1, 1)).cells)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("warned: sim.navigation.searches._kernel is not built")
    assert lines[1] == "((0, 0), (1, 1))"


# ---- The distance field: kernel.field_flat / _kernel.field against field.py's Python loop ----


def fields_both(walkable: NDArray[np.bool_], goal: Any, **options: Any) -> tuple[Any, Any]:
    """The C and the Python distance field of the same query."""
    c = distance_field(walkable, goal, implementation="c", **options)
    python = distance_field(walkable, goal, implementation="python", **options)
    return c, python


def assert_same_field(c: NDArray[np.float64], python: NDArray[np.float64], context: str) -> None:
    assert c.dtype == python.dtype == np.float64, context
    assert c.shape == python.shape, context
    # Exact, inf == inf; np.array_equal alone would accept -0.0 == 0.0, so compare bits too.
    assert np.array_equal(c, python), context
    assert c.tobytes() == python.tobytes(), context


@needs_kernel
@settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(grid=grids(), diagonal=st.booleans())
def test_field_kernel_matches_reference_on_random_grids(
    grid: tuple[NDArray[np.bool_], NDArray[np.float64] | None, Any, Any], diagonal: bool
) -> None:
    walkable, costs, _, goal = grid  # the goal is sometimes blocked: inf everywhere
    c, python = fields_both(walkable, goal, diagonal=diagonal, costs=costs)
    context = f"{diagonal=} costs={costs is not None} goal={goal}\n{ascii_grid(walkable)}"
    assert_same_field(c, python, context)
    if not walkable[goal]:
        assert np.isinf(c).all(), context


@needs_kernel
def test_field_kernel_matches_reference_on_a_movingai_map() -> None:
    folder = movingai_dir()
    path = folder / "den312d.map"
    if not path.exists():
        pytest.skip(f"no den312d.map in {folder}")
    walkable = read_map(path).walkable
    cells = np.argwhere(walkable)
    picks = cells[np.linspace(0, len(cells) - 1, 3).round().astype(int)]
    for number, (row, col) in enumerate(picks):
        diagonal = number != 1
        c, python = fields_both(walkable, (int(row), int(col)), diagonal=diagonal)
        assert_same_field(c, python, f"den312d goal {(row, col)} {diagonal=}")
        assert np.isfinite(c).sum() > 1


@needs_kernel
def test_field_kernel_on_graph_and_with_costs_matches_reference() -> None:
    rng = np.random.default_rng(7)
    walkable = rng.random((30, 45)) > 0.25
    costs = np.where(rng.random((30, 45)) > 0.5, 1.0, 1.0 + 9.0 * rng.random((30, 45)))
    walkable[3, 4] = True
    graph = MoveGraph.build(walkable[:, ::-1], costs=costs)  # a non-contiguous mask
    c = field_on_graph(graph, 3 * 45 + 40, implementation="c")
    python = field_on_graph(graph, 3 * 45 + 40, implementation="python")
    assert c == python
    assert isinstance(c, list)
    assert all(type(value) is float for value in c)


@needs_kernel
def test_field_kernel_reuses_buffers_across_grid_sizes() -> None:
    # Interleaved with searches: the shared workspace must come back clean from both.
    big, small = np.ones((60, 50), dtype=bool), np.ones((5, 7), dtype=bool)
    big[10:50, 25] = False
    for walkable, goal in ((big, (59, 49)), (small, (4, 6)), (big, (30, 2)), (small, (0, 6))):
        assert_same_field(*fields_both(walkable, goal), f"{walkable.shape} -> {goal}")
        assert_identical(*both(walkable, (0, 0), goal), f"{walkable.shape} -> {goal}")


@needs_kernel
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"walkable": np.ones((3, 3), dtype=np.uint8)}, "walkable must be a 2-D numpy bool"),
        ({"walkable": np.ones(9, dtype=bool)}, "walkable must be a 2-D numpy bool"),
        ({"walkable": [[True] * 3] * 3}, "walkable must be a 2-D numpy bool"),
        ({"walkable": np.ones((3, 6), dtype=bool)[:, ::2]}, "walkable must be C-contiguous"),
        ({"walkable": np.ones((0, 3), dtype=bool)}, "1 to 2..31 - 1 cells"),
        ({"costs": np.ones((3, 3), dtype=np.float32)}, "costs must be a float64"),
        ({"costs": np.ones((3, 4))}, r"costs must have shape \(3, 3\)"),
        ({"costs": np.ones((3, 6))[:, ::2]}, "costs must be C-contiguous"),
        ({"goal": 9}, "goal 9 lies outside the 9 cells"),
        ({"goal": -1}, "goal -1 lies outside the 9 cells"),
        ({"goal": 1.0}, "goal must be a flat cell index"),
        ({"goal": True}, "goal must be a flat cell index"),
    ],
    ids=lambda value: None if isinstance(value, dict) else "",
)
def test_field_flat_rejects_bad_input(options: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {
        "walkable": np.ones((3, 3), dtype=bool),
        "costs": None,
        "goal": 8,
        "diagonal": True,
    }
    arguments.update(options)
    with pytest.raises(ValueError, match=message):
        field_flat(**arguments)


@needs_kernel
def test_field_flat_blocked_goal_is_inf_everywhere() -> None:
    walkable = np.ones((3, 3), dtype=bool)
    walkable[1, 1] = False
    assert np.isinf(field_flat(walkable, None, 4, diagonal=True)).all()


@needs_kernel
@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((np.ones(8, dtype=bool), None, 3, 3, 0, np.empty(9)), "walkable must be 9 contiguous"),
        ((np.ones(9, dtype=np.int16), None, 3, 3, 0, np.empty(9)), "walkable must be 9"),
        ((np.ones(9, dtype=bool), np.ones(8), 3, 3, 0, np.empty(9)), "costs must be 9"),
        ((np.ones(9, dtype=bool), np.ones(9, np.float32), 3, 3, 0, np.empty(9)), "costs must"),
        ((np.ones(9, dtype=bool), None, 3, 3, 0, np.empty(8)), "out must be 9 contiguous"),
        ((np.ones(9, dtype=bool), None, 3, 3, 0, np.empty(9, np.float32)), "out must be 9"),
        ((np.ones(9, dtype=bool), None, 3, 3, 0, np.empty(18)[::2]), "contiguous"),
        ((np.ones(9, dtype=bool), None, 3, 3, 0, np.zeros(9).tobytes()), "writable|read-only"),
        ((np.ones(9, dtype=bool), None, 3, 3, 9, np.empty(9)), "goal 9 outside the 9 cells"),
        ((np.ones(9, dtype=bool), None, 3, 3, -1, np.empty(9)), "outside the 9 cells"),
        ((np.ones(9, dtype=bool), None, 3, -3, 0, np.empty(9)), "grid of 3 x -3 cells"),
        ((np.ones(9, dtype=bool), None, 2**20, 2**20, 0, np.empty(9)), "need 1 to 2..31 - 1"),
        ((np.ones(18, dtype=bool)[::2], None, 3, 3, 0, np.empty(9)), "contiguous"),
    ],
    ids=lambda value: "" if isinstance(value, str) else None,
)
def test_c_field_checks_sizes_and_indices(args: tuple[Any, ...], message: str) -> None:
    from sim.navigation.searches import _kernel

    walkable, costs, height, width, goal, out = args
    with pytest.raises((ValueError, TypeError, BufferError), match=message):
        _kernel.field(walkable, costs, height, width, goal, True, out)


@needs_kernel
def test_c_field_rejects_out_sharing_memory_with_its_inputs() -> None:
    from sim.navigation.searches import _kernel

    costs = np.ones(9)
    with pytest.raises(ValueError, match="out must not share memory"):
        _kernel.field(np.ones(9, dtype=bool), costs, 3, 3, 0, True, costs)
    buffer = np.ones(9, dtype=np.float64)
    with pytest.raises(ValueError, match="out must not share memory"):
        _kernel.field(buffer.view(np.bool_)[:9], None, 3, 3, 0, True, buffer)


def test_field_implementation_must_be_known() -> None:
    with pytest.raises(ValueError, match="implementation must be auto, c or python"):
        distance_field(np.ones((2, 2), dtype=bool), (1, 1), implementation="fortran")
    graph = MoveGraph.build(np.ones((2, 2), dtype=bool))
    with pytest.raises(ValueError, match="implementation must be auto, c or python"):
        field_on_graph(graph, 3, implementation="fortran")
