"""The crowd torture suite: every scene under ``scenes/torture/``, over seeds, judged headless.

`run_case` builds one torture scene on a bare World (no ShowBase, no window, no models; as
`sim.bench.crowd` does), places its agents by the seed (`seeded_starts`), steps it at a fixed
``dt = 1/60`` until every agent has arrived or the scene's ``[torture] time_limit_s`` is up,
and measures (`CaseRun`):

- **arrived**: agents in the ARRIVED state when it stopped;
- **time ratio**: when the last agent arrived over the *free-flow time*, the slowest agent
  alone on its shortest path at its speed (`free_flow_s`; the scene's ``free_flow_s``
  overrides it);
- **overlap max**: the deepest two discs ever overlapped, as a fraction of their radii's sum;
- **stalled max**: the longest time any agent stood below `STALL_SPEED_FRACTION` of its speed
  away from its goal: not arrived, and beyond the crowd already gathered there (farther from
  the goal than its arrived agents reach, plus two of its radii). Time waiting in a joint plan
  does not count: the agents a jam's joint plan moves (`Crowd.jam_members`) are left out;
- **wall frames**: frames in which some disc overlapped a blocked cell;
- **flow**: with a ``gate`` segment in ``[torture]``, the agents through it per second (the
  crossings after the first over the time from the first to the last); else None.

`bench_suite` runs every case over seeds ``0 .. N-1`` and gathers a `SuiteReport` (its table,
JSON, chart and RESULTS.md section), which ``sim bench --crowd-suite`` prints.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from panda3d.core import NodePath

from sim.bench.chart import Series, ratio_bars_svg
from sim.bench.crowd import overlap_depth
from sim.bench.tables import pipe_table
from sim.components.agent_controller import AgentController, AgentState
from sim.components.crowd import CrowdField
from sim.components.crowd_sim import CrowdSim
from sim.components.grid_manager import GridManager
from sim.config import SCENES_DIR, AgentConfig, Tag
from sim.crowd.disc_walls import Walls
from sim.engine import GameObject, World
from sim.scene.file import load_scene
from sim.scene.spec import ObjectSpec, SceneSpec
from sim.scene.torture import Segment

SUITE_DIR = SCENES_DIR / "torture"
DT = 1.0 / 60.0
DEFAULT_SEEDS = 20
STALL_SPEED_FRACTION = 0.05
"""Below this fraction of its speed an agent that has not arrived stands (stalls)."""
JITTER_CELLS = 0.2
"""How far (cells, each axis) a seed moves an agent off its written start, at most."""
TIME_RATIO_TARGET = 3.0
OVERLAP_TARGET = 0.1
STALL_TARGET_S = 2.0
WALL_TOLERANCE = 1e-6  # cells: touching a wall is allowed, rounding may graze it
CHART = "crowd-suite.svg"
"""The chart of ``sim bench --crowd-suite``, beside RESULTS.md."""


def suite_scenes(directory: Path | None = None) -> list[Path]:
    """The torture scenes: every ``*.toml`` in `directory` (default `SUITE_DIR`), by name."""
    return sorted((SUITE_DIR if directory is None else directory).glob("*.toml"))


@dataclass(frozen=True, slots=True)
class CaseRun:
    """One seed of one torture case (see the module for each measure)."""

    name: str
    seed: int
    agents: int
    arrived: int
    done_s: float | None
    """Simulated seconds until every agent had arrived; None: not within the time limit."""
    sim_s: float
    free_flow_s: float
    time_limit_s: float
    overlap_max: float
    stalled_max_s: float
    wall_frames: int
    flow_per_s: float | None

    @property
    def time_ratio(self) -> float:
        """When the last agent arrived (or the run stopped) over the free-flow time."""
        return (self.sim_s if self.done_s is None else self.done_s) / self.free_flow_s

    @property
    def clean(self) -> bool:
        """Whether this run meets every target of the suite."""
        return (
            self.done_s is not None
            and self.time_ratio <= TIME_RATIO_TARGET
            and self.overlap_max <= OVERLAP_TARGET
            and self.stalled_max_s <= STALL_TARGET_S
            and self.wall_frames == 0
        )


def seeded_starts(scene: SceneSpec, seed: int) -> list[tuple[ObjectSpec, tuple[float, float]]]:
    """The scene's agents in the order they join and where each stands, for `seed`.

    Seed 0 is the scene as written (file order, written positions: what the window shows).
    Any other seed shuffles the order (rows, hence ties in avoidance and planning) and moves
    each agent by up to `JITTER_CELLS` of a cell per axis, kept within its start cell as far
    as its radius lets it (not at all where the nudge would overlap a neighbour more than as
    written), deterministically.
    """
    agents = list(scene.objects_with_tag(Tag.AGENT))
    starts = [(spec, (spec.pos[0], spec.pos[1])) for spec in agents]
    if seed == 0:
        return starts
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(starts))
    cell = scene.grid.cell_size
    written = np.array([xy for _, xy in starts]).reshape(-1, 2)
    radii = np.array([(spec.agent or AgentConfig()).radius for spec, _ in starts])
    placed = []
    for index in order:
        spec, (x, y) = starts[int(index)]
        room = max(0.0, min(JITTER_CELLS * cell, cell / 2.0 - radii[index]))
        dx, dy = rng.uniform(-room, room, size=2)
        if _overlaps_more(written, radii, int(index), (x + float(dx), y + float(dy))):
            dx = dy = 0.0  # a nudge must not push two discs into each other
        placed.append((spec, (x + float(dx), y + float(dy))))
    return placed


def _overlaps_more(
    written: NDArray[np.float64], radii: NDArray[np.float64], index: int, point: tuple[float, float]
) -> bool:
    """Whether agent `index` moved to `point` overlaps another deeper than where written."""
    reach = radii + radii[index]
    before = reach - np.hypot(*(written - written[index]).T)
    after = reach - np.hypot(*(written - np.asarray(point)).T)
    before[index] = after[index] = -np.inf
    return bool((after > np.maximum(before, 0.0)).any())


class _Case:
    """One torture scene built on a bare World, its agents placed for a seed."""

    def __init__(self, scene: SceneSpec, seed: int) -> None:
        self.scene = scene
        self.world = World(NodePath("crowd-suite"))
        spawn = self.world.spawn
        self.grid = spawn("grid-manager").add_component(_grid_manager(scene))
        self.fields = spawn("crowd-field").add_component(CrowdField(self.grid))
        self.sim = spawn("crowd-sim").add_component(CrowdSim(self.grid, self.fields))
        self.goals: dict[str, GameObject] = {}
        for spec in scene.objects:
            if spec.tag is not Tag.AGENT:
                node = self.world.root.attach_new_node(spec.name)
                node.set_pos(*spec.pos)
                node.set_scale(*spec.scale)
                node.set_h(spec.heading)
                self.goals[spec.name] = self.world.add(GameObject(node, tag=spec.tag))
        self.world.step(0.0)  # the grid takes in the obstacles before anyone plans
        self.agents: list[AgentController] = []
        self.specs: list[ObjectSpec] = []
        for spec, (x, y) in seeded_starts(scene, seed):
            node = self.world.root.attach_new_node(spec.name)
            node.set_pos(x, y, 0.0)
            node.set_h(spec.heading)
            config = spec.agent or AgentConfig()
            controller = AgentController(self.grid, config, crowd=self.fields, crowd_sim=self.sim)
            self.agents.append(
                self.world.add(GameObject(node, tag=Tag.AGENT)).add_component(controller)
            )
            self.specs.append(spec)

    def goal_of(self, spec: ObjectSpec) -> tuple[float, float]:
        """Where the object `spec`'s agent chases stands (End unless it names a target)."""
        target = None if spec.agent is None else spec.agent.target
        if target is not None:
            return self.goals[target].xy
        end = self.world.find_with_tag(Tag.END)
        if end is None:
            raise ValueError(f"{self.scene.path}: {spec.name} chases End, but there is none")
        return end.xy

    def free_flow_s(self) -> float:
        """The slowest agent alone on its shortest path (for its radius) at its speed."""
        slowest = 0.0
        for spec, agent in zip(self.specs, self.agents, strict=True):
            config = spec.agent or AgentConfig()
            plan = self.grid.plan(agent.position, self.goal_of(spec), radius=config.radius)
            if not plan.found:
                raise ValueError(f"{self.scene.path}: {spec.name} has no path to its goal")
            slowest = max(slowest, plan.length / config.speed)
        return slowest


