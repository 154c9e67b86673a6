"""Self-steered agents that arrived against their goal's cluster stay arrived as they replan.

Doorway variant 12 (five a side, below the crowd's threshold, so each steers itself): the jam's
plan brought all ten to the cells round their goals, a cell apart, and for 5.4 s more they were
seldom all arrived at once. An arrived agent jostled a few hundredths off touching the others
set off again at its next replan (its path's end, the goal, lay farther than its arrival
radius), pressed in and arrived anew (`sim.crowd.lone.joins_cluster`).

Pillar variant 8: four self-steered agents walking west side by side at 3 units/s; one that
arrived stepped its last step and then, in the same frame, made room for those behind (the
step aside an arrived agent takes), 0.10 in a frame of 1/60 s, twice its speed, into its
neighbour (0.134 of the radii).
"""

from __future__ import annotations

import numpy as np

from sim.bench import crowd_suite
from sim.bench.variants import make_variant
from sim.bench.variants.draft import Draft, Mix
from sim.crowd.state import AgentState
from sim.scene.file import parse_scene

SECONDS = 10.0  # ten replan intervals of the default agent


def _cluster_case() -> crowd_suite._Case:
    """Five self-steered agents a cell apart round their goal, as a jam's plan leaves them."""
    draft = Draft("cluster", 9, 9, Mix(), np.random.default_rng(0))
    draft.marker("goal", 4.5, 4.5)
    for number, cell in enumerate([(4, 4), (3, 4), (5, 4), (4, 3), (4, 5)], 1):
        draft.agent(f"agent-{number}", cell, 0.0, "goal")
    return crowd_suite._Case(parse_scene(draft.document(SECONDS), source="cluster.toml"), 0)


def test_an_arrived_self_steered_agent_stays_arrived_through_its_replans() -> None:
    case = _cluster_case()
    left: list[tuple[float, str]] = []
    before: list[AgentState] | None = None
    frames = round(SECONDS / crowd_suite.DT)
    for frame in range(1, frames + 1):
        case.world.step(crowd_suite.DT)
        states = [agent.state for agent in case.agents]
        if before is not None:
            left += [
                (frame * crowd_suite.DT, agent.game_object.node.name)
                for agent, was, now in zip(case.agents, before, states, strict=True)
                if was is AgentState.ARRIVED and now is not AgentState.ARRIVED
            ]
        before = states
    assert not any(agent.driven for agent in case.agents)  # too few for the crowd to drive
    assert before == [AgentState.ARRIVED] * 5
    assert left == [], f"arrived agents set off again (time, agent): {left}"


def test_a_self_steered_agent_moves_once_in_the_frame_it_arrives() -> None:
    case = crowd_suite._Case(make_variant("pillar", 8).scene(), 0)
    frames = round(16.0 / crowd_suite.DT)  # all arrive by about 16 s
    too_far: list[tuple[float, str, float]] = []
    states = [agent.state for agent in case.agents]
    for frame in range(1, frames + 1):
        places = [agent.position for agent in case.agents]
        case.world.step(crowd_suite.DT)
        for agent, was, place in zip(case.agents, states, places, strict=True):
            step = float(np.hypot(agent.position[0] - place[0], agent.position[1] - place[1]))
            arrived_now = was is AgentState.MOVING and agent.state is AgentState.ARRIVED
            if (
                arrived_now
                and not agent.driven
                and step > agent.config.speed * crowd_suite.DT * 1.001
            ):
                too_far.append((frame * crowd_suite.DT, agent.game_object.node.name, step))
        states = [agent.state for agent in case.agents]
    assert too_far == [], (
        f"moved farther than its speed as it arrived (time, agent, step): {too_far}"
    )
