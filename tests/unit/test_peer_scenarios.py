"""A peer's suite: PathFinding.js's scenarios, as python-pathfinding runs them, via find_path.

The scenarios are read from the shared folder (``../shared/peer-tests``, or $PEER_TESTS_DIR;
never copied into the repo): its SOURCES.md says how python-pathfinding's ``test_path.py``
reads them. Each is run 4-connected (``diagonal="never"``, `expectedLength`) and with
diagonals always allowed (``diagonal="always"``, `expectedDiagonalLength`), the lengths
counting the cells of the path, both ends included; a weighted scenario's cells cost their
weight on entering. When the folder is missing the tests skip, which CI=true turns into a
failure (tests/conftest.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.navigation import find_path
from sim.navigation.searches.kernel import KERNEL_AVAILABLE
from tests.helpers.grids import ascii_grid
from tests.helpers.oracles import steps_cost
from tests.helpers.paths import REPO_ROOT


def peer_tests_dir() -> Path:
    """$PEER_TESTS_DIR, else ../shared/peer-tests beside the repository."""
    override = os.environ.get("PEER_TESTS_DIR")
    return Path(override) if override else REPO_ROOT.parent / "shared" / "peer-tests"


SCENARIOS_FILE = peer_tests_dir() / "path_test_scenarios.json"


def load_scenarios() -> list[dict[str, Any]]:
    if not SCENARIOS_FILE.is_file():
        return []
    scenarios = json.loads(SCENARIOS_FILE.read_text(encoding="utf-8"))
    assert isinstance(scenarios, list)
    return scenarios


SCENARIOS = load_scenarios()


def grid_of(scenario: dict[str, Any]) -> tuple[np.ndarray, np.ndarray | None]:
    """The walkable mask and (weighted scenarios) the costs, read as SOURCES.md says."""
    if "open_grid_size" in scenario:
        rows, columns = scenario["open_grid_size"]
        return np.ones((rows, columns), dtype=bool), None
    matrix = np.array(scenario["matrix"], dtype=float)
    if scenario.get("inverse", True):
        return matrix == 0, None  # 1 blocked, 0 walkable
    walkable = matrix > 0  # "inverse": false: 0 blocked, a positive number walkable
    if scenario.get("weighted", False):
        return walkable, np.where(walkable, matrix, 1.0)
    return walkable, None


def cases() -> list[Any]:
    if not SCENARIOS:
        return [pytest.param(None, None, id="missing")]
    return [
        pytest.param(index, diagonal, id=f"scenario{index}-{diagonal}")
        for index in range(len(SCENARIOS))
        for diagonal in ("never", "always")
    ]


NEEDS_KERNEL = pytest.mark.skipif(
    not KERNEL_AVAILABLE, reason="sim.navigation.searches._kernel not built"
)
SEARCHES = [
    *(pytest.param(name, "python", id=f"{name}-python") for name in ("auto", "astar", "dijkstra")),
    pytest.param("bidirectional", "python", id="bidirectional-python"),  # Python only
    *(
        pytest.param(name, "c", id=f"{name}-c", marks=NEEDS_KERNEL)
        for name in ("auto", "astar", "dijkstra")
    ),
]


@pytest.mark.parametrize(("algorithm", "implementation"), SEARCHES)
@pytest.mark.parametrize(("index", "diagonal"), cases())
def test_peer_scenario(
    index: int | None, diagonal: str | None, algorithm: str, implementation: str
) -> None:
    if index is None or diagonal is None:
        pytest.skip(f"no peer scenarios at {SCENARIOS_FILE} (set PEER_TESTS_DIR)")
    scenario = SCENARIOS[index]
    walkable, costs = grid_of(scenario)
    start = (scenario["startY"], scenario["startX"])  # x is the column, y the row
    goal = (scenario["endY"], scenario["endX"])
    key = "expectedLength" if diagonal == "never" else "expectedDiagonalLength"
    result = find_path(
        walkable,
        start,
        goal,
        diagonal=diagonal,
        costs=costs,
        algorithm=algorithm,
        implementation=implementation,
    )
    context = f"{key}={scenario[key]}\n{ascii_grid(walkable, result.cells)}"
    assert result.found, context
    assert len(result.cells) == scenario[key], context
    assert result.cells[0] == start
    assert result.cells[-1] == goal
    assert result.cost == pytest.approx(steps_cost(result.cells, costs)), context


def test_the_suite_holds_what_sources_md_describes() -> None:
    if not SCENARIOS:
        pytest.skip(f"no peer scenarios at {SCENARIOS_FILE} (set PEER_TESTS_DIR)")
    assert len(SCENARIOS) == 5
    assert sum(1 for s in SCENARIOS if s.get("weighted")) == 1
    assert all("expectedLength" in s and "expectedDiagonalLength" in s for s in SCENARIOS)
