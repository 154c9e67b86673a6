"""Our A* against the published optimal lengths of the shared Moving AI benchmarks.

Every map in the shared folder: all scenarios of arena, and for the others 100 evenly spaced
ones in bucket order, first and last included, so spread over all buckets (most files list
them by bucket; AR0011SR's are shuffled).
Each path must also be legal and cost exactly the sum of its steps. The files are read from
the shared folder (never copied into the repo); when it is missing the tests skip, which
CI=true turns into a failure.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from pathlib import Path

import pytest

from sim.navigation import MoveGraph, MovingAIMap, Scenario, Search, read_map, read_scenarios
from tests.helpers.oracles import path_problem, steps_cost
from tests.helpers.paths import movingai_dir

PER_MAP = 100
EVERY_SCENARIO = {"arena"}


@dataclass(frozen=True)
class Case:
    map_path: Path
    scenario: Scenario | None  # None: the map has no .scen beside it


def chosen(name: str, scenarios: list[Scenario]) -> list[Scenario]:
    """All of arena; else PER_MAP scenarios evenly spaced in bucket order, ends included."""
    if name in EVERY_SCENARIO or len(scenarios) <= PER_MAP:
        return scenarios
    by_bucket = sorted(scenarios, key=lambda s: s.bucket)  # stable: file order within a bucket
    last = len(by_bucket) - 1
    return [by_bucket[round(i * last / (PER_MAP - 1))] for i in range(PER_MAP)]


def collect_cases() -> list[object]:
    folder = movingai_dir()
    maps = sorted(folder.glob("*.map")) if folder.is_dir() else []
    if not maps:
        return [pytest.param(None, id="movingai-missing")]
    cases: list[object] = []
    for map_path in maps:
        scen_path = map_path.with_name(map_path.name + ".scen")
        if not scen_path.is_file():
            cases.append(pytest.param(Case(map_path, None), id=f"{map_path.stem}-no-scen"))
            continue
        for scenario in chosen(map_path.stem, read_scenarios(scen_path)):
            cases.append(
                pytest.param(Case(map_path, scenario), id=f"{map_path.stem}:{scenario.line}")
            )
    return cases


@functools.cache
def load(map_path: Path) -> tuple[MovingAIMap, MoveGraph]:
    grid = read_map(map_path)
    return grid, MoveGraph.build(grid.walkable)


@pytest.mark.parametrize("case", collect_cases())
def test_published_optimum_and_legal_path(case: Case | None) -> None:
    if case is None:
        pytest.skip(f"no Moving AI benchmarks in {movingai_dir()} (set MOVINGAI_DIR)")
    assert case.scenario is not None, f"{case.map_path} has no .scen file beside it"
    grid, graph = load(case.map_path)
    scenario = case.scenario
    result = Search(graph, scenario.start, scenario.goal).run()
    assert result.found, result.reason
    # Within what the printed length allows: 6 significant digits, or a file's fixed decimals.
    assert scenario.accepts(result.cost), (result.cost, scenario.optimal_length)
    cells = result.cells
    assert (cells[0], cells[-1]) == (scenario.start, scenario.goal)
    problem = path_problem(grid.walkable, cells, diagonal=True)
    assert problem is None, problem
    assert result.cost == pytest.approx(steps_cost(cells), rel=1e-12)


def test_every_map_gets_enough_scenarios_over_all_buckets() -> None:
    folder = movingai_dir()
    maps = sorted(folder.glob("*.map")) if folder.is_dir() else []
    if not maps:
        pytest.skip(f"no Moving AI benchmarks in {movingai_dir()} (set MOVINGAI_DIR)")
    for map_path in maps:
        scenarios = read_scenarios(map_path.with_name(map_path.name + ".scen"))
        picked = chosen(map_path.stem, scenarios)
        assert len(picked) >= min(PER_MAP, len(scenarios))
        buckets = sorted({s.bucket for s in scenarios})
        rank = {bucket: index for index, bucket in enumerate(buckets)}
        picked_ranks = sorted({rank[s.bucket] for s in picked})
        assert (picked_ranks[0], picked_ranks[-1]) == (0, len(buckets) - 1), map_path.name
        widest_gap = max(b - a for a, b in itertools.pairwise(picked_ranks))
        assert widest_gap <= max(1, -(-len(buckets) // 50)), map_path.name
