"""Project folders and the tunables shared by more than one layer."""

from __future__ import annotations

import math
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

    Motion under Unity's NavMeshAgent names: `acceleration` (units/s²; inf, the default, reaches
    `speed` at once, as agents always did), `angular_speed` (deg/s, a cap on turning beside the
    `turn_rate` slerp; inf: no cap), `stopping_distance` (stops this short of its target),
    `auto_braking` (slows within `acceleration` to stop at the target; a no-op while
    `acceleration` is inf, so Unity's default True keeps today's motion) and
    `avoidance_priority` (0-99, lower is more important and yields less in ORCA). `areas`
    names the terrain areas it may walk on (None: everywhere).
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
    acceleration: float = math.inf
    angular_speed: float = math.inf
    stopping_distance: float = 0.0
    auto_braking: bool = True
    avoidance_priority: int = 50
    areas: tuple[str, ...] | None = None


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


Rgba = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Palette:
    """One colour per meaning, the same in the scene, the search view and the crowds; RGBA 0..1.

    Whatever draws a meaning takes its colour from here and the legend lists every one, so a
    colour never stands for two things (orange was once the agents, their routes and the search
    frontier at once). A translucent colour is told apart as it looks over the ground.
    """

    start: Rgba = (0.2, 0.8, 0.3, 1.0)  # green, the Start marker
    end: Rgba = (0.9, 0.1, 0.1, 1.0)  # red, the End marker
    agent: Rgba = (1.0, 0.55, 0.1, 1.0)  # orange, every agent: alone or in a crowd
    obstacle: Rgba = (0.45, 0.52, 0.62, 1.0)  # grey-blue
    blocked: Rgba = (0.75, 0.2, 0.15, 0.45)  # the shading of blocked cells
    door_closed: Rgba = (0.0, 0.4, 0.45, 1.0)  # deep teal: a door that blocks its cells now
    door_open: Rgba = (0.95, 0.95, 0.7, 1.0)  # pale outline on the ground where it sank
    path: Rgba = (0.0, 0.85, 1.0, 1.0)  # cyan, the Start -> End path, planned or searched
    route: Rgba = (0.15, 0.3, 0.95, 1.0)  # blue, each agent's own route
    selected: Rgba = (1.0, 1.0, 1.0, 1.0)  # the editor's selection outline
    link: Rgba = (0.7, 0.55, 0.0, 1.0)  # ochre, the scene's links: jumps, ladders, teleports
    frontier: Rgba = (0.2, 0.85, 0.75, 1.0)  # mint, the search's open set
    closed: Rgba = (0.6, 0.8, 0.95, 1.0)  # pale blue, cells the search expanded
    current: Rgba = (0.25, 0.6, 1.0, 1.0)  # the cell being expanded
    back_frontier: Rgba = (0.55, 0.2, 0.85, 1.0)  # a bidirectional search's backward half
    back_closed: Rgba = (0.8, 0.65, 1.0, 1.0)
    meeting: Rgba = (0.95, 0.1, 0.55, 1.0)  # where the two halves meet
    parent_arrow: Rgba = (0.1, 0.1, 0.14, 1.0)
    start_region: Rgba = (0.05, 0.35, 1.0, 0.5)  # no path: the cells Start reaches
    goal_region: Rgba = (0.75, 0.25, 0.95, 0.4)  # no path: the cells End reaches
    fix: Rgba = (1.0, 0.95, 0.2, 1.0)  # no path: the cells to remove
    velocity: Rgba = (0.6, 1.0, 0.2, 1.0)  # crowd gizmo: where an agent goes next
    neighbour: Rgba = (0.62, 0.52, 1.0, 1.0)  # crowd gizmo: the agents one avoids
    joint_plan: Rgba = (1.0, 0.3, 1.0, 1.0)  # magenta, agents following a joint plan (MAPF too)
    mapf_waiting: Rgba = (0.5, 0.0, 0.4, 1.0)  # plum, a MAPF plan's agent waiting in place
    mapf_at_goal: Rgba = (0.05, 0.5, 0.15, 1.0)  # deep green, a MAPF plan's agent at its goal
    # A race's lanes, each its own open and closed cells, so a screenshot tells them apart.
    race_1_open: Rgba = (0.55, 0.3, 0.0, 1.0)  # brown
    race_1_closed: Rgba = (0.95, 0.75, 0.55, 1.0)  # tan
    race_2_open: Rgba = (0.15, 0.65, 0.0, 1.0)  # leaf green
    race_2_closed: Rgba = (0.7, 1.0, 0.65, 1.0)  # pale green
    race_3_open: Rgba = (0.75, 0.0, 0.4, 1.0)  # magenta
    race_3_closed: Rgba = (1.0, 0.65, 0.85, 1.0)  # pink
    race_4_open: Rgba = (0.0, 0.0, 0.55, 1.0)  # navy
    race_4_closed: Rgba = (0.4, 0.4, 1.0, 1.0)  # periwinkle

    @property
    def race_lanes(self) -> tuple[tuple[Rgba, Rgba], ...]:
        """Each race lane's (open, closed) colours, lane by lane."""
        return (
            (self.race_1_open, self.race_1_closed),
            (self.race_2_open, self.race_2_closed),
            (self.race_3_open, self.race_3_closed),
            (self.race_4_open, self.race_4_closed),
        )


PALETTE = Palette()
"""The colours everything draws with (see `Palette`)."""
