"""The report's schema and validator (sim.app.report): a good report passes, each flaw is named."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest

from sim.app.report import validate_report
from sim.files import write_json_atomic

IDLE_VIEW: dict[str, Any] = {
    "open": False,
    "algorithm": "A*",
    "heuristic": "octile",
    "weight": 1.5,
    "connectivity": 8,
    "diagonal": "no-corner-cutting",
    "playing": False,
    "steps_per_s": 10,
    "show_parents": True,
    "show_numbers": True,
    "restarts": 0,
    "message": "",
    "numbers_shown": 0,
    "search": "astar",
    "race": None,
    "step": None,
    "start": None,
    "goal": None,
    "compare_open": False,
    "compare": [],
    "buttons": {},
    "cost": None,
    "meeting_cell": None,
    "explanation": None,
}

REPORT: dict[str, Any] = {
    "scene": "scenes/default.toml",
    "frames": 60,
    "sim_time_s": 1.0,
    "window": {
        "size": [320, 240],
        "shadows": False,
        "multisamples": 0,
        "look": "auto",
        "fps": 60.0,
    },
    "camera": {"target": [0.0, 0.0, 0.0], "distance": 24.0, "heading_deg": 0.0, "pitch_deg": -55.0},
    "grid": {
        "rows": 20,
        "columns": 20,
        "cell_size": 1.0,
        "origin": [-10.0, -10.0],
        "connectivity": 8,
        "diagonal": "no-corner-cutting",
        "heuristic": "octile",
        "blocked_cells": 12,
        "terrain_cells": 0,
        "cost_range": [1.0, 1.0],
        "version": 3,
    },
    "path": {
        "found": True,
        "reason": "",
        "cells": [[0, 0], [1, 1]],
        "cost": 1.414214,
        "length": 1.414214,
        "expanded": 2,
        "plan_ms": 0.125,
        "screen": [[10, 20], None],
        "explanation": None,
    },
    "objects": [
        {
            "name": "end",
            "tag": "End",
            "pos": [6.0, 4.0, 0.5],
            "scale": [1.0, 1.0, 1.0],
            "heading": 0.0,
            "screen": [200, 100],
        },
        {
            "name": "far",
            "tag": "Obstacle",
            "pos": [60, 4, 0],
            "scale": [1, 1, 1],
            "heading": 90,
            "screen": None,
        },
    ],
    "agents": [
        {
            "name": "agent",
            "radius": 0.4,
            "pos": [-6.0, -4.0, 0.0],
            "heading_deg": 45.0,
            "speed": 0.0,
            "mode": "chase",
            "state": "moving",
            "reached_goal": False,
            "arrivals": 0,
            "replans": 1,
            "distance_travelled": 0.5,
            "path_found": True,
            "path_cost": 1.414214,
            "waypoints": [[-5.5, -3.5]],
            "blocked_cell_frames": 0,
            "pushes": 0,
            "replans_by_cause": {"interval": 1, "path_cut": 0, "goal_moved": 0},
            "expanded_total": 12,
        }
    ],
    "hud": "60 fps\nscene: default",
    "search_view": IDLE_VIEW,
    "editor": {"undo_depth": 2, "redo_depth": 0, "selected": None},
    "errors": [],
    "scripts": {"count": 0, "trusted": True, "skipped": 0, "banner": None, "warnings": []},
    "messages": ["saved default.toml"],
}

REPLAY_VIEW: dict[str, Any] = {
    **{key: value for key, value in IDLE_VIEW.items() if key not in ("step", "start", "goal")},
    "open": True,
    "start": [0, 0],
    "goal": [1, 1],
    "step": 2,
    "recorded": 2,
    "finished": True,
    "at_end": True,
    "frontier_cells": 5,
    "expanded_cells": 2,
    "current": [1, 1],
    "path": [[0, 0], [1, 1]],
    "compare_open": True,
    "compare": [
        {"search": "A*", "found": True, "expanded": 2, "cost": 1.4, "gap": 0.0, "optimal": True},
        {
            "search": "DFS",
            "found": False,
            "expanded": 9,
            "cost": None,
            "gap": None,
            "optimal": False,
        },
    ],
    "buttons": {"play": [700, 40], "step": [740, 40]},
    "search": "bidirectional",
    "cost": 1.414214,
    "meeting_cell": [1, 1],
}


EXPLANATION = {"start_region_cells": 300, "goal_region_cells": 9, "fix_cells": [[4, 5], [4, 6]]}


def report(**changes: Any) -> dict[str, Any]:
    """A fresh copy of the good report with top-level keys replaced."""
    return copy.deepcopy(REPORT) | copy.deepcopy(changes)


def without_start_and_end() -> dict[str, Any]:
    return report(
        path={
            "found": False,
            "reason": "the scene needs a Start and an End",
            "cells": [],
            "screen": [],
        }
    )


@pytest.mark.parametrize(
    "data",
    [
        report(),
        report(search_view=REPLAY_VIEW),
        without_start_and_end(),
        report(objects=[], agents=[], errors=["report r.json: No space left on device"]),
        report(path=REPORT["path"] | {"found": False, "cost": None, "length": None, "cells": []}),
        report(path=REPORT["path"] | {"found": False, "cells": [], "explanation": EXPLANATION}),
    ],
    ids=[
        "view-idle",
        "view-replaying",
        "no-start-and-end",
        "empty-lists",
        "no-path",
        "no-path-explained",
    ],
)
def test_a_good_report_passes(data):
    assert validate_report(data) == []
    assert validate_report(json.loads(json.dumps(data))) == []


def broken(edit) -> dict[str, Any]:
    data = report(search_view=REPLAY_VIEW)
    edit(data)
    return data


CASES = {
    "not-an-object": ([], "report: expected an object, got a list"),
    "missing-key": (broken(lambda r: r.pop("grid")), "report.grid: missing"),
    "missing-nested-key": (
        broken(lambda r: r["path"].pop("reason")),
        "report.path.reason: missing",
    ),
    "unexpected-key": (
        broken(lambda r: r["camera"].update(zoom=2)),
        "report.camera.zoom: unexpected key",
    ),
    "wrong-type": (
        broken(lambda r: r.update(frames="60")),
        "report.frames: expected an integer, got a string",
    ),
    "bool-for-int": (
        broken(lambda r: r["grid"].update(rows=True)),
        "report.grid.rows: expected an integer, got true",
    ),
    "float-for-int": (
        broken(lambda r: r["window"].update(size=[320.5, 240])),
        "report.window.size[0]: expected an integer, got a number",
    ),
    "null-not-allowed": (
        broken(lambda r: r["camera"].update(distance=None)),
        "report.camera.distance: expected a finite number, got null",
    ),
    "not-finite": (
        broken(lambda r: r.update(sim_time_s=math.nan)),
        "report.sim_time_s: expected a finite number, got NaN",
    ),
    "wrong-nullable": (
        broken(lambda r: r["path"].update(cost="1.4")),
        "report.path.cost: expected a finite number or null, got a string",
    ),
    "not-one-of": (
        broken(lambda r: r["grid"].update(connectivity=6)),
        "report.grid.connectivity: expected 4 or 8, got 6",
    ),
    "wrong-nested-type": (
        broken(lambda r: r["objects"][1]["pos"].__setitem__(1, "4")),
        "report.objects[1].pos[1]: expected a finite number, got a string",
    ),
    "wrong-list-item": (
        broken(lambda r: r["path"]["screen"].__setitem__(1, 7)),
        "report.path.screen[1]: expected a list or null, got an integer",
    ),
    "fix-cell-not-a-pair-of-ints": (
        broken(lambda r: r["path"].update(explanation=EXPLANATION | {"fix_cells": [[4, 5.5]]})),
        "report.path.explanation.fix_cells[0][1]: expected an integer, got a number",
    ),
    "list-for-object": (
        broken(lambda r: r["agents"].__setitem__(0, [])),
        "report.agents[0]: expected an object, got a list",
    ),
    "deep-in-the-view": (
        broken(lambda r: r["search_view"]["compare"][1].update(gap="0")),
        "report.search_view.compare[1].gap: expected a finite number or null, got a string",
    ),
    "button-pixel": (
        broken(lambda r: r["search_view"]["buttons"]["play"].__setitem__(0, None)),
        "report.search_view.buttons.play[0]: expected an integer, got null",
    ),
    "replan-cause-missing": (
        broken(lambda r: r["agents"][0]["replans_by_cause"].pop("path_cut")),
        "report.agents[0].replans_by_cause.path_cut: missing",
    ),
    "selected-not-a-name": (
        broken(lambda r: r["editor"].update(selected=3)),
        "report.editor.selected: expected a string or null, got an integer",
    ),
    "undo-depth-missing": (
        broken(lambda r: r["editor"].pop("undo_depth")),
        "report.editor.undo_depth: missing",
    ),
    "scripts-trusted-not-a-bool": (
        broken(lambda r: r["scripts"].update(trusted="yes")),
        "report.scripts.trusted: expected true or false, got a string",
    ),
    "replay-key-missing": (
        broken(lambda r: r["search_view"].pop("frontier_cells")),
        "report.search_view.frontier_cells: missing",
    ),
}


@pytest.mark.parametrize(("data", "problem"), list(CASES.values()), ids=list(CASES))
def test_each_flaw_is_named_by_its_key_path(data, problem):
    assert problem in validate_report(data)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("search", None),
        ("cost", "1.4"),
        ("meeting_cell", "1,1"),
        ("diagonal", None),
        ("explanation", {"start_region_cells": 3, "goal_region_cells": 1}),
    ],
    ids=["search", "cost", "meeting-cell", "diagonal", "explanation"],
)
def test_the_view_s_search_cost_and_meeting_cell_are_checked(key, value):
    data = report(search_view={**REPLAY_VIEW, key: value})
    problems = validate_report(data)
    assert len(problems) == 1
    assert problems[0].startswith(f"report.search_view.{key}")


RACE = [
    {
        "search": "jps",
        "label": "JPS",
        "expanded": 8,
        "open": 10,
        "finished": True,
        "cost": 23.556349,
        "place": 1,
    },
    {
        "search": "astar",
        "label": "A* manhattan",
        "expanded": 8,
        "open": 12,
        "finished": False,
        "cost": None,
        "place": None,
    },
]


def test_a_race_s_lanes_pass():
    assert validate_report(report(search_view={**REPLAY_VIEW, "race": RACE})) == []


@pytest.mark.parametrize(
    ("key", "value"),
    [("place", "1st"), ("cost", "23.5"), ("expanded", 8.5), ("finished", None)],
    ids=["place", "cost", "expanded", "finished"],
)
def test_a_race_lane_s_values_are_checked(key, value):
    lanes = [{**RACE[0], key: value}, RACE[1]]
    problems = validate_report(report(search_view={**REPLAY_VIEW, "race": lanes}))
    assert len(problems) == 1
    assert problems[0].startswith(f"report.search_view.race[0].{key}")


def test_a_race_lane_without_its_place_is_reported():
    lane = {key: value for key, value in RACE[0].items() if key != "place"}
    problems = validate_report(report(search_view={**REPLAY_VIEW, "race": [lane]}))
    assert problems == ["report.search_view.race[0].place: missing"]


def test_the_view_s_explanation_has_the_path_s_shape():
    data = report(search_view={**REPLAY_VIEW, "path": [], "cost": None, "explanation": EXPLANATION})
    assert validate_report(data) == []
    del data["grid"]["diagonal"]
    assert validate_report(data) == ["report.grid.diagonal: missing"]


def test_every_flaw_is_reported_not_only_the_first():
    data = report()
    data["frames"] = None
    del data["agents"][0]["mode"]
    assert validate_report(data) == [
        "report.frames: expected an integer, got null",
        "report.agents[0].mode: missing",
    ]


def test_write_json_atomic_replaces_the_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("old")
    path.chmod(0o640)
    write_json_atomic(path, REPORT)
    assert json.loads(path.read_text()) == REPORT
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
