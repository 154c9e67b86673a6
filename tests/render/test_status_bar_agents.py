"""The status bar of a scene of agents without a Start and an End sums its agents up."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.app.hud_text import HUD_AGENT_LINES

pytestmark = pytest.mark.render

TORTURE = Path(__file__).resolve().parents[2] / "scenes" / "torture"


def opened(open_app, scene: Path):
    app = open_app(scene, size=(480, 360))
    for _ in range(10):
        app.step()
    return app


@pytest.mark.parametrize("scene", ["head_on", "doorway"])
def test_a_crowd_without_start_and_end_reads_what_its_agents_do(open_app, scene) -> None:
    app = opened(open_app, TORTURE / f"{scene}.toml")
    assert app.path.outcome is None
    line = app.panels.status_bar.text
    count = len(app.agents)
    assert line.startswith(f"{count} agents: "), line
    assert "needs a Start and an End" not in line
    hud = app.hud.text().splitlines()
    # Said once: the HUD no longer repeats the sum the status bar shows.
    assert not [text for text in hud if text.startswith(f"{count} agents: ")], hud
    if count <= HUD_AGENT_LINES:  # a few agents keep a line each on the HUD
        assert len([text for text in hud if ": walking to " in text]) == count, hud
