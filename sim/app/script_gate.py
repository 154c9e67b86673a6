"""A scene's scripts behind the user's permission: run from the start, or once the user allows.

A scene the user trusts (`sim.scene.script_trust`) has its scripts imported before any window
opens and running from the first frame. Any other scene runs without them; a banner along the
top says how many it has and which key allows them, as Blender's bar does for a .blend file's
scripts. Allowed there, they are imported then and start on the scene as it stands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from direct.gui.OnscreenText import OnscreenText
from panda3d.core import NodePath, TextNode

from sim.app.report import ScriptsEntry
from sim.engine import GameObject, World
from sim.scene.script_trust import ScriptTrust, script_count
from sim.scene.spec import SceneError, SceneSpec
from sim.scripting.loader import LoadedScript, hook_warnings, load_scripts
from sim.scripting.runner import ScriptRunner

ALLOW_KEY: Final = "A"  # the controls table's "allow_scripts" row
BANNER_SCALE: Final = 0.05
BANNER_COLOR: Final = (1.0, 0.85, 0.4, 1.0)
BANNER_BACKGROUND: Final = (0.1, 0.1, 0.1, 0.85)


class ScriptGate:
    """Loads a scene's scripts when allowed, runs them on a `ScriptRunner`, says what it did.

    Args:
        scene: The scene.
        trust: Whether its scripts may run from the start.
        notify: Shows a line on the HUD and prints it (a hook name that is never called, a
            script that raised).

    Raises:
        SceneError: When the scene is trusted and a script does not load (one line).
    """

    def __init__(
        self, scene: SceneSpec, trust: ScriptTrust, *, notify: Callable[[str], None]
    ) -> None:
        self._scene = scene
        self._notify = notify
        self.count = script_count(scene)
        self.allowed = trust.allowed or self.count == 0
        self._loaded = load_scripts(scene) if trust.allowed else []
        self.warnings: list[str] = []
        self._errors: list[str] = []
        self._runner: ScriptRunner | None = None
        self._objects: Sequence[GameObject] = ()
        self._banner: OnscreenText | None = None

    def spawn_runner(
        self, world: World, *, errors: list[str], dragged: Callable[[], GameObject | None]
    ) -> ScriptRunner:
        """Spawn the component that runs the scripts; their failures join `errors`."""
        self._errors = errors
        runner = ScriptRunner(on_error=self._failed, dragged=dragged)
        self._runner = world.spawn("scene-scripts").add_component(runner)
        return self._runner

    def attach(self, objects: Sequence[GameObject], *, banner_parent: NodePath) -> None:
        """Put the loaded scripts on `objects`, or show the banner when they wait for the user."""
        self._objects = objects
        if self.allowed:
            self._start(self._loaded)
            return
        self._banner = OnscreenText(
            text=self.banner_text(),
            parent=banner_parent,
            pos=(0.0, -0.1),
            scale=BANNER_SCALE,
            fg=BANNER_COLOR,
            bg=BANNER_BACKGROUND,
            align=TextNode.A_center,
            mayChange=True,
        )

    def banner_text(self) -> str:
        """What the banner says while the scripts wait."""
        scripts = "1 script" if self.count == 1 else f"{self.count} scripts"
        return (
            f"This scene has {scripts} (Python code), not run: "
            f"press {ALLOW_KEY} to allow {'it' if self.count == 1 else 'them'}"
        )

    def allow(self) -> None:
        """The user allows the scene's scripts: import them now and start them on the scene."""
        if self.allowed:
            return
        self.allowed = True
        if self._banner is not None:
            self._banner.destroy()
            self._banner = None
        try:
            loaded = load_scripts(self._scene)
        except SceneError as error:
            self._failed(str(error))
            return
        names = {obj.name for obj in self._objects if obj.alive}
        self._start([item for item in loaded if item.object_name in names])
        self._notify(f"scripts allowed: {self.count} running")

    def entry(self) -> ScriptsEntry:
        """The report's `scripts`: how many, whether they run, what the banner says."""
        return {
            "count": self.count,
            "trusted": self.allowed,
            "skipped": 0 if self.allowed else self.count,
            "banner": None if self._banner is None else self.banner_text(),
            "warnings": list(self.warnings),
        }

    def _start(self, loaded: list[LoadedScript]) -> None:
        if self._runner is None:
            raise RuntimeError("ScriptGate.spawn_runner() comes before attach()")
        self.warnings = hook_warnings(loaded, self._scene.path)
        for line in self.warnings:
            self._notify(line)
        alive = [obj for obj in self._objects if obj.alive]
        self._runner.attach(loaded, alive)

    def _failed(self, message: str) -> None:
        self._errors.append(message)
        self._notify(message)
