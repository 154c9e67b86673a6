"""`sim mapf`: solve, write the plan and summary, check plans, refuse bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.commands.cli import main
from sim.mapf.plan_file import parse_plan

# Two agents swap ends of a corridor with an alcove: solvable (optimum 11, see the solver tests).
CORRIDOR = "type octile\nheight 2\nwidth 5\nmap\n.....\n@@.@@\n"
# A 1x2 strip: two agents trading places can never pass each other.
STRIP = "type octile\nheight 1\nwidth 2\nmap\n..\n"


def scen(name: str, width: int, height: int, *agents: tuple[int, int, int, int]) -> str:
    lines = [
        f"0\t{name}\t{width}\t{height}\t{sx}\t{sy}\t{gx}\t{gy}\t1\n" for sx, sy, gx, gy in agents
    ]
    return "version 1\n" + "".join(lines)


@pytest.fixture
def corridor(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "corridor.map").write_text(CORRIDOR)
    (tmp_path / "corridor.scen").write_text(scen("corridor.map", 5, 2, (0, 0, 4, 0), (4, 0, 0, 0)))
    return tmp_path / "corridor.map", tmp_path / "corridor.scen"


def test_solve_prints_costs_and_bounds_and_writes_plan_and_json(corridor, tmp_path, capsys):
    map_path, scen_path = corridor
    plan, summary = tmp_path / "plan.txt", tmp_path / "out.json"
    argv = [str(map_path), str(scen_path), "--agents", "2", "--time-limit", "5"]
    status = main(["mapf", *argv, "--plan", str(plan), "--json", str(summary)])
    out = capsys.readouterr().out
    assert status == 0
    assert "solved 2 agents on corridor.map" in out
    assert "sum of costs 11 (lower bound 8), makespan 6 (lower bound 4)" in out
    header = dict(line.split("=", 1) for line in plan.read_text().splitlines()[:9])
    assert header["agents"] == "2"
    assert header["map_file"] == "corridor.map"
    assert (header["solver"], header["solved"], header["soc"], header["soc_lb"]) == (
        "lacam",
        "1",
        "11",
        "8",
    )
    assert (header["makespan"], header["makespan_lb"]) == ("6", "4")
    assert int(header["comp_time"]) >= 0
    paths = parse_plan(plan.read_text())
    assert [path[0] for path in paths] == [(0, 0), (0, 4)]
    document = json.loads(summary.read_text())
    assert document == {
        "solved": True,
        "solver": "lacam",
        "agents": 2,
        "sum_of_costs": 11,
        "makespan": 6,
        "soc_lower_bound": 8,
        "makespan_lower_bound": 4,
        "time_s": document["time_s"],
    }
    assert main(["mapf", "--check", str(map_path), str(scen_path), str(plan)]) == 0
    assert "valid plan for 2 agents: sum of costs 11, makespan 6" in capsys.readouterr().out


def test_first_plan_stops_lacam_before_it_proves_the_optimum(corridor, capsys):
    map_path, scen_path = corridor
    argv = [str(map_path), str(scen_path), "--agents", "2", "--time-limit", "5"]
    assert main(["mapf", *argv]) == 0
    assert "(proved optimal)" in capsys.readouterr().out
    assert main(["mapf", *argv, "--first-plan"]) == 0
    out = capsys.readouterr().out
    assert "lacam: solved 2 agents on corridor.map" in out
    assert "(proved optimal)" not in out


@pytest.mark.parametrize("solver", ["pibt", "cbs"])
def test_each_solver_runs(corridor, capsys, solver):
    map_path, scen_path = corridor
    argv = ["mapf", str(map_path), str(scen_path), "--agents", "2", "--solver", solver]
    assert main([*argv, "--time-limit", "5"]) == 0
    assert capsys.readouterr().out.startswith(f"{solver}: solved 2 agents")


def test_check_lists_every_violation(corridor, tmp_path, capsys):
    map_path, scen_path = corridor
    plan = tmp_path / "bad.txt"
    # Agent 0 starts on the wrong cell and jumps; the two then meet head on.
    plan.write_text("agents=2\nsolution=\n0:(1,0),(4,0),\n1:(3,0),(3,0),\n2:(4,0),(2,0),\n")
    status = main(["mapf", "--check", str(map_path), str(scen_path), str(plan)])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert lines == [
        "t=0: wrong start: agent 0 is at (x=1, y=0), not its start (x=0, y=0)",
        "t=1: not adjacent: agent 0 moves from (x=1, y=0) to (x=3, y=0)",
        "t=1: vertex conflict: agents 0 and 1 both at (x=3, y=0)",
        "t=2: wrong goal: agent 1 ends at (x=2, y=0), not its goal (x=0, y=0)",
        f"{plan}: 4 violations",
    ]


def test_connectivity_8_steps_diagonally_and_check_follows_it(tmp_path, capsys):
    # Corner to opposite corner of an open 3x3 square, two agents crossing: 4-connected both
    # go round (4 + 4); 8-connected both want the centre at time 1, so 2 + 3 (see the solver
    # tests).
    (tmp_path / "open.map").write_text("type octile\nheight 3\nwidth 3\nmap\n...\n...\n...\n")
    (tmp_path / "open.scen").write_text(scen("open.map", 3, 3, (0, 0, 2, 2), (2, 0, 0, 2)))
    files = [str(tmp_path / "open.map"), str(tmp_path / "open.scen")]
    argv = ["mapf", *files, "--agents", "2", "--solver", "cbs", "--time-limit", "5"]
    assert main(argv) == 0
    assert "sum of costs 8 (lower bound 8), makespan 4 (lower bound 4)" in capsys.readouterr().out
    plan = tmp_path / "plan.txt"
    assert main([*argv, "--connectivity", "8", "--plan", str(plan)]) == 0
    assert "sum of costs 5 (lower bound 4), makespan 3 (lower bound 2)" in capsys.readouterr().out
    check = ["mapf", "--check", *files, str(plan)]
    assert main([*check, "--connectivity", "8"]) == 0
    assert "valid plan for 2 agents: sum of costs 5, makespan 3" in capsys.readouterr().out
    assert main(check) == 1
    assert ": diagonal step: agent " in capsys.readouterr().out


@pytest.mark.parametrize("solver", ["lacam", "pibt", "cbs"])
def test_not_solved_is_one_line_exit_1_and_no_plan(tmp_path, capsys, solver):
    (tmp_path / "strip.map").write_text(STRIP)
    (tmp_path / "strip.scen").write_text(scen("strip.map", 2, 1, (0, 0, 1, 0), (1, 0, 0, 0)))
    plan, summary = tmp_path / "plan.txt", tmp_path / "out.json"
    argv = [str(tmp_path / "strip.map"), str(tmp_path / "strip.scen"), "--agents", "2"]
    outputs = ["--plan", str(plan), "--json", str(summary)]
    status = main(["mapf", *argv, "--solver", solver, "--time-limit", "1", *outputs])
    out = capsys.readouterr().out
    assert status == 1
    assert out.count("\n") == 1
    assert out.startswith(f"{solver}: not solved: 2 agents on strip.map within 1 s")
    assert not plan.exists()
    assert json.loads(summary.read_text())["solved"] is False


WALLED = "type octile\nheight 2\nwidth 3\nmap\n.@.\n...\n"


@pytest.mark.parametrize(
    ("agents", "lines", "extra", "message"),
    [
        ("1", [("other.map", 0, 0, 2, 0)], [], "is for map other.map"),
        ("3", [("walled.map", 0, 0, 2, 0)], [], "holds 1 agents, fewer than the 3 asked for"),
        ("1", [("walled.map", 1, 0, 2, 0)], [], "start 1,0 is on a blocked cell"),
        ("1", [("walled.map", 0, 0, 1, 0)], [], "goal 1,0 is on a blocked cell"),
        (
            "2",
            [("walled.map", 0, 0, 2, 0), ("walled.map", 0, 0, 2, 1)],
            [],
            "agents 0 and 1 have the same start (x=0, y=0)",
        ),
        (
            "2",
            [("walled.map", 0, 0, 2, 0), ("walled.map", 0, 1, 2, 0)],
            [],
            "agents 0 and 1 have the same goal (x=2, y=0)",
        ),
        ("1", [("walled.map", 0, 0, 2, 0)], ["--time-limit", "0"], "expected a number > 0"),
        ("1", [("walled.map", 0, 0, 2, 0)], ["--time-limit", "-1"], "expected a number > 0"),
        ("1", [("walled.map", 0, 0, 2, 0)], ["--time-limit", "soon"], "expected a number"),
        ("1", [("walled.map", 0, 0, 2, 0)], ["--time-limit", "nan"], "expected a number > 0"),
        ("0", [("walled.map", 0, 0, 2, 0)], [], "expected a number >= 1"),
    ],
    ids=[
        "other-map",
        "too-many-agents",
        "start-on-wall",
        "goal-on-wall",
        "same-start",
        "same-goal",
        "zero-limit",
        "negative-limit",
        "word-limit",
        "nan-limit",
        "zero-agents",
    ],
)
def test_bad_input_is_one_line_exit_2_nothing_written(
    tmp_path, capsys, agents, lines, extra, message
):
    (tmp_path / "walled.map").write_text(WALLED)
    text = "version 1\n" + "".join(
        f"0\t{name}\t3\t2\t{sx}\t{sy}\t{gx}\t{gy}\t1\n" for name, sx, sy, gx, gy in lines
    )
    (tmp_path / "walled.scen").write_text(text)
    plan, summary = tmp_path / "plan.txt", tmp_path / "out.json"
    argv = [str(tmp_path / "walled.map"), str(tmp_path / "walled.scen"), "--agents", agents]
    status = main(["mapf", *argv, *extra, "--plan", str(plan), "--json", str(summary)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("sim")
    assert message in captured.err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["walled.map", "walled.scen"]


@pytest.mark.parametrize("missing", ["map", "scen", "plan"])
def test_a_missing_file_is_one_line_exit_2(corridor, tmp_path, capsys, missing):
    map_path, scen_path = corridor
    files = {"map": map_path, "scen": scen_path, "plan": tmp_path / "plan.txt"}
    files[missing] = tmp_path / "gone"
    if missing == "plan":
        argv = ["mapf", "--check", str(files["map"]), str(files["scen"]), str(files["plan"])]
    else:
        argv = ["mapf", str(files["map"]), str(files["scen"]), "--agents", "2"]
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err == f"sim: {tmp_path / 'gone'}: no such file\n"


def test_a_malformed_plan_is_one_line_exit_2(corridor, tmp_path, capsys):
    map_path, scen_path = corridor
    plan = tmp_path / "plan.txt"
    plan.write_text("agents=2\nsolution=\n0:(0,0),(4,0)\n")
    status = main(["mapf", "--check", str(map_path), str(scen_path), str(plan)])
    assert status == 2
    assert capsys.readouterr().err.startswith(f"sim: {plan}:3: expected")


@pytest.mark.parametrize("flag", ["--plan", "--json"])
def test_an_output_that_is_an_input_is_refused(corridor, capsys, flag):
    map_path, scen_path = corridor
    before = map_path.read_text()
    status = main(["mapf", str(map_path), str(scen_path), "--agents", "2", flag, str(map_path)])
    assert status == 2
    assert capsys.readouterr().err == f"sim: {flag} {map_path}: is the map\n"
    assert map_path.read_text() == before