def run_case(path: Path, seed: int, *, seconds: float | None = None) -> CaseRun:
    """Run torture scene `path` for `seed` (see the module); `seconds` caps its time limit.

    Raises:
        ValueError: for a scene without a ``[torture]`` table, or an agent with no way to
            its goal.
    """
    return run_scene(load_scene(path), seed, seconds=seconds)


def run_scene(scene: SceneSpec, seed: int, *, seconds: float | None = None) -> CaseRun:
    """Run a torture scene already read (`run_case`; a generated variant's too), named by its stem.

    Raises:
        ValueError: as `run_case`.
    """
    if scene.torture is None:
        raise ValueError(f"{scene.path}: no [torture] table; a torture case states its time limit")
    limit_s = scene.torture.time_limit_s if seconds is None else seconds
    case = _Case(scene, seed)
    free_flow = scene.torture.free_flow_s or case.free_flow_s()
    crowd = case.sim.crowd
    walls = Walls(case.grid.walkable)
    origin, cell = np.asarray(case.grid.origin), case.grid.grid_cell_size
    frames = round(limit_s / DT)
    overlap, wall_frames, done_s = 0.0, 0, None
    watch: _Watch | None = None
    frame = 0
    for frame in range(1, frames + 1):
        case.world.step(DT)
        if watch is None:  # rows exist once the agents have joined the scene's crowd
            watch = _Watch(case, scene.torture.gate)
        positions, radii = crowd.positions, crowd.radii
        overlap = max(overlap, overlap_depth(positions, radii))
        hit = walls.hit((positions - origin) / cell, radii / cell - WALL_TOLERANCE)
        wall_frames += int(hit.any())
        arrived = watch.observe(frame * DT, positions, crowd.jam_members)
        if arrived == len(case.agents):
            done_s = frame * DT
            break
    assert watch is not None
    return CaseRun(
        name=scene.path.stem,
        seed=seed,
        agents=len(case.agents),
        arrived=watch.arrived,
        done_s=done_s,
        sim_s=frame * DT,
        free_flow_s=free_flow,
        time_limit_s=limit_s,
        overlap_max=overlap,
        stalled_max_s=float(watch.stalled_max_s),
        wall_frames=wall_frames,
        flow_per_s=watch.flow_per_s(),
    )


