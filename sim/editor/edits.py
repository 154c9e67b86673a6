"""The editor's own edits, each able to take itself back and make itself again (`Edit`).

A move, an added or removed obstacle, a terrain cost and a generated layout. They name the
objects they touch instead of holding them: undoing a removal brings back a new GameObject
under the old name, and an older edit of that obstacle must find the one alive now. The
history undoes last first, so when an edit runs the scene is exactly as it left it.

Edits change the scene only through a `SceneOps` (the `SceneEditor`), the same calls the
mouse's edits go through, so the grid follows each step as after a drop; the editor then
settles the planners once per undo or redo.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from panda3d.core import NodePath

if TYPE_CHECKING:
    from sim.components.motion import Motion

Vec3 = tuple[float, float, float]
Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A removed object, ready to be put back as it was.

    Attributes:
        name: Its name, which it gets back.
        tag: Its tag.
        node: A detached copy of its node: model, transform, colour and pick mask (the copy
            shares the model's geometry).
        index: Where it stood in the scene's object list, so the report lists it in its place.
        placement: Where its own motion is anchored (a mover's route origin, a rotator's
            heading at time 0), or None for an object that does not move by itself.
        motion: Its motion settings as they were (the inspector may have changed the file's),
            or None for an object that does not move by itself.
    """

    name: str
    tag: str
    node: NodePath
    index: int
    placement: tuple[Vec3, float] | None = None
    motion: Motion | None = None


class SceneOps(Protocol):
    """What edits do to the scene; each call brings the grid up to date before it returns."""

    def put(self, name: str, xy: Point) -> None:
        """Move the object called `name` to world `xy` (its height stays)."""
        ...

    def take(self, names: Sequence[str]) -> list[Snapshot]:
        """Remove the objects called `names` and return how to put each back."""
        ...

    def restore(self, snapshots: Sequence[Snapshot]) -> None:
        """Put back what `take` removed, each in its place, pickable and draggable again."""
        ...

    def set_cost(self, name: str, cost: float) -> None:
        """Give the terrain patch called `name` the cost multiplier `cost`."""
        ...


class Move:
    """An object dragged (or put) from one place on the ground to another."""

    def __init__(self, scene: SceneOps, name: str, before: Point, after: Point) -> None:
        self._scene, self.name = scene, name
        self.before, self.after = before, after

    @property
    def label(self) -> str:
        """E.g. "move end"."""
        return f"move {self.name}"

    def undo(self) -> None:
        """Put it back where it was picked up."""
        self._scene.put(self.name, self.before)

    def redo(self) -> None:
        """Put it where it was dropped."""
        self._scene.put(self.name, self.after)


class Add:
    """An obstacle added (shift+click); undoing it removes the obstacle, redoing puts it back."""

    def __init__(self, scene: SceneOps, name: str) -> None:
        self._scene, self.name = scene, name
        self._taken: list[Snapshot] = []

    @property
    def label(self) -> str:
        """E.g. "add obstacle-1"."""
        return f"add {self.name}"

    def undo(self) -> None:
        """Remove the obstacle, keeping it (as it is now) for a redo."""
        self._taken = self._scene.take([self.name])

    def redo(self) -> None:
        """Put the obstacle back as the undo found it."""
        self._scene.restore(self._taken)


class Remove:
    """An obstacle removed (X or Delete); undoing it puts the obstacle back, name and all."""

    def __init__(self, scene: SceneOps, taken: Snapshot) -> None:
        self._scene, self._taken = scene, taken

    @property
    def label(self) -> str:
        """E.g. "remove pillar"."""
        return f"remove {self._taken.name}"

    def undo(self) -> None:
        """Put the obstacle back."""
        self._scene.restore([self._taken])

    def redo(self) -> None:
        """Remove it again (as it is now: a later edit may have moved it, then been undone)."""
        # Nothing comes back when something outside the editor (a script) destroyed it since.
        self._taken = next(iter(self._scene.take([self._taken.name])), self._taken)


class Recost:
    """A terrain patch's cost changed (U)."""

    def __init__(self, scene: SceneOps, name: str, before: float, after: float) -> None:
        self._scene, self.name = scene, name
        self.before, self.after = before, after

    @property
    def label(self) -> str:
        """E.g. "mud: terrain cost 3"."""
        return f"{self.name}: terrain cost {self.after:g}"

    def undo(self) -> None:
        """Give the patch its old cost."""
        self._scene.set_cost(self.name, self.before)

    def redo(self) -> None:
        """Give the patch the new cost."""
        self._scene.set_cost(self.name, self.after)


class Replace:
    """Every obstacle swapped for a generated layout's (the generator menu)."""

    def __init__(self, scene: SceneOps, removed: list[Snapshot], added: list[str]) -> None:
        self._scene = scene
        self._removed = removed
        self._added_names = added
        self._added: list[Snapshot] = []

    @property
    def label(self) -> str:
        """E.g. "replace 12 obstacles with 30"."""
        return f"replace {len(self._removed)} obstacles with {len(self._added_names)}"

    def undo(self) -> None:
        """Remove the layout's obstacles and put the old ones back."""
        self._added = self._scene.take(self._added_names)
        self._scene.restore(self._removed)

    def redo(self) -> None:
        """Remove the old obstacles and put the layout's back."""
        self._removed = self._scene.take([taken.name for taken in self._removed])
        self._scene.restore(self._added)
