"""A map's many boxes drawn as a few meshes, and the grid that stops re-reading them each frame."""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import ConfigVariableDouble, Point3, TransformState

from sim.config import Tag
from sim.editor.wall_batch import BATCH_MIN, WallBatch
from sim.engine.showbase import STATE_COLLECT_RATE
from sim.scene.layout import map_scene_text
from tests.helpers.pixels import screenshot_rgb
from tests.helpers.virtual_mouse import LEFT, Mouse

pytestmark = pytest.mark.render

SIDE = 48


def checker_map() -> np.ndarray:
    """Walkable everywhere but for isolated blocked cells on every other row and column."""
    walkable = np.ones((SIDE, SIDE), dtype=bool)
    walkable[1::2, 1::2] = False  # (SIDE / 2) ** 2 = 576 one-cell boxes: over BATCH_MIN
    return walkable


@pytest.fixture
def map_app(open_app, tmp_path):
    path = tmp_path / "checker.toml"
    walkable = checker_map()
    path.write_text(map_scene_text(walkable, name="checker", endpoints=((0, 0), (SIDE - 1, 0))))
    app = open_app(path)
    mouse = Mouse(app)
    app.step()
    return app, mouse, walkable


def batch_of(app) -> WallBatch:
    [found] = [c for obj in app.world.objects for c in obj.components if isinstance(c, WallBatch)]
    return found


def boxes(app):
    return [obj for obj in app.objects if obj.alive and obj.tag == Tag.OBSTACLE]


def test_unused_states_are_still_freed_when_a_frame_visits_a_fraction_of_them(map_app):
    app, _, _ = map_app
    rate = ConfigVariableDouble("garbage-collect-states-rate").get_value()
    assert rate == pytest.approx(STATE_COLLECT_RATE)
    before = TransformState.get_num_states()
    made = [TransformState.make_pos((index + 0.25, 0.5, 0.0)) for index in range(5000)]
    assert TransformState.get_num_states() >= before + len(made)
    del made
    for _ in range(round(4 / STATE_COLLECT_RATE)):
        app.step()
    assert TransformState.get_num_states() < before + 500


def test_many_standing_boxes_are_one_mesh_and_their_own_models_hide(map_app):
    app, _mouse, walkable = map_app
    batch = batch_of(app)
    assert len(boxes(app)) == np.count_nonzero(~walkable) >= BATCH_MIN
    assert batch.size == len(boxes(app))
    assert all(obj.node.is_hidden() for obj in boxes(app))
    assert batch.node.find_all_matches("**/+LODNode").get_num_paths() == 1, "48 cells: one tile"
    assert app.grid.blocked_cells() == np.count_nonzero(~walkable)


def test_the_hidden_boxes_hang_under_one_hidden_node_the_renderer_skips(map_app):
    app, _mouse, _walkable = map_app
    batch = batch_of(app)
    assert all(obj.node.get_parent() == batch.held for obj in boxes(app))
    assert batch.held.node().is_overall_hidden(), "the cull traversal stops at this one node"
    assert not any(obj.node.node().is_overall_hidden() for obj in boxes(app))


def test_only_the_cells_no_wall_stands_on_whole_are_shaded(map_app):
    app, _mouse, _walkable = map_app
    shown = app.gizmos.keys()
    assert "blocked" not in shown, "every blocked cell has a wall on it"
    box = boxes(app)[0]
    box.node.set_scale(0.5, 0.5, 1.0)
    app.grid.sync_obstacles()  # what every edit calls
    app.step()
    assert not app.grid.walkable[app.grid.world_to_cell(*box.xy)]
    shown = app.gizmos.keys()
    assert "blocked" in shown, "the small box leaves its cell's shading bare"


def test_the_mesh_shows_the_boxes_where_they_stand(map_app):
    app, _mouse, _walkable = map_app
    app.base.graphicsEngine.render_frame()
    with_mesh = screenshot_rgb(app.base.win)
    batch_of(app).node.hide()
    app.base.graphicsEngine.render_frame()
    without = screenshot_rgb(app.base.win)
    changed = np.abs(with_mesh.astype(int) - without.astype(int)).max(axis=2) > 30
    assert changed.sum() > 2000, "the boxes do not show"


def test_a_hidden_box_is_still_picked_and_dragged_alone(map_app):
    app, mouse, _walkable = map_app
    batch = batch_of(app)
    box = boxes(app)[len(boxes(app)) // 2]
    rebuilds = batch.rebuilds
    start = app.screen_of(box)
    target = app.grid.cell_to_world((0, SIDE // 2))
    end = app.screen_of_point(Point3(target[0], target[1], 0.5))
    mouse.move(start)
    mouse.virtual.press_button(LEFT)
    app.step()
    mouse.move(((start[0] + end[0]) / 2, (start[1] + end[1]) / 2))
    assert app.editor.drag.dragged is box
    assert not box.node.is_hidden(), "the dragged box shows itself"
    assert batch.size == len(boxes(app)) - 1
    mouse.move(end)
    mouse.virtual.release_button(LEFT)
    app.step()
    assert app.grid.world_to_cell(*box.xy) == (0, SIDE // 2)
    assert not app.grid.walkable[0, SIDE // 2], "the grid followed the drop"
    assert box.node.is_hidden()
    assert batch.size == len(boxes(app))
    assert batch.rebuilds == rebuilds + 2, "once when the drag began, once on the drop"


def test_the_grid_does_not_reread_settled_boxes_each_frame(map_app):
    app, _mouse, _walkable = map_app
    box = boxes(app)[0]
    cell = app.grid.world_to_cell(*box.xy)
    rasterized = app.grid.rasterized_footprints
    for _ in range(3):
        app.step()
    assert app.grid.rasterized_footprints == rasterized
    box.node.set_x(box.node.get_x() + 1.0)  # moved behind the editor's back: not seen
    app.step()
    assert not app.grid.walkable[cell]
    app.grid.sync_obstacles()  # what every edit calls
    assert app.grid.walkable[cell]


SHOVE = '''
from sim.scripting import Script


class Shove(Script):
    """Move the object called "block" two cells east, once, a few frames in."""

    def update(self, dt):
        block = self.world.find("block")
        if self.world.time_s > 0.05 and block.position[0] < 0:
            x, y, z = block.position
            block.position = (x + 2.0, y, z)
'''

SHOVED_SCENE = """
version = 1
name = "shoved"
[grid]
origin = [-5.0, -5.0]
rows = 10
columns = 10
cell_size = 1.0
[[objects]]
name = "block"
tag = "Obstacle"
model = "cube"
pos = [-0.5, 0.5, 0.0]
[[objects]]
name = "pusher"
tag = "Untagged"
model = "cube"
pos = [3.5, 3.5, 0.0]
[[objects.scripts]]
file = "shove.py"
class = "Shove"
"""


def test_in_a_scene_with_scripts_the_grid_follows_a_box_a_script_moves(open_app, tmp_path):
    (tmp_path / "shove.py").write_text(SHOVE)
    path = tmp_path / "shoved.toml"
    path.write_text(SHOVED_SCENE)
    app = open_app(path)
    app.step()
    block = next(obj for obj in app.objects if obj.name == "block")
    assert not app.paint.standing_cube(block), "a script may move it: it never settles"
    for _ in range(10):
        app.step()
    assert app.grid.world_to_cell(*block.xy) == (5, 6)
    assert not app.grid.walkable[5, 6]
    assert app.grid.walkable[5, 4]
