"""Crowd throughput: N agents chasing one End on `scenes/crowd.toml`, headless, no rendering.

`crowd_throughput` builds the scene's grid, obstacles, Start and End on a bare World (no
ShowBase, no window, no models), puts N agents on the free cells nearest the middle of the
scene's own crowd (one per cell, `spawn_cells`), steps the world at a fixed ``dt = 1/60`` and
measures what the simulation itself costs: simulated frames per wall-clock second of the
whole sim step (grid sync, fields, steering, avoidance; `CrowdSim` moves the crowd), the same
per second of the process's CPU time (what the step costs on a machine others share), the
milliseconds of planning (fields and aims) per simulated second, how many agents arrived, and
`overlap_max`, the deepest two discs ever overlapped, as a fraction of their radii's sum
(measured between frames, outside the timing). `bench_crowd` does that for each of `SIZES`,
then for `GROUPS`: as many agents split into goal groups, each chasing its own goal (one of
`goal_points`, on a ring across the map) so the groups cross, one distance field per goal;
it returns a `CrowdReport`: its table, targets, JSON and chart, which ``sim bench --crowd``
prints (``--json FILE``, ``--write-results`` for its section of benchmarks/RESULTS.md), with
a progress bar over the simulated frames on a terminal.

Rendering is measured elsewhere: a `RenderProbe` (N agents -> frames per second in a real
800 x 600 window, None when no window opens; ``sim bench --crowd`` hands it
`sim.bench.crowd_window.rendered_fps`) given to `bench_crowd` fills `render_fps`; without
one it is None.
"""

from __future__ import annotations

import math
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from panda3d.core import NodePath

from sim.bench.chart import Series, ratio_bars_svg
from sim.bench.progress import Progress
from sim.bench.tables import pipe_table
from sim.components.agent_controller import AgentController, AgentState
from sim.components.crowd import CrowdField
from sim.components.crowd_sim import CrowdSim
from sim.components.grid_manager import GridManager
from sim.config import SCENES_DIR, AgentConfig, Tag
from sim.crowd.avoidance import find_neighbours
from sim.engine import GameObject, World
from sim.navigation import GridMap
from sim.scene.file import load_scene
from sim.scene.spec import SceneSpec

CROWD_SCENE = SCENES_DIR / "crowd.toml"
DT = 1.0 / 60.0
SIZES = (200, 1000, 5000, 10000)
SECONDS = 45.0
"""Simulated seconds each crowd size runs (the scene's own 200 agents all arrive in about 45)."""
GROUPS = ((16, 625),)
"""(goal groups, agents per group) of the group runs: each group chases its own goal."""
SIM_TARGETS = ((1000, 120.0), (5000, 30.0), (10000, 60.0))
"""(agents, simulated frames per second) the whole sim step must reach."""
GROUP_TARGET = (16, 625, 30.0)
"""(goal groups, agents per group, simulated frames per second) the group run must reach."""
RENDER_TARGETS = ((1000, 30.0), (5000, 30.0))
"""(agents, rendered frames per second) in an 800 x 600 window."""
RENDER_MAX = 5000
"""The largest crowd drawn in a window (larger ones are measured headless only)."""
GOAL_RING = 0.4
"""The group goals stand on a ring round the grid's middle, its radius this of the shorter side."""
OVERLAP_TARGET = 0.1
"""The deepest overlap allowed, as a fraction of the two radii's sum."""
EARLIER_TARGET = (200, 60.0)
"""(agents, simulated fps) of the first crowd issue, still checked."""
CHART = "crowd-throughput.svg"
"""The chart of `sim bench --crowd`, beside RESULTS.md."""

RenderProbe = Callable[[int], "float | None"]
"""Rendered frames per second of N agents of the crowd scene in a real 800 x 600 window."""


