"""Crowd throughput: N agents chasing one End on `scenes/crowd.toml`, headless, no rendering.

`crowd_throughput` builds the scene's grid, obstacles, Start and End on a bare World (no
ShowBase, no window, no models), puts N agents on the crowd's spawn area, steps the world at a
fixed ``dt = 1/60`` and measures what the simulation itself costs: milliseconds of planning per
simulated second, and simulated frames per wall-clock second of the whole sim step (grid sync,
planning, steering). `bench_crowd` does that for N = 50, 200, 1000 and returns a `CrowdReport`:
its table and the issue's target line, which ``sim bench --crowd`` prints and
``sim bench --write-results`` writes into benchmarks/RESULTS.md (``python -m sim.bench.crowd``
prints it too).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from panda3d.core import NodePath

from sim.bench.tables import pipe_table
from sim.components.agent_controller import AgentController, AgentState
from sim.components.crowd import CrowdField
from sim.components.grid_manager import GridManager
from sim.config import SCENES_DIR, AgentConfig, Tag
from sim.engine import GameObject, World
from sim.scene.file import crowd_positions, load_scene
from sim.scene.spec import SceneSpec

CROWD_SCENE = SCENES_DIR / "crowd.toml"
DT = 1.0 / 60.0
SIZES = (50, 200, 1000)
SECONDS = 10.0
"""Simulated seconds each crowd size runs."""
SEED = 1
TARGET_AGENTS = 200
TARGET_FPS = 60.0
"""The issue's target: `TARGET_AGENTS` agents on the crowd scene at this many simulated fps."""


def crowd_throughput(
    n_agents: int, *, seconds: float = 10.0, scene_path: Path = CROWD_SCENE
) -> dict[str, Any]:
    """Step `n_agents` agents of the crowd scene for `seconds` simulated seconds; time it.

    The agents spawn on a seeded jittered lattice over the rectangle the scene's own agents
    occupy, with the scene's first agent's settings.

    Returns:
        ``n_agents``, ``sim_seconds``, ``frames``, ``planning_ms_per_sim_s`` (fields and
        waypoints), ``sim_fps`` (simulated frames per wall-clock second of ``World.step``),
        ``arrived`` (agents at End when it stopped), ``fields_computed`` and
        ``blocked_cell_frames`` (summed over the agents; 0 when no agent entered a wall).

    Raises:
        ValueError: for fewer than 1 agent or a non-positive duration.
    """
    if n_agents < 1:
        raise ValueError(f"n_agents must be >= 1, got {n_agents!r}")
    if not seconds > 0.0:
        raise ValueError(f"seconds must be > 0, got {seconds!r}")
    scene = load_scene(scene_path)
    world = World(NodePath("crowd-bench"))
    grid = world.spawn("grid-manager").add_component(_grid_manager(scene))
    crowd = world.spawn("crowd-field").add_component(CrowdField(grid))
    for spec in scene.objects:
        if spec.tag is not Tag.AGENT:
            node = world.root.attach_new_node(spec.name)
            node.set_pos(*spec.pos)
            node.set_scale(*spec.scale)
            node.set_h(spec.heading)
            world.add(GameObject(node, tag=spec.tag))
    agents = _add_agents(world, grid, crowd, scene, n_agents)
    frames = round(seconds / DT)
    began = time.perf_counter()
    for _ in range(frames):
        world.step(DT)
    wall_s = time.perf_counter() - began
    return {
        "n_agents": n_agents,
        "sim_seconds": frames * DT,
        "frames": frames,
        "planning_ms_per_sim_s": crowd.planning_ms / (frames * DT),
        "sim_fps": frames / wall_s,
        "arrived": sum(agent.state is AgentState.ARRIVED for agent in agents),
        "fields_computed": crowd.fields_computed,
        "blocked_cell_frames": sum(agent.blocked_cell_frames for agent in agents),
    }


