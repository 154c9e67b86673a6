"""Selecting with a click, told apart from a drag, and the selected object's outline.

A click is a left press and release with the pointer no further than `CLICK_SLOP` apart (in
Panda3D's normalised window coordinates): it selects what was under the pointer at the press,
or clears the selection on empty ground. A press that moved further is a drag, which moves the
cube and selects nothing. Agents are not pickable (a crowd of them would slow every frame's
pick), so a click that hits no cube selects the agent whose disc holds the ground point, where
it stands now: `before_pick` has the crowd write its agents' nodes first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import NDArray
from panda3d.core import NodePath, Point3

from sim.config import PALETTE, Tag
from sim.engine import GameObject
from sim.engine.picking import Picker

CLICK_SLOP: Final = 0.01
"""How far the pointer may move between press and release for a click (about 4 pixels of 800)."""
AGENT_PICK_RADIUS: Final = 0.5
"""World units around an agent's centre that a click selects it from (its model spans 0.4)."""
OUTLINE_KEY: Final = "selection-outline"
OUTLINE_COLOR: Final = PALETTE.selected
OUTLINE_GROWTH: Final = 1.06  # a little larger than the object, so the wire is not hidden in it
OUTLINE_THICKNESS: Final = 2.0
# The 12 edges of a box as pairs of corner indices, corners numbered by their (x, y, z) bits.
_EDGES: Final = tuple((a, a | bit) for a in range(8) for bit in (1, 2, 4) if not a & bit)


@dataclass(frozen=True, slots=True)
class Press:
    """Where the left button went down, and what a click there would select."""

    mouse: tuple[float, float]
    target: GameObject | None
    selects: bool  # False for shift+press, which adds an obstacle instead


class ClickTracker:
    """Remembers each left press, so its release can say whether it was a click."""

    def __init__(
        self,
        picker: Picker,
        agents: Callable[[], Iterable[GameObject]] = tuple,
        before_pick: Callable[[], None] = lambda: None,
    ) -> None:
        self._picker = picker
        self._agents = agents
        self._before_pick = before_pick
        self._press: Press | None = None

    def press(self, mouse: tuple[float, float], *, shift: bool = False) -> None:
        """The left button went down at `mouse`: note what lies under it."""
        target = None if shift else self._target(mouse)
        self._press = Press(mouse, target, selects=not shift)

    def release(self, mouse: tuple[float, float] | None) -> Press | None:
        """The left button came up at `mouse`: the press, if this was a click; else None.

        Without the pointer (it left the window) it is no click.
        """
        press, self._press = self._press, None
        if press is None or mouse is None or not press.selects:
            return None
        if math.dist(press.mouse, mouse) > CLICK_SLOP:
            return None
        return press

    def _target(self, mouse: tuple[float, float]) -> GameObject | None:
        self._before_pick()
        hit = self._picker.pick(mouse)
        if hit is not None:
            return hit
        ground = self._picker.ground_point(mouse)
        if ground is None:
            return None
        near = [
            (math.dist(agent.xy, (ground.x, ground.y)), agent)
            for agent in self._agents()
            if agent.alive and agent.tag == Tag.AGENT
        ]
        near = [pair for pair in near if pair[0] <= AGENT_PICK_RADIUS]
        return min(near, key=lambda pair: pair[0])[1] if near else None


def outline_segments(node: NodePath, root: NodePath) -> NDArray[np.float32]:
    """The edges of `node`'s bounding box in its own frame (so it turns with it), in `root`'s.

    Shape (12, 2, 3); the box is grown by `OUTLINE_GROWTH` about its centre. A node with no
    geometry gives a unit cube around its origin.
    """
    bounds = node.get_tight_bounds(node)
    if bounds is None:
        low, high = Point3(-0.5, -0.5, 0.0), Point3(0.5, 0.5, 1.0)
    else:
        low, high = bounds
    centre = (low + high) * 0.5
    half = (high - low) * (0.5 * OUTLINE_GROWTH)
    corners = []
    for index in range(8):
        local = Point3(
            centre.x + (half.x if index & 1 else -half.x),
            centre.y + (half.y if index & 2 else -half.y),
            centre.z + (half.z if index & 4 else -half.z),
        )
        point = root.get_relative_point(node, local)
        corners.append((point.x, point.y, point.z))
    points = np.asarray(corners, dtype=np.float32)
    return np.stack([points[[a for a, _ in _EDGES]], points[[b for _, b in _EDGES]]], axis=1)