def crowd_throughput(
    n_agents: int,
    *,
    seconds: float = SECONDS,
    scene_path: Path = CROWD_SCENE,
    groups: int = 0,
    on_frame: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Step `n_agents` agents of the crowd scene for `seconds` simulated seconds; time it.

    The agents stand on the centres of the free cells nearest the middle of the scene's
    own agents (`spawn_cells`), with the scene's first agent's settings and heading. With
    `groups` > 0 agent i chases goal ``i % groups`` of `goal_points` (objects named
    ``goal-1`` ...) instead of End. `on_frame` is called after each simulated frame.

    Returns:
        ``n_agents``, ``groups``, ``sim_seconds``, ``frames``, ``planning_ms_per_sim_s``
        (fields and aims), ``sim_fps`` (simulated frames per wall-clock second of
        ``World.step``), ``sim_cpu_fps`` (per second of the process's CPU time, every thread's),
        ``arrived`` (agents at their goal when it stopped), ``overlap_max``,
        ``fields_computed``, ``blocked_cell_frames`` (summed over the agents; 0 when no
        agent entered a wall) and ``render_fps`` (None: `bench_crowd` fills it in).

    Raises:
        ValueError: for fewer than 1 agent, a non-positive duration, a negative number of
            groups, or more agents than the scene has free cells.
    """
    if n_agents < 1:
        raise ValueError(f"n_agents must be >= 1, got {n_agents!r}")
    if not seconds > 0.0:
        raise ValueError(f"seconds must be > 0, got {seconds!r}")
    if groups < 0:
        raise ValueError(f"groups must be >= 0, got {groups!r}")
    scene = load_scene(scene_path)
    world = World(NodePath("crowd-bench"))
    grid = world.spawn("grid-manager").add_component(_grid_manager(scene))
    crowd = world.spawn("crowd-field").add_component(CrowdField(grid))
    crowd_sim = world.spawn("crowd-sim").add_component(CrowdSim(grid, crowd))
    for spec in scene.objects:
        if spec.tag is not Tag.AGENT:
            node = world.root.attach_new_node(spec.name)
            node.set_pos(*spec.pos)
            node.set_scale(*spec.scale)
            node.set_h(spec.heading)
            world.add(GameObject(node, tag=spec.tag))
    world.step(0.0)  # the grid takes in the obstacles, so the spawn sees the walls
    goals = goal_points(grid.grid, groups)
    for number, (x, y) in enumerate(goals, start=1):
        node = world.root.attach_new_node(f"goal-{number}")
        node.set_pos(x, y, 0.0)
        world.add(GameObject(node))
    agents = _add_agents(world, grid, crowd, crowd_sim, scene, n_agents, len(goals))
    frames = round(seconds / DT)
    overlap = 0.0
    wall_s = cpu_s = 0.0
    for _ in range(frames):
        began, began_cpu = time.perf_counter(), time.process_time()
        world.step(DT)
        wall_s += time.perf_counter() - began
        cpu_s += time.process_time() - began_cpu
        overlap = max(overlap, overlap_depth(crowd_sim.positions, crowd_sim.radii))
        if on_frame is not None:
            on_frame()
    return {
        "n_agents": n_agents,
        "groups": len(goals),
        "sim_seconds": frames * DT,
        "frames": frames,
        "planning_ms_per_sim_s": (crowd.planning_ms + crowd_sim.planning_ms) / (frames * DT),
        "sim_fps": frames / wall_s,
        "sim_cpu_fps": frames / max(cpu_s, 1e-9),
        "arrived": sum(agent.state is AgentState.ARRIVED for agent in agents),
        "overlap_max": overlap,
        "fields_computed": crowd.fields_computed,
        "blocked_cell_frames": sum(agent.blocked_cell_frames for agent in agents),
        "render_fps": None,
    }


def overlap_depth(positions: NDArray[np.float64], radii: NDArray[np.float64]) -> float:
    """The deepest overlap of two discs, as a fraction of their radii's sum (0: none).

    >>> round(overlap_depth(np.array([[0.0, 0.0], [0.7, 0.0], [5.0, 0.0]]), np.full(3, 0.4)), 9)
    0.125
    """
    if len(positions) < 2 or not radii.max() > 0.0:
        return 0.0
    neighbours = find_neighbours(
        positions, neighbour_dist=2.0 * float(radii.max()), max_neighbours=6
    )
    valid = neighbours >= 0
    if not valid.any():
        return 0.0
    other = np.where(valid, neighbours, 0)
    gap = positions[other] - positions[:, None, :]
    reach = radii[:, None] + radii[other]
    depth = (reach - np.hypot(gap[..., 0], gap[..., 1])) / np.where(reach > 0.0, reach, 1.0)
    return max(0.0, float(np.where(valid, depth, 0.0).max()))


def spawn_cells(
    grid: GridMap, centre: tuple[float, float], count: int
) -> list[tuple[float, float]]:
    """The centres of the `count` walkable cells nearest `centre` that connect to its cell.

    Nearest by straight-line distance between centres (ties by row, then column); connected
    through walkable cells side by side, so no agent starts walled off from the others.

    Raises:
        ValueError: when fewer walkable cells connect to the centre's cell.
    """
    walkable = grid.walkable
    home = grid.world_to_cell(*centre, clamp=True)
    start = None if home is None else grid.nearest_walkable(home)
    if start is None:
        raise ValueError("the grid has no walkable cell to spawn on")
    seen = np.zeros_like(walkable)
    seen[start] = True
    frontier, cells = deque([start]), []
    while frontier:
        row, col = frontier.popleft()
        cells.append((row, col))
        for d_row, d_col in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            near = (row + d_row, col + d_col)
            if grid.contains(*near) and walkable[near] and not seen[near]:
                seen[near] = True
                frontier.append(near)
    if len(cells) < count:
        raise ValueError(f"{count} agents, but only {len(cells)} free cells connect")
    points = [grid.cell_to_world(*cell) for cell in cells]
    order = sorted(range(len(cells)), key=lambda i: (math.dist(points[i], centre), cells[i]))
    return [points[i] for i in order[:count]]


def goal_points(grid: GridMap, count: int) -> list[tuple[float, float]]:
    """`count` goals on a ring round the grid's middle, each the centre of a walkable cell.

    Goal k stands nearest the point at angle ``2 * pi * k / count`` (counter-clockwise from
    +x) on a ring round the middle whose radius is `GOAL_RING` of the grid's shorter side;
    a crowd spawned anywhere has groups crossing each other on the way to them.

    >>> goal_points(GridMap.open(10, 10), 2)
    [(9.5, 5.5), (1.5, 5.5)]
    """
    size, (rows, columns) = grid.cell_size, grid.shape
    centre_x = grid.origin[0] + columns * size / 2.0
    centre_y = grid.origin[1] + rows * size / 2.0
    ring = GOAL_RING * min(rows, columns) * size
    points = []
    for k in range(count):
        angle = 2.0 * math.pi * k / count
        x, y = centre_x + ring * math.cos(angle), centre_y + ring * math.sin(angle)
        home = grid.world_to_cell(x, y, clamp=True)
        cell = None if home is None else grid.nearest_walkable(home)
        if cell is None:
            raise ValueError("the grid has no walkable cell for a goal")
        points.append(grid.cell_to_world(*cell))
    return points


def spawn_centre(scene: SceneSpec) -> tuple[float, float]:
    """The middle of the scene's own agents (where a benchmark's crowd gathers round)."""
    specs = scene.objects_with_tag(Tag.AGENT)
    if not specs:
        raise ValueError(f"{scene.path}: no agents to take a spawn area from")
    xs, ys = [spec.pos[0] for spec in specs], [spec.pos[1] for spec in specs]
    return ((min(xs) + max(xs)) / 2.0, (min(ys) + max(ys)) / 2.0)


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


def _add_agents(
    world: World,
    grid: GridManager,
    crowd: CrowdField,
    crowd_sim: CrowdSim,
    scene: SceneSpec,
    count: int,
    groups: int,
) -> list[AgentController]:
    specs = scene.objects_with_tag(Tag.AGENT)
    config = specs[0].agent or AgentConfig()
    configs = [replace(config, target=f"goal-{k}") for k in range(1, groups + 1)] or [config]
    agents = []
    for number, (x, y) in enumerate(spawn_cells(grid.grid, spawn_centre(scene), count), start=1):
        node = world.root.attach_new_node(f"crowd-{number}")
        node.set_pos(x, y, 0.0)
        node.set_h(specs[0].heading)
        agent_object = world.add(GameObject(node, tag=Tag.AGENT))
        chosen = configs[(number - 1) % len(configs)]
        controller = AgentController(grid, chosen, crowd=crowd, crowd_sim=crowd_sim)
        agents.append(agent_object.add_component(controller))
    return agents


@dataclass(frozen=True, slots=True)
class CrowdReport:
    """The throughput of each crowd size on one scene (rows of `crowd_throughput`).

    `groups` holds the group runs (agents split among goals), after the sizes.
    """

    scene_name: str
    grid_rows: int
    grid_columns: int
    seconds: float
    results: tuple[dict[str, Any], ...]
    groups: tuple[dict[str, Any], ...] = ()

    def title(self) -> str:
        """One line: the scene, its grid and how long each crowd ran."""
        return (
            f"Crowd throughput on {self.scene_name} ({self.grid_columns}x{self.grid_rows} cells), "
            f"{self.seconds:g} simulated s per size, dt 1/60, headless, no rendering"
        )

    def table(self) -> list[list[str]]:
        """Header and one line per crowd size, as strings."""
        lines = [
            [
                "agents",
                "planning ms / sim s",
                "sim fps",
                "arrived",
                "fields",
                "overlap max",
                "render fps",
                "sim fps (cpu)",
            ]
        ]
        for row in self.results:
            render = row.get("render_fps")
            lines.append(
                [
                    str(row["n_agents"]),
                    f"{row['planning_ms_per_sim_s']:.1f}",
                    f"{row['sim_fps']:.1f}",
                    str(row["arrived"]),
                    str(row["fields_computed"]),
                    f"{row['overlap_max']:.3f}",
                    "n/a" if render is None else f"{render:.1f}",
                    f"{row['sim_cpu_fps']:.1f}",
                ]
            )
        return lines

    def group_table(self) -> list[list[str]]:
        """Header and one line per group run, as strings."""
        lines = [
            [
                "goal groups",
                "agents",
                "planning ms / sim s",
                "sim fps",
                "arrived",
                "fields",
                "overlap max",
                "sim fps (cpu)",
            ]
        ]
        for row in self.groups:
            lines.append(
                [
                    f"{row['groups']} x {row['n_agents'] // row['groups']}",
                    str(row["n_agents"]),
                    f"{row['planning_ms_per_sim_s']:.1f}",
                    f"{row['sim_fps']:.1f}",
                    str(row["arrived"]),
                    str(row["fields_computed"]),
                    f"{row['overlap_max']:.3f}",
                    f"{row['sim_cpu_fps']:.1f}",
                ]
            )
        return lines

    def lines(self) -> list[str]:
        """The title and the tables (valid Markdown)."""
        lines = [self.title(), "", *pipe_table(self.table())]
        if self.groups:
            lines += ["", "Goal groups, each chasing its own goal:", ""]
            lines += pipe_table(self.group_table())
        return lines

    def target_lines(self) -> list[str]:
        """Each crowd target, met or not, with the number (Markdown list items)."""
        grid = f"{self.grid_columns}x{self.grid_rows}"
        lines = []
        for agents, fps in SIM_TARGETS:
            lines.append(
                self._fps_line(
                    agents, fps, "sim_fps", "simulated fps (whole sim step, no rendering)"
                )
            )
        lines.append(self._group_line())
        rendered = "fps rendered in an 800x600 window (default look, settled)"
        for agents, fps in RENDER_TARGETS:
            lines.append(self._fps_line(agents, fps, "render_fps", rendered))
        worst = max((row["overlap_max"] for row in self._all_rows()), default=None)
        target = f"- overlap_max <= {OVERLAP_TARGET:g} of the radii's sum at every size"
        if worst is None:
            lines.append(f"{target}: not measured")
        else:
            verdict = "met" if worst <= OVERLAP_TARGET else "NOT met"
            lines.append(f"{target}: {worst:.3f}, {verdict}")
        agents, fps = EARLIER_TARGET
        earlier = (
            f"- {agents} agents on the {grid} crowd scene at >= {fps:.0f} simulated fps "
            "(whole sim step, no rendering)"
        )
        row = self._row(agents)
        if row is None:
            lines.append(f"{earlier}: not measured (no {agents}-agent run)")
        else:
            verdict = "met" if row["sim_fps"] >= fps else "NOT met"
            lines.append(f"{earlier}: {row['sim_fps']:.1f} fps, {verdict}")
        return lines

    def _all_rows(self) -> tuple[dict[str, Any], ...]:
        return (*self.results, *self.groups)

    def _row(self, agents: int) -> dict[str, Any] | None:
        return next((r for r in self.results if r["n_agents"] == agents), None)

    def _group_line(self) -> str:
        groups, each, fps = GROUP_TARGET
        target = (
            f"- {groups} goal groups x {each} agents at >= {fps:.0f} simulated fps "
            "(whole sim step, no rendering)"
        )
        row = next(
            (r for r in self.groups if r["groups"] == groups and r["n_agents"] == groups * each),
            None,
        )
        if row is None:
            return f"{target}: not measured (no {groups} x {each} run)"
        verdict = "met" if row["sim_fps"] >= fps else "NOT met"
        return f"{target}: {row['sim_fps']:.1f} fps ({row['sim_cpu_fps']:.1f} per CPU s), {verdict}"

    def _fps_line(self, agents: int, fps: float, key: str, what: str) -> str:
        target = f"- {agents} agents at >= {fps:.0f} {what}"
        row = self._row(agents)
        if row is None:
            return f"{target}: not measured (no {agents}-agent run)"
        if row.get(key) is None:
            return f"{target}: not measured (no window could be opened)"
        verdict = "met" if row[key] >= fps else "NOT met"
        cpu = f" ({row['sim_cpu_fps']:.1f} per CPU s)" if key == "sim_fps" else ""
        return f"{target}: {row[key]:.1f} fps{cpu}, {verdict}"

    def to_json(self) -> dict[str, Any]:
        """``{"sizes": [{"agents", "sim_fps", ...}], "groups": [{"groups", "agents", ...}]}``."""
        return {
            "sizes": [_json_row(row) for row in self.results],
            "groups": [
                {
                    "groups": row["groups"],
                    "agents_per_group": row["n_agents"] // row["groups"],
                    **_json_row(row),
                }
                for row in self.groups
            ],
            "scene": self.scene_name,
            "dt": DT,
        }

    def chart_svg(self) -> str:
        """Each size's simulated (and rendered) fps as a multiple of its target."""
        render_targets = dict(RENDER_TARGETS)
        groups, sim, render = [], [], []
        for agents, fps in SIM_TARGETS:
            row = self._row(agents)
            if row is None:
                continue
            groups.append(f"{agents} agents")
            sim.append(row["sim_fps"] / fps)
            rendered = row.get("render_fps") if agents in render_targets else None
            render.append(0.0 if rendered is None else rendered / render_targets[agents])
        series = [Series("simulated fps / target", "#3a7bd5", tuple(sim), target=1.0)]
        if any(value > 0 for value in render):
            series.append(Series("rendered fps / target", "#e8833a", tuple(render), target=1.0))
        return ratio_bars_svg(
            f"Crowd on {self.scene_name}: fps as a multiple of its target", groups, series
        )


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    render = row.get("render_fps")
    return {
        "agents": row["n_agents"],
        "sim_fps": round(row["sim_fps"], 3),
        "sim_cpu_fps": round(row["sim_cpu_fps"], 3),
        "render_fps": None if render is None else round(render, 3),
        "arrived": row["arrived"],
        "overlap_max": round(row["overlap_max"], 6),
        "sim_seconds": round(row["sim_seconds"], 6),
        "planning_ms_per_sim_s": round(row["planning_ms_per_sim_s"], 3),
        "fields_computed": row["fields_computed"],
        "blocked_cell_frames": row["blocked_cell_frames"],
    }


