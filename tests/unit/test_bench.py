"""`sim bench` through `sim.cli.main` (no timing assertions) and its path legality checker."""

from __future__ import annotations

import numpy as np
import pytest

from sim.bench import check_path
from sim.bench_peers import diagonal_ok
from sim.cli import main
from tests.conftest import movingai_dir

# A wall at (1, 0): the diagonal (0, 0) -> (1, 1) would cut its corner.
CORNER = np.array([[1, 1, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)

needs_maps = pytest.mark.skipif(
    not (movingai_dir() / "arena.map").is_file(), reason="shared Moving AI maps not found"
)


@pytest.fixture(autouse=True)
def maps_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOVINGAI_DIR", str(movingai_dir()))


@needs_maps
def test_bench_prints_our_rows(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "--maps", "arena", "--sample", "5", "--peers", "none"])
    out = capsys.readouterr().out
    assert status == 0
    assert "arena (49x49), 5 queries" in out
    assert "| ours" in out
    assert "median ms" in out
    assert "first planned path of a process" in out


def test_corner_cut_is_illegal() -> None:
    verdict = check_path(CORNER, [(0, 0), (1, 1), (2, 1)], (0, 0), (2, 1))
    assert not verdict.legal
    assert verdict.problem == "step 1 cuts the corner of (1, 0)"


def test_legal_path_has_its_cost() -> None:
    verdict = check_path(CORNER, [(0, 0), (0, 1), (1, 1), (2, 1), (2, 0)], (0, 0), (2, 0))
    assert verdict.legal
    assert verdict.cost == pytest.approx(4.0)


def test_legal_diagonal_costs_sqrt2() -> None:
    verdict = check_path(CORNER, [(0, 0), (0, 1), (1, 2)], (0, 0), (1, 2))
    assert verdict.legal
    assert verdict.cost == pytest.approx(1.0 + np.sqrt(2.0))


@pytest.mark.parametrize(
    ("cells", "problem"),
    [
        pytest.param([(0, 0), (0, 2)], "step 1 is not one of the 8 moves", id="jump"),
        pytest.param([(0, 0), (1, 0)], "cell 1 (1, 0) is not walkable", id="wall"),
        pytest.param([(0, 1), (0, 0)], "does not run from start to goal", id="wrong-start"),
    ],
)
def test_other_illegal_paths(cells: list[tuple[int, int]], problem: str) -> None:
    assert check_path(CORNER, cells, (0, 0), cells[-1]).problem == problem


def test_diagonal_ok_matches_checker() -> None:
    legal = diagonal_ok(CORNER, 1, 1)
    assert not legal[0, 0]  # would cut (1, 0)
    assert legal[1, 1]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["--sample", "0"], "expected a positive integer, got '0'", id="sample-0"),
        pytest.param(["--maps", "atlantis"], "unknown map 'atlantis'", id="unknown-map"),
        pytest.param(["--peers", "dijkstra9000"], "unknown peer 'dijkstra9000'", id="unknown-peer"),
        pytest.param(["--peer-limit", "-1"], "expected a positive integer", id="peer-limit"),
    ],
)
def test_bad_values_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bench", *argv])
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert message in err


def test_bench_crowd_prints_the_throughput_table(capsys, monkeypatch):
    from sim import crowd_bench

    monkeypatch.setattr(crowd_bench, "SIZES", (10,))
    assert main(["bench", "--crowd"]) == 0
    out = capsys.readouterr().out
    assert "crowd throughput on crowd.toml" in out
    row = out.strip().splitlines()[-1].split()
    assert row[0] == "10"
    assert float(row[2]) > 0, "simulated frames per second"
