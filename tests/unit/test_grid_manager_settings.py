"""The app's planner hands find_path its settings as values, and the default scene's query takes
the short way (`sim.navigation.hot_path`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from panda3d.core import NodePath

from sim.components.grid_manager import GridManager
from sim.config import Tag
from sim.engine import GameObject, World
from sim.navigation import (
    DiagonalRule,
    SearchSettings,
    find_path,
    find_path_with,
    hot_path,
    pathfinder,
)
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import kernel
from sim.scene.file import load_scene
from tests.helpers.paths import DEFAULT_SCENE

pytestmark = pytest.mark.skipif(not kernel.JPS_AVAILABLE, reason="needs the _jps extension")


@pytest.fixture
def hot_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any, Any]]:
    """Every call `find_path_with` makes of the short way, in order."""
    calls: list[tuple[Any, Any, Any]] = []

    def counted(walkable: Any, start: Any, goal: Any) -> Any:
        calls.append((walkable, start, goal))
        return hot_path.plan(walkable, start, goal)

    monkeypatch.setattr(pathfinder, "_common_plan", counted)
    region_cache.clear()
    return calls


def default_scene_grid() -> tuple[GridManager, tuple[float, float], tuple[float, float]]:
    """scenes/default.toml's GridManager on a bare World, and its Start and End points."""
    scene = load_scene(DEFAULT_SCENE)
    world = World(NodePath("root"))
    spec = scene.grid
    manager = world.spawn("grid-manager").add_component(
        GridManager(
            origin=spec.origin,
            num_of_rows=spec.rows,
            num_of_columns=spec.columns,
            grid_cell_size=spec.cell_size,
            rule=spec.rule,
            show_grid=False,
            show_obstacle_blocks=False,
        )
    )
    for obj in scene.objects:
        node = world.root.attach_new_node(obj.name)
        node.set_pos(*obj.pos)
        node.set_scale(*obj.scale)
        node.set_h(obj.heading)
        world.add(GameObject(node, tag=str(obj.tag)))
    manager.sync_obstacles()
    (start,) = (obj.pos[:2] for obj in scene.objects_with_tag(Tag.START))
    (end,) = (obj.pos[:2] for obj in scene.objects_with_tag(Tag.END))
    return manager, (start[0], start[1]), (end[0], end[1])


def test_the_default_scenes_query_takes_the_short_way(hot_calls: list[Any]) -> None:
    grid, start, end = default_scene_grid()
    outcome = grid.plan(start, end)
    assert outcome.found
    assert len(hot_calls) == 1
    walkable, start_cell, goal_cell = hot_calls[0]
    assert walkable is grid.walkable
    region_cache.clear()
    general = find_path(grid.walkable, start_cell, goal_cell, implementation="c")
    assert (outcome.cells, outcome.expanded) == (general.cells, general.expanded)
    assert outcome.cost == pytest.approx(general.cost * grid.grid_cell_size)


def test_another_rule_leaves_the_short_way_alone(hot_calls: list[Any]) -> None:
    grid, start, end = default_scene_grid()
    grid.set_planning(diagonal=DiagonalRule.ALWAYS)
    assert grid.plan(start, end).found
    assert hot_calls == []


@pytest.mark.parametrize(
    "diagonal",
    [True, np.True_, "no-corner-cutting", DiagonalRule.NO_CORNER_CUTTING],
    ids=["true", "numpy-true", "name", "rule"],
)
def test_every_spelling_of_the_default_rule_takes_the_short_way(
    hot_calls: list[Any], diagonal: object
) -> None:
    walkable = np.ones((6, 6), dtype=bool)
    result = find_path(walkable, (0, 0), (5, 4), diagonal=diagonal)  # type: ignore[arg-type]
    assert len(hot_calls) == 1
    assert result == find_path(walkable, (0, 0), (5, 4), implementation="c")


def test_settings_equal_to_the_defaults_take_the_short_way(hot_calls: list[Any]) -> None:
    walkable = np.ones((4, 4), dtype=bool)
    find_path_with(walkable, (0, 0), (3, 3), SearchSettings(rule=DiagonalRule.NO_CORNER_CUTTING))
    assert len(hot_calls) == 1
    find_path_with(walkable, (0, 0), (3, 3), SearchSettings(costs=np.ones((4, 4))))
    assert len(hot_calls) == 1
