"""`sim bench --carve`: a world whose obstacles all move every frame, and agents that repair.

The map is generated, not read: `generate_layout("rooms", 512, 512, seed=0, room=20, door=6)`
(`MAP_NAME`), so the bench needs no data set. On it stand `obstacles` moving boxes, in three
kinds: movers (squares 1.5 to 3.5 cells sliding back and forth along x or y at 2 to 6 cells a
second), doors (bars sliding their own width and back) and rotators (bars 3 to 5 cells long
spinning at 30 to 90 degrees a second). Their diagonals stay under the doors' 6 cells, so no
single box seals a room. `agents` agents walk at `AGENT_SPEED_CELLS_S` toward one of
`DESTINATIONS` goals each, taking the next on arrival.

Each frame, headless at a fixed dt of 1/60 s:

1. every obstacle's footprint is computed for the frame's time and carved by difference
   (`sim.navigation.carving.Carver`): only the cells it leaves and enters are touched;
2. the agents whose remaining route crosses a cell that became blocked, and only they, plan
   again from their cell (an agent whose cell or goal is covered waits and asks again every
   `RETRY_FRAMES`), by `repair`: "auto" (the app's agents' default) asks one
   `RepairChoice` per destination, which repairs with D* Lite while that is cheaper than a
   fresh search and searches afresh otherwise (its rule, by expansion counts, is in
   `sim.navigation.searches.repair_choice`); "dstar-lite" always repairs one
   `IncrementalSearch` (D* Lite) per destination, shared by the agents headed there;
   "find-path" runs `find_path` from scratch (auto: jump point search on these uniform
   grids); the last two for comparison;
3. the agents step along their routes.

A frame's time is steps 1-3 (`time.perf_counter`); `sim_fps` is frames over their summed time;
this thread's CPU time is reported beside it (a busy machine's other processes are not ours).
Every `CHECK_EVERY`-th plan (`check_every`; a repair or a new goal's plan) is checked against
a fresh `find_path` on a copy of that frame's grid: the same cost (`canonical_cost`), a legal path
(`check_path`); and every frame, every route kept is still open. Checks are not timed.
Kept routes are not replanned when cells are freed, as Unity's agents keep theirs: they stay
open and legal, and a new plan would be optimal for the grid of its frame, which is what the
check samples.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from sim.bench.dynamic import canonical_cost
from sim.bench.maps import check_path
from sim.navigation import Box, Footprint, PathResult, box_footprint, find_path
from sim.navigation.carving import Carver
from sim.navigation.maps.generators import generate_layout
from sim.navigation.searches.incremental import IncrementalSearch
from sim.navigation.searches.repair_choice import RepairChoice

SIDE = 512
MAP_NAME = "rooms 512x512 (generate_layout seed 0, room 20, door 6)"
DT = 1.0 / 60.0
OBSTACLES = 100
AGENTS = 200
FRAMES = 600
DESTINATIONS = 16
AGENT_SPEED_CELLS_S = 4.0
RETRY_FRAMES = 15
CHECK_EVERY = 4
TARGET_FPS = 60.0

REPAIRS = ("auto", "dstar-lite", "find-path")
"""How a cut route is planned again: the app's choice between a D* Lite repair and a fresh
search, D* Lite repair always, or `find_path` from scratch always."""

Cell = tuple[int, int]
NO_ROUTE = np.empty(0, dtype=np.intp)


@dataclass(frozen=True, slots=True)
class CarveReport:
    """What `run_carve` measured with one `repair` strategy."""

    repair: str
    obstacles: int
    agents: int
    frames: int
    sim_fps: float
    p50_frame_ms: float
    p99_frame_ms: float
    max_frame_ms: float
    repairs: int
    reused: int
    fresh_searches: int
    plans: int
    expanded_total: int
    cells_touched: int
    cells_flipped: int
    checked: int
    mismatches: int
    routes_broken: int
    p99_cpu_ms: float

    @property
    def met(self) -> bool:
        """Whether the target holds: `TARGET_FPS` simulated fps and every check passed."""
        return self.sim_fps >= TARGET_FPS and self.mismatches == 0 and self.routes_broken == 0

    def to_json(self) -> dict[str, object]:
        """The figures as JSON: the documented keys first, then the rest."""
        return {
            "repair": self.repair,
            "obstacles": self.obstacles,
            "agents": self.agents,
            "sim_fps": round(self.sim_fps, 1),
            "p99_frame_ms": round(self.p99_frame_ms, 3),
            "repairs": self.repairs,
            "expanded_total": self.expanded_total,
            "map": MAP_NAME,
            "frames": self.frames,
            "p50_frame_ms": round(self.p50_frame_ms, 3),
            "max_frame_ms": round(self.max_frame_ms, 3),
            "plans": self.plans,
            "incremental_repairs": self.reused,
            "fresh_searches": self.fresh_searches,
            "cells_touched": self.cells_touched,
            "cells_flipped": self.cells_flipped,
            "sample_checked": self.checked,
            "sample_mismatches": self.mismatches,
            "routes_broken": self.routes_broken,
            "p99_frame_cpu_ms": round(self.p99_cpu_ms, 3),
            "target_met": self.met,
        }

    def lines(self) -> list[str]:
        """A few lines for the terminal."""
        verdict = "met" if self.met else "NOT met"
        return [
            f"carve, repair by {self.repair}: {self.obstacles} moving obstacles, "
            f"{self.agents} agents, {self.frames} frames on {MAP_NAME}",
            f"  sim fps {self.sim_fps:.1f} (target >= {TARGET_FPS:g}: {verdict}); frame ms "
            f"p50 {self.p50_frame_ms:.2f}, p99 {self.p99_frame_ms:.2f}, max "
            f"{self.max_frame_ms:.2f}; this thread's CPU p99 {self.p99_cpu_ms:.2f}",
            f"  {self.repairs} cut routes repaired ({self.reused} plans reused a search, "
            f"{self.fresh_searches} searched afresh), "
            f"{self.plans} plans, {self.expanded_total} expanded; "
            f"cells touched {self.cells_touched}, flipped {self.cells_flipped}",
            f"  checked {self.checked} plans against a fresh find_path: {self.mismatches} "
            f"mismatches; routes found broken: {self.routes_broken}",
        ]


@dataclass(slots=True)
class _Obstacle:
    centre: tuple[float, float]
    size: tuple[float, float]
    heading_deg: float
    swing: tuple[float, float]  # world offset at the far end of a slide (0, 0: it spins)
    rate: float  # radians a second of the slide's phase, or degrees a second of the spin
    phase: float
    footprint: Footprint

    def box_at(self, time_s: float) -> Box:
        if self.swing == (0.0, 0.0):
            heading = (self.heading_deg + self.rate * time_s) % 360.0
            return Box(*self.centre, *self.size, heading)
        along = math.sin(self.phase + self.rate * time_s)
        x, y = self.centre[0] + along * self.swing[0], self.centre[1] + along * self.swing[1]
        return Box(x, y, *self.size, self.heading_deg)


@dataclass(slots=True)
class _Agent:
    goal: int  # index into the destinations
    route: NDArray[np.intp]  # flat cells from where it planned to its goal
    at: int = 0  # index of the route cell it stands on
    progress: float = 0.0  # cells walked toward route[at + 1]
    retry_at: int = -1  # frame of its next try while it has no route


def _obstacles(rng: np.random.Generator, count: int) -> list[_Obstacle]:
    made = []
    for index in range(count):
        centre = (float(rng.uniform(8.0, SIDE - 8.0)), float(rng.uniform(8.0, SIDE - 8.0)))
        kind = index % 5  # three movers, a door and a rotator in every five
        if kind < 3:
            side = float(rng.uniform(1.5, 3.5))
            size, heading = (side, side), 0.0
            reach = float(rng.uniform(3.0, 12.0))
            swing = (reach, 0.0) if rng.random() < 0.5 else (0.0, reach)
            rate = float(rng.uniform(2.0, 6.0)) / reach
        elif kind == 3:
            length = float(rng.uniform(3.0, 5.0))
            heading = float(rng.choice([0.0, 90.0]))
            size = (length, 1.0)
            swing = (length, 0.0) if heading == 0.0 else (0.0, length)
            rate = float(rng.uniform(0.5, 1.5))
        else:
            size, heading = (float(rng.uniform(3.0, 5.0)), 1.0), float(rng.uniform(0.0, 360.0))
            swing, rate = (0.0, 0.0), float(rng.uniform(30.0, 90.0)) * rng.choice([-1.0, 1.0])
        phase = float(rng.uniform(0.0, 2.0 * math.pi))
        empty = Footprint(0, 0, np.zeros((0, 0), dtype=bool))
        made.append(_Obstacle(centre, size, heading, swing, rate, phase, empty))
    return made


def run_carve(
    *,
    obstacles: int = OBSTACLES,
    agents: int = AGENTS,
    frames: int = FRAMES,
    seed: int = 0,
    repair: str = "auto",
    check_every: int = CHECK_EVERY,
    on_frame: Callable[[int], object] | None = None,
) -> CarveReport:
    """Run the world for `frames` frames and report (see the module); `on_frame` after each.

    Raises:
        ValueError: If `repair` is not one of `REPAIRS`.
    """
    if repair not in REPAIRS:
        raise ValueError(f"repair must be one of {', '.join(REPAIRS)}, got {repair!r}")
    rng = np.random.default_rng(seed)
    walkable = np.ascontiguousarray(generate_layout("rooms", SIDE, SIDE, seed=0, room=20, door=6))
    carver = Carver(walkable)
    moving = _obstacles(rng, obstacles)
    for obstacle in moving:
        obstacle.footprint = box_footprint(obstacle.box_at(0.0), walkable.shape)
        carver.add(obstacle.footprint)
    free = np.flatnonzero(walkable)
    goals = [_cell(int(cell)) for cell in rng.choice(free, DESTINATIONS, replace=False)]
    searches = [_planner(repair) for _ in goals]
    world = _World(carver, goals, searches, check_every)
    crowd = [_Agent(index % DESTINATIONS, NO_ROUTE) for index in range(agents)]
    for agent, start in zip(crowd, rng.choice(free, agents, replace=False), strict=True):
        world.plan(agent, _cell(int(start)), frame=0, count=False)
    frame_ms: list[float] = []
    cpu_ms: list[float] = []
    for frame in range(1, frames + 1):
        began, began_cpu = time.perf_counter(), time.thread_time()
        blocked = world.move(moving, frame * DT)
        world.repair_cut(crowd, blocked, frame)
        world.step(crowd, frame)
        frame_ms.append((time.perf_counter() - began) * 1000.0)
        cpu_ms.append((time.thread_time() - began_cpu) * 1000.0)
        world.check_routes(crowd)
        if on_frame is not None:
            on_frame(frame)
    times = np.array(frame_ms)
    return CarveReport(
        repair=repair,
        obstacles=obstacles,
        agents=agents,
        frames=frames,
        sim_fps=frames / (float(times.sum()) / 1000.0),
        p50_frame_ms=float(np.percentile(times, 50)),
        p99_frame_ms=float(np.percentile(times, 99)),
        max_frame_ms=float(times.max()),
        repairs=world.repairs,
        reused=world.reused,
        fresh_searches=world.fresh,
        plans=world.plans,
        expanded_total=world.expanded,
        cells_touched=carver.cells_touched,
        cells_flipped=world.flipped,
        checked=world.checked,
        mismatches=world.mismatches,
        routes_broken=world.broken,
        p99_cpu_ms=float(np.percentile(cpu_ms, 99)),
    )


def _cell(flat: int) -> Cell:
    row, col = divmod(flat, SIDE)
    return (row, col)


class _Planner(Protocol):
    @property
    def last_repaired(self) -> bool: ...

    def plan(self, walkable: NDArray[np.bool_], start: Cell, goal: Cell) -> PathResult: ...


def _planner(repair: str) -> _Planner:
    if repair == "auto":
        return RepairChoice()
    return IncrementalSearch() if repair == "dstar-lite" else _FromScratch()


class _FromScratch:
    """`find_path` behind `IncrementalSearch`'s face: every plan from scratch."""

    last_repaired = False

    def plan(self, walkable: NDArray[np.bool_], start: Cell, goal: Cell) -> PathResult:
        return find_path(walkable, start, goal)


