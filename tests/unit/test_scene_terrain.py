"""Terrain in scene files: `[objects.terrain]`, its errors, the scene's costs, live and saved."""

from __future__ import annotations

import math
import random
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest
from panda3d.core import NodePath

from sim.components.grid_manager import GridManager
from sim.components.terrain import (
    COST_BANDS,
    COST_CYCLE,
    TerrainPatch,
    cost_band,
    next_cost,
    terrain_color,
)
from sim.config import Tag
from sim.engine import GameObject, World
from sim.scene.file import load_scene, parse_scene
from sim.scene.grid import scene_grid
from sim.scene.merge import ObjectState
from sim.scene.spec import SceneError, SceneSpec
from sim.scene.writer import save_scene
from tests.helpers.paths import SCENES_DIR
from tests.helpers.scenes import GRID_10

TERRAIN_SCENE = SCENES_DIR / "terrain.toml"
HEAD = (
    GRID_10
    + """
[[objects]]
name = "mud"
tag = "{tag}"
model = "cube"
pos = [4.0, 4.0, 0.0]
scale = [2.0, 2.0, 0.05]
"""
)


def document(*, tag: str = "Terrain", table: str = "[objects.terrain]\ncost = 4.0\n") -> str:
    return HEAD.format(tag=tag) + table


def load_text(tmp_path: Path, text: str) -> SceneSpec:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return load_scene(path)


def test_a_terrain_object_carries_its_cost(tmp_path: Path) -> None:
    spec = load_text(tmp_path, document())
    (mud,) = spec.objects_with_tag(Tag.TERRAIN)
    assert (mud.terrain_cost, mud.agent) == (4.0, None)


def test_objects_of_other_tags_have_no_terrain_cost() -> None:
    spec = load_scene(TERRAIN_SCENE)
    costs = {obj.tag: obj.terrain_cost for obj in spec.objects if obj.tag != Tag.TERRAIN}
    assert set(costs.values()) == {None}


@pytest.mark.parametrize("cost", ["0.25", "1", "4.5", "100"], ids=["min", "one", "mud", "max"])
def test_costs_from_a_quarter_to_a_hundred_are_read(tmp_path: Path, cost: str) -> None:
    spec = load_text(tmp_path, document(table=f"[objects.terrain]\ncost = {cost}\n"))
    assert spec.objects[0].terrain_cost == float(cost)


BROKEN = {
    "cost-0": ("[objects.terrain]\ncost = 0\n", "objects[0].terrain.cost: must be > 0, got 0"),
    "cost-negative": (
        "[objects.terrain]\ncost = -2.0\n",
        "objects[0].terrain.cost: must be > 0, got -2.0",
    ),
    "cost-nan": (
        "[objects.terrain]\ncost = nan\n",
        "objects[0].terrain.cost: must be finite, got nan",
    ),
    "cost-too-low": (
        "[objects.terrain]\ncost = 0.2\n",
        "objects[0].terrain.cost: must be at least 0.25, got 0.2",
    ),
    "cost-over-100": (
        "[objects.terrain]\ncost = 100.5\n",
        "objects[0].terrain.cost: must be at most 100, got 100.5",
    ),
    "cost-string": (
        '[objects.terrain]\ncost = "4"\n',
        "objects[0].terrain.cost: expected a number, got string '4'",
    ),
    "cost-missing": ("[objects.terrain]\n", "objects[0].terrain.cost: missing required key"),
    "table-missing": ("", "objects[0].terrain: missing required key"),
    "unknown-key": (
        "[objects.terrain]\ncost = 2\ncots = 3\n",
        "objects[0].terrain.cots: unknown key; did you mean 'cost'?",
    ),
    "not-a-table": ("terrain = 4\n", "objects[0].terrain: expected a table, got integer 4"),
}


