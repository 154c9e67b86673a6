"""The recorders and the comparison take a diagonal rule by name, "never" included.

A name is a true value in Python: read as a bool, "never" would have meant 8-connected moves.
"""

import numpy as np
import pytest

from sim.navigation.replay.compare import compare_searches
from sim.navigation.replay.tape import SearchTape


def open_grid() -> np.ndarray:
    return np.ones((6, 6), dtype=bool)


def test_the_tape_under_never_moves_four_ways() -> None:
    tape = SearchTape(open_grid(), (0, 0), (5, 5), algorithm="bidirectional", diagonal="never")
    assert tape.diagonal is False
    replay_end = tape.result()
    assert replay_end.found
    assert replay_end.cost == pytest.approx(10.0)


def test_the_tape_refuses_jps_under_another_rule() -> None:
    with pytest.raises(ValueError, match="not 'always'"):
        SearchTape(open_grid(), (0, 0), (5, 5), algorithm="jps", diagonal="always")


def test_the_comparison_under_never_judges_manhattan_admissible() -> None:
    rows = compare_searches(open_grid(), (0, 0), (5, 5), diagonal="never", repeat=1)
    manhattan_astar = rows[0]
    assert manhattan_astar.heuristic == "manhattan"
    assert manhattan_astar.guaranteed
    assert rows[12].cost == pytest.approx(10.0)  # Dijkstra, four ways
