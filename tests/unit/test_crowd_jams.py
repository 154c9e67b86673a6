"""The no-deadlock rule: jams found, handed to the multi-agent planner, and handed back.

The three deadlock torture scenes run headless on a bare World (`tests.helpers.torture`) over
a few seeds each: every agent arrives within the scene's stated limit, no wall is crossed, and
(corridor and alcove) within three times the free-flow time, with discs overlapping at most
0.1 of their radii's sum and nobody standing more than 2 s away from its goal outside a plan.
"""

from __future__ import annotations

import json
from itertools import pairwise

import numpy as np
import pytest

from sim.app.trace import FRAME_KEYS, open_trace
from sim.config import SCENES_DIR
from sim.crowd.jams.detect import JamSettings, ProgressWatch, jam_groups
from sim.crowd.jams.local import gather_waits, start_cells, turn_lag
from sim.crowd.jams.prioritized import agent_orders, prioritized_paths
from sim.crowd.joint import JointFollower, rotations
from sim.mapf import MapfProblem, distance_tables
from sim.mapf.checker import check_plan, flat_to_pairs
from sim.scene.file import load_scene
from sim.scene.spec import SceneError
from sim.scene.torture import free_flow_seconds, vary
from tests.helpers.torture import DT, SceneRun, run_until_arrived

TORTURE = SCENES_DIR / "torture"
OVERLAP_MAX = 0.1
STALL_MAX_S = 2.0
FREE_FLOW_FACTOR = 3.0
SEEDS = (0, 1, 2)


def torture(name: str, seed: int = 0) -> SceneRun:
    return SceneRun(vary(load_scene(TORTURE / f"{name}.toml"), seed))


@pytest.mark.parametrize(
    ("name", "seed"),
    [*[("alcove", seed) for seed in SEEDS], *[("corridor", seed) for seed in SEEDS]],
)
def test_the_head_on_scenes_clear_within_three_free_flow_times(name: str, seed: int) -> None:
    run = torture(name, seed)
    scene = run.scene
    assert scene.torture is not None
    free_flow = free_flow_seconds(scene, stated=scene.torture.free_flow_s)
    limit = min(scene.torture.time_limit_s, FREE_FLOW_FACTOR * free_flow)
    outcome = run_until_arrived(run, scene.torture.time_limit_s)
    assert outcome.arrived_s is not None, f"{sum(run.arrived())} of {len(run.agents)} arrived"
    assert outcome.arrived_s <= limit
    assert outcome.overlap_max <= OVERLAP_MAX
    assert outcome.blocked_frames == 0
    assert outcome.wall_frames == 0
    assert outcome.stalled_max_s <= STALL_MAX_S
    assert outcome.handoffs >= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_the_doorway_swap_of_twelve_a_side_clears_within_three_free_flow_times(seed: int) -> None:
    run = torture("doorway", seed)
    scene = run.scene
    assert scene.torture is not None
    free_flow = free_flow_seconds(scene, stated=scene.torture.free_flow_s)
    outcome = run_until_arrived(run, scene.torture.time_limit_s)
    assert outcome.arrived_s is not None, f"{sum(run.arrived())} of {len(run.agents)} arrived"
    assert outcome.arrived_s <= FREE_FLOW_FACTOR * free_flow
    assert outcome.blocked_frames == 0
    assert outcome.overlap_max <= OVERLAP_MAX
    assert outcome.wall_frames == 0
    assert outcome.stalled_max_s <= STALL_MAX_S
    assert outcome.handoffs >= 1


def _traced(run: SceneRun, path, seconds: float) -> list[dict]:
    writer = open_trace(
        path, every=1, failed=print, scene=path.stem, dt=DT, grid=run.grid, agents=run.agents
    )
    assert writer is not None
    frame = 0
    while frame < seconds * 60 and not all(run.arrived()):
        run.step()
        frame += 1
        writer.record(frame, run.time_s, run.agents)
    writer.close()
    return [json.loads(line) for line in path.read_text().splitlines()][1:]


def test_the_doorway_is_handed_off_as_the_groups_converge_not_once_they_stall(tmp_path) -> None:
    # From the trace: the first hand-off takes both groups before anyone could have stood
    # for the stall rule's window, and its plan brings everyone through within 3x free flow.
    run = torture("doorway", 5)
    lines = _traced(run, tmp_path / "doorway.jsonl", 20.0)
    events = [event for line in lines for event in line["jams"]]
    first = events[0]
    assert first["event"] == "handoff"
    assert len(first["agents"]) == 24
    assert first["frame"] * DT < JamSettings().window_s
    assert run.scene.torture is not None
    free_flow = free_flow_seconds(run.scene, stated=run.scene.torture.free_flow_s)
    assert lines[-1]["t"] <= FREE_FLOW_FACTOR * free_flow
    assert all(run.arrived())