@pytest.mark.parametrize(("table", "problem"), BROKEN.values(), ids=BROKEN.keys())
def test_a_bad_terrain_table_is_one_line_naming_the_key(
    tmp_path: Path, table: str, problem: str
) -> None:
    with pytest.raises(SceneError) as caught:
        load_text(tmp_path, document(table=table))
    assert str(caught.value) == f"{tmp_path / 'bad.toml'}: {problem}"


@pytest.mark.parametrize("tag", ["Obstacle", "Start", "Untagged"])
def test_a_terrain_table_on_another_tag_is_refused(tmp_path: Path, tag: str) -> None:
    with pytest.raises(SceneError) as caught:
        load_text(tmp_path, document(tag=tag))
    message = f"objects[0].terrain: only allowed on objects tagged 'Terrain', not '{tag}'"
    assert str(caught.value) == f"{tmp_path / 'bad.toml'}: {message}"


# --- the scene's costs, headless and live ---------------------------------------------------


def live_manager(scene: SceneSpec) -> tuple[World, GridManager, dict[str, GameObject]]:
    """The app's GridManager on a bare World, with each Terrain object's `TerrainPatch`."""
    world = World(NodePath("root"))
    spec = scene.grid
    manager = world.spawn("grid-manager").add_component(
        GridManager(
            origin=spec.origin,
            num_of_rows=spec.rows,
            num_of_columns=spec.columns,
            grid_cell_size=spec.cell_size,
            show_grid=False,
            show_obstacle_blocks=False,
        )
    )
    objects = {}
    for obj in scene.objects:
        node = world.root.attach_new_node(obj.name)
        node.set_pos(*obj.pos)
        node.set_scale(*obj.scale)
        node.set_h(obj.heading)
        game_object = world.add(GameObject(node, tag=str(obj.tag)))
        if obj.terrain_cost is not None:
            game_object.add_component(TerrainPatch(obj.terrain_cost))
        objects[obj.name] = game_object
    manager.sync_obstacles()
    return world, manager, objects


def patchy_scene(seed: int) -> SceneSpec:
    """Overlapping patches and obstacles on odd positions, sizes and headings."""
    rng = random.Random(seed)
    objects = [
        {
            "name": f"thing{number}",
            "tag": rng.choice(["Terrain", "Terrain", "Obstacle"]),
            "model": "cube",
            "pos": [rng.uniform(-6, 6), rng.uniform(-6, 6), 0.0],
            "scale": [rng.uniform(0.1, 5.0), rng.uniform(0.1, 5.0), 0.05],
            "heading": rng.choice([0.0, 90.0, -45.0, 33.3, rng.uniform(-720, 720)]),
        }
        for number in range(20)
    ]
    for obj in objects:
        if obj["tag"] == "Terrain":
            obj["terrain"] = {"cost": rng.choice([0.25, 0.5, 1.5, 4.0, 10.0, 100.0])}
    data = {
        "version": 1,
        "grid": {"origin": [-6.1, -5.9], "rows": 23, "columns": 31, "cell_size": 0.4},
        "objects": objects,
    }
    return parse_scene(data, source=f"patchy-{seed}.toml")


def test_scene_grid_costs_equal_the_live_grid_on_the_terrain_scene() -> None:
    scene = load_scene(TERRAIN_SCENE)
    grid = scene_grid(scene)
    _, manager, _ = live_manager(scene)
    assert grid.costs is not None
    assert manager.costs is not None
    assert grid.costs.tobytes() == manager.costs.tobytes()
    assert grid.walkable.tobytes() == manager.walkable.tobytes()
    assert set(np.unique(grid.costs).tolist()) == {0.7, 1.0, 4.0, 10.0}


@pytest.mark.parametrize("seed", range(4))
def test_scene_grid_costs_equal_the_live_grid_on_overlapping_patches(seed: int) -> None:
    scene = patchy_scene(seed)
    grid = scene_grid(scene)
    _, manager, _ = live_manager(scene)
    assert grid.costs is not None
    assert manager.costs is not None
    assert len(np.unique(grid.costs)) > 2
    assert grid.costs.tobytes() == manager.costs.tobytes()


