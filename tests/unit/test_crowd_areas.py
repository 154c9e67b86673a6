"""Driven crowd agents kept to some areas: one shared field per goal and set of areas."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.navigation import find_path
from tests.unit.test_agent_areas import COLUMNS, GOAL, PATCHES, ROWS, road_only

COUNT = 12
DT = 1.0 / 60.0


def _scene(tmp_path: Path, areas: str) -> Path:
    """The areas test's roads, a crowd on the road west of the grass cut, chasing End."""
    grid = f"[grid]\norigin = [0.0, 0.0]\nrows = {ROWS}\ncolumns = {COLUMNS}\ncell_size = 1.0\n"
    end = (
        f'[[objects]]\nname = "end"\ntag = "End"\nmodel = "cube"\n'
        f"pos = [{GOAL[0]}, {GOAL[1]}, 0]\nscale = 0.3\n"
    )
    crowd = (
        f'[[crowds]]\nname = "car"\ncount = {COUNT}\narea = [0.3, 0.3, 6.0, 1.7]\nseed = 3\n'
        f"[crowds.agent]\nradius = 0.3\nspeed = 3.0\n{areas}"
    )
    path = tmp_path / "areas.toml"
    path.write_text("version = 1\n" + grid + "\n".join([*PATCHES, end, crowd]))
    return path


def test_masked_crowd_agents_share_a_field_keep_to_their_areas_and_arrive(open_app, tmp_path):
    app = open_app(_scene(tmp_path, 'areas = ["road"]\n'))
    allowed = road_only()
    app.step()
    sim = app.crowd_sim
    assert sim.driven.all()  # driven by the crowd, not each on its own
    for index in sim.crowd.indices:
        outcome = sim.outcome_of(index)
        assert outcome is not None
        x, y = sim.crowd.position(index)
        oracle = find_path(allowed, (int(y), int(x)), (int(GOAL[1]), int(GOAL[0])))
        assert outcome.cost == pytest.approx(oracle.cost, abs=1e-6)
        assert all(allowed[cell] for cell in outcome.cells)
    for _ in range(round(25.0 / DT)):
        app.step()
        positions = sim.positions
        cells = allowed[positions[:, 1].astype(int), positions[:, 0].astype(int)]
        assert cells.all(), f"a masked agent entered {positions[~cells]}"
        if all(agent.reached_goal for agent in app.agents):
            break
    assert all(agent.reached_goal for agent in app.agents)
    assert app.crowd.fields_computed == 1  # one field for the goal and the roads


def test_agents_of_every_area_still_walk_over_the_grass(open_app, tmp_path):
    app = open_app(_scene(tmp_path, ""))
    sim = app.crowd_sim
    over_the_cut = 0
    for _ in range(round(15.0 / DT)):
        app.step()
        x, y = sim.positions[:, 0], sim.positions[:, 1]
        over_the_cut += int(((x > 8.0) & (x < 12.0) & (y < 2.0)).sum())
        if all(agent.reached_goal for agent in app.agents):
            break
    assert sim.driven.all()
    assert over_the_cut  # the grass is no wall for them
    assert all(agent.reached_goal for agent in app.agents)
