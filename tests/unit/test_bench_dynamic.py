"""`sim bench --dynamic` through `cli.main` on a tiny map of its own (no timing assertions)."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from sim.bench import dynamic, results
from sim.bench.dynamic_report import SECTION_TITLE, DynamicReport, MapRun
from sim.bench.maps import check_path
from sim.commands.cli import main
from sim.navigation import PathResult, find_path, read_map

# Two walls with a gap at opposite ends, so every long path snakes and the toggles cut it.
TINY_ROWS = [
    "." * 24 if row not in (8, 16) else ("@" * 18 + "." * 6 if row == 8 else "." * 6 + "@" * 18)
    for row in range(24)
]
TINY_ENDS = [((0, 0), (23, 23)), ((0, 23), (23, 0)), ((2, 2), (20, 20)), ((23, 1), (0, 12))]
ROUNDS = 6
ISSUE_KEYS = {
    "map": str,
    "rounds": int,
    "changed_cells_per_round": int,
    "astar_median_ms": float,
    "incremental_median_ms": float,
    "astar_median_expanded": int,
    "incremental_median_expanded": int,
    "costs_equal": bool,
}


def write_map(folder: Path, name: str, rows: list[str], ends: list[tuple[Any, Any]]) -> Path:
    """A Moving AI map and its .scen (lengths from our own A*) in `folder`."""
    height, width = len(rows), len(rows[0])
    map_path = folder / f"{name}.map"
    map_path.write_text(f"type octile\nheight {height}\nwidth {width}\nmap\n" + "\n".join(rows))
    walkable = read_map(map_path).walkable
    lines = ["version 1"]
    for start, goal in ends:
        length = find_path(walkable, start, goal).cost
        lines.append(
            f"0\t{name}.map\t{width}\t{height}\t{start[1]}\t{start[0]}\t{goal[1]}\t{goal[0]}"
            f"\t{length:.8f}"
        )
    (folder / f"{name}.map.scen").write_text("\n".join(lines) + "\n")
    return map_path


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A 24x24 Moving AI map and .scen in their own $MOVINGAI_DIR; few rounds per scenario."""
    folder = tmp_path / "maps"
    folder.mkdir()
    monkeypatch.setenv("MOVINGAI_DIR", str(folder))
    monkeypatch.setattr(dynamic, "ROUNDS", ROUNDS)
    monkeypatch.setattr(results, "RESULTS_PATH", tmp_path / "bench" / "RESULTS.md")
    return write_map(folder, "tiny", TINY_ROWS, TINY_ENDS)


def run_json(args: list[str], out: Path) -> tuple[int, Any]:
    status = main(["bench", "--dynamic", "--maps", "tiny", "--json", str(out), *args])
    return status, json.loads(out.read_text()) if out.exists() else None


