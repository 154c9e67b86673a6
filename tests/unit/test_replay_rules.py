"""The search view's recorders under every diagonal rule: bit-identical both ways, find_path's end.

The view records its search under the grid's rule (`ViewSettings.rule`, handed over by
name): the one-loop searches through ExpansionLog, bidirectional and theta through
SearchTape. For each rule a replay stepped to the end and back passes through the same states
bit for bit, and ends with find_path's cells and cost under that rule.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from sim.navigation import find_path
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.replay.log import ExpansionLog, SearchReplay
from sim.navigation.replay.tape import SearchTape, TapeReplay

Cell = tuple[int, int]
RULES = tuple(DiagonalRule)


def grid(seed: int, size: int = 12) -> tuple[NDArray[np.bool_], Cell, Cell]:
    rng = np.random.default_rng(seed)
    walkable = rng.random((size, size)) > 0.3
    start, goal = (0, 0), (size - 1, size - 1)
    walkable[start] = walkable[goal] = True
    return walkable, start, goal


def walk_both_ways(replay: SearchReplay | TapeReplay) -> None:
    """Step to the end recording each state, then back, checking each state on the way."""
    states = [replay.snapshot()]
    while replay.forward(1):
        states.append(replay.snapshot())
    assert replay.at_end
    for expected in reversed(states[:-1]):
        assert replay.back(1) == 1
        assert replay.snapshot() == expected
    replay.seek(len(states) - 1)
    assert replay.snapshot() == states[-1]


CASES = [
    pytest.param(rule, algorithm, seed, id=f"{rule.value}-{algorithm}-seed{seed}")
    for rule in RULES
    for algorithm in ("astar", "dijkstra", "bfs", "greedy", "dfs")
    for seed in range(2)
]


@pytest.mark.parametrize(("rule", "algorithm", "seed"), CASES)
def test_one_loop_replays_are_exact_under_every_rule(
    rule: DiagonalRule, algorithm: str, seed: int
) -> None:
    walkable, start, goal = grid(seed)
    log = ExpansionLog(walkable, start, goal, diagonal=rule.value, algorithm=algorithm)
    replay = SearchReplay(log)
    walk_both_ways(replay)
    expected = find_path(
        walkable, start, goal, diagonal=rule.value, algorithm=algorithm, implementation="python"
    )
    result = log.result()
    assert (result.found, result.cells, result.cost) == (
        expected.found,
        expected.cells,
        expected.cost,
    )


TAPE_CASES = [
    pytest.param(rule, "bidirectional", seed, id=f"{rule.value}-bidirectional-seed{seed}")
    for rule in RULES
    for seed in range(3)
] + [
    pytest.param(rule, "theta", seed, id=f"{rule.value}-theta-seed{seed}")
    for rule in (DiagonalRule.NEVER, DiagonalRule.NO_CORNER_CUTTING)
    for seed in range(3)
]


@pytest.mark.parametrize(("rule", "algorithm", "seed"), TAPE_CASES)
def test_tape_replays_are_exact_under_every_rule_they_take(
    rule: DiagonalRule, algorithm: str, seed: int
) -> None:
    walkable, start, goal = grid(seed + 10)
    tape = SearchTape(walkable, start, goal, algorithm=algorithm, diagonal=rule.value)
    walk_both_ways(TapeReplay(tape))
    expected = find_path(
        walkable, start, goal, diagonal=rule.value, algorithm=algorithm, implementation="python"
    )
    result = tape.result()
    assert (result.found, result.cells) == (expected.found, expected.cells)
    assert result.cost == pytest.approx(expected.cost)


@pytest.mark.parametrize("rule", [DiagonalRule.ONE_OBSTACLE, DiagonalRule.ALWAYS], ids=str)
def test_theta_refuses_the_rules_that_pass_blocked_corners(rule: DiagonalRule) -> None:
    walkable, start, goal = grid(0)
    with pytest.raises(ValueError, match="no-corner-cutting"):
        SearchTape(walkable, start, goal, algorithm="theta", diagonal=rule.value)


def test_the_rules_give_different_searches() -> None:
    # Otherwise the tests above could pass with the rule ignored.
    walkable, start, goal = grid(1)
    costs = {
        rule: ExpansionLog(walkable, start, goal, diagonal=rule.value).result().cost
        for rule in RULES
    }
    assert len(set(costs.values())) >= 3, costs
