"""Agents' `target` and `avoidance` keys: reading, defaults, errors, and whom the agent chases."""

from __future__ import annotations

import math
import tomllib

import pytest
from panda3d.core import NodePath

from sim.app.hud_text import agent_line
from sim.components.agent_controller import AgentController, AgentState, ReplanCause
from sim.components.grid_manager import GridManager
from sim.config import AgentConfig, AgentMode
from sim.engine import GameObject, World
from sim.scene.file import parse_scene
from sim.scene.spec import SceneError, SceneSpec

DT = 1 / 60
HEAD = """
version = 1
[grid]
origin = [0.0, 0.0]
rows = 10
columns = 10
cell_size = 1.0
"""
MARKERS = """
[[objects]]
name = "end"
tag = "End"
model = "cube"
pos = [8.5, 8.5, 0.0]

[[objects]]
name = "flag"
tag = "Untagged"
model = "cube"
pos = [1.5, 8.5, 0.0]
"""


def agent(name: str, *agent_lines: str) -> str:
    table = "\n[objects.agent]\n" + "\n".join(agent_lines) if agent_lines else ""
    return f"""
[[objects]]
name = "{name}"
tag = "Agent"
model = "agent"
pos = [1.5, 1.5, 0.0]
{table}
"""


def crowd(name: str, *agent_lines: str, count: int = 3) -> str:
    table = "\n[crowds.agent]\n" + "\n".join(agent_lines) if agent_lines else ""
    return f"""
[[crowds]]
name = "{name}"
count = {count}
area = [1.0, 1.0, 4.0, 3.0]
{table}
"""


def read(*parts: str) -> SceneSpec:
    return parse_scene(tomllib.loads(HEAD + "".join(parts)), source="t.toml")


def config(scene: SceneSpec, name: str) -> AgentConfig:
    obj = scene.find(name)
    assert obj is not None
    assert obj.agent is not None
    return obj.agent


# --- reading ------------------------------------------------------------------------------------


def test_defaults_are_avoidance_on_and_no_target():
    scene = read(MARKERS, agent("bot"), crowd("fans"))

    for name in ("bot", "fans-1", "fans-3"):
        assert config(scene, name).avoidance is True
        assert config(scene, name).target is None


def test_object_agent_reads_avoidance_and_target():
    scene = read(MARKERS, agent("bot", "avoidance = false", 'target = "flag"'))

    assert config(scene, "bot") == AgentConfig(avoidance=False, target="flag")


def test_crowd_agent_reads_avoidance_and_target_for_every_member():
    scene = read(MARKERS, crowd("fans", "avoidance = false", 'target = "flag"'))

    assert {config(scene, f"fans-{n}") for n in (1, 2, 3)} == {
        AgentConfig(avoidance=False, target="flag")
    }
    assert scene.crowds[0].agent.target == "flag"


@pytest.mark.parametrize(
    "target",
    ["end", "flag", "other", "fans-2"],
    ids=["end", "untagged-marker", "another-agent", "a-crowd-member"],
)
def test_any_other_object_may_be_a_target(target):
    scene = read(MARKERS, agent("bot", f'target = "{target}"'), agent("other"), crowd("fans"))

    assert config(scene, "bot").target == target


def test_a_target_may_come_later_in_the_file():
    scene = read(agent("bot", 'target = "late"'), MARKERS.replace('"flag"', '"late"'))

    assert config(scene, "bot").target == "late"


def test_two_crowds_may_chase_each_others_members():
    scene = read(crowd("red", 'target = "blue-1"'), crowd("blue", 'target = "red-1"'))

    assert config(scene, "red-2").target == "blue-1"
    assert config(scene, "blue-3").target == "red-1"


# --- errors: one line naming the key ------------------------------------------------------------

BROKEN = {
    "avoidance-string": (
        agent("bot", 'avoidance = "yes"'),
        "objects[2].agent.avoidance: expected true or false, got string 'yes'",
    ),
    "avoidance-number": (
        crowd("fans", "avoidance = 1"),
        "crowds[0].agent.avoidance: expected true or false, got integer 1",
    ),
    "target-number": (
        agent("bot", "target = 3"),
        "objects[2].agent.target: expected a string, got integer 3",
    ),
    "target-empty": (
        agent("bot", 'target = " "'),
        "objects[2].agent.target: must not be empty",
    ),
    "target-typo-key": (
        agent("bot", 'targt = "end"'),
        "objects[2].agent.targt: unknown key; did you mean 'target'?",
    ),
    "target-unknown": (
        agent("bot", 'target = "exit"'),
        "objects[2].agent.target: no object called 'exit' in this scene",
    ),
    "crowd-target-unknown": (
        crowd("fans", 'target = "exit"'),
        "crowds[0].agent.target: no object called 'exit' in this scene",
    ),
    "target-itself": (
        agent("bot", 'target = "bot"'),
        "objects[2].agent.target: 'bot' is this agent's own name: an agent cannot chase itself",
    ),
    "crowd-target-own-member": (
        crowd("fans", 'target = "fans-2"'),
        "crowds[0].agent.target: 'fans-2' is the name of one of this crowd's own agents: "
        "an agent cannot chase itself",
    ),
}


