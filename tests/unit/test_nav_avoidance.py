"""Reciprocal avoidance (ORCA): crowds in a bare 2-D loop keep apart, arrive, and repeat exactly.

The loop is the simplest world there is: every step each agent prefers its goal at full speed
(slowing to land on it), `avoid` picks the velocities, and positions move by velocity * dt.
Overlap is the depth two discs overlap by, as a fraction of their radii's sum (the targets'
`overlap_max`), checked after every step. The C kernel must return what the Python reference
returns to the last bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from sim.crowd.avoidance import AVOIDANCE_KERNEL_AVAILABLE, avoid, find_neighbours

needs_kernel = pytest.mark.skipif(
    not AVOIDANCE_KERNEL_AVAILABLE, reason="sim.crowd._avoidance not built"
)
IMPLEMENTATIONS = ("c", "python") if AVOIDANCE_KERNEL_AVAILABLE else ("python",)

DT = 1.0 / 60.0
SETTINGS: dict[str, Any] = {
    "dt": DT,
    "time_horizon": 2.0,
    "neighbour_dist": 6.0,
    "max_neighbours": 10,
}
SPEED = 1.5
ARRIVED = 0.05
OVERLAP_LIMIT = 0.1


@dataclass(frozen=True)
class Run:
    arrived_at: float | None  # simulated seconds when every agent stood on its goal
    overlap_max: float
    trajectory: NDArray[np.float64]  # (steps, n, 2)


def overlap(positions: NDArray[np.float64], radii: NDArray[np.float64]) -> float:
    """The deepest overlap of any pair as a fraction of their radii's sum (<= 0: none)."""
    if len(positions) < 2:
        return 0.0
    delta = positions[:, None, :] - positions[None, :, :]
    dist = np.hypot(delta[..., 0], delta[..., 1])
    sums = radii[:, None] + radii[None, :]
    depth = (sums - dist) / sums
    np.fill_diagonal(depth, -np.inf)
    return float(depth.max())


def simulate(
    starts: Any,
    goals: Any,
    radii: Any,
    *,
    seconds: float,
    implementation: str = "auto",
    **options: Any,
) -> Run:
    """Walk every agent to its goal with avoidance; stop when all arrived or time is up."""
    pos = np.array(starts, dtype=np.float64)
    goal = np.array(goals, dtype=np.float64)
    radius = np.array(radii, dtype=np.float64)
    speeds = np.full(len(pos), SPEED)
    vel = np.zeros_like(pos)
    settings = {**SETTINGS, **options}
    worst, frames = 0.0, list[NDArray[np.float64]]()
    for step in range(round(seconds / DT)):
        to_goal = goal - pos
        dist = np.hypot(to_goal[:, 0], to_goal[:, 1])
        if (dist < ARRIVED).all():
            return Run(step * DT, worst, np.array(frames))
        # Full speed, but never past the goal in one step.
        scale = np.minimum(speeds, dist / DT) / np.maximum(dist, 1e-12)
        vel = avoid(
            pos, vel, to_goal * scale[:, None], radius, speeds,
            implementation=implementation, **settings,
        )  # fmt: skip
        pos = pos + vel * DT
        frames.append(pos)
        worst = max(worst, overlap(pos, radius))
    return Run(None, worst, np.array(frames))


def ring(count: int, radius: float) -> NDArray[np.float64]:
    angles = np.arange(count) * 2.0 * math.pi / count
    return np.column_stack((radius * np.cos(angles), radius * np.sin(angles)))


@dataclass(frozen=True)
class Scenario:
    starts: Any
    goals: Any
    radii: Any
    seconds: float  # the time all must have arrived by (measured, with room)


