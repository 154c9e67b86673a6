"""The checks of the cheap call (`kernel.flat_ends`, `kernel.path_result`): C and Python agree."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sim.navigation import PathResult, Reason, SearchSettings, find_path, find_path_with
from sim.navigation.searches import kernel

pytestmark = pytest.mark.skipif(
    not (kernel.KERNEL_AVAILABLE and kernel.JPS_AVAILABLE), reason="needs the C kernels"
)


class Subclass(np.ndarray):
    """An ndarray subclass: not the common shape, so the general path answers."""


def grid() -> np.ndarray:
    walkable = np.ones((4, 6), dtype=bool)
    walkable[1, 1] = False
    return walkable


CASES: list[tuple[str, Any, Any, Any]] = [
    ("plain", grid(), (0, 0), (3, 5)),
    ("start-blocked", grid(), (1, 1), (3, 5)),
    ("goal-blocked", grid(), (0, 0), (1, 1)),
    ("goal-outside", grid(), (0, 0), (4, 0)),
    ("negative", grid(), (0, -1), (3, 5)),
    ("bool-cell", grid(), (True, 0), (3, 5)),
    ("numpy-int-cell", grid(), (np.int64(0), 0), (3, 5)),
    ("list-cell", grid(), [0, 0], (3, 5)),
    ("triple", grid(), (0, 0, 0), (3, 5)),
    ("huge-int", grid(), (2**70, 0), (3, 5)),
    ("fortran", np.asfortranarray(np.ones((3, 4), dtype=bool)), (0, 0), (2, 3)),
    ("strided", np.ones((4, 8), dtype=bool)[:, ::2], (0, 0), (3, 3)),
    ("uint8", grid().astype(np.uint8), (0, 0), (3, 5)),
    ("three-d", np.ones((2, 2, 2), dtype=bool), (0, 0), (1, 1)),
    ("subclass", grid().view(Subclass), (0, 0), (3, 5)),
    ("list", grid().tolist(), (0, 0), (3, 5)),
    ("memoryview", memoryview(grid()), (0, 0), (3, 5)),  # type: ignore[arg-type]
    ("empty", np.ones((0, 3), dtype=bool), (0, 0), (0, 1)),
]


@pytest.mark.parametrize(
    ("walkable", "start", "goal"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
def test_the_compiled_checks_are_the_python_checks(walkable: Any, start: Any, goal: Any) -> None:
    assert kernel.flat_ends(walkable, start, goal) == kernel.flat_ends_python(walkable, start, goal)


def test_the_checks_give_the_flat_cells() -> None:
    assert kernel.flat_ends(grid(), (0, 0), (3, 5)) == (4, 6, 0, 23)
    assert kernel.flat_ends(grid(), (1, 1), (3, 5)) is None


def answer(walkable: Any, start: Any, goal: Any, options: dict[str, Any]) -> Any:
    try:
        result = find_path(walkable, start, goal, **options)
    except ValueError as error:
        return str(error)
    return (result.found, result.cells, result.cost, result.expanded, result.reason)


def checked(walkable: Any, start: Any, goal: Any, options: dict[str, Any]) -> Any:
    try:
        result = find_path_with(walkable, start, goal, SearchSettings.parse(**options))
    except ValueError as error:
        return str(error)
    return (result.found, result.cells, result.cost, result.expanded, result.reason)


@pytest.mark.parametrize("options", [{}, {"algorithm": "jps"}, {"algorithm": "astar"}], ids=str)
@pytest.mark.parametrize(
    ("walkable", "start", "goal"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
def test_every_shape_answers_or_fails_as_the_general_path(
    walkable: Any, start: Any, goal: Any, options: dict[str, Any]
) -> None:
    # The general path with the same options, spelled so that no fast path takes them.
    general = {"implementation": "c", **options}
    assert answer(walkable, start, goal, options) == checked(walkable, start, goal, general)


@pytest.mark.parametrize("options", [{}, {"algorithm": "jps"}, {"algorithm": "astar"}], ids=str)
def test_an_array_changed_in_place_is_read_as_it_is_now(options: dict[str, Any]) -> None:
    walkable = np.ones((4, 6), dtype=bool)
    assert find_path(walkable, (0, 0), (3, 5), **options).found
    walkable[:, 3] = False  # edited: no way across
    assert find_path(walkable, (0, 0), (3, 5), **options).reason is Reason.UNREACHABLE
    walkable.shape = (6, 4)  # reshaped: (3, 5) is now outside
    assert find_path(walkable, (0, 0), (3, 5), **options).reason is Reason.GOAL_OUTSIDE
    walkable.dtype = np.uint8  # type: ignore[misc, assignment]  # retyped: no longer a mask
    with pytest.raises(ValueError, match="bool"):
        find_path(walkable, (0, 0), (1, 1), **options)


def test_results_built_in_c_are_path_results() -> None:
    built = kernel.path_result((True, ((0, 0), (0, 1)), 1.0, 2))
    assert type(built) is PathResult
    assert built == PathResult(True, ((0, 0), (0, 1)), 1.0, 2, Reason.FOUND)
    assert kernel.path_result((False, (), float("inf"), 5)) == PathResult.none(
        Reason.UNREACHABLE, 5
    )
    with pytest.raises(AttributeError):
        built.cost = 2.0  # type: ignore[misc]
    assert kernel.path_result_python((True, (), 0.0, 1)) == kernel.path_result((True, (), 0.0, 1))
