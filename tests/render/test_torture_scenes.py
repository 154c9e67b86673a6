"""The crowd torture scenes run clean in the app itself, as the window runs them.

Each of scenes/torture/ (as written: seed 0 of the bench) opens in a headless SimApp and steps
until every agent has arrived, within the scene's time limit: no two discs overlap deeper than
10 % of their radii's sum and no disc enters a wall on the way. The bench (`sim bench
--crowd-suite`) runs the same cases on a bare World; this checks the composition gives the same.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.bench.crowd import overlap_depth
from sim.bench.crowd_suite import OVERLAP_TARGET, WALL_TOLERANCE, suite_scenes
from sim.components.agent_controller import AgentState
from sim.crowd.disc_walls import Walls
from sim.scene.file import load_scene

pytestmark = [pytest.mark.render, pytest.mark.timeout(600)]

SCENES = {path.stem: path for path in suite_scenes()}


@pytest.mark.parametrize("name", sorted(SCENES))
def test_the_torture_scene_runs_clean_in_the_app(open_app, name):
    scene = load_scene(SCENES[name])
    assert scene.torture is not None
    app = open_app(SCENES[name], size=(64, 48))
    worst, wall_frames = 0.0, 0
    for _ in range(round(scene.torture.time_limit_s * 60)):
        app.step()
        crowd = app.crowd_sim
        worst = max(worst, overlap_depth(crowd.positions, crowd.radii))
        cells = (crowd.positions - np.asarray(app.grid.origin)) / app.grid.grid_cell_size
        radii = crowd.radii / app.grid.grid_cell_size - WALL_TOLERANCE
        wall_frames += int(Walls(app.grid.walkable).hit(cells, radii).any())
        if all(agent.state is AgentState.ARRIVED for agent in app.agents):
            break
    waiting = [agent.game_object.name for agent in app.agents if not agent.reached_goal]
    assert not waiting, f"not arrived in {scene.torture.time_limit_s} s: {waiting[:5]}"
    assert worst <= OVERLAP_TARGET
    assert wall_frames == 0
