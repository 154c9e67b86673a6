"""A scene's diagonal rule: ``[grid] diagonal``, its shorthand ``connectivity``, who reads it."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from sim.app.hud_text import planner_line
from sim.components.grid_manager import GridManager
from sim.navigation.diagonal import DIAGONAL_CHOICES, DiagonalRule
from sim.scene.file import load_scene
from sim.scene.spec import GridSpec, SceneError
from sim.scene.writer import ObjectState, save_scene
from tests.helpers.paths import DEFAULT_SCENE

GRID = "version = 1\n\n[grid]\norigin = [0.0, 0.0]\nrows = 4\ncolumns = 4\ncell_size = 1.0\n"


def grid_of(tmp_path: Path, lines: str) -> GridSpec:
    path = tmp_path / "scene.toml"
    path.write_text(GRID + lines, encoding="utf-8")
    return load_scene(path).grid


@pytest.mark.parametrize("rule", DIAGONAL_CHOICES)
def test_the_diagonal_key_names_the_rule(tmp_path: Path, rule: str) -> None:
    grid = grid_of(tmp_path, f'diagonal = "{rule}"\n')
    assert grid.rule == rule
    assert grid.connectivity == (4 if rule == "never" else 8)


@pytest.mark.parametrize(
    ("lines", "rule"),
    [
        ("", "no-corner-cutting"),
        ("connectivity = 8\n", "no-corner-cutting"),
        ("connectivity = 4\n", "never"),
        ('connectivity = 4\ndiagonal = "never"\n', "never"),
        ('connectivity = 8\ndiagonal = "no-corner-cutting"\n', "no-corner-cutting"),
    ],
)
def test_connectivity_is_shorthand_for_the_rule(tmp_path: Path, lines: str, rule: str) -> None:
    assert grid_of(tmp_path, lines).rule == rule


@pytest.mark.parametrize(
    ("lines", "problem"),
    [
        (
            'diagonal = "sometimes"\n',
            "grid.diagonal: must be one of never, no-corner-cutting, one-obstacle, always, "
            "got 'sometimes'",
        ),
        (
            "diagonal = true\n",
            "grid.diagonal: must be one of never, no-corner-cutting, one-obstacle, always, "
            "got True",
        ),
        (
            'connectivity = 4\ndiagonal = "always"\n',
            'grid: connectivity = 4 is shorthand for diagonal = "never", but diagonal = '
            '"always"; keep one of the two',
        ),
        (
            'connectivity = 8\ndiagonal = "one-obstacle"\n',
            'grid: connectivity = 8 is shorthand for diagonal = "no-corner-cutting", but '
            'diagonal = "one-obstacle"; keep one of the two',
        ),
    ],
)
def test_bad_rules_are_one_line_scene_errors(tmp_path: Path, lines: str, problem: str) -> None:
    with pytest.raises(SceneError) as caught:
        grid_of(tmp_path, lines)
    assert str(caught.value) == f"{tmp_path / 'scene.toml'}: {problem}"


def test_saving_keeps_the_files_rule(tmp_path: Path) -> None:
    path = Path(shutil.copy(DEFAULT_SCENE, tmp_path / "default.toml"))
    text = path.read_text(encoding="utf-8").replace("connectivity = 8", 'diagonal = "always"')
    path.write_text(text, encoding="utf-8")
    spec = load_scene(path)
    [first, *rest] = spec.objects
    moved = ObjectState(
        first.name, first.tag.value, first.model, (first.pos[0] + 1.0, *first.pos[1:]),
        first.scale, first.heading,
    )  # fmt: skip
    same = [ObjectState(o.name, o.tag.value, o.model, o.pos, o.scale, o.heading) for o in rest]
    save_scene(path, [moved, *same])
    saved = path.read_text(encoding="utf-8")
    assert 'diagonal = "always"' in saved
    assert "connectivity = 8" not in saved
    assert load_scene(path).grid.rule == "always"


def manager(rule: DiagonalRule = DiagonalRule.NO_CORNER_CUTTING) -> GridManager:
    return GridManager(
        origin=(0.0, 0.0), num_of_rows=2, num_of_columns=2, grid_cell_size=1.0, rule=rule
    )


def test_the_grid_manager_plans_with_the_scenes_rule() -> None:
    squeeze = np.array([[True, False], [False, True]])
    planned = {}
    for rule in DIAGONAL_CHOICES:
        grid = manager(DiagonalRule(rule))
        grid.walkable[...] = squeeze
        planned[rule] = grid.plan(grid.cell_to_world((0, 0)), grid.cell_to_world((1, 1))).found
        assert grid.rule == rule
        assert grid.diagonal is (rule != "never")
        assert grid.planning_key == (rule, grid.heuristic)
    assert planned == {
        "never": False,
        "no-corner-cutting": False,
        "one-obstacle": False,
        "always": True,
    }


def test_a_grid_manager_given_no_rule_cuts_no_corners() -> None:
    assert manager().rule is DiagonalRule.NO_CORNER_CUTTING


def test_set_planning_switches_the_rule_and_the_key_cycles_all_four() -> None:
    grid = manager()
    seen = []
    version = grid.version
    for _ in DIAGONAL_CHOICES:
        grid.set_planning(diagonal=grid.rule.next)
        seen.append(grid.rule.value)
    assert seen == ["one-obstacle", "always", "never", "no-corner-cutting"]
    assert grid.version == version + 4
    grid.set_planning(diagonal=False)
    assert grid.rule is DiagonalRule.NEVER
    with pytest.raises(ValueError, match="diagonal must be"):
        grid.set_planning(diagonal="sideways")


def test_hud_names_the_rules_that_pass_blocked_corners() -> None:
    grid = manager(DiagonalRule.ALWAYS)
    assert "8-connected (always)" in planner_line(grid)
    grid.set_planning(diagonal="no-corner-cutting")
    assert "8-connected," in planner_line(grid)
    assert "(" not in planner_line(grid)


def test_hud_names_the_search_the_planner_runs() -> None:
    # The planner asks find_path for "auto": jump point search under the Moving AI rule with
    # octile and no costs, A* under any other rule or heuristic.
    grid = manager()
    assert planner_line(grid).startswith("JPS octile, 8-connected")
    grid.set_planning(diagonal="always")
    assert planner_line(grid).startswith("A* octile, 8-connected (always)")
    grid.set_planning(diagonal="no-corner-cutting", heuristic="euclidean")
    assert planner_line(grid).startswith("A* euclidean")