SCENARIOS = {
    # Measured arrival (C, this loop): 6.7 s, 6.7 s, 8.3 s, 16.4 s, 12.3 s.
    "head-on-offset": Scenario([(-5, 0), (5, 0.1)], [(5, 0), (-5, 0.1)], [0.5, 0.5], 10.0),
    "head-on-aligned": Scenario([(-5, 0), (5, 0)], [(5, 0), (-5, 0)], [0.5, 0.5], 10.0),
    "crossing-of-four": Scenario(ring(4, 6.0), -ring(4, 6.0), [0.5] * 4, 15.0),
    "circle-of-16": Scenario(ring(16, 8.0), -ring(16, 8.0), [0.5] * 16, 30.0),
    "different-radii": Scenario(
        ring(8, 6.0), -ring(8, 6.0), [0.2, 0.8, 0.3, 0.6, 0.4, 0.5, 0.25, 0.7], 25.0
    ),
}


@pytest.mark.parametrize("name", SCENARIOS, ids=list(SCENARIOS))
def test_agents_keep_apart_and_all_arrive(name: str) -> None:
    case = SCENARIOS[name]
    run = simulate(case.starts, case.goals, case.radii, seconds=case.seconds)
    assert run.overlap_max <= OVERLAP_LIMIT, f"{name}: overlap {run.overlap_max:.3f}"
    assert run.arrived_at is not None, f"{name}: not all arrived within {case.seconds} s"


def test_without_avoidance_the_overlap_check_sees_the_crash() -> None:
    # The measure can fail: with every agent inactive they walk straight through each other.
    case = SCENARIOS["crossing-of-four"]
    starts = np.asarray(case.starts)
    pos, goals, radii = starts.copy(), np.asarray(case.goals), np.array(case.radii)
    worst = 0.0
    for _ in range(round(10.0 / DT)):
        to_goal = goals - pos
        dist = np.hypot(to_goal[:, 0], to_goal[:, 1])
        pref = to_goal * (np.minimum(SPEED, dist / DT) / np.maximum(dist, 1e-12))[:, None]
        vel = avoid(
            pos, pref, pref, radii, np.full(4, SPEED),
            active=np.zeros(4, dtype=bool), **SETTINGS,
        )  # fmt: skip
        np.testing.assert_array_equal(vel, pref)  # inactive agents keep their preference
        pos = pos + vel * DT
        worst = max(worst, overlap(pos, radii))
    assert worst > 0.9


def test_without_sidestep_a_symmetric_crossing_jams() -> None:
    # Why sidestep exists: four agents meeting at a point stop there, each held by the others.
    case = SCENARIOS["crossing-of-four"]
    run = simulate(case.starts, case.goals, case.radii, seconds=30.0, sidestep=False)
    assert run.arrived_at is None
    assert run.overlap_max <= OVERLAP_LIMIT


def test_same_input_same_trajectory() -> None:
    case = SCENARIOS["circle-of-16"]
    first = simulate(case.starts, case.goals, case.radii, seconds=case.seconds)
    second = simulate(case.starts, case.goals, case.radii, seconds=case.seconds)
    np.testing.assert_array_equal(first.trajectory, second.trajectory)


def test_reversed_agent_order_still_arrives_apart() -> None:
    # Indices break ties (neighbour order, parting directions): another order is another run,
    # which must hold the same promises.
    case = SCENARIOS["circle-of-16"]
    run = simulate(case.starts[::-1], case.goals[::-1], case.radii, seconds=case.seconds)
    assert run.arrived_at is not None
    assert run.overlap_max <= OVERLAP_LIMIT


def test_overlapping_discs_part_within_one_step() -> None:
    pos = np.array([[0.0, 0.0], [0.5, 0.0]])
    radii = np.array([0.5, 0.5])
    vel = avoid(pos, np.zeros((2, 2)), np.zeros((2, 2)), radii, np.full(2, 20.0), **SETTINGS)
    after = pos + vel * DT
    assert np.hypot(*(after[1] - after[0])) >= 1.0 - 1e-9
    # Each took half of the way: they moved apart along the line joining them.
    assert vel[0, 0] < 0.0 < vel[1, 0]
    assert vel[0, 0] == pytest.approx(-vel[1, 0])


