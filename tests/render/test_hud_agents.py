"""The HUD gives each agent at most one line, and past three agents one line for them all."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.app.hud_text import HUD_AGENT_LINES

pytestmark = pytest.mark.render

SCENE = """version = 1
name = "Walkers"

[grid]
origin = [-8.0, -8.0]
rows = 16
columns = 16
cell_size = 1.0

[[objects]]
name = "start"
tag = "Start"
model = "cube"
pos = [-6.5, -6.5, 0.0]
scale = 0.8

[[objects]]
name = "end"
tag = "End"
model = "cube"
pos = [6.5, 6.5, 0.0]
scale = 0.8

[[crowds]]
name = "walker"
count = {count}
area = [-7.0, -7.0, -3.0, -3.0]
seed = 3
"""


def hud_of(open_app, tmp_path: Path, count: int) -> list[str]:
    scene = tmp_path / f"walkers-{count}.toml"
    scene.write_text(SCENE.format(count=count), encoding="utf-8")
    app = open_app(scene, size=(320, 240))
    for _ in range(30):
        app.step()
    return app.hud.text().splitlines()


@pytest.mark.parametrize("count", [1, HUD_AGENT_LINES], ids=["one", "three"])
def test_up_to_three_agents_get_a_line_each(open_app, tmp_path, count) -> None:
    lines = hud_of(open_app, tmp_path, count)
    mine = [line for line in lines if line.startswith("walker-")]
    assert len(mine) == count
    assert all(line.endswith(": walking to End") for line in mine), mine


def test_more_agents_are_summed_up_in_one_line(open_app, tmp_path) -> None:
    lines = hud_of(open_app, tmp_path, 6)
    assert not [line for line in lines if line.startswith("walker-")]
    assert "6 agents: 6 walking" in lines
