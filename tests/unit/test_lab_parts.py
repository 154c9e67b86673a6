"""The lab's parts without Dask: rows and their CSV, a chunk's searches, chunking, the store."""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.commands.cli import main
from sim.lab.chunks import CHUNK_CELLS, MIN_BLOCK, Chunk, block_size, make_chunks
from sim.lab.experiment import SearchSpec
from sim.lab.maps import PUBLISHED, PreparedMap
from sim.lab.rows import COLUMNS, Row, format_rows, parse_rows, suboptimality
from sim.lab.store import ChunkStore
from sim.lab.task import length_cells, run_chunk, turns
from sim.navigation import Scenario, find_path, write_map

ISSUE_COLUMNS = [
    *("map", "scenario", "algorithm", "heuristic", "weight", "connectivity", "found", "cost"),
    *("optimal", "suboptimality", "expanded", "time_ms", "length_cells", "turns"),
]


def spec(algorithm: str = "astar", *, weight: float = 1.0, connectivity: int = 8) -> SearchSpec:
    return SearchSpec(algorithm, "octile", weight, connectivity, "auto", algorithm)


ROW = Row(
    map="m", scenario=0, algorithm="astar", heuristic="octile", weight=1.0, connectivity=8,
    found=True, cost=2.0 + math.sqrt(2), optimal=3.41421, suboptimality=1.0, expanded=4,
    time_ms=0.0123456, length_cells=4, turns=1, search="astar", implementation="auto",
    bucket=0, start_x=0, start_y=0, goal_x=3, goal_y=1, optimal_source=PUBLISHED,
)  # fmt: skip


def row(**changes: Any) -> Row:
    return dataclasses.replace(ROW, **changes)


def test_the_table_starts_with_the_issues_columns() -> None:
    assert list(COLUMNS[: len(ISSUE_COLUMNS)]) == ISSUE_COLUMNS


def test_rows_read_back_exactly_but_time() -> None:
    rows = [row(), row(scenario=1, found=False, cost=None, suboptimality=None, length_cells=0)]
    again = parse_rows(format_rows(rows))
    assert again[0].cost == rows[0].cost  # bit for bit
    assert again[0].time_ms == pytest.approx(0.0123, abs=1e-9)
    assert again[1] == dataclasses.replace(rows[1], time_ms=0.0123)


def test_a_file_of_another_kind_is_not_rows() -> None:
    with pytest.raises(ValueError, match="header differs"):
        parse_rows("a,b\n1,2\n")


@pytest.mark.parametrize(
    ("cost", "optimal", "tolerance", "expected"),
    [
        (0.0, 0.0, 0.0, 1.0),
        (3.414213562, 3.41421, 3.41421e-5, 1.0),
        (3.0, 2.0, 2e-9, 1.5),
        (math.inf, 2.0, 2e-9, None),
        (math.inf, math.inf, 0.0, None),
    ],
    ids=["start-is-goal", "printed-length", "weighted", "not-found", "no-path-exists"],
)
def test_suboptimality(cost: float, optimal: float, tolerance: float, expected: float) -> None:
    assert suboptimality(cost, optimal, tolerance) == expected


def test_turns_and_length_count_every_cell_even_between_jump_points() -> None:
    straight = ((0, 0), (0, 1), (0, 2))
    assert (turns(straight), length_cells(straight)) == (0, 3)
    jumps = ((0, 0), (0, 4), (3, 7))
    assert (turns(jumps), length_cells(jumps)) == (1, 8)
    assert (turns(((2, 2),)), length_cells(((2, 2),))) == (0, 1)


@pytest.fixture
def corridor(tmp_path: Path) -> Path:
    """A 3 x 6 map with a wall across, open at the bottom."""
    walkable = np.ones((3, 6), dtype=bool)
    walkable[:2, 3] = False
    path = tmp_path / "corridor.map"
    write_map(path, walkable)
    return path


def scenario(start: tuple[int, int], goal: tuple[int, int], optimal: float) -> Scenario:
    return Scenario(0, "corridor.map", 6, 3, start[1], start[0], goal[1], goal[0], optimal, 2)


def test_a_chunk_runs_find_path_and_judges_against_the_optimum(corridor: Path) -> None:
    walkable = np.ones((3, 6), dtype=bool)
    walkable[:2, 3] = False
    eight = find_path(walkable, (0, 0), (0, 5)).cost
    scenarios = (scenario((0, 0), (0, 5), eight), scenario((1, 1), (1, 1), 0.0))
    chunk = Chunk("k", "corridor", str(corridor), 0, 0, spec(), 4, scenarios, PUBLISHED)
    first, second = run_chunk(chunk)
    assert (first.scenario, second.scenario) == (4, 5)
    assert (first.found, first.cost, first.optimal, first.suboptimality) == (
        True,
        eight,
        eight,
        1.0,
    )
    assert (first.start_x, first.goal_x, first.length_cells, first.turns) == (0, 5, 7, 3)
    assert first.expanded > 0
    assert first.time_ms > 0
    assert (second.cost, second.suboptimality, second.length_cells, second.turns) == (
        0.0,
        1.0,
        1,
        0,
    )


