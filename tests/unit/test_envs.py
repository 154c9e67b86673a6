"""The learning environments: the API checkers, seeding, the baselines, the rules, bad input."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import parallel_api_test

import sim.envs
from sim.config import SCENES_DIR
from sim.envs import EnvError, NavigateEnv, mapf_policy, oracle_policy, parallel_env
from sim.envs.collisions import resolve
from sim.navigation import find_path
from tests.helpers.paths import REPO_ROOT

MAP = REPO_ROOT / "tests" / "data" / "maps" / "two_rooms.map"
SCEN = MAP.with_name("two_rooms.map.scen")


def make(**options: Any) -> NavigateEnv:
    env = gymnasium.make(sim.envs.NAVIGATE_ID, **options)
    assert isinstance(env.unwrapped, NavigateEnv)
    return env.unwrapped


@pytest.mark.parametrize(
    "options",
    [{}, {"map": MAP}, {"map": MAP, "full_grid": True, "diagonal": "never"}],
    ids=["default-scene", "map", "map-4-full"],
)
def test_navigate_passes_gymnasiums_checker(options: dict[str, Any]) -> None:
    env = gymnasium.make(sim.envs.NAVIGATE_ID, disable_env_checker=True, **options)
    check_env(env.unwrapped, skip_render_check=True)


def test_the_parallel_env_passes_pettingzoos_checker() -> None:
    parallel_api_test(parallel_env(map=MAP, agents=6, obs_radius=3), num_cycles=60)


def run_oracle(env: NavigateEnv, seed: int) -> tuple[float, bool]:
    observation, _ = env.reset(seed=seed)
    act = oracle_policy(env)
    while True:
        observation, _, terminated, truncated, info = env.step(act(observation))
        if terminated or truncated:
            return info["cost"], terminated


@pytest.mark.parametrize(
    "options",
    [
        {"map": MAP, "random_pairs": True},
        {"map": MAP, "random_pairs": True, "diagonal": "never"},
        {"scene": SCENES_DIR / "terrain.toml", "random_pairs": True},
        {"scene": SCENES_DIR / "maze.toml", "random_pairs": True},
    ],
    ids=["map-8", "map-4", "terrain", "maze"],
)
def test_the_oracle_reaches_the_goal_at_the_optimal_cost(options: dict[str, Any]) -> None:
    env = make(**options)
    source = env.source
    costs = None if bool((source.costs == 1).all()) else source.costs
    for seed in range(5):
        cost, arrived = run_oracle(env, seed)
        best = find_path(
            source.walkable,
            env._fixed[0] if env._fixed else _start_of(env, seed),
            env.goal,
            diagonal=source.rule.value,
            costs=costs,
        )
        assert arrived
        assert cost == pytest.approx(best.cost, rel=1e-9)


def _start_of(env: NavigateEnv, seed: int) -> tuple[int, int]:
    env.reset(seed=seed)
    return env.position


def test_the_same_seed_gives_the_same_episode() -> None:
    def episode(seed: int) -> list[tuple[int, int]]:
        env = make(map=MAP, random_pairs=True)
        env.reset(seed=seed)
        env.action_space.seed(seed)
        cells = [env.position, env.goal]
        for _ in range(30):
            env.step(env.action_space.sample())
            cells.append(env.position)
        return cells

    assert episode(7) == episode(7)
    assert episode(7) != episode(8)
    first = parallel_env(map=MAP, agents=5)
    second = parallel_env(map=MAP, agents=5)
    first.reset(seed=4)
    second.reset(seed=4)
    assert first.positions.tolist() == second.positions.tolist()
    assert first.goals.tolist() == second.goals.tolist()


def test_the_scene_and_the_scenario_fix_the_pair() -> None:
    env = make(map=MAP, scen=SCEN, index=2)
    env.reset(seed=0)
    assert (env.position, env.goal) == ((5, 5), (4, 14))
    default = make()
    default.reset(seed=0)
    assert default.source.fixed_pair == (default.position, default.goal)


def test_a_move_into_a_wall_or_across_a_cut_corner_stays_and_costs_a_wait() -> None:
    env = make(map=MAP, start=(1, 9), goal=(9, 0))
    env.reset(seed=0)
    _, reward, *_, info = env.step(2)  # east into the wall at (1, 10)
    assert info["cell"] == (1, 9)
    assert reward == pytest.approx(-env.rewards.step_cost)
    assert info["action_mask"][2] == 0
    corner = make(map=MAP, start=(1, 4), goal=(9, 0))  # (2, 4) below is a wall
    corner.reset(seed=0)
    assert corner.step(6)[4]["cell"] == (1, 4)  # down-right cuts the wall's corner


def test_rewards_follow_the_documented_formula() -> None:
    env = make(map=MAP, start=(0, 0), goal=(0, 5), goal_reward=2.0, progress_weight=0.5)
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(2)  # one step east, one cell closer
    assert not terminated
    assert reward == pytest.approx(0.5 * 1.0 - 0.01 * 1.0)
    for _ in range(3):
        env.step(2)
    _, reward, terminated, _, info = env.step(2)
    assert terminated
    assert info["cell"] == (0, 5)
    assert reward == pytest.approx(2.0 + 0.5 - 0.01)


def test_truncation_at_the_step_limit() -> None:
    env = make(map=MAP, start=(0, 0), goal=(9, 19), max_steps=3)
    env.reset(seed=0)
    results = [env.step(0) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    assert not any(r[2] for r in results)


# Collision rules: a vertex conflict stops the later mover; a swap stops both; following is fine.
@pytest.mark.parametrize(
    ("current", "proposed", "final"),
    [
        ([0, 2], [1, 1], [1, 2]),  # both into 1: agent 0 goes, agent 1 stops
        ([2, 0], [1, 1], [1, 0]),  # the earlier index wins whatever the side
        ([0, 1], [1, 0], [0, 1]),  # a swap: nobody moves
        ([0, 1], [1, 2], [1, 2]),  # following a mover that leaves
        ([0, 1], [1, 1], [0, 1]),  # into a stayer's cell: stop
        ([0, 1, 2], [1, 2, 2], [0, 1, 2]),  # the head waits, so the chain stops behind it
        ([0, 1, 3], [1, 0, 1], [0, 1, 3]),  # a swap's cell wanted by a third: all stop
        ([0, 1, 2], [1, 2, 0], [1, 2, 0]),  # a rotation of three is allowed
    ],
)
def test_collisions_follow_the_mapf_rules(
    current: list[int], proposed: list[int], final: list[int]
) -> None:
    result = resolve(np.array(current), np.array(proposed))
    assert result.tolist() == final


def test_collisions_never_put_two_agents_on_one_cell() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        current = rng.choice(30, size=12, replace=False)
        proposed = np.where(rng.random(12) < 0.8, rng.integers(0, 30, 12), current)
        final = resolve(current, proposed)
        assert len(set(final.tolist())) == 12
        moved = final != current
        assert np.all(final[moved] == proposed[moved])
        swapped = {(a, b) for a, b in zip(current[moved], final[moved], strict=True)}
        assert not any((b, a) in swapped for a, b in swapped)


def test_the_parallel_env_stops_colliding_agents_and_reports_metrics() -> None:
    env = parallel_env(map=MAP, scen=SCEN, agents=2, obs_radius=2, max_steps=5)
    observations, _ = env.reset(seed=0)
    assert observations["agent_0"].shape == (3, 5, 5)
    assert observations["agent_0"][2].sum() == 1.0  # one target mark, on the window's edge
    # Put the two side by side and send each into the other's cell: a swap, so neither moves.
    env.positions[:] = [0 * 20 + 3, 0 * 20 + 4]
    *_, infos = env.step({"agent_0": 2, "agent_1": 4})
    assert env.positions.tolist() == [3, 4]
    # Both into one free cell: the earlier agent goes, the later stops.
    *_, infos = env.step({"agent_0": 3, "agent_1": 7})  # (1, 3) from above, from up-right
    assert env.positions.tolist() == [23, 4]
    while env.agents:
        *_, infos = env.step({})
    metrics = next(iter(infos.values()))["metrics"]
    assert metrics == {"ISR": 0.0, "CSR": 0.0, "SoC": 10.0, "makespan": 5.0}


def test_a_mapf_plan_replayed_reaches_every_target_without_a_refusal() -> None:
    env = parallel_env(map=MAP, agents=12, obs_radius=2)
    env.reset(seed=1)
    act = mapf_policy(env, "lacam", time_limit_s=5.0)
    infos: dict[str, dict[str, Any]] = {}
    while env.agents:
        chosen = act(None)
        wanted = env.positions.copy()
        *_, infos = env.step(chosen)
        assert env.elapsed < 200
        assert all(  # no move of the plan was refused: every agent moved as it asked
            chosen[name] == 0 or wanted[int(name[6:])] != env.positions[int(name[6:])]
            for name in chosen
        )
    metrics: dict[str, float] = next(iter(infos.values()))["metrics"]
    assert metrics["CSR"] == 1.0
    assert metrics["makespan"] <= env.max_steps


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"map": REPO_ROOT / "nowhere.map"}, "nowhere.map"),
        ({"map": MAP, "scene": SCENES_DIR / "default.toml"}, "not both"),
        ({"obs_radius": 0}, "obs_radius"),
        ({"diagonal": "sideways"}, "diagonal"),
        ({"render_mode": "ascii"}, "render_mode"),
        ({"map": MAP, "start": (0, 10), "goal": (0, 0)}, "start"),
        ({"map": MAP, "scen": SCEN, "index": 9}, "index 9"),
    ],
)
def test_bad_navigate_arguments_raise_one_clear_error(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(EnvError, match=message):
        NavigateEnv(**options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"agents": 0}, "agents"),
        ({"agents": 10_000}, "do not fit"),
        ({"obs_radius": 0}, "obs_radius"),
        ({"map": REPO_ROOT / "nowhere.map"}, "nowhere.map"),
    ],
)
def test_bad_parallel_arguments_raise_one_clear_error(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(EnvError, match=message):
        parallel_env(map=options.pop("map", MAP), **options)
