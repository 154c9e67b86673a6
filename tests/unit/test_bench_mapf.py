"""`sim bench --mapf` through `cli.main` on a tiny MAPF folder of its own (no timing assertions)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sim.bench import mapf, mapf_window, results
from sim.bench.mapf import Instance, MapfRow
from sim.commands.cli import main
from sim.mapf import MapfProblem

ROWS = ["......", ".@@@..", "......", "..@...", "......"]
# (x, y) start and goal per agent, as the scenario files give them.
AGENTS = [((0, 0), (5, 4)), ((5, 0), (0, 4)), ((0, 2), (5, 2)), ((5, 2), (0, 2))]
ISSUE_KEYS = {
    "map": str,
    "scen": str,
    "agents": int,
    "solver": str,
    "peer": str,
    "solved": bool,
    "time_s": float,
    "sum_of_costs": int,
    "makespan": int,
    "soc_lower_bound": int,
}


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A MAPF benchmark folder holding one 6x5 map and its random-1 file, as $MAPF_DIR."""
    folder = tmp_path / "mapf"
    (folder / "maps").mkdir(parents=True)
    (folder / "scen-random").mkdir()
    (folder / "maps" / "tiny.map").write_text(
        f"type octile\nheight {len(ROWS)}\nwidth {len(ROWS[0])}\nmap\n" + "\n".join(ROWS) + "\n"
    )
    lines = ["version 1"] + [
        f"0\ttiny.map\t6\t5\t{sx}\t{sy}\t{gx}\t{gy}\t1" for (sx, sy), (gx, gy) in AGENTS
    ]
    (folder / "scen-random" / "tiny-random-1.scen").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("MAPF_DIR", str(folder))
    monkeypatch.setattr(results, "RESULTS_PATH", tmp_path / "bench" / "RESULTS.md")
    return folder