def test_a_parked_agent_with_low_priority_steps_aside() -> None:
    """A passer meets an agent standing on its line; low priority makes the stander yield."""

    def displacement(parked_priority: float) -> tuple[float, float, float]:
        pos = np.array([[-4.0, 0.0], [0.0, 0.0]])
        vel = np.zeros((2, 2))
        radii, speeds = np.array([0.5, 0.5]), np.full(2, SPEED)
        priority = np.array([1.0, parked_priority])
        worst, passer_off = 0.0, 0.0
        for _ in range(round(8.0 / DT)):
            pref = np.array([[SPEED, 0.0], [0.0, 0.0]])
            vel = avoid(pos, vel, pref, radii, speeds, priority=priority, **SETTINGS)
            pos = pos + vel * DT
            worst = max(worst, overlap(pos, radii))
            passer_off = max(passer_off, abs(pos[0, 1]))
        return float(np.hypot(*pos[1])), passer_off, worst

    equal_moved, equal_off, equal_overlap = displacement(1.0)
    low_moved, low_off, low_overlap = displacement(0.1)
    assert low_moved > equal_moved
    assert low_off < equal_off
    assert max(equal_overlap, low_overlap) <= OVERLAP_LIMIT


def test_inactive_agents_are_obstacles_the_others_go_around() -> None:
    pos = np.array([[-4.0, 0.05], [0.0, 0.0]])
    vel = np.zeros((2, 2))
    radii, speeds = np.array([0.5, 0.5]), np.full(2, SPEED)
    active = np.array([True, False])
    worst = 0.0
    for _ in range(round(8.0 / DT)):
        pref = np.array([[SPEED, 0.0], [0.0, 0.0]])
        vel = avoid(pos, vel, pref, radii, speeds, active=active, **SETTINGS)
        assert vel[1].tolist() == [0.0, 0.0]
        pos = pos + vel * DT
        worst = max(worst, overlap(pos, radii))
    assert worst <= OVERLAP_LIMIT
    assert pos[0, 0] > 2.0  # it got past


# ---- Python == C ------------------------------------------------------------------------


def random_crowd(seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    pos = rng.uniform(0.0, 8.0, (n, 2))
    vel = rng.normal(0.0, 1.0, (n, 2))
    if n >= 4:  # a stack: three agents on one point with one velocity
        pos[1:3], vel[1:3] = pos[0], vel[0]
    if seed % 3 == 0:
        pos = np.round(pos)  # exact distance ties
    return {
        "positions": pos,
        "velocities": vel,
        "preferred": rng.normal(0.0, 1.5, (n, 2)),
        "radii": rng.uniform(0.0, 0.7, n),
        "max_speeds": rng.uniform(0.0, 2.0, n),
        "active": rng.random(n) > 0.2 if seed % 2 else None,
        "priority": rng.uniform(0.0, 2.0, n) if seed % 2 else None,
        "sidestep": rng.random(n) > 0.3 if seed % 4 == 1 else seed % 4 != 3,
        "dt": float(rng.choice([1.0 / 30.0, 1.0 / 60.0, 0.25])),
        "time_horizon": float(rng.uniform(0.5, 5.0)),
        "neighbour_dist": float(rng.uniform(0.0, 5.0)),
        "max_neighbours": int(rng.integers(0, 15)),
    }


@needs_kernel
@pytest.mark.parametrize("seed", range(60))
def test_c_equals_python_to_the_last_bit(seed: int) -> None:
    case = random_crowd(seed)
    c = avoid(**case, implementation="c")
    python = avoid(**case, implementation="python")
    np.testing.assert_array_equal(c, python)
    assert np.isfinite(c).all()


@needs_kernel
def test_c_equals_python_over_a_whole_run() -> None:
    case = SCENARIOS["different-radii"]
    c = simulate(case.starts, case.goals, case.radii, seconds=3.0, implementation="c")
    python = simulate(case.starts, case.goals, case.radii, seconds=3.0, implementation="python")
    np.testing.assert_array_equal(c.trajectory, python.trajectory)


@needs_kernel
@pytest.mark.parametrize("seed", range(12))
def test_neighbours_c_equals_python_in_dense_crowds(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 600))
    side = math.ceil(math.sqrt(n))
    lattice = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2)[:n]
    pos = lattice * rng.uniform(0.3, 1.5) + rng.uniform(-0.05, 0.05, (n, 2))
    if seed % 2:
        pos = np.round(pos * 2.0) / 2.0  # ties and stacks
    if seed % 3 == 0:
        pos = pos + 1e5  # far from the origin
    options: dict[str, Any] = {
        "neighbour_dist": float(rng.uniform(0.5, 6.0)),
        "max_neighbours": int(rng.integers(1, 25)),
    }
    np.testing.assert_array_equal(
        find_neighbours(pos, implementation="c", **options),
        find_neighbours(pos, implementation="python", **options),
    )