def test_a_scene_without_terrain_has_no_costs() -> None:
    scene = load_scene(SCENES_DIR / "default.toml")
    assert scene_grid(scene).costs is None
    assert live_manager(scene)[1].costs is None


def test_moving_a_patch_or_changing_its_cost_changes_the_costs_and_the_version() -> None:
    world, manager, objects = live_manager(load_scene(TERRAIN_SCENE))
    mud = objects["mud"]
    version, costs_version, mask_version = (
        manager.version,
        manager.costs_version,
        manager.mask_version,
    )
    mud.get_component(TerrainPatch).cost = 10.0  # type: ignore[union-attr]
    assert manager.sync_obstacles()
    assert manager.costs is not None
    assert manager.costs.max() == 10.0
    assert 4.0 not in manager.costs
    assert manager.costs_version == costs_version + 1
    assert manager.version == version + 1
    assert manager.mask_version == mask_version  # the walkable cells stay as they were
    assert manager.grid.costs is not None
    assert manager.grid.costs.tobytes() == manager.costs.tobytes()
    mud.node.set_x(mud.node.get_x() + 3.0)
    assert manager.sync_obstacles()
    moved = manager.costs.copy()
    assert not manager.sync_obstacles()  # nothing changed since
    world.destroy(mud)
    world.flush_destroyed()
    assert manager.sync_obstacles()
    assert 10.0 in moved
    assert manager.costs.max() == 10.0


def test_the_path_cost_includes_terrain() -> None:
    scene = load_scene(TERRAIN_SCENE)
    _, manager, objects = live_manager(scene)
    plan = manager.plan(objects["start"].xy, objects["end"].xy, smoothing=False)
    costs = scene_grid(scene).costs
    assert plan.found
    assert costs is not None
    paid = sum(math.dist(a, b) * costs[b] for a, b in zip(plan.cells, plan.cells[1:], strict=False))
    assert plan.cost == pytest.approx(paid * scene.grid.cell_size)
    assert any(costs[cell] == 0.7 for cell in plan.cells)  # round the mud by the road


# --- colours and the cost key ---------------------------------------------------------------


def test_every_cost_falls_in_one_band_and_the_cycle_visits_each_step() -> None:
    lows = [band.low for band in COST_BANDS]
    assert lows == sorted(lows)
    assert lows[0] == 0.25
    assert cost_band(99.0) is COST_BANDS[-1]
    assert len({terrain_color(cost) for cost in COST_CYCLE}) == len(COST_CYCLE)
    cost, seen = COST_CYCLE[-1], []
    for _ in COST_CYCLE:
        cost = next_cost(cost)
        seen.append(cost)
    assert seen == list(COST_CYCLE)


# --- saving ---------------------------------------------------------------------------------


def test_saving_keeps_terrain_tables_and_writes_a_dragged_patch_place(tmp_path: Path) -> None:
    source = tmp_path / "terrain.toml"
    shutil.copy(TERRAIN_SCENE, source)
    scene = load_scene(source)
    states = [ObjectState.from_spec(obj) for obj in scene.objects]
    dragged = [
        ObjectState(s.name, s.tag, s.model, (3.0, -1.5, 0.0), s.scale, s.heading)
        if s.name == "mud"
        else s
        for s in states
    ]
    save_scene(source, dragged)
    saved = load_scene(source)
    mud = saved.find("mud")
    assert mud is not None
    assert (mud.pos, mud.terrain_cost) == ((3.0, -1.5, 0.0), 4.0)
    assert [obj.terrain_cost for obj in saved.objects] == [
        obj.terrain_cost for obj in scene.objects
    ]
    data = tomllib.loads(source.read_text())
    assert sum("terrain" in obj for obj in data["objects"]) == 3
