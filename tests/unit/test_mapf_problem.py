"""MAPF problems, Moving AI MAPF files, the plan checker and the plan file format."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from sim.mapf import LowerBounds, MapfProblem, distance_tables, lower_bounds, plan_costs
from sim.mapf.checker import ViolationKind, check_plan, flat_to_pairs
from sim.mapf.plan_file import format_plan, parse_plan
from sim.mapf.scenario import load_problem
from sim.mapf.solvers import solve
from tests.helpers.paths import REPO_ROOT

MAP = "type octile\nheight 3\nwidth 4\nmap\n....\n.@..\n....\n"


def mapf_dir() -> Path:
    """Where the shared MAPF benchmark lives: $MAPF_DIR, else ../shared/mapf."""
    override = os.environ.get("MAPF_DIR")
    return Path(override) if override else REPO_ROOT.parent / "shared" / "mapf"


def scen_line(sx: int, sy: int, gx: int, gy: int, name: str = "tiny.map") -> str:
    return f"0\t{name}\t4\t3\t{sx}\t{sy}\t{gx}\t{gy}\t1\n"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    (tmp_path / "tiny.map").write_text(MAP)
    return tmp_path


def write_scen(folder: Path, *lines: str) -> Path:
    path = folder / "tiny.scen"
    path.write_text("version 1\n" + "".join(lines))
    return path


def corridor() -> MapfProblem:
    """Two agents swap ends of a 5-cell corridor with one alcove below its middle."""
    walkable = np.zeros((2, 5), bool)
    walkable[0, :] = True
    walkable[1, 2] = True
    return MapfProblem.from_cells(walkable, [(0, 0), (0, 4)], [(0, 4), (0, 0)])


def test_lower_bounds_are_the_single_agent_distances() -> None:
    problem = corridor()
    assert lower_bounds(problem, distance_tables(problem)) == LowerBounds(8, 4)


def test_c_and_python_distance_tables_are_equal() -> None:
    rng = np.random.default_rng(7)
    walkable = rng.random((12, 15)) > 0.3
    free = np.flatnonzero(walkable)
    cells = [divmod(int(c), 15) for c in free[:6]]
    problem = MapfProblem.from_cells(walkable, cells, cells[::-1])
    python = distance_tables(problem, implementation="python")
    assert (python == distance_tables(problem, implementation="c")).all()


def test_unreachable_goal_is_named() -> None:
    walkable = np.array([[1, 0, 1]], bool)
    problem = MapfProblem.from_cells(walkable, [(0, 0)], [(0, 2)])
    with pytest.raises(ValueError, match="agent 0 cannot reach its goal"):
        lower_bounds(problem, distance_tables(problem))


def test_cost_is_the_last_arrival() -> None:
    problem = MapfProblem.from_cells(np.ones((1, 3), bool), [(0, 0)], [(0, 1)])
    assert plan_costs(problem, [[0, 1, 2, 1, 1]]) == (3, 3)


def test_load_problem_reads_the_first_k_agents(tiny: Path) -> None:
    scen = write_scen(tiny, scen_line(0, 0, 3, 2), scen_line(3, 0, 0, 2), scen_line(1, 0, 2, 0))
    problem = load_problem(tiny / "tiny.map", scen, 2)
    assert (problem.starts, problem.goals) == ((0, 3), (11, 8))
    assert problem.name == "tiny.map"


@pytest.mark.parametrize(
    ("lines", "agents", "message"),
    [
        ([scen_line(0, 0, 3, 2, "other.map")], 1, "is for map other.map"),
        ([scen_line(0, 0, 3, 2)], 2, "holds 1 agents, fewer than the 2"),
        ([scen_line(1, 1, 3, 2)], 1, "start 1,1 is on a blocked cell"),
        ([scen_line(0, 0, 1, 1)], 1, "goal 1,1 is on a blocked cell"),
        ([scen_line(0, 0, 9, 2)], 1, "goal"),
        ([scen_line(0, 0, 3, 2), scen_line(0, 0, 2, 2)], 2, "agents 0 and 1 have the same start"),
        ([scen_line(0, 0, 3, 2), scen_line(1, 0, 3, 2)], 2, "agents 0 and 1 have the same goal"),
    ],
    ids=["other-map", "too-many", "start-wall", "goal-wall", "off-map", "same-start", "same-goal"],
)
def test_load_problem_refuses_bad_input(tiny: Path, lines, agents, message) -> None:
    scen = write_scen(tiny, *lines)
    with pytest.raises(ValueError, match=message):
        load_problem(tiny / "tiny.map", scen, agents)


# The checker: one hand-made plan per kind of violation, each breaking that one rule only.
def row(width: int, starts, goals) -> MapfProblem:
    cells = [[(0, c) for c in cs] for cs in (starts, goals)]
    return MapfProblem.from_cells(np.ones((1, width), bool), cells[0], cells[1])


@pytest.mark.parametrize(
    ("problem", "columns", "kind", "time", "agents"),
    [
        (row(3, [0], [2]), [[1, 2]], ViolationKind.WRONG_START, 0, (0,)),
        (row(3, [0], [2]), [[0, 1]], ViolationKind.WRONG_GOAL, 1, (0,)),
        (row(3, [0], [2]), [[0, -1, 0, 1, 2]], ViolationKind.OFF_MAP, 1, (0,)),
        (row(3, [0], [2]), [[0, 2]], ViolationKind.NOT_ADJACENT, 1, (0,)),
        (row(3, [0, 2], [2, 0]), [[0, 1, 2], [2, 1, 0]], ViolationKind.VERTEX_CONFLICT, 1, (0, 1)),
        (row(2, [0, 1], [1, 0]), [[0, 1], [1, 0]], ViolationKind.SWAP_CONFLICT, 1, (0, 1)),
        (row(3, [0, 2], [1, 2]), [[], [2]], ViolationKind.EMPTY_PATH, 0, (0,)),
    ],
    ids=["wrong-start", "wrong-goal", "off-map", "not-adjacent", "vertex", "swap", "empty"],
)
def test_checker_names_each_violation(problem, columns, kind, time, agents) -> None:
    paths = [[(0, c) for c in path] for path in columns]
    found = check_plan(problem, paths)
    assert [(v.kind, v.time, v.agents) for v in found] == [(kind, time, agents)]


def test_checker_finds_a_move_into_a_wall() -> None:
    walkable = np.array([[1, 0, 1], [1, 1, 1]], bool)
    problem = MapfProblem.from_cells(walkable, [(0, 0)], [(0, 2)])
    found = check_plan(problem, [[(0, 0), (0, 1), (0, 2)]])
    assert [(v.kind, v.time) for v in found] == [(ViolationKind.INTO_WALL, 1)]


def test_checker_lists_every_violation_not_only_the_first() -> None:
    problem = row(4, [0, 3], [1, 2])
    paths = [[(0, 1), (0, 2), (0, 2)], [(0, 3), (0, 2), (0, 3)]]
    kinds = [v.kind for v in check_plan(problem, paths)]
    assert sorted(kinds) == sorted(
        [
            ViolationKind.WRONG_START,
            ViolationKind.WRONG_GOAL,
            ViolationKind.WRONG_GOAL,
            ViolationKind.VERTEX_CONFLICT,
        ]
    )


def test_checker_accepts_a_valid_plan() -> None:
    problem = corridor()
    paths = [[0, 1, 1, 2, 3, 4, 4], [4, 3, 2, 7, 2, 1, 0]]
    assert check_plan(problem, flat_to_pairs(problem, paths)) == []


def test_plan_file_round_trip() -> None:
    paths = [[(0, 0), (0, 1)], [(1, 2), (1, 3)]]
    text = format_plan({"agents": 2, "solved": 1}, paths)
    assert text.splitlines()[-2:] == ["0:(0,0),(2,1),", "1:(1,0),(3,1),"]
    assert parse_plan(text) == paths


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("agents=1\n0:(0,0),\n", "no 'solution=' line"),
        ("solution=\n0:(0,0),\n2:(0,0),\n", ":3: time step 2 out of order"),
        ("solution=\n0:(0,0)\n", ":2: expected"),
        ("solution=\n0:(0,0),\n1:(0,0),(1,1),\n", ":3: 2 agents, but step 0 has 1"),
    ],
    ids=["no-solution", "order", "form", "width"],
)
def test_plan_file_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_plan(text, source="p.txt")


@pytest.mark.parametrize(
    "name",
    [
        "empty-32-32",
        "random-32-32-20",
        "room-32-32-4",
        "maze-32-32-2",
        "warehouse-10-20-10-2-1",
        "den312d",
        "lak303d",
        "Berlin_1_256",
    ],
)
def test_benchmark_instances_load_and_solve_validly(name: str) -> None:
    folder = mapf_dir()
    map_path = folder / "maps" / f"{name}.map"
    if not map_path.is_file():
        pytest.skip(f"no MAPF benchmark in {folder} (set MAPF_DIR)")
    problem = load_problem(map_path, folder / "scen-random" / f"{name}-random-1.scen", 20)
    bounds = lower_bounds(problem, distance_tables(problem))
    result = solve(problem, "lacam", time_limit_s=1.0, seed=0)  # anytime: runs it all
    assert result.solved
    assert check_plan(problem, flat_to_pairs(problem, result.paths)) == []
    assert result.soc >= bounds.sum_of_costs
    assert result.makespan >= bounds.makespan


def test_mapf_imports_only_numpy_navigation_and_itself() -> None:
    from tests.unit.test_layering import modules_after_import, violations

    allowed = ("sim.mapf", "sim.navigation", "sim.errors", "sim.config")
    assert violations("sim.mapf", allowed) == []
    modules = modules_after_import("import sim.mapf")
    assert [name for name in modules if name.startswith(("panda3d", "direct"))] == []