@needs_kernel
def test_a_crowd_split_over_threads_gets_the_single_thread_answer() -> None:
    # 4,000 agents: the C kernel solves them in shares on threads (at least 1,500 a share);
    # each agent's answer depends on the input alone, so it is the reference's, bit for bit.
    rng = np.random.default_rng(7)
    n = 4000
    side = math.ceil(math.sqrt(n))
    lattice = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2)[:n]
    pos = lattice * 0.9 + rng.uniform(-0.1, 0.1, (n, 2))
    options: dict[str, Any] = {"neighbour_dist": 3.0, "max_neighbours": 10}
    np.testing.assert_array_equal(
        find_neighbours(pos, implementation="c", **options),
        find_neighbours(pos, implementation="python", **options),
    )
    pref = (np.array([side * 0.45, side * 0.45]) - pos) * 0.5
    case: dict[str, Any] = {
        "positions": pos,
        "velocities": pref * 0.5,
        "preferred": pref,
        "radii": np.full(n, 0.4),
        "max_speeds": np.full(n, 1.5),
        **SETTINGS,
        "neighbour_dist": 3.0,
    }
    np.testing.assert_array_equal(
        avoid(**case, implementation="c"), avoid(**case, implementation="python")
    )


@needs_kernel
@pytest.mark.parametrize("seed", range(6))
def test_neighbours_c_equals_python_in_dense_clumps_far_apart(seed: int) -> None:
    # Two packed crowds at opposite corners of a wide box: the hash's cells, sized from the
    # box's mean spacing, are far coarser than the crowds' own spacing.
    rng = np.random.default_rng(seed)
    clumps = [rng.normal(0.0, 0.6, (200, 2)), rng.normal(0.0, 0.6, (150, 2)) + 300.0]
    pos = np.concatenate(clumps)
    rng.shuffle(pos)
    options: dict[str, Any] = {
        "neighbour_dist": float(rng.uniform(0.3, 7.0)),
        "max_neighbours": int(rng.integers(1, 16)),
    }
    np.testing.assert_array_equal(
        find_neighbours(pos, implementation="c", **options),
        find_neighbours(pos, implementation="python", **options),
    )


@needs_kernel
@pytest.mark.parametrize("length", [200.5, 230.5, 254.5, 255.5, 256.5])
def test_neighbours_c_equals_python_when_the_rows_of_cells_fill_the_table(length: float) -> None:
    # 100 agents in one row of cells 1 wide along a strip `length` long: the table's 256
    # buckets hold every cell once (its cells are checked no more), until the strip outgrows
    # it; the rows queried above the strip would share the strip's buckets.
    rng = np.random.default_rng(int(length))
    pos = np.column_stack([rng.uniform(0.0, length, 100), rng.choice([0.0, 0.1], 100)])
    pos[0] = (0.0, 0.0)
    pos[1] = (length, 0.1)
    options: dict[str, Any] = {"neighbour_dist": 4.0, "max_neighbours": 10}
    np.testing.assert_array_equal(
        find_neighbours(pos, implementation="c", **options),
        find_neighbours(pos, implementation="python", **options),
    )


