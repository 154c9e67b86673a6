"""A beacon that hovers over another object, bobbing and turning, with a line down to it.

It reads where another object is every frame: drag End around and the beacon follows. Used by
scenes/scripted.toml:

    [[objects.scripts]]
    file = "scripts/beacon.py"
    class = "Beacon"
    [objects.scripts.params]
    target = "end"
"""

from __future__ import annotations

import math

from sim.scripting import Script, ScriptGizmos, ScriptObject

LINE_COLOR = (1.0, 0.35, 0.35, 1.0)


class Beacon(Script):
    """Hover `height` units over the object called `target` (default: the End-tagged one).

    It bobs `bob` units up and down once every `period_s` seconds and turns `deg_per_s`.
    """

    def __init__(
        self,
        target: str = "",
        height: float = 2.0,
        bob: float = 0.25,
        period_s: float = 2.0,
        deg_per_s: float = 90.0,
        **kwargs: object,
    ) -> None:
        super().__init__(**kwargs)
        if period_s <= 0:
            raise ValueError(f"period_s must be > 0, got {period_s}")
        self.target_name = target
        self.height, self.bob, self.period_s = float(height), float(bob), float(period_s)
        self.deg_per_s = float(deg_per_s)
        self.target: ScriptObject | None = None

    def start(self) -> None:
        """Find the object to hover over (every object exists by now)."""
        if self.target_name:
            self.target = self.world.find(self.target_name)
        else:
            self.target = self.world.find_with_tag("End")
        if self.target is None:
            raise LookupError(f"no object {self.target_name or 'tagged End'} to hover over")

    def update(self, dt: float) -> None:
        """Hover over the target wherever it is now, bobbing and turning."""
        if self.target is None or not self.target.alive:
            return
        x, y, z = self.target.position
        phase = 2.0 * math.pi * self.world.time_s / self.period_s
        self.game_object.position = (x, y, z + self.height + self.bob * math.sin(phase))
        self.game_object.heading += self.deg_per_s * dt

    def on_draw_gizmos(self, gizmos: ScriptGizmos) -> None:
        """Draw a line down to the target."""
        if self.target is not None and self.target.alive:
            gizmos.line(self.game_object.position, self.target.position, LINE_COLOR)