class _World:
    """The grid, the destinations' searches and the counters of one run."""

    def __init__(
        self,
        carver: Carver,
        goals: list[Cell],
        searches: list[_Planner],
        check_every: int,
    ) -> None:
        self.carver, self.goals, self.searches = carver, goals, searches
        self.check_every = check_every
        self.newly = np.zeros(carver.walkable.size, dtype=bool)
        self.repairs = self.reused = self.fresh = self.plans = self.expanded = self.flipped = 0
        self.checked = self.mismatches = self.broken = 0

    def move(self, moving: list[_Obstacle], time_s: float) -> NDArray[np.intp]:
        """Carve every obstacle at `time_s`; the cells that became blocked this frame."""
        blocked = []
        for obstacle in moving:
            footprint = box_footprint(obstacle.box_at(time_s), self.carver.walkable.shape)
            carve = self.carver.move(obstacle.footprint, footprint)
            obstacle.footprint = footprint
            if carve.flipped:
                blocked.append(carve.blocked)
                self.flipped += carve.blocked.size + carve.freed.size
        if not blocked:
            return np.empty(0, dtype=np.intp)
        cells = np.concatenate(blocked)
        # A cell blocked by one box and freed by a later one this frame is open again.
        return cells[~self.carver.walkable.reshape(-1)[cells]]

    def repair_cut(self, crowd: list[_Agent], blocked: NDArray[np.intp], frame: int) -> None:
        """Replan the agents whose remaining route crosses `blocked`, and those due a retry."""
        self.newly[blocked] = True
        for agent in crowd:
            if len(agent.route) <= 1:
                if agent.retry_at <= frame:
                    self.plan(agent, _cell(int(agent.route[agent.at])), frame=frame)
                continue
            if blocked.size and self.newly[agent.route[agent.at + 1 :]].any():
                self.plan(agent, _cell(int(agent.route[agent.at])), frame=frame, cut=True)
        self.newly[blocked] = False

    def plan(
        self, agent: _Agent, start: Cell, *, frame: int, count: bool = True, cut: bool = False
    ) -> None:
        """Plan `agent` from `start` to its goal (`cut`: its route was); none: it waits."""
        search = self.searches[agent.goal]
        result = search.plan(self.carver.walkable, start, self.goals[agent.goal])
        if count:
            self.plans += 1
            self.repairs += cut
            self.reused += search.last_repaired
            self.fresh += isinstance(search, RepairChoice) and search.last_fresh
            self.expanded += result.expanded
        agent.at, agent.progress = 0, 0.0
        if not result.found:
            agent.route, agent.retry_at = (
                np.array([start[0] * SIDE + start[1]]),
                frame + RETRY_FRAMES,
            )
            return
        agent.route = np.array([row * SIDE + col for row, col in result.cells], dtype=np.intp)
        if count and self.plans % self.check_every == 0:
            self._check(result.cells, start, self.goals[agent.goal])

    def _check(self, cells: tuple[Cell, ...], start: Cell, goal: Cell) -> None:
        grid = self.carver.walkable.copy()  # this frame's grid, apart from the live array
        fresh = find_path(grid, start, goal)
        legal = check_path(grid, cells, start, goal).legal
        same = fresh.found and canonical_cost(fresh.cells) == canonical_cost(cells)
        self.checked += 1
        self.mismatches += not (legal and same)

    def step(self, crowd: list[_Agent], frame: int) -> None:
        """Walk every agent with a route; on arrival it takes the next destination."""
        for agent in crowd:
            if len(agent.route) <= 1:
                continue
            agent.progress += AGENT_SPEED_CELLS_S * DT
            step = abs(int(agent.route[agent.at + 1]) - int(agent.route[agent.at]))
            length = 1.0 if step in (1, SIDE) else math.sqrt(2.0)
            if agent.progress < length:
                continue
            agent.progress -= length
            agent.at += 1
            if agent.at == len(agent.route) - 1:
                agent.goal = (agent.goal + 1) % DESTINATIONS
                self.plan(agent, _cell(int(agent.route[-1])), frame=frame)

    def check_routes(self, crowd: list[_Agent]) -> None:
        """Count routes crossing a blocked cell after the frame's repairs (there must be none).

        The cell an agent stands on is left out: a box may slide onto an agent that stands
        still (the app pushes it aside; here it waits for the box to pass).
        """
        walkable = self.carver.walkable.reshape(-1)
        for agent in crowd:
            self.broken += not walkable[agent.route[agent.at + 1 :]].all()
