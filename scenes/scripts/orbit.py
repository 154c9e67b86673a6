"""An obstacle that circles a point: the path and the agents make way as it passes.

Used by scenes/scripted.toml:

    [[objects.scripts]]
    file = "scripts/orbit.py"
    class = "Orbit"
    [objects.scripts.params]
    center = [0.0, 0.0]
    radius = 3.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sim.scripting import Script, ScriptGizmos

TRACK_COLOR = (0.95, 0.85, 0.3, 1.0)  # the orbit's circle on the ground, a pale yellow


class Orbit(Script):
    """Circle `center` (world x, y) at `radius` units, `deg_per_s` degrees a second.

    The orbit starts at the angle where the scene puts the object, and the object turns to face
    along its way (an obstacle's footprint turns with it, so the grid sees that too).
    """

    def __init__(
        self,
        center: Sequence[float] = (0.0, 0.0),
        radius: float = 3.0,
        deg_per_s: float = 30.0,
        **kwargs: object,
    ) -> None:
        super().__init__(**kwargs)
        if len(center) != 2 or radius <= 0:
            raise ValueError(f"center must be [x, y] and radius > 0, got {center}, {radius}")
        self.center = (float(center[0]), float(center[1]))
        self.radius = float(radius)
        self.deg_per_s = float(deg_per_s)
        self.angle_deg = 0.0

    def start(self) -> None:
        """Set off from the angle the scene puts the object at."""
        x, y, _ = self.game_object.position
        self.angle_deg = math.degrees(math.atan2(y - self.center[1], x - self.center[0]))
        self.update(0.0)

    def update(self, dt: float) -> None:
        """Go `deg_per_s * dt` degrees on round the circle, turning with the way."""
        self.angle_deg = (self.angle_deg + self.deg_per_s * dt) % 360.0
        angle = math.radians(self.angle_deg)
        z = self.game_object.position[2]
        self.game_object.position = (
            self.center[0] + self.radius * math.cos(angle),
            self.center[1] + self.radius * math.sin(angle),
            z,
        )
        self.game_object.heading = self.angle_deg  # faces along its way (heading 0 faces +y)

    def on_draw_gizmos(self, gizmos: ScriptGizmos) -> None:
        """Draw the circle on the ground."""
        gizmos.circle((*self.center, 0.03), self.radius, TRACK_COLOR)
