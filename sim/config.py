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


class AgentMode(StrEnum):
    """What an agent does: chase the End cube, or go back and forth between Start and End."""

    CHASE = "chase"
    PATROL = "patrol"


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """How an Agent-tagged object moves; units are world units and seconds."""

    speed: float = 3.0
    turn_rate: float = 5.0
    replan_interval_s: float = 1.0
    arrival_radius: float = 0.25
    mode: AgentMode = AgentMode.CHASE
    smoothing: bool = True