@needs_kernel
@pytest.mark.parametrize("seed", range(6))
def test_neighbours_c_equals_python_in_sparse_worlds(seed: int) -> None:
    # Small clusters far apart: many more cells than hash buckets, so rows of cells wrap
    # around the table and cells share buckets.
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0.0, 2000.0, (int(rng.integers(1, 6)), 2))
    pos = np.concatenate([centre + rng.normal(0.0, 1.0, (12, 2)) for centre in centres])
    options: dict[str, Any] = {"neighbour_dist": 1.5, "max_neighbours": int(rng.integers(1, 12))}
    np.testing.assert_array_equal(
        find_neighbours(pos, implementation="c", **options),
        find_neighbours(pos, implementation="python", **options),
    )


def test_neighbours_sort_by_distance_then_index() -> None:
    # Agent 0 has four neighbours at distance 1 (indices 1..4) and one at 0.5 (index 5).
    pos = np.array([[0, 0], [0, 1], [1, 0], [0, -1], [-1, 0], [0.5, 0]], dtype=float)
    for implementation in IMPLEMENTATIONS:
        rows = find_neighbours(
            pos, neighbour_dist=1.5, max_neighbours=3, implementation=implementation
        )
        assert rows.shape == (6, 3)
        assert rows[0].tolist() == [5, 1, 2]
        # Strictly closer than the distance: agent 4 and agent 2 are 2 apart, not neighbours.
        assert 2 not in rows[4].tolist()


# ---- Degenerate input -------------------------------------------------------------------


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_zero_agents(implementation: str) -> None:
    empty = np.zeros((0, 2))
    out = avoid(
        empty, empty, empty, np.zeros(0), np.zeros(0), implementation=implementation, **SETTINGS
    )
    assert out.shape == (0, 2)
    rows = find_neighbours(empty, neighbour_dist=1.0, max_neighbours=4)
    assert rows.shape == (0, 0)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_one_agent_gets_its_preference_within_its_speed(implementation: str) -> None:
    out = avoid(
        np.zeros((1, 2)), np.zeros((1, 2)), np.array([[3.0, 4.0]]), np.array([0.5]),
        np.array([1.0]), implementation=implementation, **SETTINGS,
    )  # fmt: skip
    np.testing.assert_allclose(out, [[0.6, 0.8]])


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_a_stack_on_one_point_spreads_out(implementation: str) -> None:
    n = 6
    pos, vel = np.zeros((n, 2)), np.zeros((n, 2))
    radii, speeds = np.full(n, 0.3), np.full(n, 2.0)
    for _ in range(120):
        vel = avoid(
            pos, vel, np.zeros((n, 2)), radii, speeds, implementation=implementation,
            **SETTINGS,
        )  # fmt: skip
        assert np.isfinite(vel).all()
        pos = pos + vel * DT
    assert overlap(pos, radii) <= OVERLAP_LIMIT


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_zero_speed_zero_radius_zero_preference_give_no_nan(implementation: str) -> None:
    pos = np.array([[0.0, 0.0], [0.0, 0.0], [0.1, 0.0], [5.0, 5.0]])
    vel = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    pref = np.array([[1.0, 0.0], [0.0, 0.0], [-1.0, 0.0], [0.0, 0.0]])
    for radii in (np.zeros(4), np.full(4, 0.5)):
        for speeds in (np.zeros(4), np.array([0.0, 1.0, 1.0, 0.0])):
            out = avoid(pos, vel, pref, radii, speeds, implementation=implementation, **SETTINGS)
            assert np.isfinite(out).all()
            assert (np.hypot(out[:, 0], out[:, 1]) <= speeds + 1e-12).all()


