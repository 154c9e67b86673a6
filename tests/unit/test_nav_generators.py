"""Map generators, random scenarios and the Moving AI writers, checked against independent code.

Connectivity is checked with a flood fill written here, optimal lengths with a tiny heapq
Dijkstra written here (8-connected, sqrt(2) diagonals, no corner cutting: the Moving AI rule).
"""

from __future__ import annotations

import math
from collections import deque
from heapq import heappop, heappush
from pathlib import Path

import numpy as np
import pytest

from sim.navigation import (
    LAYOUT_KINDS,
    LAYOUT_PARAMETERS,
    generate_layout,
    random_scenarios,
    read_map,
    read_scenarios,
    write_map,
    write_scenarios,
)
from sim.navigation.maps.generators import MAX_SIDE, blocked_rectangles, distant_pair
from sim.navigation.maps.movingai_files import check_map_name, format_map

SIZES = [(3, 3), (5, 7), (17, 12), (40, 64), (64, 64), (101, 77)]


def regions(walkable: np.ndarray) -> list[set[tuple[int, int]]]:
    """The 4-connected regions of walkable cells (8-connected without corner cutting is the
    same: a diagonal step needs both orthogonal cells walkable)."""
    seen = np.zeros_like(walkable)
    found = []
    for cell in zip(*np.nonzero(walkable), strict=True):
        if seen[cell]:
            continue
        region, queue = set(), deque([cell])
        seen[cell] = True
        while queue:
            row, col = queue.popleft()
            region.add((int(row), int(col)))
            for d_row, d_col in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nxt = (row + d_row, col + d_col)
                inside = 0 <= nxt[0] < walkable.shape[0] and 0 <= nxt[1] < walkable.shape[1]
                if inside and walkable[nxt] and not seen[nxt]:
                    seen[nxt] = True
                    queue.append(nxt)
        found.append(region)
    return found


def dijkstra(walkable: np.ndarray, start: tuple[int, int], goal: tuple[int, int]) -> float:
    """The Moving AI optimal length, independently of sim.navigation."""
    height, width = walkable.shape
    best = {start: 0.0}
    frontier = [(0.0, start)]
    while frontier:
        cost, (row, col) = heappop(frontier)
        if (row, col) == goal:
            return cost
        if cost > best[(row, col)]:
            continue
        for d_row in (-1, 0, 1):
            for d_col in (-1, 0, 1):
                nxt = (row + d_row, col + d_col)
                if (d_row, d_col) == (0, 0) or not (0 <= nxt[0] < height and 0 <= nxt[1] < width):
                    continue
                if not walkable[nxt]:
                    continue
                if (
                    d_row
                    and d_col
                    and not (walkable[row + d_row, col] and walkable[row, col + d_col])
                ):
                    continue  # no corner cutting
                new_cost = cost + (math.sqrt(2.0) if d_row and d_col else 1.0)
                if new_cost < best.get(nxt, math.inf):
                    best[nxt] = new_cost
                    heappush(frontier, (new_cost, nxt))
    return math.inf


# --- layouts --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", LAYOUT_KINDS)
@pytest.mark.parametrize(("height", "width"), SIZES, ids=[f"{h}x{w}" for h, w in SIZES])
def test_layout_has_the_size_asked(kind: str, height: int, width: int) -> None:
    layout = generate_layout(kind, height, width, seed=1, room=1)
    assert layout.shape == (height, width)
    assert layout.dtype == np.bool_