def bench_crowd(
    sizes: Sequence[int] | None = None,
    *,
    seconds: float | None = None,
    scene_path: Path = CROWD_SCENE,
    render: RenderProbe | None = None,
    progress: Callable[[str], None] | None = None,
    groups: Sequence[tuple[int, int]] | None = None,
) -> CrowdReport:
    """Run `crowd_throughput` for each size (default `SIZES`, `SECONDS` simulated s each).

    Then each (goal groups, agents per group) of `groups` (default `GROUPS`). `render`, when
    given, measures the rendered fps of each size up to `RENDER_MAX`; `progress` is told
    each run as it starts when no progress bar is drawn (stderr is not a terminal).
    """
    scene = load_scene(scene_path)
    seconds = SECONDS if seconds is None else seconds
    sizes = SIZES if sizes is None else sizes
    group_runs = GROUPS if groups is None else groups
    frames = round(seconds / DT)
    bar = Progress(frames * (len(sizes) + len(group_runs)), "bench --crowd")

    def run(agents: int, goal_groups: int, note: str) -> dict[str, Any]:
        if progress is not None and not bar.enabled:
            progress(f"crowd: {note}, {seconds:g} simulated s ...")
        return crowd_throughput(
            agents,
            seconds=seconds,
            scene_path=scene_path,
            groups=goal_groups,
            on_frame=lambda: bar.advance(1, note),
        )

    results = []
    for size in sizes:
        row = run(size, 0, f"{size} agents")
        row["render_fps"] = None if render is None or size > RENDER_MAX else render(size)
        results.append(row)
    grouped = tuple(
        run(count * each, count, f"{count} goal groups x {each} agents")
        for count, each in group_runs
    )
    bar.close()
    return CrowdReport(
        scene_path.name, scene.grid.rows, scene.grid.columns, seconds, tuple(results), grouped
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Print the crowd throughput table and targets (argv: [seconds])."""
    args = list(sys.argv[1:] if argv is None else argv)
    report = bench_crowd(seconds=float(args[0]) if args else None)
    print("\n".join([*report.lines(), "", *report.target_lines()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
