"""Engine layer: a thin Unity-analog over Panda3D (GameObject, Component, World, FrameLoop).

Imports Panda3D and `sim.config` only; knows nothing of navigation. Everything Panda3D-global
(render root, clock, task manager) is passed in, never read from ShowBase builtins.
"""

from sim.engine.component import Component
from sim.engine.game_object import PYTHON_TAG, TAG_KEY, GameObject
from sim.engine.gizmos import Gizmos
from sim.engine.loop import FrameLoop
from sim.engine.replan_gate import ReplanGate
from sim.engine.timers import Every
from sim.engine.world import World

__all__ = [
    "PYTHON_TAG",
    "TAG_KEY",
    "Component",
    "Every",
    "FrameLoop",
    "GameObject",
    "Gizmos",
    "ReplanGate",
    "World",
]
