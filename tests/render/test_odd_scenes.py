"""Odd but valid scenes run headless without trouble and tell the user what they did."""

from __future__ import annotations

import pytest

from sim.app import hud_text
from sim.app.report import validate_report
from sim.components.agent_controller import AgentState
from tests.helpers.paths import ODD_SCENES
from tests.helpers.reports import as_read

pytestmark = pytest.mark.render

FRAMES = 300
NOT_ONE_AGENT = "agents: none in this scene"

# case -> (lines the HUD or status bar must hold, lines stdout must hold once, agent state or None)
CASES: dict[str, tuple[list[str], list[str], AgentState | None]] = {
    "obstacle_partly_outside": (
        ["Path 9.9 long"],
        ["sim: note: obstacle 'pier' lies partly outside the grid; the outside part is ignored"],
        AgentState.ARRIVED,
    ),
    "obstacle_wholly_outside": (
        ["Path 12.2 long"],
        ["sim: note: obstacle 'lost' lies wholly outside the grid; it is ignored"],
        AgentState.ARRIVED,
    ),
    "no_obstacles": (["Path 9.9 long", "JPS octile, 8-connected, 0 blocked cells"], [], None),
    "start_inside_obstacle": (
        ["note: start is inside an obstacle: using the nearest free cell"],
        [],
        AgentState.ARRIVED,
    ),
    "end_inside_obstacle": (
        ["note: End is inside an obstacle: using the nearest free cell"],
        [],
        AgentState.ARRIVED,
    ),
    "start_equals_end": (
        ["Path 0.0 long \u00b7 1 cell searched", "note: Start and End are on the same cell"],
        [],
        AgentState.ARRIVED,
    ),
    "end_walled_in": (
        ["No path: End cannot be reached: walled in", "agent: waiting, no path"],
        [],
        AgentState.NO_PATH,
    ),
    "no_agent": (["Path 12.2 long", NOT_ONE_AGENT], [], None),
    "only_start": (["No path: the scene needs a Start and an End", NOT_ONE_AGENT], [], None),
}


def test_every_odd_scene_file_has_a_case():
    assert sorted(path.stem for path in ODD_SCENES.glob("*.toml")) == sorted(CASES)


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_odd_scene_runs_and_tells_the_user(open_app, capsys, case):
    hud_lines, printed_once, agent_state = CASES[case]
    app = open_app(ODD_SCENES / f"{case}.toml", size=(160, 120))
    for _ in range(FRAMES):
        app.step()
    # What the user reads: the HUD, and the path's line in the status bar under the viewport.
    hud = app.hud.text() + "\n" + hud_text.status_line(app.path.outcome, app.path.plans)
    for line in hud_lines:
        assert line in hud
    out = capsys.readouterr().out
    for line in printed_once:
        assert out.splitlines().count(line) == 1, out
    if not printed_once:
        assert "outside the grid" not in out
    report = as_read(app.report())
    assert validate_report(report) == []
    assert report["errors"] == []
    for agent in app.agents:
        assert agent.blocked_cell_frames == 0
        if agent_state is not None:
            assert agent.state is agent_state, f"{agent.game_object.name}: {agent.state}"