# ---- Input checks -----------------------------------------------------------------------


def valid() -> dict[str, Any]:
    return {
        "positions": np.zeros((2, 2)),
        "velocities": np.zeros((2, 2)),
        "preferred": np.zeros((2, 2)),
        "radii": np.full(2, 0.5),
        "max_speeds": np.ones(2),
        **SETTINGS,
    }


BAD_INPUT = [
    pytest.param(
        {"positions": np.zeros((2, 3))}, r"positions must have shape \(n, 2\)", id="positions-shape"
    ),
    pytest.param({"velocities": np.zeros((3, 2))}, "velocities has 3 rows, positions 2", id="rows"),
    pytest.param({"radii": np.array([0.5, -1.0])}, "radii must be >= 0", id="negative-radius"),
    pytest.param(
        {"max_speeds": np.array([1.0, np.nan])}, "max_speeds must be finite", id="nan-speed"
    ),
    pytest.param(
        {"preferred": np.array([[np.inf, 0.0], [0.0, 0.0]])},
        "preferred must be finite",
        id="infinite-preference",
    ),
    pytest.param(
        {"active": np.ones((2, 2), dtype=bool)}, r"active must have shape \(n,\)", id="active-shape"
    ),
    pytest.param({"sidestep": np.ones(3, dtype=bool)}, "sidestep has 3 rows", id="sidestep-rows"),
    pytest.param(
        {"priority": np.array([1.0, -0.5])}, "priority must be >= 0", id="negative-priority"
    ),
    pytest.param({"dt": 0.0}, "dt must be a finite number > 0", id="zero-dt"),
    pytest.param(
        {"time_horizon": math.inf},
        "time_horizon must be a finite number > 0",
        id="infinite-horizon",
    ),
    pytest.param(
        {"neighbour_dist": -1.0},
        "neighbour_dist must be a finite number >= 0",
        id="negative-distance",
    ),
    pytest.param(
        {"max_neighbours": 2.5}, "max_neighbours must be an integer", id="fractional-count"
    ),
    pytest.param({"max_neighbours": -1}, "max_neighbours must be 0 to", id="negative-count"),
    pytest.param(
        {"positions": np.array([[0.0, 0.0], [1e12, 0.0]])}, "more than 2..28 neighbour", id="spread"
    ),
    pytest.param(
        {"implementation": "fortran"},
        "implementation must be auto, c or python",
        id="implementation",
    ),
]


@pytest.mark.parametrize(("change", "message"), BAD_INPUT)
def test_bad_input_is_a_clear_value_error(change: dict[str, Any], message: str) -> None:
    arguments = {**valid(), **change}
    with pytest.raises(ValueError, match=message):
        avoid(**arguments)


@needs_kernel
def test_kernel_checks_its_buffers() -> None:
    from sim.crowd import _avoidance

    pos, out, ones = np.zeros((2, 2)), np.empty((2, 2)), np.ones(2)

    def call(**change: Any) -> None:
        arguments: dict[str, Any] = {
            "positions": pos, "velocities": pos, "preferred": pos, "radii": ones,
            "max_speeds": ones, "priority": None, "active": None, "sidestep": None,
            "dt": DT, "time_horizon": 2.0, "neighbour_dist": 5.0, "max_neighbours": 4,
            "out": out, **change,
        }  # fmt: skip
        _avoidance.avoid(*arguments.values())

    with pytest.raises(ValueError, match="radii must be 2 contiguous items"):
        call(radii=np.ones(3))
    with pytest.raises(ValueError, match="active must be 2 contiguous items"):
        call(active=np.ones(2, dtype=np.int32))
    with pytest.raises(ValueError, match="out must not share memory"):
        call(out=pos)
    with pytest.raises(ValueError, match="positions must be"):
        call(positions=np.zeros((2, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="max_neighbours 0 to n - 1"):
        _avoidance.neighbours(pos, 1.0, 2, np.empty((2, 2), dtype=np.int64))
