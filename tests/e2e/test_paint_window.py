"""Painting walls, the top-down view and a Moving AI map in a real window (Xvfb, plain XTEST)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.components.ground_view import LABEL_CARDS
from sim.editor.wall_batch import BATCH_MIN
from sim.navigation import box_footprint, transform_box
from sim.navigation.maps.movingai import read_map, read_scenarios
from sim.scene.file import load_scene
from sim.scene.layout import grid_cell
from sim.ui.layout import dock_frame
from tests.e2e.test_search_window import read_png
from tests.helpers.paths import DEFAULT_SCENE, REPO_ROOT, artifact
from tests.helpers.pixels import near, rgb
from tests.helpers.window import RunningApp, needs_x, screenshot, wait_until, xvfb

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(240)]

SMALL_MAP = REPO_ROOT / "experiments" / "maps" / "den312d.map"  # 65 x 81, shipped for the demo


class Screen:
    """Window pixels of grid cells in the top-down view, from Start's and End's report entries.

    Seen from straight above through an orthographic lens, pixels are a linear function of
    world x and y; Start and End (on different rows and columns) pin that function down.
    """

    def __init__(self, report: dict) -> None:
        grid = report["grid"]
        self.origin, self.size = grid["origin"], grid["cell_size"]
        ends = {obj["name"]: obj for obj in report["objects"] if obj["name"] in ("start", "end")}
        (ax, ay, _), (bx, by, _) = (ends[name]["pos"] for name in ("start", "end"))
        (apx, apy), (bpx, bpy) = (ends[name]["screen"] for name in ("start", "end"))
        self.x_scale, self.y_scale = (bpx - apx) / (bx - ax), (bpy - apy) / (by - ay)
        self.x0, self.y0 = apx - ax * self.x_scale, apy - ay * self.y_scale

    def cell(self, row: int, col: int) -> tuple[int, int]:
        x = self.origin[0] + (col + 0.5) * self.size
        y = self.origin[1] + (row + 0.5) * self.size
        return round(self.x0 + x * self.x_scale), round(self.y0 + y * self.y_scale)


def keys(app: RunningApp, *names: str) -> None:
    app.xdotool("windowfocus", "--sync", app.window)
    app.xdotool("key", "--delay", "150", *names, timeout_s=30)


def stroke(app: RunningApp, start, end, *, button: str = "1", steps: int = 2) -> None:
    """Press at `start`, move to `end` in a few big steps, release (plain XTEST events)."""
    x0, y0 = window_origin(app)
    args = ["mousemove", str(x0 + start[0]), str(y0 + start[1]), "sleep", "0.3"]
    args += ["mousedown", button, "sleep", "0.3"]
    for i in range(1, steps + 1):
        x = round(start[0] + (end[0] - start[0]) * i / steps)
        y = round(start[1] + (end[1] - start[1]) * i / steps)
        args += ["mousemove", str(x0 + x), str(y0 + y), "sleep", "0.2"]
    args += ["sleep", "0.3", "mouseup", button, "sleep", "0.3"]
    app.xdotool(*args, timeout_s=60)


def window_origin(app: RunningApp) -> tuple[int, int]:
    shell = app.xdotool("getwindowgeometry", "--shell", app.window)
    values = dict(line.split("=", 1) for line in shell.split() if "=" in line)
    return int(values["X"]), int(values["Y"])


def rasterized(scene) -> np.ndarray:
    grid = scene.grid
    walkable = np.ones((grid.rows, grid.columns), dtype=bool)
    for spec in scene.objects:
        if spec.tag != "Obstacle":
            continue
        box = transform_box(spec.pos[0], spec.pos[1], spec.scale[0], spec.scale[1], spec.heading)
        footprint = box_footprint(box, walkable.shape, origin=grid.origin, cell_size=grid.cell_size)
        walkable[footprint.rows, footprint.cols] &= ~footprint.mask
    return walkable


def test_paint_a_stroke_erase_part_of_it_undo_and_save_in_the_top_down_view(tmp_path):
    saved = tmp_path / "painted.toml"
    shot = artifact("paint_window.png")
    with xvfb() as display:
        app = RunningApp(display, DEFAULT_SCENE, tmp_path, "--save-as", str(saved))
        try:
            app.wait_for_window()
            wait_until(lambda: app.report()["path"]["found"], 30)
            keys(app, "7", "i")
            wait_until(lambda: app.report()["camera"]["pitch_deg"] == -90.0, 20)
            screen = Screen(app.wait_for_next_report())
            blocked = app.report()["grid"]["blocked_cells"]

            stroke(app, screen.cell(1, 4), screen.cell(1, 12))
            wait_until(lambda: app.report()["grid"]["blocked_cells"] == blocked + 9, 20)
            stroke(app, screen.cell(1, 7), screen.cell(1, 9), button="3")
            wait_until(lambda: app.report()["grid"]["blocked_cells"] == blocked + 6, 20)
            keys(app, "ctrl+z")
            wait_until(lambda: app.report()["grid"]["blocked_cells"] == blocked + 9, 20)
            # A second stroke, then an undo: only that stroke goes.
            stroke(app, screen.cell(0, 4), screen.cell(0, 8))
            wait_until(lambda: app.report()["grid"]["blocked_cells"] == blocked + 14, 20)
            keys(app, "ctrl+z")
            wait_until(lambda: app.report()["grid"]["blocked_cells"] == blocked + 9, 20)
            stroke(app, screen.cell(5, 0), screen.cell(5, 3))  # a short wall for the picture
            keys(app, "ctrl+s")
            wait_until(saved.exists, 20)
            screenshot(display, shot)
            keys(app, "Escape")
            assert app.wait_exit() == 0
        finally:
            app.stop()
    walkable = rasterized(load_scene(saved))
    assert walkable[1, 4:13].tolist() == [False] * 9, "the erase was undone, the stroke saved"
    assert walkable[0, 4:9].tolist() == [True] * 5, "the undone stroke is not saved"
    assert walkable[5, 0:4].tolist() == [False] * 4
    walls = [spec for spec in load_scene(saved).objects if spec.name.startswith("wall-")]
    assert len(walls) == 2, "each run of painted cells is one box"


def test_a_moving_ai_map_opens_with_its_walls_and_the_scenarios_start_and_end(tmp_path):
    saved = tmp_path / "den312d.toml"
    shot = artifact("map_window.png")
    walkable = read_map(SMALL_MAP).walkable
    scenario = read_scenarios(SMALL_MAP.with_name(SMALL_MAP.name + ".scen"))[3]
    with xvfb() as display:
        app = RunningApp(
            display,
            SMALL_MAP,
            tmp_path,
            "--scen",
            str(scenario_file()),
            "--index",
            "3",
            "--save-as",
            str(saved),
        )
        try:
            app.wait_for_window()
            report = app.wait_for_next_report()
            keys(app, "ctrl+s")
            wait_until(saved.exists, 20)
            screenshot(display, shot)
            keys(app, "Escape")
            assert app.wait_exit() == 0
        finally:
            app.stop()
    height = walkable.shape[0]
    assert (report["grid"]["rows"], report["grid"]["columns"]) == walkable.shape
    assert report["grid"]["blocked_cells"] == np.count_nonzero(~walkable)
    boxes = [obj for obj in report["objects"] if obj["tag"] == "Obstacle"]
    assert len(boxes) < np.count_nonzero(~walkable) / 3, "walls merged into few boxes"
    ends = {obj["name"]: obj for obj in report["objects"] if obj["tag"] in ("Start", "End")}
    grid = report["grid"]
    for name, cell in (("start", scenario.start), ("end", scenario.goal)):
        x, y, _ = ends[name]["pos"]
        col = int((x - grid["origin"][0]) // grid["cell_size"])
        row = int((y - grid["origin"][1]) // grid["cell_size"])
        assert (row, col) == grid_cell(cell, height), name
        assert ends[name]["screen"] is not None, f"{name} is on screen"
    np.testing.assert_array_equal(rasterized(load_scene(saved))[::-1], walkable)


def scenario_file():
    return SMALL_MAP.with_name(SMALL_MAP.name + ".scen")


BIG_MAP = REPO_ROOT / "experiments" / "maps" / "8room_000.map"  # 512 x 512, shipped for the demo


def test_a_512_map_draws_its_batched_walls_and_start_and_end_in_a_real_window(tmp_path):
    shot = artifact("map_512_window.png")
    with xvfb() as display:
        app = RunningApp(display, BIG_MAP, tmp_path, "--save-as", str(tmp_path / "room.toml"))
        try:
            app.wait_for_window(timeout_s=90)
            report = app.wait_for_next_report(timeout_s=90)
            screenshot(display, shot)
            origin = window_origin(app)
            keys(app, "Escape")
            assert app.wait_exit() == 0
        finally:
            app.stop()
    boxes = [obj for obj in report["objects"] if obj["tag"] == "Obstacle"]
    assert len(boxes) >= BATCH_MIN, "enough boxes for the batch"
    image = read_png(shot)
    for name in ("start", "end"):
        [entry] = [obj for obj in report["objects"] if obj["name"] == name]
        assert entry["screen"] is not None, f"{name} is on screen"
    for tag, card in LABEL_CARDS.items():
        assert near(image, rgb(card), 30).sum() > 40, f"the {tag} label shows"
    # The camera looks at the grid's middle: around the viewport's centre lie the rooms, whose
    # walls (one cell in nine) draw a lattice over the ground's one flat colour.
    viewport = dock_frame(tuple(report["window"]["size"])).viewport
    x = origin[0] + viewport.left + viewport.width // 2
    y = origin[1] + viewport.top + viewport.height // 2
    rooms = image[y - 50 : y + 50, x - 50 : x + 50].astype(int).sum(axis=2)
    assert rooms.std() > 15, "the walls show"