@pytest.mark.parametrize(
    ("kind", "parameters"),
    [
        ("maze", {"corridor": 1}),
        ("maze", {"corridor": 2}),
        ("maze", {"corridor": 5}),
        ("rooms", {"room": 8, "door": 1}),
        ("rooms", {"room": 3, "door": 3}),
        ("rooms", {"room": 6, "door": 2}),
    ],
    ids=["maze-1", "maze-2", "maze-5", "rooms-8-1", "rooms-3-3", "rooms-6-2"],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mazes_and_rooms_are_one_region(kind: str, parameters: dict, seed: int) -> None:
    layout = generate_layout(kind, 61, 83, seed=seed, **parameters)
    assert layout.any()
    assert len(regions(layout)) == 1
    # A closed border: nothing walks off the map.
    assert not layout[0].any()
    assert not layout[-1].any()
    assert not layout[:, 0].any()
    assert not layout[:, -1].any()


@pytest.mark.parametrize("corridor", [1, 2, 3, 4])
def test_maze_is_perfect_with_corridors_as_wide_as_asked(corridor: int) -> None:
    step = corridor + 1
    layout = generate_layout("maze", 8 * step + 1, 11 * step + 1, seed=corridor, corridor=corridor)
    # The lattice fits exactly: walls on every step-th line, except where they open.
    assert not layout[::step, ::step].any()  # wall crossings never open
    squares = layout[1:, 1:].reshape(8, step, 11, step)[:, :corridor, :, :corridor]
    assert squares.all()  # every corridor square is open, corridor x corridor cells
    # Each opening spans a whole corridor, never part of one.
    for wall_line in range(0, layout.shape[0], step):
        runs = layout[wall_line, 1:].reshape(11, step)[:, :corridor]
        assert np.all(runs.all(axis=1) | ~runs.any(axis=1))
    openings = sum(
        int(layout[r, 1 + c * step])
        for r in range(step, layout.shape[0] - 1, step)
        for c in range(11)
    ) + sum(
        int(layout[1 + r * step, c])
        for c in range(step, layout.shape[1] - 1, step)
        for r in range(8)
    )
    # A spanning tree of the 8 x 11 squares: one region and no loop.
    assert openings == 8 * 11 - 1
    assert len(regions(layout)) == 1


def test_maze_corridor_1_looks_like_moving_ai_maze() -> None:
    layout = generate_layout("maze", 64, 64, seed=3)
    # Half the cells or so are walls, as in maze512-1-0 (about 50 %).
    assert 0.45 < 1 - layout.mean() < 0.56


@pytest.mark.parametrize("door", [1, 2, 4])
def test_rooms_have_doors_as_wide_as_asked(door: int) -> None:
    room = 4
    step = room + 1
    layout = generate_layout("rooms", 6 * step + 1, 7 * step + 1, seed=door, room=room, door=door)
    assert layout[1:, 1:].reshape(6, step, 7, step)[:, :room, :, :room].all()  # rooms open
    widths = []
    for line in range(step, layout.shape[0] - 1, step):  # inner walls between rooms above/below
        for col in range(7):
            widths.append(int(layout[line, 1 + col * step : 1 + col * step + room].sum()))
    for line in range(step, layout.shape[1] - 1, step):
        for row in range(6):
            widths.append(int(layout[1 + row * step : 1 + row * step + room, line].sum()))
    assert set(widths) <= {0, door}
    assert widths.count(door) >= 6 * 7 - 1  # at least a spanning tree


@pytest.mark.parametrize("density", [0.0, 0.1, 0.25, 0.4, 0.9])
def test_random_density_is_as_asked(density: float) -> None:
    layout = generate_layout("random", 200, 150, seed=7, density=density)
    blocked = 1.0 - layout.mean()
    sigma = math.sqrt(density * (1 - density) / layout.size)
    assert abs(blocked - density) <= 5 * sigma + 1e-12


@pytest.mark.parametrize("kind", LAYOUT_KINDS)
def test_same_seed_same_layout_other_seed_other_layout(kind: str) -> None:
    first = generate_layout(kind, 40, 50, seed=11)
    assert np.array_equal(first, generate_layout(kind, 40, 50, seed=11))
    assert not np.array_equal(first, generate_layout(kind, 40, 50, seed=12))


def test_layout_parameters_name_the_keywords() -> None:
    assert set(LAYOUT_PARAMETERS) == set(LAYOUT_KINDS)
    assert LAYOUT_PARAMETERS == {
        "maze": ("corridor",),
        "rooms": ("room", "door"),
        "random": ("density",),
    }


@pytest.mark.parametrize(
    ("kind", "height", "width", "parameters", "message"),
    [
        ("hex", 10, 10, {}, r"unknown layout kind 'hex'; expected one of maze, rooms, random"),
        ("maze", 2, 10, {}, r"a maze with corridor 1 needs each side 3 to 4096 cells, got 10x2"),
        ("maze", 10, 5, {"corridor": 4}, r"corridor 4 needs each side 6 to 4096 cells, got 5x10"),
        ("maze", 10, 10, {"corridor": 0}, r"corridor must be at least 1, got 0"),
        ("maze", 10, 10, {"corridor": 1.5}, r"corridor must be a whole number, got 1.5"),
        ("rooms", 9, 12, {}, r"rooms of 8 needs each side 10 to 4096 cells, got 12x9"),
        ("rooms", 20, 20, {"room": 3, "door": 4}, r"door must be at most room \(3\), got 4"),
        ("rooms", 20, 20, {"door": 0}, r"door must be at least 1, got 0"),
        ("random", 1, 10, {}, r"a random map needs each side 2 to 4096 cells, got 10x1"),
        ("random", 10, MAX_SIDE + 1, {}, r"each side 2 to 4096 cells, got 4097x10"),
        ("random", 10, 10, {"density": 1.0}, r"density must be at least 0 and below 1, got 1.0"),
        ("random", 10, 10, {"density": -0.1}, r"density must be at least 0 and below 1"),
        ("random", 10, 10, {"density": math.nan}, r"density must be at least 0 and below 1"),
        ("random", 10.0, 10, {}, r"height must be a whole number of cells, got 10.0"),
    ],
    ids=[
        "kind",
        "maze-small",
        "maze-wide-corridor",
        "corridor-0",
        "corridor-float",
        "rooms-small",
        "door-wider-than-room",
        "door-0",
        "random-small",
        "too-large",
        "density-1",
        "density-negative",
        "density-nan",
        "height-float",
    ],
)
def test_bad_layout_requests_say_what_is_wrong(
    kind: str, height: int, width: int, parameters: dict, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        generate_layout(kind, height, width, seed=0, **parameters)


@pytest.mark.parametrize("seed", [-1, 1.5, True])
def test_bad_seed_is_refused(seed: object) -> None:
    with pytest.raises(ValueError, match="seed must be"):
        generate_layout("random", 5, 5, seed=seed)  # type: ignore[arg-type]


def test_parameters_of_another_kind_are_not_checked() -> None:
    layout = generate_layout("random", 5, 5, seed=0, corridor=0, room=0, door=9)
    assert layout.shape == (5, 5)


# --- scenarios ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", LAYOUT_KINDS)
def test_scenario_lengths_equal_an_independent_dijkstra(kind: str) -> None:
    layout = generate_layout(kind, 30, 41, seed=5, room=4, corridor=2, density=0.3)
    scenarios = random_scenarios(layout, 25, seed=9, map_name=f"{kind}.map")
    assert len(scenarios) == 25
    for scenario in scenarios:
        assert scenario.start != scenario.goal
        assert layout[scenario.start]
        assert layout[scenario.goal]
        expected = dijkstra(layout, scenario.start, scenario.goal)
        assert math.isfinite(expected)
        assert scenario.optimal_length == pytest.approx(expected, abs=1e-8)
        assert scenario.bucket == int(scenario.optimal_length / 4)
        assert (scenario.map_name, scenario.map_width, scenario.map_height) == (
            f"{kind}.map",
            41,
            30,
        )
    assert [s.bucket for s in scenarios] == sorted(s.bucket for s in scenarios)
    assert [s.line for s in scenarios] == list(range(2, 27))


def test_scenarios_are_deterministic_per_seed() -> None:
    layout = generate_layout("rooms", 40, 40, seed=1, room=5)
    first = random_scenarios(layout, 10, seed=3, map_name="r.map")
    assert random_scenarios(layout, 10, seed=3, map_name="r.map") == first
    assert random_scenarios(layout, 10, seed=4, map_name="r.map") != first


def test_scenarios_stay_in_connected_pockets() -> None:
    # Two pockets apart and an isolated cell: pairs never cross, the lone cell is never drawn.
    layout = np.zeros((5, 9), dtype=bool)
    layout[1:4, 1:3] = True
    layout[1:4, 5:8] = True
    layout[0, 4] = True
    scenarios = random_scenarios(layout, 60, seed=0, map_name="p.map")
    for scenario in scenarios:
        assert (scenario.start_x < 4) == (scenario.goal_x < 4)
        assert (0, 4) not in (scenario.start, scenario.goal)
    assert {s.start_x < 4 for s in scenarios} == {True, False}


@pytest.mark.parametrize(
    "layout",
    [
        np.zeros((4, 4), dtype=bool),
        np.eye(4, dtype=bool),  # diagonal cells only: corners are never cut
        np.array([[True]]),
    ],
    ids=["all-blocked", "diagonal-only", "one-cell"],
)
def test_no_connected_pair_is_a_value_error(layout: np.ndarray) -> None:
    with pytest.raises(ValueError, match="fewer than 2 connected walkable cells"):
        random_scenarios(layout, 3, seed=0, map_name="x.map")


@pytest.mark.parametrize(
    ("count", "name", "message"),
    [
        (0, "x.map", "count must be at least 1, got 0"),
        (2, "", "map name must be a non-empty string"),
        (2, "a\tb.map", "cannot be written to a .scen file"),
        (2, " x.map", "cannot be written to a .scen file"),
    ],
    ids=["count-0", "empty-name", "tab-in-name", "space-in-name"],
)
def test_bad_scenario_requests_are_refused(count: int, name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        random_scenarios(np.ones((3, 3), dtype=bool), count, seed=0, map_name=name)


# --- files ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", LAYOUT_KINDS)
def test_map_and_scenarios_round_trip(kind: str, tmp_path: Path) -> None:
    layout = generate_layout(kind, 33, 47, seed=2, room=5)
    scenarios = random_scenarios(layout, 12, seed=2, map_name="g.map")
    write_map(tmp_path / "g.map", layout)
    write_scenarios(tmp_path / "g.map.scen", scenarios)
    read_back = read_map(tmp_path / "g.map")
    assert np.array_equal(read_back.walkable, layout)
    assert read_back.rows[0] == "".join("." if cell else "@" for cell in layout[0])
    assert read_scenarios(tmp_path / "g.map.scen") == scenarios
    text = (tmp_path / "g.map.scen").read_text()
    assert text.startswith("version 1\n")
    fields = text.splitlines()[1].split("\t")
    assert len(fields) == 9
    assert fields[1] == "g.map"
    assert len(fields[8].partition(".")[2]) == 8


def test_writers_replace_a_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "m.map"
    target.write_text("old")
    target.chmod(0o640)
    write_map(target, np.ones((2, 2), dtype=bool))
    assert target.read_text() == "type octile\nheight 2\nwidth 2\nmap\n..\n..\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["m.map"]  # no temporary file left


def test_map_writer_refuses_what_is_no_map() -> None:
    with pytest.raises(ValueError, match="at least one cell"):
        format_map(np.ones((0, 3), dtype=bool))
    with pytest.raises(ValueError, match="dtype bool"):
        format_map(np.ones((2, 2)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Latin-1"):
        check_map_name("\u6f22.map")


# --- scenes' helpers ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", LAYOUT_KINDS)
def test_rectangles_cover_exactly_the_blocked_cells(kind: str) -> None:
    layout = generate_layout(kind, 45, 38, seed=4, room=6)
    covered = np.zeros(layout.shape, dtype=int)
    for row0, col0, row1, col1 in blocked_rectangles(layout):
        assert row0 < row1
        assert col0 < col1
        covered[row0:row1, col0:col1] += 1
    assert np.array_equal(covered, (~layout).astype(int))  # every blocked cell once, no other


def test_rectangles_merge_walls() -> None:
    layout = generate_layout("rooms", 64, 64, seed=0)
    assert len(blocked_rectangles(layout)) < (~layout).sum() / 5


def test_distant_pair_is_connected_and_far() -> None:
    layout = generate_layout("maze", 41, 41, seed=8, corridor=1)
    start, goal = distant_pair(layout)
    region = next(r for r in regions(layout) if start in r)
    assert goal in region
    assert start[0] > 30
    assert start[1] < 10
    length = dijkstra(layout, start, goal)
    assert all(dijkstra(layout, start, cell) <= length + 1e-9 for cell in list(region)[::25])
