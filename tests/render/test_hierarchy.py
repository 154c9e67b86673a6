"""The hierarchy panel offscreen: rows follow the scene, a row selects, a double-click frames."""

from __future__ import annotations

import math

import pytest
from panda3d.core import MouseButton, NodePath

from sim.config import Tag
from sim.editor.hierarchy import MIN_FRAME_DISTANCE
from sim.ui.list_panel import WHEEL_ROWS, ListPanel
from tests.helpers.paths import SCENES_DIR
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

DEFAULT_ROWS = (
    "start · Start",
    "end · End",
    "agent · Agent",
    "long_wall · Obstacle",
    "low_wall · Obstacle",
    "block_south · Obstacle",
    "block_north · Obstacle",
    "slanted_wall · Obstacle",
    "diamond · Obstacle",
    "pillar · Obstacle",
)


def rows(app) -> tuple[str, ...]:
    app.step()  # the panel follows the scene once a frame
    return app.workspace.hierarchy.panel.rows


def row_of(app, label: str) -> int:
    return rows(app).index(label)


def test_every_object_has_a_row_by_name_and_tag_in_the_scenes_order(default_scene):
    app, _mouse = default_scene
    assert rows(app) == DEFAULT_ROWS


def test_a_crowd_is_one_row_that_counts_its_agents(open_app):
    app = open_app(SCENES_DIR / "crowd.toml")
    crowd = app.options.scene.crowds[0]
    listed = rows(app)
    assert f"{crowd.name} · crowd of {crowd.count} agents" in listed
    assert not any(label.startswith(f"{crowd.name}-") for label in listed)
    assert len(listed) == len(app.options.scene.listed_objects) + 1


def test_rows_follow_an_added_and_a_removed_obstacle_and_their_undo(default_scene):
    app, _mouse = default_scene
    added = app.editor.add_obstacle(7.5, -5.5)
    assert rows(app) == (*DEFAULT_ROWS, f"{added.name} · Obstacle")
    app.editor.undo()
    assert rows(app) == DEFAULT_ROWS
    app.editor.remove(app.world.find("pillar"))
    assert "pillar · Obstacle" not in rows(app)
    app.editor.undo()
    assert rows(app) == DEFAULT_ROWS, "the pillar comes back in its place"


def test_a_click_on_a_row_selects_as_a_click_in_the_scene_and_the_inspector_shows_it(
    default_scene,
):
    app, _mouse = default_scene
    app.workspace.hierarchy.panel.press_row(row_of(app, "long_wall · Obstacle"))
    app.step()
    assert app.editor.selected is app.world.find("long_wall")
    assert "long_wall (Obstacle)" in app.inspector.panel.text
    assert app.report()["editor"]["selected"] == "long_wall"
    assert app.editor.history.undo_depth == 0, "selecting is no edit"


def test_a_click_in_the_scene_highlights_the_objects_row(default_scene):
    app, mouse = default_scene
    end = app.world.find("end")
    mouse.click(app.screen_of(end))
    assert app.editor.selected is end
    panel = app.workspace.hierarchy.panel
    rows(app)
    assert panel.selected == DEFAULT_ROWS.index("end · End")


def test_a_double_click_frames_the_row_and_f_frames_the_selection(default_scene):
    app, mouse = default_scene
    home = app.camera.pose
    panel = app.workspace.hierarchy.panel
    row = row_of(app, "pillar · Obstacle")
    panel.press_row(row)
    assert app.camera.pose == home, "one click only selects"
    panel.press_row(row)
    pillar = app.world.find("pillar")
    x, y = pillar.xy
    pose = app.camera.pose
    assert math.dist(pose.target[:2], (x, y)) < 1e-4
    assert MIN_FRAME_DISTANCE <= pose.distance < home.distance, "closer, not inside it"
    assert (pose.heading_deg, pose.pitch_deg) == (home.heading_deg, home.pitch_deg)
    app.step()
    pixel = app.screen_of(pillar)
    width, height = app.window_size()
    assert pixel is not None
    assert math.dist(pixel, (width / 2, height / 2)) < height * 0.15
    mouse.key("c")
    assert app.camera.pose == home
    mouse.key("f")
    assert math.dist(app.camera.pose.target[:2], (x, y)) < 1e-4, "F frames the selection"


def test_the_report_says_where_each_drawn_row_is_on_screen(default_scene):
    app, _mouse = default_scene
    rows(app)
    drawn = app.report()["editor"]["hierarchy"]
    # The docked list is half a window tall: the first rows show, the rest scroll.
    shown = app.workspace.hierarchy.panel.visible_rows
    assert 5 <= shown < len(DEFAULT_ROWS)
    assert [row["label"] for row in drawn] == list(DEFAULT_ROWS[:shown])
    heights = [row["screen"][1] for row in drawn]
    assert heights == sorted(heights)
    assert len(set(heights)) == len(heights)
    width, height = app.window_size()
    for row in drawn:
        assert 0 <= row["screen"][0] < width / 2
        assert 0 <= row["screen"][1] < height


