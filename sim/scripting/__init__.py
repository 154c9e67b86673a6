"""Scripts: user behaviour, written in Python, on the objects of a scene.

A scene names a file, a class in it and the class's keyword arguments
(``[[objects.scripts]]``, see docs/scripting.md); the class subclasses `Script`:

    from sim.scripting import Script

    class Spin(Script):
        def __init__(self, deg_per_s: float = 90.0, **kwargs: object) -> None:
            super().__init__(**kwargs)
            self.deg_per_s = deg_per_s

        def update(self, dt: float) -> None:
            self.game_object.heading += self.deg_per_s * dt

A scene's scripts run as the user's own code, with no sandbox; so they run only when the user
allows them (`--trust-scripts`, a trusted folder, or the key on a window's banner).
"""

from sim.scripting.script import Script, ScriptGizmos, ScriptObject, ScriptWorld

__all__ = ["Script", "ScriptGizmos", "ScriptObject", "ScriptWorld"]
