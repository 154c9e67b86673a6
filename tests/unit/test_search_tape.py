"""SearchTape / TapeReplay: the new searches replay both ways bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from sim.navigation import find_path
from sim.navigation.replay.log import CellStatus
from sim.navigation.replay.tape import SearchTape, TapeReplay

ALGORITHMS = ("jps", "bidirectional", "theta")


def _grid(seed: int, size: int = 14) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    rng = np.random.default_rng(seed)
    walkable = rng.random((size, size)) > 0.28
    start, goal = (0, 0), (size - 1, size - 1)
    walkable[start] = walkable[goal] = True
    return walkable, start, goal


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("seed", range(6))
def test_forward_to_end_and_back_to_zero_restores_every_state(algorithm: str, seed: int) -> None:
    walkable, start, goal = _grid(seed)
    replay = TapeReplay(SearchTape(walkable, start, goal, algorithm=algorithm))
    states = [replay.snapshot()]
    while replay.forward(1):
        states.append(replay.snapshot())
    assert replay.at_end
    for expected in reversed(states[:-1]):
        assert replay.back(1) == 1
        assert replay.snapshot() == expected
    assert replay.step == 0
    replay.seek(len(states) - 1)
    assert replay.snapshot() == states[-1]
    replay.seek(len(states) // 2)
    assert replay.snapshot() == states[len(states) // 2]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("seed", range(4))
def test_the_tape_ends_as_find_path_does(algorithm: str, seed: int) -> None:
    walkable, start, goal = _grid(seed)
    tape = SearchTape(walkable, start, goal, algorithm=algorithm)
    expected = find_path(walkable, start, goal, algorithm=algorithm, implementation="python")
    result = tape.result()
    assert (result.found, result.cells, result.cost) == (
        expected.found,
        expected.cells,
        expected.cost,
    )
    assert tape.total_steps() == expected.expanded


def test_jps_closes_only_jump_points_one_a_step() -> None:
    walkable = np.ones((5, 7), dtype=bool)
    walkable[0:4, 3] = False
    replay = TapeReplay(SearchTape(walkable, (1, 0), (1, 6), algorithm="jps"))
    replay.seek(99)
    assert replay.step == 4
    assert int(np.count_nonzero(replay.status == CellStatus.CLOSED)) == 4
    # A jump's parent is the jump point it came from, not a neighbour.
    assert replay.parent[4, 2] == 1 * 7 + 0


def test_bidirectional_marks_both_halves_and_meets() -> None:
    tape = SearchTape(np.ones((1, 5), dtype=bool), (0, 0), (0, 4), algorithm="bidirectional")
    replay = TapeReplay(tape)
    replay.forward(2)
    assert replay.side.tolist() == [[1, 1, 0, 2, 2]]
    assert replay.meeting_cell is None
    replay.seek(99)
    assert replay.meeting_cell == (0, 2)
    replay.reset()
    assert replay.meeting_cell is None


def test_theta_parents_are_any_angle() -> None:
    replay = TapeReplay(SearchTape(np.ones((3, 6), dtype=bool), (0, 0), (2, 5), algorithm="theta"))
    replay.seek(99)
    assert replay.path == ((0, 0), (2, 5))
    assert replay.parent[2, 5] == 0


@pytest.mark.parametrize(
    ("algorithm", "kwargs", "match"),
    [
        ("jps", {"diagonal": False}, "8-connected"),
        ("jps", {"costs": np.full((3, 3), 2.0)}, "costs"),
        ("theta", {"costs": np.full((3, 3), 2.0)}, "cost"),
        ("astar", {}, "unknown algorithm"),
    ],
    ids=["jps-4-connected", "jps-costs", "theta-costs", "not-a-tape-search"],
)
def test_refusals_name_the_value(algorithm: str, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        SearchTape(np.ones((3, 3), dtype=bool), (0, 0), (2, 2), algorithm=algorithm, **kwargs)