def test_a_long_list_scrolls_and_a_selected_row_comes_into_view(open_app):
    app = open_app(SCENES_DIR / "crowd.toml")
    for index in range(30):
        app.editor.add_obstacle(-5.5 + index % 10, -5.5 + index // 10)
    panel = app.workspace.hierarchy.panel
    listed = rows(app)
    assert len(listed) > panel.visible_rows
    assert len(panel.drawn) == panel.visible_rows
    last = app.objects[-1]
    assert last.tag == Tag.OBSTACLE
    app.editor.select(last)
    rows(app)
    assert panel.drawn[-1] == f"{last.name} · Obstacle"
    panel.scroll(-1000)
    assert panel.first_row == 0
    assert panel.drawn[0] == listed[0]


def test_a_name_too_long_for_the_row_is_cut_with_an_ellipsis_not_a_dangling_dot(open_app, tmp_path):
    scene = tmp_path / "long.toml"
    text = (SCENES_DIR / "default.toml").read_text(encoding="utf-8")
    scene.write_text(text.replace('name = "block_south"', 'name = "a_very_long_obstacle_name"'))
    app = open_app(scene, size=(800, 600))
    rows(app)
    shown = [
        path.node().get_text()
        for path in app.workspace.hierarchy.panel.node.find_all_matches("**/list-row")
        if "a_very_long" in path.node().get_text()
    ]
    assert shown, "the row is drawn"
    assert shown[0].endswith("\u2026")
    assert not shown[0].rstrip("\u2026").endswith(("\u00b7", " "))


def test_a_row_is_found_under_the_pointer_and_a_third_quick_press_is_a_click():
    clicks: list[int] = []
    doubles: list[int] = []
    now = [0.0]
    panel = ListPanel(
        NodePath("parent"),
        (0.6, 0.5),
        title="t",
        on_click=clicks.append,
        on_double_click=doubles.append,
        clock=lambda: now[0],
    )
    panel.show([f"row {index}" for index in range(20)], None)
    centre = panel.row_centre(2)
    assert centre is not None
    assert panel.row_at(centre[1]) == 2
    assert panel.row_at(0.0) is None, "the title is no row"
    for _ in range(3):
        panel.press_row(2)
        now[0] += 0.1
    assert (clicks, doubles) == ([2, 2, 2], [2])
    now[0] += 1.0
    panel.press_row(2)
    assert doubles == [2], "presses far apart are two clicks"
    panel.destroy()


def test_h_hides_the_hierarchy_and_the_toolbar_with_the_hud(default_scene):
    app, mouse = default_scene
    mouse.key("h")
    assert app.workspace.hierarchy.panel.node.is_hidden()
    assert app.workspace.toolbar.node.is_hidden()
    mouse.key("h")
    assert not app.workspace.hierarchy.panel.node.is_hidden()


def test_an_object_destroyed_outside_the_editor_leaves_the_list(default_scene):
    app, _mouse = default_scene
    app.world.destroy(app.world.find("pillar"))  # as a script's destroy() does
    app.step()
    assert "pillar · Obstacle" not in rows(app)


def test_a_pointer_click_on_a_row_selects_its_object_and_nothing_behind_the_panel(
    default_scene,
):
    app, mouse = default_scene
    # The test's own mouse watcher takes the panels' regions, as the window's does.
    watcher = app.base.dataRoot.find("**/test-watcher").node()
    app.base.aspect2d.node().set_mouse_watcher(watcher)
    rows(app)
    [row] = [r for r in app.report()["editor"]["hierarchy"] if r["label"] == "low_wall · Obstacle"]
    mouse.click(row["screen"])
    assert app.editor.selected is app.world.find("low_wall")
    assert app.editor.history.undo_depth == 0
    first = app.report()["editor"]["hierarchy"][0]["screen"]
    mouse.click((first[0], first[1] - 25))  # on the panel's title

    assert app.editor.selected is app.world.find("low_wall"), "the title is the panel's too"


def test_the_wheel_over_the_list_scrolls_it_and_leaves_the_camera(open_app):
    app = open_app(SCENES_DIR / "crowd.toml")
    mouse = Mouse(app)
    watcher = app.base.dataRoot.find("**/test-watcher").node()
    app.base.aspect2d.node().set_mouse_watcher(watcher)
    for index in range(30):
        app.editor.add_obstacle(-5.5 + index % 10, -5.5 + index // 10)
    panel = app.workspace.hierarchy.panel
    rows(app)
    pose = app.camera.pose
    [first, *_] = app.report()["editor"]["hierarchy"]
    mouse.move(first["screen"])
    mouse.virtual.press_button(MouseButton.wheel_down())
    app.step()
    mouse.virtual.release_button(MouseButton.wheel_down())
    app.step()
    assert panel.first_row == WHEEL_ROWS
    assert app.camera.pose == pose, "the wheel stayed on the panel"


def test_an_obstacle_under_the_panel_is_not_hovered_so_x_leaves_it(default_scene):
    app, mouse = default_scene
    watcher = app.base.dataRoot.find("**/test-watcher").node()
    app.base.aspect2d.node().set_mouse_watcher(watcher)
    pillar = app.world.find("pillar")
    x, y = app.screen_of(pillar)
    width, height = app.window_size()
    # The panel moved over the pillar, its top-left corner a little above and left of it.
    panel = app.workspace.hierarchy.panel.node
    panel.set_pos(app.base.render2d, x / width * 2 - 1.1, 0.0, 1 - y / height * 2 + 0.1)
    mouse.move((x, y))
    mouse.move((x, y))
    assert app.editor.drag.hovered is None
    mouse.key("x")
    assert pillar.alive, "X removes only what the pointer shows"
