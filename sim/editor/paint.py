"""Wall painting, as PathFinding.js users know it: drag over the ground to block cells.

In paint mode (I, or the toolbar's toggle) a left-drag blocks every cell the pointer passes
over, and a right-drag (or a left-drag with Shift) clears them; the pointer's samples are joined
by straight strokes, so a fast drag leaves no gaps. Start's and End's cells are never painted.
Shift+I clears every painted wall. One undo takes back a whole stroke (or the clearing).

The painted cells are a mask; what stands in the scene are ordinary Obstacle cubes, one per
rectangle of `sim.scene.layout.layout_boxes` (runs of cells merged into few boxes), named
``wall-N``. The grid, the planners, the crowd and saving (Ctrl+S) treat them as any obstacle, so
a saved scene holds few boxes and reloads to the same blocked cells. They are not pickable: a
drag in the scene never tears a piece out of a wall, painting edits them.

Erasing a cell that an obstacle the user placed covers (a saved wall, a map's box, a shift+click
cube) splits that obstacle: its cells join the painted mask and the erased ones leave it, so
what was one box becomes the few boxes of what is left. Obstacles that move by themselves
(movers, rotators, doors), models other than cubes, and every obstacle of a scene with scripts
(a script may move any of them) are left whole: erasing never reaches their cells.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
from direct.showbase.DirectObject import DirectObject
from direct.showbase.Loader import Loader
from direct.task.Task import Task
from numpy.typing import NDArray

from sim.components.grid_manager import GridManager
from sim.config import Tag
from sim.editor.edits import Snapshot
from sim.engine import FrameLoop, GameObject, World
from sim.engine.loop import Phase
from sim.engine.pointer import PointerTrail, with_any_modifiers
from sim.navigation import box_footprint, transform_box
from sim.scene.layout import layout_boxes
from sim.scene.spec import DEFAULT_COLORS, SceneSpec

if TYPE_CHECKING:
    from sim.editor.editor import SceneEditor
    from sim.engine.events import EventSource
    from sim.engine.picking import Picker

WALL_PREFIX: Final = "wall"
WALL_MODEL: Final = "cube"
SAMPLES_PER_CELL: Final = 3  # pointer samples are joined at a third of a cell: no cell skipped
Box = tuple[float, float, float, float]  # x, y, size_x, size_y (`layout_boxes`)
Mask = NDArray[np.bool_]


class Stroke:
    """One stroke (or Shift+I's clearing): the painted mask before and after, as one undo.

    `adopted` are the obstacles the stroke split (their cells joined the mask): an undo puts
    them back whole, a redo splits them again.
    """

    def __init__(
        self, tool: PaintTool, label: str, before: Mask, after: Mask, adopted: list[Snapshot]
    ) -> None:
        self._tool, self._label = tool, label
        self.before, self.after = before, after
        self._adopted = adopted

    @property
    def label(self) -> str:
        """E.g. "paint 12 cells"."""
        return self._label

    def undo(self) -> None:
        """Paint the mask back as it was and put the split obstacles back whole."""
        self._tool.show_mask(self.before)
        self._tool.restore(self._adopted)

    def redo(self) -> None:
        """Split the obstacles again and paint the mask as the stroke left it."""
        self._adopted = self._tool.take([snapshot.name for snapshot in self._adopted])
        self._tool.show_mask(self.after)


class PaintTool:
    """Paint mode: the left button blocks cells, the right button (or Shift) clears them.

    Args:
        world: The scene's world (walls are spawned into it).
        loader: Loads the walls' cube model.
        grid: The scene's grid; it takes each change at once, so paths replan as you paint.
        editor: The scene editor: its picker finds the ground under the pointer, its history
            keeps the strokes, and it removes and restores the obstacles a stroke splits.
        objects: The scene's object list (shared with the editor): walls join it to be saved.
        scene: The scene as loaded: its objects' models (added ones are cubes) and scripts.
        moves_itself: Whether an obstacle moves by itself (a mover, rotator or door).
        notify: Shows a line on the HUD.
    """

    TASK_NAME = "paint-input"

    def __init__(
        self,
        *,
        world: World,
        loader: Loader,
        grid: GridManager,
        editor: SceneEditor,
        objects: list[GameObject],
        scene: SceneSpec,
        moves_itself: Callable[[GameObject], bool],
        notify: Callable[[str], None],
    ) -> None:
        self._world, self._loader, self._grid, self._editor = world, loader, grid, editor
        self._objects = objects
        self._models = {spec.name: spec.model for spec in scene.objects}
        # A script may move any object it finds by name: in such a scene nothing stands for sure.
        self._scripted = any(spec.scripts for spec in scene.objects)
        self._moves_itself, self._notify = moves_itself, notify
        self.painted: Mask = np.zeros((grid.num_of_rows, grid.num_of_columns), dtype=bool)
        self._walls: dict[Box, str] = {}  # each box standing now -> its wall's name
        self.active = False
        self._events = DirectObject()
        self._pointer: PointerTrail | None = None
        self._loop: FrameLoop | None = None
        self._stroke: _StrokeState | None = None
        editor.mouse_taken = lambda: self.active  # the editor's left button is ours meanwhile

    @property
    def picker(self) -> Picker:
        """The editor's picker (the ground under the pointer)."""
        return self._editor.picker

    @property
    def stroking(self) -> bool:
        """Whether a stroke is under way (a button held in paint mode)."""
        return self._stroke is not None

    @property
    def wall_names(self) -> list[str]:
        """The names of the wall cubes standing now."""
        return sorted(self._walls.values())

    def bind(self, *, events: EventSource, pointer: PointerTrail, loop: FrameLoop) -> None:
        """Take both buttons while in paint mode, Shift+I, and the pointer in `Phase.INPUT`.

        Presses and releases come with the modifiers held at them ("shift-mouse1") and land
        where the pointer was at that event (`PointerTrail.position`).
        """
        self._pointer, self._loop = pointer, loop
        for button, right in (("mouse1", False), ("mouse3", True)):
            for press in with_any_modifiers(button):
                self._events.accept(press, self._press, [right, press])
            for release in with_any_modifiers(f"{button}-up"):
                self._events.accept(release, self._release, [release])
        # A button thrower with modifier buttons names the chord itself. The app's own key,
        # heard where its other keys are; the buttons above are shared with the editor's.
        events.accept("shift-i", self.clear_walls)
        loop.add_task(Phase.INPUT, self._follow_pointer, self.TASK_NAME)

    def detach(self) -> None:
        """Stop listening and following the pointer."""
        self._events.ignore_all()
        if self._loop is not None:
            self._loop.remove_task(self.TASK_NAME)

    def key_i(self) -> None:
        """I toggles paint mode (Shift+I arrives as its own event, `clear_walls`)."""
        self.toggle()

    def toggle(self) -> None:
        """Enter or leave paint mode (what the toolbar's paint button calls)."""
        self.finish_stroke()
        self.active = not self.active
        self._editor.finish_drag()
        if self.active:
            self._notify("paint walls: left-drag blocks cells, right-drag erases (I to stop)")
        else:
            self._notify("paint mode off")

    def _mouse(self) -> tuple[float, float] | None:
        return None if self._pointer is None else self._pointer.now()

    # --- strokes -------------------------------------------------------------------------

    def _press(self, right: bool, event: str) -> None:
        if not self.active or self._stroke is not None:
            return
        self.begin_stroke(erase=right or event.startswith("shift-"))
        mouse = None if self._pointer is None else self._pointer.position(event)
        if mouse is not None:
            self.stroke_to(mouse)

    def _release(self, event: str) -> None:
        if self._stroke is None:
            return
        mouse = None if self._pointer is None else self._pointer.position(event)
        if mouse is not None:
            self.stroke_to(mouse)
        self.finish_stroke()

    def _follow_pointer(self, task: Task) -> int:
        mouse = self._mouse()
        if self._stroke is not None and mouse is not None:
            self.stroke_to(mouse)
        return int(task.cont)

    def begin_stroke(self, *, erase: bool) -> None:
        """Start a stroke that blocks cells, or clears them when `erase`."""
        self._forget_removed_walls()
        self._stroke = _StrokeState(
            erase=erase, before=self.painted.copy(), blocked=self._grid.blocked_cells()
        )

    def stroke_to(self, mouse: tuple[float, float]) -> None:
        """Carry the stroke to the pointer at `mouse` (normalised), through every cell between."""
        stroke = self._stroke
        if stroke is None:
            return
        ground = self.picker.ground_point(mouse)
        if ground is None:
            return
        point = (float(ground.x), float(ground.y))
        cells = self._cells_between(stroke.last or point, point)
        stroke.last = point
        if stroke.erase:
            self._erase(cells, stroke)
        else:
            self._paint(cells)

    def finish_stroke(self) -> None:
        """End the stroke under way: one undoable edit, and the agents replan."""
        stroke, self._stroke = self._stroke, None
        if stroke is None:
            return
        changed = abs(self._grid.blocked_cells() - stroke.blocked)
        if changed == 0 and not stroke.adopted:
            return
        verb = "erase" if stroke.erase else "paint"
        label = f"{verb} {changed} cell{'s' if changed != 1 else ''}"
        self._record(Stroke(self, label, stroke.before, self.painted.copy(), stroke.adopted))

    def clear_walls(self) -> None:
        """Clear every painted cell (Shift+I), as one undoable edit."""
        self.finish_stroke()
        self._forget_removed_walls()
        if not self.painted.any():
            self._notify("no painted walls to clear")
            return
        before = self.painted.copy()
        self.show_mask(np.zeros_like(before))
        self._record(Stroke(self, "clear walls", before, self.painted.copy(), []))

    def _record(self, edit: Stroke) -> None:
        self._editor.history.record(edit)
        self._editor.settle()
        self._notify(edit.label)

    def _cells_between(
        self, a: tuple[float, float], b: tuple[float, float]
    ) -> list[tuple[int, int]]:
        """The cells under the segment a -> b, in order, each once (samples a third of a cell)."""
        size = self._grid.grid_cell_size
        steps = max(1, math.ceil(math.dist(a, b) / size * SAMPLES_PER_CELL))
        cells: dict[tuple[int, int], None] = {}
        for t in np.linspace(0.0, 1.0, steps + 1):
            cell = self._grid.world_to_cell(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            if cell is not None:
                cells[cell] = None
        return list(cells)

    def _paint(self, cells: Iterable[tuple[int, int]]) -> None:
        kept = self._kept_cells()
        walkable = self._grid.walkable
        new = [c for c in cells if not self.painted[c] and walkable[c] and c not in kept]
        if new:
            mask = self.painted.copy()
            mask[tuple(np.array(new).T)] = True
            self.show_mask(mask)

    def _erase(self, cells: Iterable[tuple[int, int]], stroke: _StrokeState) -> None:
        mask = self.painted.copy()
        for cell in cells:
            if not mask[cell] and not self._grid.walkable[cell]:
                adopted = self._split_obstacle_at(cell)
                if adopted is not None:
                    stroke.adopted.append(adopted[0])
                    mask |= adopted[1]
            mask[cell] = False
        if (mask != self.painted).any() or stroke.adopted:
            self.show_mask(mask)

    def _kept_cells(self) -> set[tuple[int, int]]:
        """Start's and End's cells: painting over them would wall the search's ends in."""
        kept = set()
        ends = [*self._world.find_all_with_tag(Tag.START), *self._world.find_all_with_tag(Tag.END)]
        for obj in ends:
            if obj.alive:
                cell = self._grid.world_to_cell(*obj.xy)
                if cell is not None:
                    kept.add(cell)
        return kept

    def _split_obstacle_at(self, cell: tuple[int, int]) -> tuple[Snapshot, Mask] | None:
        """Remove the splittable obstacle covering `cell`; its snapshot and its cells' mask."""
        centre = self._grid.cell_to_world(cell)
        reach = self._grid.grid_cell_size  # a cell's half diagonal, and some
        walls = set(self._walls.values())
        for obj in self._objects:
            node = obj.node
            # Far boxes out first, on plain floats: a map holds thousands of them.
            scale = node.get_scale(node.get_top())
            radius = math.hypot(scale.x, scale.y) / 2 + reach
            if math.dist(obj.xy, centre) > radius or not self._splittable(obj, walls):
                continue
            footprint = self._footprint_mask(obj)
            if footprint[cell]:
                [snapshot] = self._editor.take([obj.name])
                return snapshot, footprint
        return None

    def standing_cube(self, obj: GameObject) -> bool:
        """Whether `obj` is an obstacle cube that only edits move (painted walls are).

        Not one that moves by itself, nor any in a scene with scripts (which may move it).
        """
        return (
            obj.tag == Tag.OBSTACLE
            and not self._scripted
            and self._models.get(obj.name, WALL_MODEL) == WALL_MODEL
            and not self._moves_itself(obj)
        )

    def _splittable(self, obj: GameObject, walls: set[str]) -> bool:
        return obj.alive and obj.name not in walls and self.standing_cube(obj)

    def _footprint_mask(self, obj: GameObject) -> Mask:
        node = obj.node
        scale = node.get_scale(node.get_top())
        box = transform_box(*obj.xy, scale.x, scale.y, node.get_h(node.get_top()))
        footprint = box_footprint(
            box,
            self.painted.shape,
            origin=self._grid.origin,
            cell_size=self._grid.grid_cell_size,
        )
        mask = np.zeros_like(self.painted)
        mask[footprint.rows, footprint.cols] = footprint.mask
        return mask

    # --- the walls in the scene ----------------------------------------------------------

    def show_mask(self, mask: Mask) -> None:
        """Make `mask` the painted cells: changed wall boxes are replaced; the grid follows.

        Boxes that stay the same keep their cubes, so a stroke rebuilds only the runs it touched.
        """
        self.painted = mask.copy()
        # layout_boxes reads its map's row 0 as the north edge; the grid's row 0 is the south.
        wanted = layout_boxes(
            ~mask[::-1], origin=self._grid.origin, cell_size=self._grid.grid_cell_size
        )
        wanted_set = set(wanted)
        gone = {name for box, name in self._walls.items() if box not in wanted_set}
        if gone:
            # Walls are nobody's selection nor hover (they are not pickable): no snapshot needed.
            for obj in self._objects:
                if obj.name in gone:
                    obj.destroy()
            self._objects[:] = [obj for obj in self._objects if obj.alive]
        self._walls = {box: name for box, name in self._walls.items() if box in wanted_set}
        taken = {obj.name for obj in self._world.objects}
        number = 0
        for box in wanted:
            if box in self._walls:
                continue
            number += 1
            while f"{WALL_PREFIX}-{number}" in taken:
                number += 1
            name = f"{WALL_PREFIX}-{number}"
            self._new_wall(name, box)
            self._walls[box] = name
        # Only walls changed: the grid reads the obstacles that came and went, not every box.
        self._grid.sync_obstacles(every=False)

    def _new_wall(self, name: str, box: Box) -> None:
        x, y, size_x, size_y = box
        node = self._world.root.attach_new_node(name)
        self._loader.load_model(WALL_MODEL, okMissing=False).reparent_to(node)
        node.set_pos(x, y, 0.0)
        node.set_scale(size_x, size_y, 1.0)
        node.set_color(*DEFAULT_COLORS[Tag.OBSTACLE])
        self._objects.append(self._world.add(GameObject(node, tag=str(Tag.OBSTACLE))))

    def take(self, names: Sequence[str]) -> list[Snapshot]:
        """Remove the obstacles called `names` (a redo splitting them again)."""
        return self._editor.take(names)

    def restore(self, snapshots: Sequence[Snapshot]) -> None:
        """Put obstacles a stroke split back whole."""
        self._editor.restore(snapshots)

    def _forget_removed_walls(self) -> None:
        """Drop the cells of walls removed behind the tool's back (a generated layout)."""
        alive = {obj.name for obj in self._objects if obj.alive}
        gone = [box for box, name in self._walls.items() if name not in alive]
        if not gone:
            return
        mask = self.painted.copy()
        mask[:] = False
        for box, name in self._walls.items():
            if name in alive:
                mask |= self._box_cells(box)
        self._walls = {box: name for box, name in self._walls.items() if name in alive}
        self.painted = mask

    def _box_cells(self, box: Box) -> Mask:
        x, y, size_x, size_y = box
        footprint = box_footprint(
            transform_box(x, y, size_x, size_y, 0.0),
            self.painted.shape,
            origin=self._grid.origin,
            cell_size=self._grid.grid_cell_size,
        )
        mask = np.zeros_like(self.painted)
        mask[footprint.rows, footprint.cols] = footprint.mask
        return mask


class _StrokeState:
    """A stroke under way: what it does, what it started from, where the pointer was."""

    def __init__(self, *, erase: bool, before: Mask, blocked: int) -> None:
        self.erase = erase
        self.before = before
        self.blocked = blocked  # the grid's blocked cells before: the label counts the change
        self.last: tuple[float, float] | None = None
        self.adopted: list[Snapshot] = []