def test_corridor_seed_14_is_handed_off_before_anyone_stands_at_the_mouth(tmp_path) -> None:
    # Its trace once showed an agent refused its avoidance velocity at the corridor's mouth (the
    # wall slide never backs an agent away) standing 2.22 s before the stall rule took the jam.
    # The groups are now handed off as they converge on the corridor: nobody stands long first.
    lines = _traced(torture("corridor", 14), tmp_path / "corridor.jsonl", 20.0)
    first = next(line["frame"] for line in lines if line["jams"])
    assert lines[first - 1]["jams"][0]["event"] == "handoff"
    moved = [
        np.hypot(*(np.array(after["pos"])[:, :2] - np.array(before["pos"])[:, :2]).T) / DT
        for before, after in pairwise(lines[:first])
    ]
    standing = np.zeros(len(moved[0]))
    longest = 0.0
    for speeds in moved[10:]:  # after the first frames' start from rest
        standing = np.where(speeds < 0.05 * 3.0, standing + DT, 0.0)
        longest = max(longest, float(standing.max()))
    assert longest < 0.5


def test_a_corridor_run_is_the_same_twice() -> None:
    first = run_until_arrived(torture("corridor", 1), 20.0, keep_frames=True)
    second = run_until_arrived(torture("corridor", 1), 20.0, keep_frames=True)
    assert first.arrived_s == second.arrived_s
    assert len(first.frames) == len(second.frames)
    assert all(np.array_equal(a, b) for a, b in zip(first.frames, second.frames, strict=True))


def step_until(run: SceneRun, done, limit_s: float) -> None:
    while not done():
        assert run.time_s < limit_s, "the state never came"
        run.step()


def test_a_jam_is_handed_off_and_its_agents_handed_back_to_themselves() -> None:
    run = torture("alcove")
    crowd = run.crowd
    step_until(run, lambda: crowd.jam_report().under_plan > 0, 10.0)
    report = crowd.jam_report()
    assert (report.jams, report.handoffs, report.under_plan) == (1, 1, 2)
    # Both agents plan alone (one each way): under the plan their owners stop steering.
    assert [crowd.is_driven(index) for index in crowd.indices] == [True, True]
    assert all(agent.driven for agent in run.agents)
    step_until(run, lambda: crowd.jam_report().under_plan == 0, 20.0)
    report = crowd.jam_report()
    assert (report.handoffs, report.handbacks) == (1, 1)
    assert [crowd.is_driven(index) for index in crowd.indices] == [False, False]
    assert not any(agent.driven for agent in run.agents)
    assert not np.asarray(crowd.jam_members).any()
    step_until(run, lambda: all(run.arrived()), 20.0)


def test_the_trace_lists_each_hand_off_and_hand_back_with_its_frame_and_agents(tmp_path) -> None:
    run = torture("alcove")
    failures: list[str] = []
    path = tmp_path / "alcove.jsonl"
    writer = open_trace(
        path,
        every=7,  # events of the frames between traced lines come with the next line
        failed=lambda *args, **kwargs: failures.append(str(args)),
        scene="alcove",
        dt=DT,
        grid=run.grid,
        agents=run.agents,
    )
    assert writer is not None
    frame = 0
    while frame < 6 * 60 and not (run.crowd.jam_report().handbacks and frame % 7 == 0):
        run.step()
        frame += 1
        writer.record(frame, run.time_s, run.agents)
    writer.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert not failures
    assert all(tuple(line) == FRAME_KEYS for line in lines[1:])
    events = [(line["frame"], event) for line in lines[1:] for event in line["jams"]]
    assert [event["event"] for _, event in events] == ["handoff", "handback"]
    assert [event["agents"] for _, event in events] == [[0, 1], [0, 1]]
    handoff, handback = (event["frame"] for _, event in events)
    assert handoff < handback
    assert all(traced - 7 < event["frame"] <= traced for traced, event in events)


def test_driven_agents_go_back_to_their_fields_after_the_doorway_plan() -> None:
    run = torture("doorway")
    crowd = run.crowd
    step_until(run, lambda: crowd.jam_report().under_plan > 0, 10.0)
    assert np.asarray(crowd.driven).all()  # twelve a target: the crowd drives them
    step_until(run, lambda: crowd.jam_report().under_plan == 0, 40.0)
    assert crowd.jam_report().handbacks == crowd.jam_report().handoffs
    assert np.asarray(crowd.driven).all()


