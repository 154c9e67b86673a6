"""The crowd torture cases, headless: every agent arrives, apart, off the walls, never stalled.

Each case of scenes/torture/ that this suite owns runs over a few seeds (the bench runs 20):
every agent arrives within the scene's time limit and 3x its free-flow time, no two discs
overlap deeper than 10 % of their radii's sum, no disc enters a wall and no agent stands
below 5 % of its speed for more than 2 s before it has arrived. Then the rules behind them
(the head-on side, the detour), determinism, the [torture] table and the bench's JSON.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from sim.bench import crowd_suite
from sim.bench.crowd_suite import DT, CaseRun, _Case, run_case, seeded_starts
from sim.commands.cli import main
from sim.crowd.rows import AgentRows
from sim.crowd.rules.wall_slide import wall_slide
from sim.scene.file import load_scene, parse_scene
from sim.scene.spec import SceneError
from tests.helpers.paths import SCENES_DIR

pytestmark = pytest.mark.timeout(600)

TORTURE = SCENES_DIR / "torture"
OURS = ("head_on", "pillar", "parting", "pushed", "burst", "blocked")
SEEDS = (0, 1)


def describe(run: CaseRun) -> str:
    return (
        f"{run.name} seed {run.seed}: {run.arrived}/{run.agents} arrived, done {run.done_s}, "
        f"ratio {run.time_ratio:.2f}, overlap {run.overlap_max:.3f}, "
        f"stalled {run.stalled_max_s:.2f} s, wall frames {run.wall_frames}"
    )


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{seed}" for seed in SEEDS])
@pytest.mark.parametrize("name", OURS)
def test_the_case_runs_clean(name: str, seed: int) -> None:
    run = run_case(TORTURE / f"{name}.toml", seed)
    assert run.done_s is not None, describe(run)
    assert run.arrived == run.agents, describe(run)
    assert run.time_ratio <= crowd_suite.TIME_RATIO_TARGET, describe(run)
    assert run.overlap_max <= crowd_suite.OVERLAP_TARGET, describe(run)
    assert run.wall_frames == 0, describe(run)
    assert run.stalled_max_s <= crowd_suite.STALL_TARGET_S, describe(run)


@pytest.mark.parametrize("seed", range(5))
def test_two_agents_head_on_pass_left_shoulder_to_left_shoulder(seed: int) -> None:
    case = _Case(load_scene(TORTURE / "head_on.toml"), seed)
    case.world.step(DT)
    crowd = case.sim.crowd
    names = [agent.game_object.name for agent in case.sim.agents]
    east, west = names.index("going-east"), names.index("going-west")
    for _ in range(600):
        case.world.step(DT)
        positions = crowd.positions
        if positions[east, 0] >= positions[west, 0]:
            break
    else:
        pytest.fail("the two never passed each other")
    # Facing east, its right is south: each kept right, so the east-goer passes south.
    assert positions[east, 1] < positions[west, 1] - 0.8


def test_blocked_corridor_walkers_take_the_detour_round_the_wall() -> None:
    case = _Case(load_scene(TORTURE / "blocked.toml"), 0)
    walkers = [agent for agent in case.agents if agent.game_object.name.startswith("walker")]
    crowd = case.sim.crowd
    furthest_north = 0.0
    detoured = set()
    arrived = set()
    for _ in range(round(30.0 / DT)):
        case.world.step(DT)
        index_of = {
            id(owner): index for owner, index in zip(crowd.owners, crowd.indices, strict=True)
        }
        for agent in walkers:
            furthest_north = max(furthest_north, agent.position[1])
            if crowd.detour_cells(index_of[id(agent)]):
                detoured.add(agent.game_object.name)
            if agent.reached_goal:
                arrived.add(agent.game_object.name)
    # The wall's north end is at y = 12: round it, not through the standing agents.
    assert furthest_north > 12.0
    assert detoured, "no walker planned round the standing agents"
    # Arrived within the time, as the suite counts it (an arrived agent can be nudged off its
    # arrival radius by the cluster settling round it, and walks back).
    assert arrived == {agent.game_object.name for agent in walkers}


def test_a_burst_spawned_on_one_point_starts_spread() -> None:
    case = _Case(load_scene(TORTURE / "burst.toml"), 0)
    case.world.step(DT)
    positions, radii = case.sim.crowd.positions, case.sim.crowd.radii
    gap = positions[:, None, :] - positions[None, :, :]
    apart = np.hypot(gap[..., 0], gap[..., 1]) + np.eye(len(positions)) * 1e9
    assert (apart >= (radii[:, None] + radii[None, :]) * 0.9).all()


def test_the_same_seed_runs_the_same_and_seeds_differ() -> None:
    path = TORTURE / "pushed.toml"
    first, again, other = run_case(path, 3), run_case(path, 3), run_case(path, 4)
    assert first == again
    assert first != other


def test_seed_zero_is_the_scene_as_written_and_others_move_within_the_cell() -> None:
    scene = load_scene(TORTURE / "pillar.toml")
    written = seeded_starts(scene, 0)
    assert [point for _, point in written] == [(s.pos[0], s.pos[1]) for s, _ in written]
    moved = dict((spec.name, point) for spec, point in seeded_starts(scene, 7))
    assert [spec.name for spec, _ in seeded_starts(scene, 7)] != [s.name for s, _ in written]
    shifts = [np.hypot(*np.subtract(moved[spec.name], point)) for spec, point in written]
    assert 0.0 < max(shifts) <= crowd_suite.JITTER_CELLS * np.sqrt(2) + 1e-12


MINIMAL = {"version": 1, "grid": {"origin": [0, 0], "rows": 4, "columns": 4, "cell_size": 1}}


def test_the_torture_table_is_read() -> None:
    data = {**MINIMAL, "torture": {"time_limit_s": 12, "free_flow_s": 3, "gate": [1, 0, 1, 4]}}
    torture = parse_scene(data, source="x.toml").torture
    assert torture is not None
    assert (torture.time_limit_s, torture.free_flow_s) == (12.0, 3.0)
    assert torture.gate == (1.0, 0.0, 1.0, 4.0)
    assert parse_scene(MINIMAL, source="x.toml").torture is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({}, "x.toml: torture.time_limit_s: missing required key"),
        ({"time_limit_s": -1}, "x.toml: torture.time_limit_s: must be > 0, got -1"),
        ({"time_limit_s": 5, "gate": [1, 1, 1, 1]}, "torture.gate: the gate's two ends must"),
        ({"time_limit_s": 5, "seeds": 3}, "x.toml: torture.seeds: unknown key"),
    ],
    ids=["no-limit", "negative", "point-gate", "unknown"],
)
def test_a_bad_torture_table_is_one_line(table: dict[str, object], message: str) -> None:
    with pytest.raises(SceneError, match=message.replace(".", r"\.")):
        parse_scene({**MINIMAL, "torture": table}, source="x.toml")


def test_a_gate_counts_the_flow_through_it(tmp_path: Path) -> None:
    text = (TORTURE / "pillar.toml").read_text(encoding="utf-8")
    gated = text.replace(
        "time_limit_s = 40.0", "time_limit_s = 40.0\ngate = [12.0, 0.0, 12.0, 16.0]"
    )
    (tmp_path / "gated.toml").write_text(gated, encoding="utf-8")
    run = run_case(tmp_path / "gated.toml", 0)
    assert run.flow_per_s is not None
    assert 0.0 < run.flow_per_s < 60.0
    assert run_case(TORTURE / "pillar.toml", 0).flow_per_s is None


def test_bench_crowd_suite_writes_the_json_of_every_case(tmp_path, monkeypatch, capsys) -> None:
    suite = tmp_path / "torture"
    suite.mkdir()
    shutil.copy(TORTURE / "head_on.toml", suite / "head_on.toml")
    monkeypatch.setattr(crowd_suite, "SUITE_DIR", suite)
    out = tmp_path / "suite.json"
    assert main(["bench", "--crowd-suite", "--seeds", "1", "--json", str(out)]) == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    (case,) = document["cases"]
    keys = {"name", "seeds", "arrived_pct", "time_ratio", "overlap_max", "stalled_max_s"}
    assert keys | {"flow_per_s"} <= set(case)
    assert (case["name"], case["seeds"], case["arrived_pct"]) == ("head_on", 1, 100.0)
    assert case["flow_per_s"] is None
    assert "| head_on |" in capsys.readouterr().out


def wall_north(centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    return centres[:, 1] + radii > 1.0


def test_a_disc_pressed_to_a_wall_slides_along_it_forward_only_and_never_into_another() -> None:
    rows = AgentRows()
    rows.add(positions=(0.5, 0.6), radii=0.4)  # against the wall
    rows.add(positions=(1.3, 0.6), radii=0.4)  # touching it, east of it
    rows.flush()
    # ORCA's velocity runs into the wall: the slide keeps its forward (west) part.
    assert wall_slide(rows, 0, (-1.0, 0.0), (-0.5, 0.8), 1 / 60, wall_north) == (-0.5, 0.0)
    # Backward, against the way it wants (east meets west in a one-cell corridor): it stands.
    assert wall_slide(rows, 0, (-1.0, 0.0), (0.5, 0.8), 1 / 60, wall_north) == (0.5, 0.8)
    # Forward but into the disc it touches: it stands.
    assert wall_slide(rows, 0, (1.0, 0.0), (0.5, 0.8), 1 / 60, wall_north) == (0.5, 0.8)