@pytest.mark.parametrize(("text", "message"), BROKEN.values(), ids=BROKEN.keys())
def test_bad_agent_keys_end_in_one_line(text, message):
    with pytest.raises(SceneError) as caught:
        read(MARKERS, text)
    assert str(caught.value) == f"t.toml: {message}"


def test_second_crowd_errors_name_that_crowd():
    with pytest.raises(SceneError, match=r"^t\.toml: crowds\[1\]\.agent\.target: no object"):
        read(MARKERS, crowd("ok"), crowd("bad", 'target = "nobody"'))


# --- whom the agent chases ----------------------------------------------------------------------


class Field:
    """A 10x10 open grid with End, a flag and agents, stepped by hand (no window)."""

    def __init__(self) -> None:
        self.world = World(NodePath("root"))
        self.grid = self.world.spawn("grid").add_component(
            GridManager(origin=(0.0, 0.0), num_of_rows=10, num_of_columns=10, grid_cell_size=1.0)
        )
        self.end = self.add("end", "End", (8.5, 8.5))
        self.flag = self.add("flag", "Untagged", (1.5, 8.5))

    def add(self, name: str, tag: str, pos: tuple[float, float]) -> GameObject:
        node = self.world.root.attach_new_node(name)
        node.set_pos(pos[0], pos[1], 0.0)
        return self.world.add(GameObject(node, tag=tag))

    def agent(self, name: str, config: AgentConfig, pos=(1.5, 1.5)) -> AgentController:
        return self.add(name, "Agent", pos).add_component(AgentController(self.grid, config))

    def step(self, seconds: float) -> None:
        for _ in range(round(seconds / DT)):
            self.world.step(DT)


def near(agent: AgentController, obj: GameObject) -> bool:
    return math.dist(agent.position, obj.xy) <= agent.config.arrival_radius + 1e-6


def test_agent_without_target_goes_to_end():
    field = Field()
    bot = field.agent("bot", AgentConfig())

    field.step(6.0)

    assert bot.state is AgentState.ARRIVED
    assert near(bot, field.end)


def test_agent_with_target_goes_to_it_not_to_end():
    field = Field()
    bot = field.agent("bot", AgentConfig(target="flag"))

    field.step(6.0)

    assert bot.state is AgentState.ARRIVED
    assert near(bot, field.flag)
    assert bot.lost_target is None


def test_agent_chases_another_agent():
    field = Field()
    runner = field.agent("runner", AgentConfig(speed=1.0), pos=(5.5, 1.5))
    chaser = field.agent("chaser", AgentConfig(target="runner", speed=4.0))

    field.step(10.0)

    assert runner.state is AgentState.ARRIVED  # at End
    (x, y), (rx, ry) = chaser.position, runner.position
    assert math.hypot(x - rx, y - ry) < 1.0  # caught up with the runner there
    assert chaser.replans_by_cause[ReplanCause.GOAL_MOVED] > 0  # followed it cell by cell


def test_patrol_goes_between_start_and_the_target():
    field = Field()
    field.add("start", "Start", (1.5, 1.5))
    bot = field.agent("bot", AgentConfig(target="flag", mode=AgentMode.PATROL))
    arrived_at = []
    for _ in range(round(8.0 / DT)):
        arrivals = bot.arrivals
        field.world.step(DT)
        if bot.arrivals > arrivals:
            arrived_at.append(bot.position)

    assert len(arrived_at) >= 2
    flag, start = arrived_at[:2]
    assert math.dist(flag, (1.5, 8.5)) <= bot.config.arrival_radius + 1e-6
    assert math.dist(start, (1.5, 1.5)) <= bot.config.arrival_radius + 1e-6


def test_removed_target_leaves_the_agent_idle_and_the_hud_says_why():
    field = Field()
    bot = field.agent("bot", AgentConfig(target="flag"))
    field.step(0.5)
    assert bot.state is AgentState.MOVING

    field.world.destroy(field.flag)
    field.step(0.5)

    assert bot.state is AgentState.IDLE
    assert bot.lost_target == "flag"
    assert "(target 'flag' is gone)" in agent_line(bot)


def test_target_is_looked_up_once_not_every_frame(monkeypatch):
    field = Field()
    bot = field.agent("bot", AgentConfig(target="flag"))
    field.step(DT)
    calls: list[str] = []
    find = field.world.find

    def counted(name: str) -> object:
        calls.append(name)
        return find(name)

    monkeypatch.setattr(field.world, "find", counted)

    field.step(1.0)

    assert calls == []
    assert bot.state is AgentState.MOVING
