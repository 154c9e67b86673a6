"""Why no path in the search view, and the diagonal rule it searches under (offscreen).

scenes/walled.toml walls End in: the view's search ends without a path, and the view shades
Start's region and End's in two colours, highlights the cells to open, says so in the panel
and reports it. J switches the grid's rule while the view is open, and the view (its search,
its comparison table) and the live scene's explanation follow.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.components import no_path
from sim.components.no_path import FIX_COLOR, FIX_Z
from sim.navigation import find_path
from sim.navigation.catalogue import SearchKind
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.regions.explain import explain_no_path
from sim.navigation.replay.log import CellStatus
from sim.search_view.no_path_view import GOAL_COLOR, KEYS, REGION_Z, START_COLOR
from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.pixels import blended, hide_end_labels, pixel, screenshot_rgb
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

WALLED = SCENES_DIR / "walled.toml"
EXPLANATION = {"start_region_cells": 221, "goal_region_cells": 9, "fix_cells": [[4, 15], [5, 15]]}
# Cells no cube hides from the scene's camera: one of Start's region (expanded by the search),
# one of End's room (never reached), and a fix cell (under the ring).
START_CELL, GOAL_CELL, FIX_CELL = (10, 2), (8, 14), (4, 15)
BLEND_TOLERANCE = 14  # 0..255 per channel: the software renderer's rounding, with margin


def at_end(app) -> None:
    view = app.search_view
    view.open()
    view.to_end()
    app.step()


def test_the_view_shades_why_its_search_found_no_path(open_app) -> None:
    app = open_app(WALLED)
    hide_end_labels(app)  # End's label covers End's room's top row
    app.step()
    at_end(app)
    view = app.search_view
    replay = view.replay
    assert replay.at_end
    assert not replay.log.result().found
    assert set(KEYS) <= app.gizmos.keys()
    app.save_screenshot(artifact("search-view-no-path-walled.png"))
    shown = screenshot_rgb(app.base.win).astype(float)
    assert replay.status[START_CELL] == CellStatus.CLOSED  # the blue lies over the yellow
    # One step back the search has not ended: no explanation, the same cells but two.
    last = replay.current
    view.step_back()
    app.step()
    assert not set(KEYS) & app.gizmos.keys()
    assert view.explanation() is None
    bare = screenshot_rgb(app.base.win).astype(float)
    assert last not in (START_CELL, GOAL_CELL, FIX_CELL)
    for cell, z, color in (
        (START_CELL, REGION_Z, START_COLOR),
        (GOAL_CELL, REGION_Z, GOAL_COLOR),
        (FIX_CELL, FIX_Z, FIX_COLOR),
    ):
        px, py = pixel(app, cell, z)
        expected = blended(bare[py, px], color)
        assert np.abs(shown[py, px] - expected).max() <= BLEND_TOLERANCE, (
            f"cell {cell} at pixel {(px, py)}: {shown[py, px]} shown, {expected} expected"
            f" ({bare[py, px]} without the shading)"
        )


def test_the_panel_and_the_report_say_which_cells_to_remove(open_app) -> None:
    app = open_app(WALLED, size=(320, 240))
    app.step()
    view = app.search_view
    view.open()
    app.step()
    assert app.report()["search_view"]["explanation"] is None  # not at the end yet
    view.to_end()
    app.step()
    entry = app.report()["search_view"]
    assert entry["explanation"] == EXPLANATION
    assert entry["explanation"] == app.report()["path"]["explanation"]
    assert "no path: remove these 2 cells (yellow)" in view.status_text()
    view.reset()
    app.step()
    assert app.report()["search_view"]["explanation"] is None


def test_a_search_with_a_path_explains_nothing(open_app) -> None:
    app = open_app(SCENES_DIR / "default.toml", size=(320, 240))
    app.step()
    at_end(app)
    assert app.search_view.replay.log.result().found
    assert app.report()["search_view"]["explanation"] is None
    assert not set(KEYS) & app.gizmos.keys()


def test_j_while_the_view_is_open_restarts_it_under_the_next_rule(open_app) -> None:
    app = open_app(WALLED, size=(320, 240))
    mouse = Mouse(app)
    app.step()
    at_end(app)
    view = app.search_view
    assert view.settings.rule is app.grid.rule is DiagonalRule.NO_CORNER_CUTTING
    restarts = view.restarts
    for rule in (DiagonalRule.ONE_OBSTACLE, DiagonalRule.ALWAYS, DiagonalRule.NEVER):
        mouse.key("j")
        app.step()
        assert app.grid.rule is rule
        assert view.opened, "J must not close the view"
        assert view.settings.rule is rule
        assert view.restarts == restarts + 1
        restarts = view.restarts
        assert view.replay.step == 0
        report = app.report()
        assert report["search_view"]["diagonal"] == report["grid"]["diagonal"] == rule.value
        assert report["search_view"]["connectivity"] == (4 if rule is DiagonalRule.NEVER else 8)
        described = view.status_text().splitlines()[0]
        if rule in (DiagonalRule.ONE_OBSTACLE, DiagonalRule.ALWAYS):
            assert described.endswith(f"8-connected ({rule.value})")
        view.to_end()
        app.step()
        log = view.replay.log
        expected = explain_no_path(app.grid.walkable, log.start, log.goal, diagonal=rule)
        why = view.explanation()
        assert why is not None
        assert why.fix_cells == expected.fix_cells
        assert app.report()["path"]["explanation"]["fix_cells"] == [
            list(cell) for cell in expected.fix_cells
        ]


def test_the_view_searches_under_always_when_the_grid_does(open_app) -> None:
    # A diagonal between two cubes' corners: legal under "always" only.
    app = open_app(WALLED, size=(320, 240))
    app.grid.set_planning(diagonal="always")
    app.step()
    view = app.search_view
    view.open()
    view.to_end()
    app.step()
    assert view.settings.rule is DiagonalRule.ALWAYS
    assert app.report()["search_view"]["diagonal"] == "always"
    view.set_diagonal(False)  # the panel's 4/8 button
    assert view.settings.rule is DiagonalRule.NEVER
    view.set_diagonal(True)  # back to the grid's rule, not no-corner-cutting
    assert view.settings.rule is DiagonalRule.ALWAYS


@pytest.mark.parametrize("rule", ["always", "one-obstacle", "never"])
def test_the_compare_table_runs_under_the_view_s_rule(open_app, rule: str) -> None:
    app = open_app(SCENES_DIR / "default.toml", size=(320, 240))
    app.grid.set_planning(diagonal=rule)
    app.step()
    view = app.search_view
    view.open()
    app.search_panel.toggle_compare()
    app.step()
    log = view.replay.log
    expected = find_path(
        app.grid.walkable, log.start, log.goal, diagonal=rule, algorithm="dijkstra"
    )
    dijkstra = next(row for row in app.search_panel.rows if row.label == "Dijkstra")
    assert dijkstra.cost == pytest.approx(expected.cost * app.grid.grid_cell_size)
    view.to_end()
    app.step()
    assert view.finished_cost() == pytest.approx(dijkstra.cost)  # A* octile: the same optimum


@pytest.mark.parametrize(
    ("kind", "rule", "words"),
    [
        pytest.param(SearchKind.JPS, "always", "no-corner-cutting rule only", id="jps-always"),
        pytest.param(SearchKind.JPS, "one-obstacle", "no-corner-cutting", id="jps-one-obstacle"),
        pytest.param(SearchKind.JPS, "never", "no-corner-cutting", id="jps-never"),
        pytest.param(SearchKind.THETA, "always", "no-corner-cutting", id="theta-always"),
    ],
)
def test_searches_that_know_fewer_rules_say_so(open_app, kind, rule: str, words: str) -> None:
    app = open_app(SCENES_DIR / "default.toml", size=(320, 240))
    app.grid.set_planning(diagonal=rule)
    app.step()
    view = app.search_view
    view.open()
    view.set_choice(kind)
    app.step()
    assert view.replay is None
    assert view.message.startswith(f"{kind.label} cannot search this")
    assert words in view.message
    mouse = Mouse(app)
    while app.grid.rule is not DiagonalRule.NO_CORNER_CUTTING:
        mouse.key("j")
    app.step()
    assert view.replay is not None, "back on its rule, the search runs"
    assert view.message == ""


def test_the_live_explanation_follows_the_grid_s_rule(open_app, monkeypatch) -> None:
    rules: list[object] = []

    def recording(walkable, start, goal, *, diagonal=True):
        rules.append(diagonal)
        return explain_no_path(walkable, start, goal, diagonal=diagonal)

    monkeypatch.setattr(no_path, "explain_no_path", recording)
    app = open_app(WALLED, size=(160, 120))
    mouse = Mouse(app)
    app.step()
    assert rules == [DiagonalRule.NO_CORNER_CUTTING]
    for rule in (DiagonalRule.ONE_OBSTACLE, DiagonalRule.ALWAYS, DiagonalRule.NEVER):
        mouse.key("j")
        app.step()
        assert rules[-1] is rule, "J redoes the explanation under the new rule"
        assert app.report()["path"]["explanation"] == EXPLANATION
