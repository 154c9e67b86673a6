"""Editing the running scene with the mouse: drag cubes, add and remove obstacles, save.

Left-drag moves Start, End, obstacles and terrain patches; shift+left-click on empty ground adds
an obstacle; Delete or X removes the obstacle under the cursor; U steps the cost of the terrain
patch under the cursor through `COST_CYCLE`; V toggles snapping to cell centres; Ctrl+S saves the
scene (to `--save-as` when given); `replace_obstacles` swaps every obstacle for a generated
layout's boxes (the generator menu, `sim.app.generator_menu`). The app's controls table
(`sim.app.controls`) binds the plain keys to `remove_hovered`, `cycle_terrain_cost` and
`toggle_snap`; `bind` takes the left button and Ctrl+S, which need the pointer or a held modifier.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from direct.showbase.Loader import Loader
from direct.task.Task import Task
from panda3d.core import ButtonHandle, Camera, KeyboardButton, MouseWatcher, NodePath

from sim.components.grid_manager import GridManager
from sim.components.terrain import TerrainPatch, next_cost
from sim.config import Tag
from sim.editor.drag import DRAGGABLE_TAGS, DragController, unique_name
from sim.editor.history import EditHistory
from sim.engine import FrameLoop, GameObject, World
from sim.engine.loop import Phase
from sim.engine.picking import Picker, make_pickable
from sim.errors import SimError
from sim.scene.merge import Vec3
from sim.scene.spec import DEFAULT_COLORS, SceneSpec
from sim.scene.writer import MergeBase, ObjectState, save_scene

if TYPE_CHECKING:
    from sim.engine.events import EventSource

NEW_OBSTACLE_MODEL = "cube"
NEW_OBSTACLE_PREFIX = "obstacle"


class SceneEditor:
    """Owns the picker and the drag controller, and turns their results into scene edits."""

    DRAG_TASK = "drag-input"

    def __init__(
        self,
        *,
        world: World,
        loader: Loader,
        camera: NodePath[Camera],
        grid: GridManager,
        objects: list[GameObject],
        scene: SceneSpec,
        save_as: Path | None,
        notify: Callable[[str], None],
        placement: Callable[[GameObject], tuple[Vec3, float] | None] = lambda _obj: None,
    ) -> None:
        self._world, self._loader = world, loader
        self._grid = grid
        self._objects = objects
        self._source, self._save_as = scene.path, save_as
        self._notify = notify
        self._placement = placement  # a moving object's route origin and start heading
        self._models = {spec.name: spec.model for spec in scene.objects}
        self._authored = {spec.name: spec for spec in scene.objects}
        self._save_base = MergeBase.loaded(scene)  # Ctrl+S writes only the edits made since
        self.picker = Picker(camera, world.root)
        for obj in objects:
            if obj.tag in DRAGGABLE_TAGS:
                make_pickable(obj)
        self.drag = world.spawn("drag-controller").add_component(
            DragController(self.picker, grid, add_obstacle=self.add_obstacle, on_drop=self.on_drop)
        )
        self._watcher: MouseWatcher | None = None
        self._loop: FrameLoop | None = None
        self.history = EditHistory()  # every edit made here or by the inspector, for undo
        self.selected: GameObject | None = None  # the inspector's object

    def bind(self, *, events: EventSource, watcher: MouseWatcher, loop: FrameLoop) -> None:
        """Route the left button, Ctrl+S and the pointer (read in `Phase.INPUT`) to the editor."""
        self._watcher, self._loop = watcher, loop
        events.accept("mouse1", self._on_left_press)
        events.accept("mouse1-up", self._on_left_release)
        events.accept("s", self._on_s)
        loop.add_task(Phase.INPUT, self._follow_pointer, self.DRAG_TASK)

    def _mouse(self) -> tuple[float, float] | None:
        """The pointer now, or None when the window does not have it."""
        watcher = self._watcher
        if watcher is None or not watcher.has_mouse():
            return None
        return (watcher.get_mouse_x(), watcher.get_mouse_y())

    def _is_down(self, button: ButtonHandle) -> bool:
        return self._watcher is not None and bool(self._watcher.is_button_down(button))

    def _on_left_press(self) -> None:
        mouse = self._mouse()
        if mouse is not None:
            self.drag.on_press(mouse, shift=self._is_down(KeyboardButton.shift()))

    def _on_left_release(self) -> None:
        # Without the pointer (it left the window, or the window lost it for a frame) the cube
        # stays where the last seen pointer put it, instead of jumping to the window's centre.
        self.drag.on_release(self._mouse())

    def _on_s(self) -> None:
        if self._is_down(KeyboardButton.control()):
            self.save()

    def _follow_pointer(self, task: Task) -> int:
        mouse = self._mouse()
        if mouse is not None:
            self.drag.on_move(mouse)
        return int(task.cont)

    def add_obstacle(self, x: float, y: float) -> GameObject:
        """Put a new unit obstacle cube with its centre at world `(x, y)`."""
        name = unique_name(NEW_OBSTACLE_PREFIX, (obj.name for obj in self._world.objects))
        obstacle = self._new_obstacle(name, x, y)
        self._notify(f"added {name} at ({x:.2f}, {y:.2f})")
        return obstacle

    def replace_obstacles(self, boxes: Sequence[tuple[float, float, float, float]]) -> int:
        """Remove every obstacle (moving ones too) and put a cube on each box; return how many.

        Each box is ``(x, y, size_x, size_y)``: its centre and its sides along x and y. Agents,
        Start, End and terrain stay. The grid takes the new obstacles at once (also while
        paused); the planners replan on the next world step, as after a drop. Saving writes the
        removed and the new obstacles like any other edit.
        """
        if self.drag.dragged is not None:  # a dragged cube the layout removes would hang on
            self.drag.on_release(None)
        for obj in self._objects:
            if obj.alive and obj.tag == Tag.OBSTACLE:
                obj.destroy()
        self._objects[:] = [obj for obj in self._objects if obj.alive]
        # The destroyed obstacles keep their names until the frame ends: no new one takes them.
        taken = {obj.name for obj in self._world.objects}
        number = 0
        for x, y, size_x, size_y in boxes:
            # Counting on, where unique_name would count from 1 and read every object per cube.
            number += 1
            while f"{NEW_OBSTACLE_PREFIX}-{number}" in taken:
                number += 1
            obstacle = self._new_obstacle(f"{NEW_OBSTACLE_PREFIX}-{number}", x, y)
            obstacle.node.set_scale(size_x, size_y, 1.0)
        self._grid.sync_obstacles()
        return len(boxes)

    def _new_obstacle(self, name: str, x: float, y: float) -> GameObject:
        node = self._world.root.attach_new_node(name)
        self._loader.load_model(NEW_OBSTACLE_MODEL, okMissing=False).reparent_to(node)
        node.set_pos(x, y, 0.0)
        node.set_color(*DEFAULT_COLORS[Tag.OBSTACLE])
        obstacle = self._world.add(GameObject(node, tag=str(Tag.OBSTACLE)))
        make_pickable(obstacle)
        self._models[name] = NEW_OBSTACLE_MODEL
        self._objects.append(obstacle)
        return obstacle

    def move_to(self, obj: GameObject, x: float, y: float) -> None:
        """Put `obj` (Start or End) at world `(x, y)`, as if dropped there."""
        obj.node.set_pos(x, y, obj.node.get_z())
        self._grid.sync_obstacles()

    def remove_hovered(self) -> None:
        """Remove the obstacle under the cursor, if any."""
        removed = self.drag.remove_hovered()
        if removed is not None:
            self._notify(f"removed {removed.name}")

    def cycle_terrain_cost(self) -> None:
        """Give the terrain patch under the cursor the next cost of `COST_CYCLE`, if any.

        The grid takes the new cost at once (also while paused); the planners replan on the
        next world step, as after a drop.
        """
        hovered = self.drag.hovered
        patch = None if hovered is None else hovered.get_component(TerrainPatch)
        if hovered is None or patch is None:
            return
        patch.cost = next_cost(patch.cost)
        self._grid.sync_obstacles()
        self._notify(f"{hovered.name}: terrain cost {patch.cost:g}")

    def toggle_snap(self) -> None:
        """Turn snapping dropped cubes to cell centres on or off."""
        self.drag.snap = not self.drag.snap
        self._notify(f"snap to cell centres {'on' if self.drag.snap else 'off'}")

    def on_drop(self, dropped: GameObject) -> None:
        """A drag ended: bring the grid up to date (also while paused) and say where it landed.

        The planners need no call: their `ReplanGate`s see the drag end and replan on the next
        world step.
        """
        self._grid.sync_obstacles()
        x, y = dropped.xy
        cell = self._grid.world_to_cell(x, y)
        self._notify(f"drop {dropped.name} at ({x:.2f}, {y:.2f}) cell {cell}")

    def object_states(self) -> list[ObjectState]:
        """The scene's objects as the user left them, for saving.

        Cubes the user can move are saved where they stand; agents (which move by themselves)
        keep the place and heading the file gave them, so saving mid-run never moves a spawn.
        Objects that move on their own (movers, rotators, doors) are saved where their motion
        is anchored (`placement`: a mover's route origin, where it was dropped last), never
        mid-route.
        """
        states = []
        for obj in self._objects:
            if not obj.alive:
                continue
            authored = self._authored.get(obj.name)
            if authored is not None and obj.tag not in DRAGGABLE_TAGS:
                states.append(
                    ObjectState(
                        name=obj.name,
                        tag=obj.tag,
                        model=authored.model,
                        pos=authored.pos,
                        scale=authored.scale,
                        heading=authored.heading,
                    )
                )
                continue
            node = obj.node
            model = self._models.get(obj.name, NEW_OBSTACLE_MODEL)
            pos, heading = self._placement(obj) or (obj.world_pos, node.get_h())
            states.append(
                ObjectState(
                    name=obj.name,
                    tag=obj.tag,
                    model=model,
                    pos=pos,
                    scale=(node.get_sx(), node.get_sy(), node.get_sz()),
                    heading=heading,
                )
            )
        return states

    def save(self) -> Path | None:
        """Save the scene to `--save-as` or its own file; report success or failure on screen.

        Only what was edited in the app since the load (or the last save) is written onto the
        file as it is now; see `save_scene`.
        """
        try:
            target = save_scene(
                self._source, self.object_states(), target=self._save_as, base=self._save_base
            )
        except SimError as error:
            self._notify(f"save failed: {error}")
            return None
        self._notify(f"saved {target}")
        return target

    def detach(self) -> None:
        """Stop following the pointer and drop the picking ray."""
        if self._loop is not None:
            self._loop.remove_task(self.DRAG_TASK)
        self.picker.destroy()