def test_tiny_run_writes_the_issues_json(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, data = run_json([], tiny.parent / "out.json")
    out = capsys.readouterr().out
    assert status == 0
    assert list(data) == ["maps"]
    (entry,) = data["maps"]
    assert list(entry)[: len(ISSUE_KEYS)] == list(ISSUE_KEYS), "the contract's keys, in their order"
    for key, kind in ISSUE_KEYS.items():
        assert type(entry[key]) is kind, key
    assert entry["map"] == "tiny"
    assert entry["changed_cells_per_round"] == dynamic.CHANGED_CELLS
    assert 0 < entry["rounds"] <= len(TINY_ENDS) * ROUNDS
    assert entry["costs_equal"] is True
    assert entry["astar_median_expanded"] > 0
    assert "| tiny (24x24)" in out
    assert "- costs always equal: met" in out


class Recorder:
    """IncrementalSearch's stand-in: answers with A* and keeps every grid it was asked on."""

    grids: ClassVar[list[tuple[np.ndarray, Any, Any, tuple]]] = []
    last_repaired = False

    def __init__(self, **_: Any) -> None:
        pass

    def plan(self, walkable: np.ndarray, start: Any, goal: Any, **_: Any) -> Any:
        result = find_path(walkable, start, goal)
        Recorder.grids.append((walkable.copy(), start, goal, result.cells))
        return result


def test_each_round_changes_k_cells_near_the_path(
    tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Recorder.grids = []
    monkeypatch.setattr(dynamic, "IncrementalSearch", Recorder)
    base = read_map(tiny).walkable
    run = dynamic.bench_dynamic_map(tiny, scenarios=1, rounds=ROUNDS, implementation="python")
    assert run.costs_equal
    assert len(Recorder.grids) == ROUNDS + 1, "a first plan, then one plan per round"
    for (before, _, _, path), (after, start, goal, _) in zip(
        Recorder.grids, Recorder.grids[1:], strict=False
    ):
        blocked = np.argwhere(before & ~after)
        freed = np.argwhere(~before & after)
        assert len(blocked) + len(freed) == dynamic.CHANGED_CELLS
        assert len(freed) <= dynamic.CHANGED_CELLS // 2
        assert base[tuple(freed.T)].all(), "only cells an earlier round blocked are freed"
        assert base[tuple(blocked.T)].all(), "walls of the map never change"
        assert after[start], "never the agent's cell"
        assert after[goal], "never the goal"
        route = np.array(path)
        for cell in blocked:
            assert np.abs(route - cell).max(axis=1).min() <= dynamic.NEAR_CELLS, tuple(cell)


def test_without_a_path_the_agent_waits(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A corridor one cell wide: the first change on it cuts the only way to the goal.
    corridor = write_map(
        tiny.parent, "corridor", ["@" * 30, "." * 30, "@" * 30], [((1, 0), (1, 29))]
    )
    Recorder.grids = []
    monkeypatch.setattr(dynamic, "IncrementalSearch", Recorder)
    run = dynamic.bench_dynamic_map(corridor, scenarios=1, rounds=ROUNDS, implementation="python")
    starts = [start for _, start, _, _ in Recorder.grids]
    assert starts[:2] == [(1, 0), (1, dynamic.STEP_CELLS)], "walks while it has a path"
    assert run.unreachable_rounds == ROUNDS
    assert set(starts[1:]) == {(1, dynamic.STEP_CELLS)}, "then waits where it stands"
    assert run.costs_equal


class Detour(Recorder):
    """A stand-in that answers 4-connected: legal under the 8-connected rule, but longer."""

    def plan(self, walkable: np.ndarray, start: Any, goal: Any, **_: Any) -> Any:
        return find_path(walkable, start, goal, diagonal=False)


def test_the_plan_from_scratch_is_astar_whatever_find_paths_default(
    tiny: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # find_path's default ("auto") is jump point search: its expansions are jump points, not
    # the cells the incremental search's are compared with.
    algorithms: list[object] = []

    def spy(*args: Any, **kwargs: Any) -> PathResult:
        algorithms.append(kwargs.get("algorithm"))
        return find_path(*args, **kwargs)

    monkeypatch.setattr(dynamic, "find_path", spy)
    status, _ = run_json([], tiny.parent / "out.json")
    capsys.readouterr()
    assert status == 0
    assert algorithms
    assert set(algorithms) == {"astar"}


def test_a_cost_that_differs_fails_the_run(
    tiny: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(dynamic, "IncrementalSearch", Detour)
    status, data = run_json([], tiny.parent / "out.json")
    err = capsys.readouterr().err
    assert status == 1
    assert data["maps"][0]["costs_equal"] is False
    assert len(err.strip().splitlines()) == 1
    assert "answers differ" in err
    assert "A* cost" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["--dynamic", "--maps", "atlantis"], "unknown map 'atlantis'", id="map"),
        pytest.param(["--dynamic", "--crowd"], "separate runs", id="with-crowd"),
    ],
)
def test_bad_values_exit_2_in_one_line(
    tiny: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bench", *argv])
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert message in err


def test_json_never_replaces_a_file_of_another_kind(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tiny.parent / "notes.txt"
    notes.write_text("not JSON\n")
    status = main(["bench", "--dynamic", "--maps", "tiny", "--json", str(notes)])
    err = capsys.readouterr().err
    assert status == 2
    assert "exists and is not a JSON file" in err
    assert notes.read_text() == "not JSON\n"


def test_a_json_write_that_fails_leaves_the_old_file(
    tiny: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tiny.parent / "out.json"
    out.write_text('{"old": true}\n')

    def full_disk(_fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full_disk)
    status = main(["bench", "--dynamic", "--maps", "tiny", "--json", str(out)])
    err = capsys.readouterr().err
    assert status == 1
    assert f"--json {out}: not written: No space left on device" in err
    assert out.read_text() == '{"old": true}\n'
    assert sorted(p.name for p in out.parent.iterdir()) == ["out.json", "tiny.map", "tiny.map.scen"]


def test_write_results_replaces_only_its_section(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = results.RESULTS_PATH
    path.parent.mkdir()
    path.write_text("# Results\n\n## Maps\n\nkeep me\n\n## Targets\n\n- kept\n")
    for _ in range(2):  # the second run replaces the first run's section
        assert main(["bench", "--dynamic", "--maps", "tiny", "--write-results"]) == 0
    text = path.read_text()
    assert text.count(f"## {SECTION_TITLE}") == 1
    assert text.index("keep me") < text.index(SECTION_TITLE) < text.index("## Targets")
    assert text.endswith("## Targets\n\n- kept\n")
    assert f"]({results.DYNAMIC_CHART})" in text
    assert (path.parent / results.DYNAMIC_CHART).read_text().startswith("<svg")
    assert "wrote" in capsys.readouterr().out


def test_the_default_maps_are_the_512_ones(tmp_path: Path) -> None:
    sizes = {"big": (512, 512), "wide": (512, 256), "small": (24, 24)}
    for name, (width, height) in sizes.items():
        (tmp_path / f"{name}.map").write_text(f"type octile\nheight {height}\nwidth {width}\nmap\n")
    chosen = dynamic.default_maps(sorted(tmp_path.glob("*.map")))
    assert [p.name for p in chosen] == ["big.map"]


def test_canonical_cost_ignores_step_order() -> None:
    one = [(0, 0), (1, 1), (1, 2), (1, 3)]
    other = [(0, 0), (0, 1), (0, 2), (1, 3)]
    assert dynamic.canonical_cost(one) == dynamic.canonical_cost(other)
    assert check_path(np.ones((2, 4), dtype=bool), other, (0, 0), (1, 3)).legal


def test_write_results_keeps_every_section(
    tiny: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sim.bench import crowd as crowd_bench

    monkeypatch.setattr(crowd_bench, "SIZES", (10,))
    monkeypatch.setattr(crowd_bench, "SECONDS", 0.5)
    argv = ["bench", "--maps", "tiny", "--sample", "2", "--peers", "none", "--write-results"]
    assert main(argv) == 0
    text = results.RESULTS_PATH.read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert [h.split(" ")[1] for h in headings] == [
        "Ours",
        "tiny",
        "Crowd",
        "Incremental",
        "Targets",
    ]
    assert "--write-results` on" in text
    assert "| tiny (24x24)" in capsys.readouterr().out


def test_targets_pool_every_rounds_of_the_target_maps() -> None:
    """One map far under the targets and one over: each judged alone, then pooled."""

    def run(name: str, astar: list[int], incremental: list[int]) -> MapRun:
        return MapRun(
            name,
            512,
            512,
            "c",
            changed=10,
            scenarios=1,
            astar_ms=[float(n) for n in astar],
            incremental_ms=[float(n) for n in incremental],
            astar_expanded=astar,
            incremental_expanded=incremental,
        )

    cheap = run("cheap", [100, 100, 100], [1, 1, 1])
    dear = run("dear", [100, 100], [90, 90])
    report = DynamicReport((cheap, dear), 1, 3, 10, 3, 2, 0, "c")
    lines = report.target_lines()
    assert "met on 1 of 2 maps" in lines[0]
    assert lines[1] == "  - all 5 rounds of these maps pooled: expansions 0.010x, time 0.010x: met"
    heavy = run("heavy", [100] * 4, [90] * 4)
    pooled = DynamicReport((cheap, heavy), 1, 3, 10, 3, 2, 0, "c").target_lines()[1]
    assert pooled.endswith("expansions 0.900x, time 0.900x: NOT met")


def test_a_map_whose_rounds_had_no_path_is_not_counted_as_met_or_missed() -> None:
    from sim.bench.dynamic_report import DynamicReport, MapRun

    answered = MapRun("walled", 512, 512, "c", 10, 1)
    answered.astar_ms, answered.incremental_ms = [0.003] * 3, [0.003] * 3
    answered.astar_expanded, answered.incremental_expanded = [0] * 3, [0] * 3
    answered.astar_first_ms, answered.incremental_first_ms = [1.0], [1.0]
    lines = DynamicReport((answered,), 1, 3, 10, 3, 2, 0, "c").target_lines()
    assert "met on 0 of 0 maps (1 with nothing to search)" in lines[0]
    assert "nothing to compare" in lines[2]