def _grid_manager(scene: SceneSpec) -> GridManager:
    spec = scene.grid
    return GridManager(
        origin=spec.origin,
        num_of_rows=spec.rows,
        num_of_columns=spec.columns,
        grid_cell_size=spec.cell_size,
        connectivity=spec.connectivity,
        show_grid=False,
        show_obstacle_blocks=False,
    )


def _add_agents(
    world: World, grid: GridManager, crowd: CrowdField, scene: SceneSpec, count: int
) -> list[AgentController]:
    specs = scene.objects_with_tag(Tag.AGENT)
    if not specs:
        raise ValueError(f"{scene.path}: no agents to take a spawn area from")
    xs, ys = [spec.pos[0] for spec in specs], [spec.pos[1] for spec in specs]
    area = (min(xs), min(ys), max(xs), max(ys))
    config = specs[0].agent or AgentConfig()
    agents = []
    for number, (x, y) in enumerate(crowd_positions(count, area, SEED), start=1):
        node = world.root.attach_new_node(f"crowd-{number}")
        node.set_pos(x, y, 0.0)
        node.set_h(specs[0].heading)
        agent_object = world.add(GameObject(node, tag=Tag.AGENT))
        agents.append(agent_object.add_component(AgentController(grid, config, crowd=crowd)))
    return agents


@dataclass(frozen=True, slots=True)
class CrowdReport:
    """The throughput of each crowd size on one scene (rows of `crowd_throughput`)."""

    scene_name: str
    grid_rows: int
    grid_columns: int
    seconds: float
    results: tuple[dict[str, Any], ...]

    def title(self) -> str:
        """One line: the scene, its grid and how long each crowd ran."""
        return (
            f"Crowd throughput on {self.scene_name} ({self.grid_columns}x{self.grid_rows} cells), "
            f"{self.seconds:g} simulated s per size, dt 1/60, headless, no rendering"
        )

    def table(self) -> list[list[str]]:
        """Header and one line per crowd size, as strings."""
        lines = [["agents", "planning ms / sim s", "sim fps", "arrived", "fields"]]
        for row in self.results:
            lines.append(
                [
                    str(row["n_agents"]),
                    f"{row['planning_ms_per_sim_s']:.1f}",
                    f"{row['sim_fps']:.1f}",
                    str(row["arrived"]),
                    str(row["fields_computed"]),
                ]
            )
        return lines

    def lines(self) -> list[str]:
        """The title and the table (valid Markdown)."""
        return [self.title(), "", *pipe_table(self.table())]

    def target_line(self) -> str:
        """The issue's crowd target, met or not, with the number (Markdown list item)."""
        target = (
            f"{TARGET_AGENTS} agents on the {self.grid_columns}x{self.grid_rows} crowd scene at >= "
            f"{TARGET_FPS:.0f} simulated fps (whole sim step, no rendering)"
        )
        row = next((r for r in self.results if r["n_agents"] == TARGET_AGENTS), None)
        if row is None:
            return f"- {target}: not measured (no {TARGET_AGENTS}-agent run)"
        verdict = "met" if row["sim_fps"] >= TARGET_FPS else "NOT met"
        return f"- {target}: {row['sim_fps']:.1f} fps, {verdict}"


def bench_crowd(
    sizes: Sequence[int] | None = None,
    *,
    seconds: float | None = None,
    scene_path: Path = CROWD_SCENE,
) -> CrowdReport:
    """Run `crowd_throughput` for each size (default `SIZES`, `SECONDS` simulated s each)."""
    scene = load_scene(scene_path)
    seconds = SECONDS if seconds is None else seconds
    results = tuple(
        crowd_throughput(size, seconds=seconds, scene_path=scene_path)
        for size in (SIZES if sizes is None else sizes)
    )
    return CrowdReport(scene_path.name, scene.grid.rows, scene.grid.columns, seconds, results)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the crowd throughput table and target for N = 50, 200, 1000 (argv: [seconds])."""
    args = list(sys.argv[1:] if argv is None else argv)
    report = bench_crowd(seconds=float(args[0]) if args else None)
    print("\n".join([*report.lines(), "", report.target_line()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