def test_an_open_crowd_hands_nothing_off_in_its_first_seconds() -> None:
    # 200 agents crossing scenes/crowd.toml (walls with gaps, rocks): queues are no jams.
    run = SceneRun(load_scene(SCENES_DIR / "crowd.toml"))
    while run.time_s < 6.0:
        run.step()
    assert run.crowd.jam_report().jams == 0


# ---- The rule's parts ------------------------------------------------------------------------


def test_an_agent_stalls_after_the_window_without_progress() -> None:
    watch, settings = ProgressWatch(), JamSettings(window_s=1.0, progress_cells=0.5)
    index, watched = np.array([0]), np.array([True])
    flags = []
    for step in range(8):  # 0.25 s apart; it gains 0.3 cells once, too little
        distance = np.array([10.0 - (0.3 if step >= 2 else 0.0)])
        flags.append(bool(watch.observe(index, distance, watched, step * 0.25, settings)[0]))
    assert flags == [False, False, False, False, True, True, True, True]


def test_progress_starts_the_window_again() -> None:
    watch, settings = ProgressWatch(), JamSettings(window_s=1.0, progress_cells=0.5)
    index, watched = np.array([0]), np.array([True])
    for step in range(4):
        watch.observe(index, np.array([10.0]), watched, step * 0.25, settings)
    assert not watch.observe(index, np.array([9.0]), watched, 1.0, settings)[0]
    assert not watch.observe(index, np.array([9.0]), watched, 1.75, settings)[0]
    assert watch.observe(index, np.array([9.0]), watched, 2.0, settings)[0]


def test_a_queue_whose_front_moves_is_no_jam() -> None:
    points = np.array([[0.0, 0.0], [0.8, 0.0], [1.6, 0.0]])
    stalled = np.array([True, True, False])
    progressing = np.array([False, False, True])
    goals = np.array([5, 9, 9])
    groups = jam_groups(
        points,
        np.full(3, 0.4),
        stalled,
        np.ones(3, bool),
        progressing,
        goals,
        contact=0.25,
        opposed=2.0,
    )
    assert groups == []


def test_agents_all_bound_for_one_goal_are_no_jam() -> None:
    points = np.array([[0.0, 0.0], [0.8, 0.0]])
    stalled, nobody = np.ones(2, bool), np.zeros(2, bool)
    args = (points, np.full(2, 0.4), stalled, np.ones(2, bool), nobody)
    one_goal = jam_groups(*args, np.array([3, 3]), contact=0.1, opposed=2.0)
    two_goals = jam_groups(*args, np.array([3, 4]), contact=0.1, opposed=2.0)
    assert (one_goal, [g.tolist() for g in two_goals]) == ([], [[0, 1]])


def test_start_cells_spread_agents_sharing_a_cell_the_way_they_stand() -> None:
    walkable = np.ones((1, 3), bool)
    centres = np.array([[0.5, 0.5], [1.5, 0.5], [2.5, 0.5]])
    positions = np.array([[1.3, 0.5], [1.7, 0.5]])
    # The left one stands nearer the centre: it keeps the cell, the right one steps right.
    assert start_cells(walkable, np.array([1, 1]), positions, centres) == [1, 2]


def test_a_packed_corridor_shifts_agents_a_cell_rather_than_sending_one_through_the_others() -> (
    None
):
    # Six agents on cells 1-5 of a one-cell corridor, two sharing cell 3: the free cells are
    # 0 and 6, three cells away. Nobody may start more than a cell and a half from where it
    # stands (its gathering step would pass through its neighbours), and the order is kept.
    walkable = np.ones((1, 7), bool)
    centres = np.array([[c + 0.5, 0.5] for c in range(7)])
    positions = np.array([[x, 0.5] for x in (1.54, 2.36, 3.16, 3.94, 4.72, 5.5)])
    cells = np.floor(positions[:, 0]).astype(np.intp)
    chosen = start_cells(walkable, cells, positions, centres)
    assert len(set(chosen)) == 6
    assert chosen == sorted(chosen)
    assert np.abs(centres[chosen, 0] - positions[:, 0]).max() <= 1.5


def test_an_agent_whose_way_passes_anothers_spot_waits_for_it() -> None:
    first = np.array([[0.0, 0.0], [1.0, 0.0]])
    ends = np.array([[1.0, 0.0], [1.0, 1.0]])
    assert gather_waits(first, ends, np.full(2, 0.4)).tolist() == [1.0, 0.0]


@pytest.mark.parametrize("radius", [0.3, 0.4, 0.5])
def test_agents_following_round_a_turn_keep_apart(radius: float) -> None:
    # Agent 0 enters cell 1 from the left as agent 1 leaves it upward (a 3 x 2 grid).
    centres = np.array([[c + 0.5, r + 0.5] for r in range(2) for c in range(3)])
    paths = [[0, 1], [1, 4]]
    step_s = 1.0 / 3.0
    follower = JointFollower(
        paths, [1, 4], centres, centres[[0, 1]], step_s, turn_lag=turn_lag(radius), width=3
    )
    closest = np.inf
    while not follower.finished:
        follower.advance(DT)
        at = follower.positions()
        closest = min(closest, float(np.hypot(*(at[0] - at[1]))))
    assert closest >= 2.0 * radius * (1.0 - OVERLAP_MAX)


