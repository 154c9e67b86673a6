"""The hierarchy: every scene object by name and tag in a list beside the viewport.

One row per object in the scene's order (Start, End, obstacles, terrain patches, agents, doors,
movers), except that a `[[crowds]]` table's agents share one row ("walkers · crowd of 200
agents"). A click on a row selects its object exactly as a click in the scene does (the
editor's selection, which the inspector and the outline follow); a double-click also frames it
(the camera cuts to it); F frames the selection. The list follows the scene once a frame: an
added or removed object, or an undo, shows at once (the editor counts its changes; an object
destroyed by a script changes the world's count).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from direct.task.Task import Task
from panda3d.core import NodePath

from sim.engine import GameObject, World
from sim.engine.loop import FrameLoop, Phase
from sim.ui.list_panel import ListPanel

if TYPE_CHECKING:
    from sim.editor.editor import SceneEditor

TITLE: Final = "Hierarchy"
TASK: Final = "hierarchy"
FRAME_MARGIN: Final = 3.0
"""A framed object's size times this is the camera's distance from it."""
MIN_FRAME_DISTANCE: Final = 6.0


@dataclass(frozen=True, slots=True)
class Entry:
    """One row: its words and the names of the objects it stands for (a crowd's, in order)."""

    label: str
    names: tuple[str, ...]


def entries(
    objects: Iterable[GameObject],
    crowd_of: Mapping[str, str],
    *,
    kind: Callable[[GameObject], str | None] = lambda _obj: None,
) -> list[Entry]:
    """The rows for `objects` (alive ones), in order, each crowd's agents in one row.

    Args:
        objects: The scene's objects in the scene's order.
        crowd_of: The crowd each crowd agent belongs to, by the agent's name.
        kind: What an object is beyond its tag ("door", "mover"), or None.

    A crowd's row stands where its first agent does.
    """
    rows: list[Entry] = []
    crowds: dict[str, list[str]] = {}
    for obj in objects:
        if not obj.alive:
            continue
        crowd = crowd_of.get(obj.name)
        if crowd is None:
            extra = kind(obj)
            what = obj.tag if extra is None else f"{obj.tag}, {extra}"
            rows.append(Entry(f"{obj.name} · {what}", (obj.name,)))
        elif crowd in crowds:
            crowds[crowd].append(obj.name)
        else:
            crowds[crowd] = [obj.name]
            rows.append(Entry(crowd, ()))  # its members are counted below
    return [
        Entry(_crowd_label(row.label, len(crowds[row.label])), tuple(crowds[row.label]))
        if not row.names
        else row
        for row in rows
    ]


def _crowd_label(crowd: str, count: int) -> str:
    """A crowd's row.

    >>> _crowd_label("walkers", 1)
    'walkers · crowd of 1 agent'
    """
    return f"{crowd} · crowd of {count} agent{'' if count == 1 else 's'}"


def framing(obj: GameObject, root: NodePath) -> tuple[tuple[float, float, float], float]:
    """Where the camera looks to frame `obj` and from how far: its middle, and its size."""
    bounds = obj.node.get_tight_bounds(root)
    if bounds is None:
        return obj.world_pos, MIN_FRAME_DISTANCE
    low, high = bounds
    middle = (low + high) * 0.5
    size = max(high.x - low.x, high.y - low.y, high.z - low.z)
    return (middle.x, middle.y, middle.z), max(size * FRAME_MARGIN, MIN_FRAME_DISTANCE)


class Hierarchy:
    """The hierarchy panel kept in step with the scene and the editor's selection.

    Args:
        editor: Whose selection a row's click sets, and whose objects the rows list.
        panel: Builds the list panel, given its click and double-click handlers.
        crowd_of: The crowd each crowd agent belongs to, by the agent's name.
        look_at: Moves the camera to look at a point from a distance (framing).
        world: The world the objects live in (its root is the frame they are framed in).
        kind: What an object is beyond its tag ("door"), or None.
    """

    def __init__(
        self,
        *,
        editor: SceneEditor,
        panel: Callable[[Callable[[int], None], Callable[[int], None]], ListPanel],
        crowd_of: Mapping[str, str],
        look_at: Callable[[tuple[float, float, float], float], None],
        world: World,
        kind: Callable[[GameObject], str | None] = lambda _obj: None,
    ) -> None:
        self._editor, self._crowd_of, self._look_at = editor, crowd_of, look_at
        self._world, self._kind = world, kind
        self.panel = panel(self.select_row, self.frame_row)
        self._seen: tuple[int, int] | None = None
        self.entries: list[Entry] = []
        self._labels: tuple[str, ...] = ()
        self._row_of: dict[str, int] = {}
        self._loop: FrameLoop | None = None

    def attach(self, loop: FrameLoop) -> None:
        """Follow the scene once a frame, in `Phase.UI` (also while paused)."""
        self._loop = loop
        loop.add_task(Phase.UI, self._refresh_task, TASK)

    def refresh(self) -> None:
        """Bring the rows and the highlighted row up to date with the scene and the selection."""
        # Two counters, not the lists: reading 20,000 names (or copying the world's objects)
        # every frame would cost milliseconds.
        seen = (self._editor.version, self._world.membership_version)
        if seen != self._seen:
            self._seen = seen
            self.entries = entries(self._editor.objects, self._crowd_of, kind=self._kind)
            self._labels = tuple(entry.label for entry in self.entries)
            self._row_of = {
                name: row for row, entry in enumerate(self.entries) for name in entry.names
            }
        selected = self._editor.selected
        row = None if selected is None or not selected.alive else self._row_of.get(selected.name)
        self.panel.show(self._labels, row)

    def select_row(self, row: int) -> None:
        """Select row `row`'s object (a crowd's first agent), as a click on it in the scene."""
        obj = self._object_of(row)
        if obj is not None:
            self._editor.select(obj)
            self.refresh()

    def frame_row(self, row: int) -> None:
        """Select row `row`'s object and point the camera at it."""
        self.select_row(row)
        self.frame_selected()

    def frame_selected(self) -> None:
        """Point the camera at the selection (F); nothing without one."""
        selected = self._editor.selected
        if selected is not None and selected.alive:
            self._look_at(*framing(selected, self._world.root))

    def detach(self) -> None:
        """Stop following the scene and remove the panel."""
        if self._loop is not None:
            self._loop.remove_task(TASK)
        self.panel.destroy()

    def _object_of(self, row: int) -> GameObject | None:
        if not 0 <= row < len(self.entries):
            return None
        for name in self.entries[row].names:
            obj = self._editor.live(name)
            if obj is not None:
                return obj
        return None

    def _refresh_task(self, task: Task) -> int:
        self.refresh()
        return int(task.cont)


def crowd_members(crowds: Iterable[tuple[str, Sequence[str]]]) -> dict[str, str]:
    """Each crowd agent's crowd, by the agent's name, from (crowd, member names) pairs.

    >>> crowd_members([("walkers", ["walkers-1", "walkers-2"])])
    {'walkers-1': 'walkers', 'walkers-2': 'walkers'}
    """
    return {member: crowd for crowd, members in crowds for member in members}
