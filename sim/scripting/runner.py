"""ScriptRunner: calls every scene script's hooks, and switches off a script that raises.

One component drives all scripts, spawned before the GridManager as the scene's motion is: in
one frame a script moves an obstacle, the grid rasterizes it and the agents react, exactly as
for a mover or a drag. Each hook runs guarded: anything it raises (any BaseException: a
SystemExit, a KeyboardInterrupt or a CancelledError it raises itself too) becomes one line (the
script's file, line and object) handed to `on_error`, the script is switched off, and the app
keeps running. Only the user's own interrupt (`sim.errors.Interrupted`, raised by the signal
handlers when Ctrl+C or SIGTERM comes) is not the script's fault: it stops every script for
the rest of the frame, at whose end the run stops.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from sim.engine import Component, GameObject, Gizmos
from sim.errors import Interrupted
from sim.scripting.loader import LoadedScript, describe_error, error_line
from sim.scripting.script import Script, ScriptGizmos, ScriptObject, ScriptWorld, bind


@dataclass(slots=True)
class _Running:
    """One script on one object, and where it is in its lifecycle."""

    loaded: LoadedScript
    obj: GameObject
    gizmos: ScriptGizmos
    awoken: bool = False
    started: bool = False
    failed: bool = False
    destroyed: bool = False

    @property
    def script(self) -> Script:
        return self.loaded.script

    @property
    def live(self) -> bool:
        """Whether its hooks may still run: not failed, not destroyed, its object alive."""
        return not (self.failed or self.destroyed) and self.obj.alive


class _DestroyWatch(Component):
    """Tells the runner when its object is removed, while the object can still be read."""

    def __init__(self, on_destroy: Callable[[GameObject], None]) -> None:
        super().__init__()
        self._on_destroy = on_destroy

    def on_destroy(self) -> None:
        self._on_destroy(self.game_object)


class ScriptRunner(Component):
    """Runs the scene's scripts: awake all, start each before its first update, then update.

    Args:
        on_error: Told each failure as one line, e.g. ``script scripts/x.py line 12 (object
            'spinner'): ZeroDivisionError: division by zero``.
        dragged: The object the user is dragging now, or None; its scripts' `update` waits
            until it is dropped, as the scene's motion does.
    """

    def __init__(
        self,
        *,
        on_error: Callable[[str], None],
        dragged: Callable[[], GameObject | None] = lambda: None,
    ) -> None:
        super().__init__()
        self._on_error = on_error
        self._dragged = dragged
        self._loaded: list[LoadedScript] = []
        self._running: list[_Running] = []
        self._watched: set[GameObject] = set()
        self._view: ScriptWorld | None = None
        # Scripted objects removed while the app runs, by name, with their tag: an undo puts
        # such an object back, and its scripts start afresh on it.
        self._removed: dict[str, str] = {}
        self._closing = False
        self._awoken = False
        # Set when the user's Ctrl+C or SIGTERM interrupted a hook: the run is ending, and no
        # more hooks run (another could loop forever too).
        self._interrupted = False
        self.in_hook = False
        """True while a script's hook runs (a SIGTERM then interrupts it: it may never return)."""
        self.errors: list[str] = []

    @property
    def interrupted(self) -> bool:
        """Whether the user's Ctrl+C or SIGTERM struck inside a hook (no hook runs since)."""
        return self._interrupted

    def moved(self, game_object: GameObject) -> bool:
        """Whether a script has moved or turned `game_object` (its place is then the script's)."""
        return self._view is not None and game_object in self._view.moved

    @property
    def scripts(self) -> list[Script]:
        """Every script, in scene order (switched-off ones too)."""
        return [running.script for running in self._running]

    def attach(self, loaded: Sequence[LoadedScript], objects: Sequence[GameObject]) -> None:
        """Put each loaded script on its object, one of `objects` (the scene's, by name).

        Call it once, after the scene's objects are built: before the first frame, or later
        (the user allowed the scene's scripts), when each is awoken at once and the scripts
        of objects removed meanwhile stay off.
        """
        world = self.world
        if world is None:
            raise RuntimeError("ScriptRunner must be in a World before scripts attach")
        self._view = ScriptWorld(world, objects)
        self._loaded = list(loaded)
        by_name = {obj.name: obj for obj in objects}
        for item in loaded:
            running = self._put(item, by_name[item.object_name])
            if self._awoken and running.live:
                running.awoken = True
                self._call(running, running.script.awake)

    def _put(self, item: LoadedScript, obj: GameObject) -> _Running:
        """Run `item`'s script on `obj` from the next awake (or now, in a started world)."""
        if self._view is None:
            raise RuntimeError("ScriptRunner.attach() puts scripts on objects first")
        bind(item.script, ScriptObject(obj, self._view.moved), self._view)
        gizmos = ScriptGizmos(f"script/{len(self._running)}/{obj.name}")
        running = _Running(item, obj, gizmos)
        self._running.append(running)
        if obj not in self._watched:
            self._watched.add(obj)
            obj.add_component(_DestroyWatch(self._object_removed))
        return running

    def awake(self) -> None:
        """Wake every script, in scene order, before any starts."""
        self._awoken = True
        for running in self._running:
            if running.live:
                running.awoken = True
                self._call(running, running.script.awake)

    def update(self, dt: float) -> None:
        """Start the scripts due to start, then update each enabled one by `dt` seconds.

        A scripted object that was removed and has been put back (an undo) first gets fresh
        scripts, built from the scene's params again and awoken at once.
        """
        if self._removed:
            self._put_back_restored()
        for running in self._running:
            if running.live and running.awoken and not running.started and running.script.enabled:
                running.started = True
                self._call(running, running.script.start)
        dragged = self._dragged()
        for running in self._running:
            due = running.live and running.started and running.script.enabled
            if due and running.obj is not dragged:
                self._call(running, partial(running.script.update, dt))

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Let each enabled script draw, on keys of its own."""
        for running in self._running:
            if running.live and running.awoken and running.script.enabled:
                running.gizmos.begin(gizmos)
                self._call(running, partial(running.script.on_draw_gizmos, running.gizmos))

    def on_destroy(self) -> None:
        """The app closes: every script still running gets its `on_destroy`."""
        self._closing = True
        for running in self._running:
            self._destroy(running)

    def _object_removed(self, game_object: GameObject) -> None:
        for running in self._running:
            if running.obj is game_object:
                self._destroy(running)
        if not self._closing:
            self._removed[game_object.name] = game_object.tag

    def _put_back_restored(self) -> None:
        world = self.world
        if world is None:
            return
        for name, tag in list(self._removed.items()):
            back = next(
                (
                    obj
                    for obj in world.find_all_with_tag(tag)
                    if obj.name == name and obj.alive and obj not in self._watched
                ),
                None,
            )
            if back is None:
                continue
            del self._removed[name]
            for item in self._loaded:
                if item.object_name == name:
                    self._rebuild(item, back)

    def _rebuild(self, item: LoadedScript, obj: GameObject) -> None:
        """A new instance of `item`'s class on `obj`, built with the scene's params again."""
        kind = type(item.script)
        try:
            script = kind(**copy.deepcopy(dict(item.spec.params)))
        except Interrupted:
            self._interrupted = True
            return
        except BaseException as error:
            self._report(item, error)
            return
        running = self._put(dataclasses.replace(item, script=script), obj)
        running.awoken = True
        self._call(running, script.awake)

    def _destroy(self, running: _Running) -> None:
        if running.awoken and not (running.failed or running.destroyed):
            running.destroyed = True
            self._call(running, running.script.on_destroy)

    def _call(self, running: _Running, hook: Callable[[], object]) -> None:
        """Run one hook; if it raises, switch the script off and report where."""
        if self._interrupted:
            return
        self.in_hook = True
        try:
            result = hook()
            if inspect.iscoroutine(result) or inspect.isgenerator(result):
                # An `async def` hook (named at load): its body never runs, nor warns each frame.
                result.close()
        except Interrupted:
            # Caught here, not in Panda3D's task manager (which prints it as a crash): the
            # signal's owner ends the run at the end of this frame.
            self._interrupted = True
        except BaseException as error:
            running.failed = True
            running.script.enabled = False
            self._report(running.loaded, error)
        finally:
            self.in_hook = False

    def _report(self, item: LoadedScript, error: BaseException) -> None:
        line = error_line(error, item.path)
        at = "" if line is None else f" line {line}"
        message = (
            f"script {item.spec.file}{at} (object {item.object_name!r}): {describe_error(error)}"
        )
        self.errors.append(message)
        self._on_error(message)