def test_four_connected_rows_are_judged_by_our_dijkstra(corridor: Path) -> None:
    scenarios = (scenario((0, 0), (0, 5), 1.0),)  # the printed 8-connected length is ignored
    chunk = Chunk("k", "corridor", str(corridor), 0, 0, spec(connectivity=4), 0, scenarios, "x")
    (only,) = run_chunk(chunk)
    assert (only.cost, only.optimal, only.suboptimality, only.optimal_source) == (
        9.0,
        9.0,
        1.0,
        "dijkstra",
    )


def prepared(name: str, cells: int, count: int) -> PreparedMap:
    scenarios = tuple(scenario((0, 0), (0, i % 6), float(i % 6)) for i in range(count))
    return PreparedMap(name, Path(f"/maps/{name}.map"), scenarios, PUBLISHED, "d" * 16, cells)


def test_chunks_cover_every_scenario_once_in_order() -> None:
    maps = [prepared("big", 1024 * 1024, 50), prepared("small", 49 * 49, 50)]
    chunks = make_chunks(maps, (spec(), spec(weight=2.0)))
    big = block_size(1024 * 1024, "auto", 50)
    assert big == math.ceil(CHUNK_CELLS / (1024 * 1024)) < 50
    assert [(c.map_name, c.search_index, c.first) for c in chunks] == [
        *[("big", s, first) for s in (0, 1) for first in range(0, 50, big)],
        ("small", 0, 0),
        ("small", 1, 0),
    ]
    assert len({chunk.key for chunk in chunks}) == len(chunks)
    assert block_size(4096 * 4096, "auto", 50) == MIN_BLOCK
    assert block_size(256 * 256, "python", 50) < block_size(256 * 256, "auto", 50)


def test_a_chunks_key_changes_with_what_decides_its_rows() -> None:
    (before,) = make_chunks([prepared("m", 100, 3)], (spec(),))
    edited = PreparedMap("m", Path("/maps/m.map"), before.scenarios, PUBLISHED, "e" * 16, 100)
    (after_edit,) = make_chunks([edited], (spec(),))
    (other_search,) = make_chunks([prepared("m", 100, 3)], (spec(weight=1.5),))
    (same,) = make_chunks([prepared("m", 100, 3)], (spec(),))
    assert same.key == before.key
    assert len({before.key, after_edit.key, other_search.key}) == 3


def test_the_store_keeps_whole_chunks_only(tmp_path: Path) -> None:
    store = ChunkStore(tmp_path)
    store.save("a", [row(), row(scenario=1)])
    assert store.load("a", 2) == parse_rows(format_rows([row(), row(scenario=1)]))
    assert store.load("a", 3) is None  # not the chunk asked for
    assert store.load("b", 1) is None
    (tmp_path / "partial" / "c.csv").write_text("map,scenario\n")
    assert store.load("c", 1) is None
    assert [path.name for path in (tmp_path / "partial").iterdir()] != []
    assert not list((tmp_path / "partial").glob(".*.tmp"))


def test_sweep_without_the_lab_extra_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    assert main(["sweep", str(tmp_path / "exp.toml"), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == (
        'sim: sim sweep needs Dask and matplotlib: pip install -e ".[lab]" '
        "(distributed is missing)\n"
    )


def test_workers_go_with_a_local_cluster_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["sweep", "e.toml", "--out", str(tmp_path), "--workers", "2"]
    assert main([*argv, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "--workers sizes the local cluster" in capsys.readouterr().err


def test_a_non_empty_out_is_refused_without_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.helpers.paths import movingai_dir

    arena = movingai_dir() / "arena.map"
    (tmp_path / "exp.toml").write_text(
        f'[[maps]]\nmovingai = "{arena}"\n[[searches]]\nalgorithm = "astar"\n'
    )
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.csv").write_text("mine\n")
    assert main(["sweep", str(tmp_path / "exp.toml"), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"sim: --out {out}: the folder is not empty; add --resume to finish the run it holds, "
        "or choose another folder\n"
    )
    assert (out / "results.csv").read_text() == "mine\n"


def test_sim_starts_without_dask() -> None:
    import subprocess

    probe = (
        "import sys\nfrom sim.commands.dispatch import build_parser\nbuild_parser()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('dask', 'distributed', 'matplotlib')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_bad_scheduler_address_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.helpers.paths import movingai_dir

    arena = movingai_dir() / "arena.map"
    (tmp_path / "exp.toml").write_text(
        f'scenarios_per_map = 5\n[[maps]]\nmovingai = "{arena}"\n'
        '[[searches]]\nalgorithm = "astar"\n'
    )
    out = tmp_path / "out"
    argv = ["sweep", str(tmp_path / "exp.toml"), "--out", str(out), "--scheduler", "nowhere"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "sim: --scheduler nowhere: cannot connect: missing port number in address 'nowhere'\n"
    )
    assert not out.exists()
