"""Read a torture scene's `[torture]` table: its time limit, and how its seeds vary the runs.

The crowd's torture scenes (``scenes/torture/``) each state how long their run may take::

    [torture]
    time_limit_s = 60.0           # required: every agent must have arrived by then
    free_flow_s = 7.5             # optional: overrides the free-flow time computed from the scene
    seeds_vary = "start_jitter"   # optional (the default): how seed N differs from seed 0
    gate = [8.0, 1.0, 8.0, 4.0]   # optional: a segment x0, y0, x1, y1 whose crossings are
                                  # the case's flow (agents per second through a doorway)

The free-flow time is how long the slowest agent would take alone on its shortest path
(`free_flow_seconds`); the benchmark's bound is three times it. With ``seeds_vary =
"start_jitter"`` seed N nudges every agent off its start by up to `START_JITTER` of a cell
(seeded) and shuffles the agents' order (`vary`), so N seeds are N different runs; seed 0 is the
scene as written. A bad value ends in the usual one-line `SceneError`.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Final

import numpy as np
from numpy.typing import NDArray

from sim.config import AgentConfig, Tag
from sim.navigation.field import distance_field
from sim.scene import values
from sim.scene.grid import scene_grid
from sim.scene.spec import SceneSpec, TortureSpec
from sim.scene.values import Reader, Table

TORTURE_KEYS: Final = ("time_limit_s", "free_flow_s", "seeds_vary", "gate")
SEEDS_VARY: Final = ("start_jitter",)
DEFAULT_SEEDS_VARY: str = SEEDS_VARY[0]
START_JITTER: Final = 0.1
"""The farthest seed N nudges an agent off its start, as a fraction of a cell."""
MAX_TIME_LIMIT_S: Final = 3600.0

_seconds = values.within(1e-3, MAX_TIME_LIMIT_S)


Segment = tuple[float, float, float, float]


def read_torture(at: Reader, value: object) -> TortureSpec:
    """Read one `[torture]` table at key path `at`; `time_limit_s` is required.

    >>> read_torture(Reader("x.toml", "torture"), {"time_limit_s": 30})
    TortureSpec(time_limit_s=30.0, free_flow_s=None, gate=None, seeds_vary='start_jitter')
    """
    table = Table(at, value, TORTURE_KEYS)
    return TortureSpec(
        time_limit_s=table.get("time_limit_s", _seconds),
        free_flow_s=table.get("free_flow_s", _seconds, None),
        gate=table.get("gate", _segment, None),
        seeds_vary=table.get("seeds_vary", _seeds_vary, DEFAULT_SEEDS_VARY),
    )


def _segment(at: Reader, value: object) -> Segment:
    x0, y0, x1, y1 = values.numbers(at, value, (4,), values.coordinate)
    if (x0, y0) == (x1, y1):
        raise at.error("the gate's two ends must differ")
    return (x0, y0, x1, y1)


def _seeds_vary(at: Reader, value: object) -> str:
    text = values.string(at, value)
    if text not in SEEDS_VARY:
        raise at.error(f"expected {values.either(SEEDS_VARY)}, got {values.short(text)}")
    return text


def free_flow_seconds(scene: SceneSpec, *, stated: float | None = None) -> float:
    """How long the slowest agent of `scene` takes alone on its shortest path, seconds.

    Each agent's path is the distance field's cost from its cell to its target's cell under the
    scene's move rule, in cells, times the cell size, over its speed. `stated` (the file's
    ``free_flow_s``) wins when given.

    Raises:
        ValueError: for a scene without agents, or an agent whose target is missing or walled
            off.
    """
    if stated is not None:
        return stated
    grid = scene_grid(scene)
    by_name = {spec.name: spec for spec in scene.objects}
    end = next((spec for spec in scene.objects if spec.tag is Tag.END), None)
    slowest = 0.0
    agents = scene.objects_with_tag(Tag.AGENT)
    if not agents:
        raise ValueError(f"{scene.path}: no agents to time")
    fields: dict[tuple[int, int], NDArray[np.float64]] = {}
    for spec in agents:
        config = spec.agent or AgentConfig()
        target = by_name.get(config.target) if config.target else end
        if target is None:
            raise ValueError(f"{scene.path}: {spec.name}'s target is not in the scene")
        goal = grid.world_to_cell(target.pos[0], target.pos[1], clamp=True)
        start = grid.world_to_cell(spec.pos[0], spec.pos[1], clamp=True)
        if goal is None or start is None:  # only an empty grid has no cell to clamp to
            raise ValueError(f"{scene.path}: the grid has no cells")
        if goal not in fields:
            fields[goal] = distance_field(grid.walkable, goal, diagonal=scene.grid.rule)
        cells = float(fields[goal][start])
        if not math.isfinite(cells):
            raise ValueError(f"{scene.path}: {spec.name} cannot reach its target")
        slowest = max(slowest, cells * scene.grid.cell_size / config.speed)
    return slowest


def vary(scene: SceneSpec, seed: int) -> SceneSpec:
    """`scene` as seed `seed` runs it: starts nudged and agents shuffled; seed 0 as written.

    Every agent moves by up to `START_JITTER` of a cell in x and y (uniform, seeded), and the
    agents take a seeded order among the objects (the other objects keep theirs), so the
    crowd's rows, and every tie broken by row order, differ from seed to seed.
    """
    if seed == 0:
        return scene
    rng = np.random.default_rng(seed)
    reach = START_JITTER * scene.grid.cell_size
    agents = [index for index, spec in enumerate(scene.objects) if spec.tag is Tag.AGENT]
    objects = list(scene.objects)
    for index in agents:
        spec = objects[index]
        dx, dy = rng.uniform(-reach, reach, size=2)
        objects[index] = replace(spec, pos=(spec.pos[0] + dx, spec.pos[1] + dy, spec.pos[2]))
    order = rng.permutation(len(agents))
    shuffled = [objects[agents[i]] for i in order]
    for index, spec in zip(agents, shuffled, strict=True):
        objects[index] = spec
    return replace(scene, objects=tuple(objects))