def test_tiny_run_writes_the_issues_json_without_the_peer(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pymapf", None)  # importing it now raises ImportError
    out = tmp_path / "mapf.json"
    argv = ["bench", "--mapf", "--maps", "tiny", "--agents", "2,4", "--time-limit", "0.2"]
    status = main([*argv, "--json", str(out)])
    printed = capsys.readouterr().out
    assert status == 0
    assert mapf.PEER_NOTE in printed
    assert "every plan of ours valid by the checker: MET" in printed
    data = json.loads(out.read_text())
    assert list(data) == ["rows"]
    for row in data["rows"]:
        assert set(row) == set(ISSUE_KEYS)
        for key, kind in ISSUE_KEYS.items():
            assert isinstance(row[key], kind), key
    runs = {(row["agents"], row["solver"], row["peer"]) for row in data["rows"]}
    solvers = ("lacam", "lacam-anytime", "pibt", "cbs")
    assert runs == {(k, s, "ours") for k in (2, 4) for s in solvers}
    assert all(row["sum_of_costs"] >= row["soc_lower_bound"] for row in data["rows"])


def test_write_results_puts_the_section_with_its_command(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench", "--mapf", "--maps", "tiny", "--agents", "2", "--time-limit", "0.1"]
    assert main([*argv, "--peers", "none", "--write-results"]) == 0
    text = results.RESULTS_PATH.read_text()
    assert text.count(mapf.SECTION_HEADING) == 1
    assert "sim bench --mapf --maps tiny --agents 2 --scens 1 --time-limit 0.1" in text


def test_first_plan_skips_the_anytime_runs_and_says_so(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench", "--mapf", "--maps", "tiny", "--agents", "2", "--time-limit", "0.1"]
    assert main([*argv, "--first-plan", "--peers", "none", "--write-results"]) == 0
    printed = capsys.readouterr().out
    assert "| tiny | lacam | ours | 1 | 100% |" in printed
    assert "lacam-anytime" not in printed
    assert "(time to its first plan): MET: 1 of 1" in printed
    text = results.RESULTS_PATH.read_text()
    assert "--time-limit 0.1 --first-plan --peers none --write-results" in text
    assert "did not run anytime" in text


def test_a_peer_plan_that_breaks_the_rules_is_counted_invalid(tiny: Path) -> None:
    instance = Instance(tiny / "maps" / "tiny.map", tiny / "scen-random" / "tiny-random-1.scen", 2)

    def teleports(problem: MapfProblem) -> list[list[tuple[int, int]]]:
        return [
            [divmod(s, problem.width), divmod(g, problem.width)]
            for s, g in zip(problem.starts, problem.goals, strict=True)
        ]

    rows = mapf.run_instance(instance, ["pibt"], {"pibt": teleports}, time_limit_s=0.2, seed=0)
    assert [(row.peer, row.solved, row.valid) for row in rows] == [
        ("ours", True, True),
        ("pymapf", True, False),
    ]
    assert rows[1].sum_of_costs == 0


def row(solver: str, peer: str, time_s: float, soc: int, agents: int = 10) -> MapfRow:
    return MapfRow("m", "m-random-1.scen", agents, solver, peer, True, time_s, soc, 9, 5, True)


def test_the_targets_judge_speed_and_equal_costs() -> None:
    rows = [
        row("pibt", "ours", 0.001, 30),
        row("pibt", "pymapf", 0.05, 31),
        row("cbs", "ours", 0.01, 20),
        row("cbs", "pymapf", 0.02, 21),
        row("lacam", "ours", 1.0, 20),
    ]
    lines = {v.name.split(":")[0]: v for v in mapf.verdicts(rows)}
    assert lines["pibt"].met is True
    assert "50.0x" in lines["pibt"].detail
    assert lines["cbs"].met is False
    assert "20 vs 21" in lines["cbs"].detail
    assert lines["lacam"].met is None  # no pymapf lacam run to compare with


def test_lacam_is_judged_on_its_first_plan_not_its_anytime_run() -> None:
    rows = [
        row("lacam", "ours", 0.01, 30),
        row("lacam", "pymapf", 0.2, 30),
        row("lacam-anytime", "ours", 1.0, 25),
    ]
    lacam = next(v for v in mapf.verdicts(rows) if v.name.startswith("lacam:"))
    assert "time to the first plan" in lacam.name
    assert lacam.met is True
    assert "20.0x" in lacam.detail


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["--maps", "tiny", "atlantis"], "no MAPF map 'atlantis'", id="map"),
        pytest.param(["--agents", "0"], "agent counts must be >= 1", id="agents-zero"),
        pytest.param(["--agents", "ten"], "expected whole numbers", id="agents-word"),
        pytest.param(["--time-limit", "0"], "--time-limit", id="time-limit"),
        pytest.param(["--scens", "2"], "fewer than 2 scenario files", id="scens"),
        pytest.param(["--agents", "50"], "every --agents count exceeds", id="too-many"),
        pytest.param(["--crowd"], "separate runs", id="with-crowd"),
    ],
)
def test_bad_values_exit_2_in_one_line(
    tiny: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bench", "--mapf", "--maps", "tiny", *argv])
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert message in err


def test_window_rows_go_to_the_json_and_their_own_results_section(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked: list[tuple[str, int]] = []

    def fake(map_path: Path, scen_path: Path, agents: int) -> float:
        asked.append((map_path.name, agents))
        return 41.5

    monkeypatch.setattr(mapf_window, "rendered_fps", fake)
    monkeypatch.setattr(mapf_window, "CASES", (("tiny", 3),))
    out = tmp_path / "mapf.json"
    argv = ["bench", "--mapf", "--maps", "tiny", "--agents", "2", "--time-limit", "0.1"]
    assert main([*argv, "--peers", "none", "--window", "--json", str(out), "--write-results"]) == 0
    assert asked == [("tiny.map", 3)]
    assert json.loads(out.read_text())["window"] == [{"map": "tiny", "agents": 3, "fps": 41.5}]
    assert "render at >= 30 fps in an 800 x 600 window: MET: 41.5 fps" in capsys.readouterr().out
    text = results.RESULTS_PATH.read_text()
    assert text.count(results.MAPF_WINDOW_HEADING) == 1
    assert text.count(mapf.SECTION_HEADING) == 1
    assert "--peers none --window --write-results" in text
