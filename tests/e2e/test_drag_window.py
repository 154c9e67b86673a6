"""Drag cubes with a real pointer (xdotool) in a real window, then check through the report."""

from __future__ import annotations

import math

import pytest

from sim.navigation import Box, box_footprint
from tests.helpers.paths import artifact
from tests.helpers.window import drag, needs_x, screenshot, wait_until

pytestmark = [pytest.mark.e2e, needs_x, pytest.mark.timeout(180)]


def entry(report, name):
    return next(obj for obj in report["objects"] if obj["name"] == name)


def cell_of(report, x, y):
    grid = report["grid"]
    size = grid["cell_size"]
    return [math.floor((y - grid["origin"][1]) / size), math.floor((x - grid["origin"][0]) / size)]


def test_drag_end_then_path_and_agent_follow(window_app):
    before = window_app.report()
    screenshot(window_app.display, artifact("drag-end-before.png"))
    path = before["path"]
    target_index = len(path["cells"]) // 3
    target_cell, target_pixel = path["cells"][target_index], path["screen"][target_index]
    drag(window_app, entry(before, "end")["screen"], target_pixel)

    def moved() -> bool:
        report = window_app.report()
        end = entry(report, "end")["pos"]
        return report["path"]["cells"][-1] == cell_of(report, end[0], end[1])

    wait_until(moved, 20, lambda: f"path {window_app.report()['path']['cells'][-3:]}")
    report = window_app.report()
    end = entry(report, "end")["pos"]
    target_world = [
        report["grid"]["origin"][0] + (target_cell[1] + 0.5) * report["grid"]["cell_size"],
        report["grid"]["origin"][1] + (target_cell[0] + 0.5) * report["grid"]["cell_size"],
    ]
    assert math.dist(end[:2], target_world) < 0.9, "End lies where it was dropped"
    end_cell = cell_of(report, end[0], end[1])
    assert end_cell != cell_of(before, *entry(before, "end")["pos"][:2])

    def arrived_at_end() -> bool:
        # End as it is now: under load `moved` can see the path follow End while the drop is
        # still landing, and an agent that arrived at End's cell before End came to rest within
        # it sets off again on its next interval replan.
        report = window_app.report()
        agent, end = report["agents"][0], entry(report, "end")["pos"]
        return agent["reached_goal"] and math.dist(agent["pos"][:2], end[:2]) <= 0.25 + 1e-6

    wait_until(arrived_at_end, 40, lambda: str(window_app.report()["agents"][0]))
    assert window_app.report()["agents"][0]["blocked_cell_frames"] == 0
    screenshot(window_app.display, artifact("drag-end-after.png"))


def test_drag_obstacle_onto_the_path_reroutes_it(window_app):
    before = window_app.report()
    screenshot(window_app.display, artifact("drag-wall-before.png"))
    path = before["path"]
    middle = len(path["cells"]) // 2
    wall = entry(before, "low_wall")
    drag(window_app, wall["screen"], path["screen"][middle])

    def wall_cells(report) -> set[tuple[int, int]]:
        wall = entry(report, "low_wall")
        box = Box(
            wall["pos"][0], wall["pos"][1], wall["scale"][0], wall["scale"][1], wall["heading"]
        )
        grid = report["grid"]
        covered = box_footprint(
            box,
            (grid["rows"], grid["columns"]),
            origin=tuple(grid["origin"]),
            cell_size=grid["cell_size"],
        )
        rows, cols = covered.mask.nonzero()
        return {
            (covered.row_start + int(r), covered.col_start + int(c))
            for r, c in zip(rows, cols, strict=True)
        }

    wait_until(lambda: entry(window_app.report(), "low_wall")["pos"] != wall["pos"], 20)

    def rerouted() -> bool:
        report = window_app.report()
        return not ({tuple(c) for c in report["path"]["cells"]} & wall_cells(report))

    wait_until(rerouted, 20)
    report = window_app.report()
    covered = wall_cells(report)
    assert {tuple(c) for c in path["cells"]} & covered, "the wall was dropped on the old path"
    assert report["path"]["found"]
    assert not ({tuple(c) for c in report["path"]["cells"]} & covered)
    screenshot(window_app.display, artifact("drag-wall-after.png"))
