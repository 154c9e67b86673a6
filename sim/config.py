"""Project folders and the tunables shared by more than one layer."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = REPO_ROOT / "models"
SCENES_DIR = REPO_ROOT / "scenes"
DEFAULT_SCENE = SCENES_DIR / "default.toml"

# Headless runs step a non-real-time clock at this rate, so dt is exactly 1/60 s.
DEFAULT_FIXED_FPS = 60
LOOKS = ("auto", "full", "plain")
"""What `sim run --look` takes: auto (the full look, dropped to plain while the frame rate stays
low), full (shadows and anti-aliasing whatever the frame rate) or plain (neither)."""
LOOK_FALLBACK_FPS = 30.0  # below this, an auto look gives up shadows and anti-aliasing


class Tag(StrEnum):
    """What an object is to the simulation; the values are the tags as scene files spell them.

    A `StrEnum`, so a member equals its plain string: the engine keeps `GameObject.tag` a `str`,
    and `obj.tag == Tag.START` holds for a tag read back from Panda3D as much as for a scene's.
    """

    OBSTACLE = "Obstacle"
    START = "Start"
    END = "End"
    AGENT = "Agent"
    TERRAIN = "Terrain"  # a flat patch that changes the cost of the cells it covers
    UNTAGGED = "Untagged"


# Half the side of the square the `agent` model covers at scale 1 (models/agent.egg): the
# radius an agent has unless its scene says otherwise, and the scale its model is drawn at.
AGENT_MODEL_RADIUS = 0.4


class AgentMode(StrEnum):
    """What an agent does: chase the End cube, or go back and forth between Start and End."""

    CHASE = "chase"
    PATROL = "patrol"


class Planner(StrEnum):
    """How an agent plans: alone (and avoids the others), or jointly with every "mapf" agent."""

    INDEPENDENT = "independent"
    MAPF = "mapf"


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """How an Agent-tagged object moves and how big it is; units are world units and seconds.

    `radius` is the disc the agent keeps clear of every blocked cell. Its default, 0.4, is the
    `agent` model's size at scale 1: its body and nose span x and y from -0.4 to 0.4.
    `avoidance` False lets the agent walk through other agents (for comparison). `target` names
    the object the agent goes to (any object of the scene, another agent too); None is the
    End-tagged one. In patrol mode the agent goes back and forth between Start and its target.
    `planner` MAPF hands the agent to the scene's joint plan (`sim.components.mapf_group`).
    """

    speed: float = 3.0
    turn_rate: float = 5.0
    replan_interval_s: float = 1.0
    arrival_radius: float = 0.25
    mode: AgentMode = AgentMode.CHASE
    smoothing: bool = True
    radius: float = AGENT_MODEL_RADIUS
    avoidance: bool = True
    target: str | None = None
    planner: Planner = Planner.INDEPENDENT


class MoverMode(StrEnum):
    """How a mover runs its route: round and round, or there and back again."""

    LOOP = "loop"  # pos -> w1 -> ... -> wn -> pos -> w1 ...
    PINGPONG = "pingpong"  # pos -> w1 -> ... -> wn -> ... -> w1 -> pos -> w1 ...


@dataclass(frozen=True, slots=True)
class MoverConfig:
    """An object that travels a route by itself (`[objects.mover]`); world units and seconds.

    The route starts at the object's `pos` and visits `waypoints` (world x, y) in order at
    `speed`, pausing `wait_s` at every stop, `pos` included when the route comes back to it.
    """

    waypoints: tuple[tuple[float, float], ...]
    speed: float
    mode: MoverMode = MoverMode.PINGPONG
    wait_s: float = 0.0


@dataclass(frozen=True, slots=True)
class RotatorConfig:
    """An object that turns by itself (`[objects.rotator]`): degrees per second, + is ccw."""

    deg_per_s: float


@dataclass(frozen=True, slots=True)
class DoorConfig:
    """An obstacle that opens and closes on a timer (`[objects.door]`); seconds.

    From `phase_s` on, the door is open for `open_fraction * period_s`, then closed for the
    rest of the period, and so on; the schedule runs backwards the same way, so at time 0 a
    door with a positive `phase_s` is where the cycle that ends at `phase_s` has it.
    """

    period_s: float
    open_fraction: float
    phase_s: float = 0.0