def test_agents_rotating_round_a_block_stay_a_cell_apart() -> None:
    centres = np.array([[c + 0.5, r + 0.5] for r in range(2) for c in range(2)])
    # A first step of waiting on their cells, as a jam's plan has (its gathering step).
    paths = [[0, 0, 1], [1, 1, 3], [3, 3, 2], [2, 2, 0]]
    first = centres[[0, 1, 3, 2]]
    follower = JointFollower(paths, [1, 3, 2, 0], centres, first, 0.3, turn_lag=0.1, width=2)
    closest = np.inf
    while not follower.finished:
        follower.advance(DT)
        at = follower.positions()
        gaps = np.hypot(*(at[:, None] - at[None]).transpose(2, 0, 1))
        closest = min(closest, float(gaps[~np.eye(4, dtype=bool)].min()))
    assert closest == pytest.approx(1.0, abs=1e-6)


# ---- The [torture] table ---------------------------------------------------------------------


def test_each_torture_scene_states_its_limit_and_has_a_free_flow_time() -> None:
    for name in ("corridor", "alcove", "doorway"):
        scene = load_scene(TORTURE / f"{name}.toml")
        assert scene.torture is not None
        assert scene.torture.time_limit_s > 0
        assert 0.0 < free_flow_seconds(scene) < scene.torture.time_limit_s


def test_a_stated_free_flow_time_wins() -> None:
    scene = load_scene(TORTURE / "alcove.toml")
    assert free_flow_seconds(scene, stated=5.0) == 5.0


def test_seed_zero_is_the_scene_as_written_and_others_differ() -> None:
    scene = load_scene(TORTURE / "corridor.toml")
    assert vary(scene, 0) is scene
    one, two = vary(scene, 1), vary(scene, 2)
    assert [o.pos for o in one.objects] != [o.pos for o in scene.objects]
    assert [o.pos for o in one.objects] != [o.pos for o in two.objects]
    assert vary(scene, 1) == one


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ("[torture]\nfree_flow_s = 3.0\n", "torture.time_limit_s: missing required key"),
        ("[torture]\ntime_limit_s = 0.0\n", "torture.time_limit_s"),
        ('[torture]\ntime_limit_s = 5.0\nseeds_vary = "x"\n', "torture.seeds_vary"),
        ("[torture]\ntime_limit_s = 5.0\nlimit = 1\n", "torture.limit: unknown key"),
    ],
    ids=["no-limit", "zero-limit", "bad-vary", "unknown-key"],
)
def test_a_bad_torture_table_is_one_line(tmp_path, table: str, problem: str) -> None:
    text = (TORTURE / "alcove.toml").read_text(encoding="utf-8")
    head, _, rest = text.partition("\n[torture]\n")
    rest = rest.split("\n\n", 1)[1]
    path = tmp_path / "bad.toml"
    path.write_text(head + "\n" + table + "\n" + rest, encoding="utf-8")
    with pytest.raises(SceneError, match=problem):
        load_scene(path)


def test_prioritized_plans_stream_a_head_on_in_a_corridor_one_side_first() -> None:
    # Two rooms of 3 x 2 cells joined by a corridor 4 cells long; two agents each way meet
    # nose to nose in it. One pair goes first, the other backs into its room and steps
    # aside: a legal plan, no ring of moves, in 12 steps where the farthest alone needs 6.
    walkable = np.array(
        [
            [1, 1, 0, 0, 0, 0, 1, 1],
            [1, 1, 1, 1, 1, 1, 1, 1],
            [1, 1, 0, 0, 0, 0, 1, 1],
        ],
        dtype=bool,
    )
    problem = MapfProblem.from_cells(
        walkable, [(1, 2), (1, 3), (1, 4), (1, 5)], [(1, 7), (0, 7), (1, 0), (0, 0)]
    )
    tables = distance_tables(problem)
    orders = agent_orders(problem, tables, [1, 1, 0, 0])
    plans = [prioritized_paths(problem, tables, order) for order in orders]
    found = [paths for paths in plans if paths]
    assert found, "no order found a plan"
    best = min(found, key=lambda paths: len(paths[0]))
    assert check_plan(problem, flat_to_pairs(problem, best)) == []
    assert not any(rotations(np.array(best).T))
    assert len(best[0]) - 1 == 12
