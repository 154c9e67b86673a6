"""The traffic scene headless: the agent catches the wandering End, replans the
moment a block cuts its route, is pushed clear in the frame a block reaches it, and never
stands in a blocked cell; the report and the HUD count it all. (Every shipped scene's agents
arrive with no blocked frame: tests/render/test_agent_scenes.py.)"""

from __future__ import annotations

import pytest

from sim.app.composition import SimApp
from sim.components.agent_controller import AgentController, ReplanCause
from sim.config import SCENES_DIR
from tests.helpers.fixtures import OpenApp

pytestmark = pytest.mark.render

TRAFFIC = SCENES_DIR / "traffic.toml"
TRAFFIC_BUDGET_FRAMES = 1800  # 30 simulated seconds; the End is caught twice well within it


def disc_is_clear(app: SimApp, agent: AgentController) -> bool:
    position = agent.position
    return app.grid.move_is_clear(position, position, radius=agent.config.radius)


def run_checking_discs(app: SimApp, frames: int, done=lambda: False) -> list[str]:
    """Step up to `frames` (stop once `done()`); each frame where an agent overlaps a wall."""
    overlaps = []
    for frame in range(1, frames + 1):
        app.step()
        overlaps += [
            f"frame {frame}: {agent.game_object.name} at {agent.position}"
            for agent in app.agents
            if not disc_is_clear(app, agent)
        ]
        if done():
            break
    return overlaps


def test_the_agent_catches_the_wandering_end_and_reacts_to_cuts(open_app: OpenApp) -> None:
    app = open_app(TRAFFIC, size=(320, 240))
    agent = app.agents[0]

    def done() -> bool:
        return agent.arrivals >= 2 and agent.replans_by_cause[ReplanCause.PATH_CUT] >= 1

    overlaps = run_checking_discs(app, TRAFFIC_BUDGET_FRAMES, done)
    assert overlaps == [], "a push leaves the agent clear in the frame it happens"
    entry = app.report()["agents"][0]
    assert entry["arrivals"] >= 2
    causes = entry["replans_by_cause"]
    assert causes["path_cut"] >= 1
    assert causes["interval"] + causes["path_cut"] + causes["goal_moved"] == entry["replans"]
    assert entry["blocked_cell_frames"] == 0
    assert entry["expanded_total"] > 0


def test_the_inspector_shows_replans_by_cause_and_the_last_repair(open_app: OpenApp) -> None:
    app = open_app(TRAFFIC, size=(320, 240))
    agent = app.agents[0]
    run_checking_discs(
        app, TRAFFIC_BUDGET_FRAMES, lambda: agent.outcome is not None and agent.outcome.repaired
    )
    app.editor.selected = agent.game_object  # as a click on it does
    app.step()
    panel = "\n".join(app.inspector.details())
    counts = [agent.replans_by_cause[cause] for cause in ReplanCause]
    assert "({} interval, {} cut, {} goal)".format(*counts) in panel
    # The step may have planned again, by a repair or (cheaper) a fresh search: as it says.
    assert agent.outcome is not None
    assert ("repaired" if agent.outcome.repaired else "new search") in panel
    assert "(fresh A*: " in panel
    # The HUD keeps to plain words: one line for the agent, none of the planner's internals.
    hud = app.hud.text()
    assert "interval" not in hud
    assert f"{agent.game_object.name}: " in hud