class _Watch:
    """Per-row stall clocks and gate crossings, frame by frame."""

    def __init__(self, case: _Case, gate: Segment | None) -> None:
        crowd = case.sim.crowd
        by_owner = {id(agent): agent for agent in case.agents}
        self._agents = [by_owner[id(owner)] for owner in crowd.owners]
        spec_of = {id(agent): spec for agent, spec in zip(case.agents, case.specs, strict=True)}
        self._speeds = np.array([agent.config.speed for agent in self._agents])
        self._previous = crowd.positions.copy()
        self._stalled = np.zeros(len(self._agents))
        self.stalled_max_s = 0.0
        self.arrived = 0
        self._gate = gate
        goals = [case.goal_of(spec_of[id(agent)]) for agent in self._agents]
        self._goals = np.array(goals).reshape(-1, 2)
        # Agents chasing one goal share a group: its arrived agents are the crowd round it.
        _, self._group = np.unique(self._goals, axis=0, return_inverse=True)
        self._radii = np.array([agent.config.radius for agent in self._agents])
        self._goal_side = None if gate is None else _side(np.array(goals), gate)
        self._crossed_at: list[float] = []
        self._crossed = np.zeros(len(self._agents), dtype=bool)

    def observe(
        self, time_s: float, positions: NDArray[np.float64], joint: NDArray[np.bool_] | None
    ) -> int:
        """Count this frame; return how many agents have arrived now."""
        speeds = np.hypot(*(positions - self._previous).T) / DT
        slow = speeds < STALL_SPEED_FRACTION * self._speeds
        arrived = np.array([agent.state is AgentState.ARRIVED for agent in self._agents])
        standing = slow & ~arrived & self._away(positions, arrived)
        if joint is not None:
            standing &= ~np.asarray(joint, dtype=bool)
        self._stalled = np.where(standing, self._stalled + DT, 0.0)
        self.stalled_max_s = max(self.stalled_max_s, float(self._stalled.max(initial=0.0)))
        if self._gate is not None:
            self._cross(time_s, self._previous, positions)
        self._previous = positions.copy()
        self.arrived = int(arrived.sum())
        return self.arrived

    def _away(
        self, positions: NDArray[np.float64], arrived: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """Which agents stand beyond the crowd already gathered at their goal (2 radii on)."""
        distance = np.hypot(*(positions - self._goals).T)
        reach = np.zeros(int(self._group.max(initial=0)) + 1)
        np.maximum.at(reach, self._group[arrived], distance[arrived] + self._radii[arrived])
        return np.asarray(distance > reach[self._group] + 2.0 * self._radii)

    def _cross(
        self, time_s: float, before: NDArray[np.float64], after: NDArray[np.float64]
    ) -> None:
        assert self._gate is not None
        assert self._goal_side is not None
        was, now = _side(before, self._gate), _side(after, self._gate)
        x0, y0, x1, y1 = self._gate
        # Where each step meets the gate's line, as a fraction along the gate.
        direction = np.array([x1 - x0, y1 - y0])
        along = ((after - np.array([x0, y0])) @ direction) / float(direction @ direction)
        through = (was != now) & (now == self._goal_side) & (along >= 0.0) & (along <= 1.0)
        new = through & ~self._crossed
        self._crossed |= new
        self._crossed_at.extend([time_s] * int(new.sum()))

    def flow_per_s(self) -> float | None:
        """Agents through the gate per second; None without a gate or two crossings."""
        times = self._crossed_at
        if self._gate is None or len(times) < 2 or times[-1] <= times[0]:
            return None
        return (len(times) - 1) / (times[-1] - times[0])


def _side(points: NDArray[np.float64], gate: Segment) -> NDArray[np.bool_]:
    """Which side of the gate's line each point is on (True: its left)."""
    x0, y0, x1, y1 = gate
    cross = (x1 - x0) * (points[:, 1] - y0) - (y1 - y0) * (points[:, 0] - x0)
    return np.asarray(cross > 0.0)


def _grid_manager(scene: SceneSpec) -> GridManager:
    spec = scene.grid
    return GridManager(
        origin=spec.origin,
        num_of_rows=spec.rows,
        num_of_columns=spec.columns,
        grid_cell_size=spec.cell_size,
        rule=spec.rule,
        show_grid=False,
        show_obstacle_blocks=False,
    )


@dataclass(frozen=True, slots=True)
class CaseSummary:
    """Every seed of one case, and the worst (or, for flow, the mean) of each measure."""

    name: str
    runs: tuple[CaseRun, ...]

    @property
    def arrived_pct(self) -> float:
        """Agents arrived in time over all seeds, per cent."""
        return 100.0 * sum(run.arrived for run in self.runs) / sum(run.agents for run in self.runs)

    @property
    def time_ratio(self) -> float:
        """The worst seed's time over the free-flow time."""
        return max(run.time_ratio for run in self.runs)

    @property
    def overlap_max(self) -> float:
        """The deepest overlap of any seed."""
        return max(run.overlap_max for run in self.runs)

    @property
    def stalled_max_s(self) -> float:
        """The longest stand of any agent of any seed."""
        return max(run.stalled_max_s for run in self.runs)

    @property
    def wall_frames(self) -> int:
        """Frames with a disc on a wall, over every seed."""
        return sum(run.wall_frames for run in self.runs)

    @property
    def flow_per_s(self) -> float | None:
        """The mean flow through the gate over the seeds that measured one; None: no gate."""
        flows = [run.flow_per_s for run in self.runs if run.flow_per_s is not None]
        return sum(flows) / len(flows) if flows else None

    @property
    def failed_seeds(self) -> tuple[int, ...]:
        """The seeds that missed a target."""
        return tuple(run.seed for run in self.runs if not run.clean)

    def to_json(self) -> dict[str, Any]:
        """The case's row of the bench JSON (`SuiteReport.to_json`)."""
        flow = self.flow_per_s
        first = self.runs[0]
        return {
            "name": self.name,
            "seeds": len(self.runs),
            "arrived_pct": round(self.arrived_pct, 3),
            "time_ratio": round(self.time_ratio, 4),
            "overlap_max": round(self.overlap_max, 6),
            "stalled_max_s": round(self.stalled_max_s, 4),
            "flow_per_s": None if flow is None else round(flow, 4),
            "agents": first.agents,
            "free_flow_s": round(first.free_flow_s, 4),
            "time_limit_s": first.time_limit_s,
            "wall_frames": self.wall_frames,
            "failed_seeds": list(self.failed_seeds),
        }


@dataclass(frozen=True, slots=True)
class SuiteReport:
    """Every torture case over its seeds."""

    cases: tuple[CaseSummary, ...]

    def table(self) -> list[list[str]]:
        """Header and one line per case, as strings."""
        lines = [
            [
                "case",
                "agents",
                "seeds",
                "arrived %",
                "time / free flow",
                "overlap max",
                "stalled max s",
                "wall frames",
                "flow / s",
                "clean",
            ]
        ]
        for case in self.cases:
            flow = case.flow_per_s
            failed = case.failed_seeds
            lines.append(
                [
                    case.name,
                    str(case.runs[0].agents),
                    str(len(case.runs)),
                    f"{case.arrived_pct:.1f}",
                    f"{case.time_ratio:.2f}",
                    f"{case.overlap_max:.3f}",
                    f"{case.stalled_max_s:.2f}",
                    str(case.wall_frames),
                    "n/a" if flow is None else f"{flow:.2f}",
                    "yes" if not failed else f"no (seeds {', '.join(map(str, failed))})",
                ]
            )
        return lines

    def lines(self) -> list[str]:
        """A title and the table (valid Markdown)."""
        title = (
            "Crowd torture suite: worst seed per case (flow: the mean), dt 1/60, headless; "
            f"targets: all arrived, time <= {TIME_RATIO_TARGET:g}x free flow, overlap <= "
            f"{OVERLAP_TARGET:g}, no stand over {STALL_TARGET_S:g} s, no disc on a wall"
        )
        return [title, "", *pipe_table(self.table())]

    def target_lines(self) -> list[str]:
        """One line per case: its targets met, or which seeds missed (Markdown list items)."""
        lines = []
        for case in self.cases:
            failed = case.failed_seeds
            verdict = "met" if not failed else f"NOT met (seeds {', '.join(map(str, failed))})"
            lines.append(f"- {case.name} over {len(case.runs)} seeds: {verdict}")
        return lines

    def to_json(self) -> dict[str, Any]:
        """``{"cases": [{"name", "seeds", "arrived_pct", "time_ratio", "overlap_max", ...}]}``."""
        return {"cases": [case.to_json() for case in self.cases], "dt": DT}

    def chart_svg(self) -> str:
        """Each case's worst time over free flow, and its overlap, as multiples of the target."""
        names = [case.name for case in self.cases]
        series = [
            Series(
                "time / free flow / 3",
                "#3a7bd5",
                tuple(case.time_ratio / TIME_RATIO_TARGET for case in self.cases),
                target=1.0,
            ),
            Series(
                "overlap max / 0.1",
                "#e8833a",
                tuple(case.overlap_max / OVERLAP_TARGET for case in self.cases),
                target=1.0,
            ),
        ]
        return ratio_bars_svg(
            "Crowd torture suite: worst seed, as a multiple of its target", names, series
        )


def bench_suite(
    scenes: Sequence[Path] | None = None,
    *,
    seeds: int = DEFAULT_SEEDS,
    progress: Callable[[str], None] | None = None,
) -> SuiteReport:
    """Run every case of `scenes` (default `suite_scenes`) for seeds ``0 .. seeds - 1``.

    `progress` is told each run as it finishes (``"name seed k"``).

    Raises:
        ValueError: for fewer than 1 seed or no scenes.
    """
    if seeds < 1:
        raise ValueError(f"seeds must be >= 1, got {seeds!r}")
    paths = suite_scenes() if scenes is None else list(scenes)
    if not paths:
        raise ValueError(f"no torture scenes in {SUITE_DIR}")
    cases = []
    for path in paths:
        runs = []
        for seed in range(seeds):
            runs.append(run_case(path, seed))
            if progress is not None:
                progress(f"{path.stem} seed {seed}")
        cases.append(CaseSummary(path.stem, tuple(runs)))
    return SuiteReport(tuple(cases))


SECTION_HEADING = "## Crowd torture suite"


def section_lines(report: SuiteReport, command: str, commit: str) -> list[str]:
    """The suite's part of RESULTS.md (its chart, `CHART`, is written beside it separately)."""
    return [
        SECTION_HEADING,
        "",
        f"`{command}` at commit `{commit}`, {datetime.date.today().isoformat()}: every scene of "
        "scenes/torture/ over seeds 0 .. N-1 (seed 0 as written; the others shuffle the agents' "
        "order and move each within its start cell), headless, until all arrived or the "
        "scene's time limit. Time is when the last agent arrived over the free-flow time (the "
        "slowest agent alone on its shortest path at its speed); stalled is the longest any "
        "agent stood below 5 % of its speed away from its goal (not arrived, and beyond the "
        "crowd gathered there).",
        "",
        *report.lines(),
        "",
        f"![time and overlap against the targets]({CHART})",
        "",
        "Targets:",
        "",
        *report.target_lines(),
        "",
    ]
