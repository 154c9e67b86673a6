"""Editing the running scene with the mouse: drag cubes, add and remove obstacles, save.

Left-drag moves Start, End, obstacles and terrain patches; shift+left-click on empty ground adds
an obstacle; Delete or X removes the obstacle under the cursor; U steps the cost of the terrain
patch under the cursor through `COST_CYCLE`; V toggles snapping to cell centres; Ctrl+S saves the
scene (to `--save-as` when given); `replace_obstacles` swaps every obstacle for a generated
layout's boxes (the generator menu, `sim.app.generator_menu`). The app's controls table
(`sim.app.controls`) binds the plain keys to `remove_hovered`, `cycle_terrain_cost` and
`toggle_snap`; `bind` takes the left button, Ctrl+S, Ctrl+Z (undo), Ctrl+Shift+Z and Ctrl+Y
(redo), which need the pointer or a held modifier.

Every edit is recorded in `history` (`sim.editor.edits`), and an undo or redo goes through the
same calls as the edit by hand: the grid follows at once and the planners replan as after a drop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from direct.showbase.Loader import Loader
from direct.task.Task import Task
from panda3d.core import Camera, NodePath

from sim.components.crowd_sim import CROWD_SIM, CrowdSim
from sim.components.grid_manager import GridManager
from sim.components.motion import SceneMotion
from sim.components.terrain import TerrainPatch, next_cost
from sim.config import Tag
from sim.editor.drag import DRAGGABLE_TAGS, DragController, unique_name
from sim.editor.edits import Add, Move, Point, Recost, Remove, Replace, Snapshot
from sim.editor.history import Edit, EditHistory
from sim.editor.inspector_fields import live_settings
from sim.editor.link_ends import LinkEnds
from sim.editor.selection import ClickTracker
from sim.engine import FrameLoop, GameObject, World
from sim.engine.game_object import PYTHON_TAG
from sim.engine.loop import Phase
from sim.engine.picking import Picker, make_pickable
from sim.engine.pointer import PointerTrail, event_name, with_any_modifiers
from sim.errors import SimError
from sim.scene.spec import DEFAULT_COLORS, SceneSpec
from sim.scene.writer import MergeBase, ObjectState, save_scene

if TYPE_CHECKING:
    from sim.components.agent_controller import AgentController
    from sim.engine.events import EventSource

NEW_OBSTACLE_MODEL = "cube"
NEW_OBSTACLE_PREFIX = "obstacle"


class PointerTool(Protocol):
    """Something the left button may drag instead of a cube (the selection's handles).

    Offered each press first; one that takes it gets the pointer each frame and the release.
    Every tool also sees the pointer each frame while no drag is under way (for hovering).
    """

    @property
    def held(self) -> GameObject | None:
        """The scene object its drag moves now, if any (motion leaves it alone meanwhile)."""
        ...

    def press(self, mouse: tuple[float, float], *, shift: bool = False) -> bool:
        """The left button went down at `mouse`: whether the tool takes this drag."""
        ...

    def move(self, mouse: tuple[float, float]) -> None:
        """The pointer is at `mouse` this frame."""
        ...

    def release(self, mouse: tuple[float, float] | None) -> None:
        """The left button came up at `mouse` (None: where the pointer was last seen)."""
        ...


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
        motion: SceneMotion | None = None,
        agents: Sequence[AgentController] = (),
        moved_by_script: Callable[[GameObject], bool] = lambda _obj: False,
    ) -> None:
        self._world, self._loader = world, loader
        self._grid = grid
        self._objects = objects
        self._source, self._save_as = scene.path, save_as
        self._notify = notify
        self._motion = motion  # moves the objects that move by themselves
        self._agents = agents  # asked to replan after an undo or redo, as after a drop
        self._moved_by_script = moved_by_script  # saved where the file puts it, as an agent
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
        self._pointer: PointerTrail | None = None
        self._loop: FrameLoop | None = None
        self.history = EditHistory()  # every edit made here or by the inspector, for undo
        holder = world.find(CROWD_SIM)
        self._crowd_sim = None if holder is None else holder.get_component(CrowdSim)
        self._selected: GameObject | None = None
        # A press and release in one spot selects (`sim.editor.selection`); agents by place,
        # the crowd's written to their nodes first (it writes them only when read).
        sync = (lambda: None) if self._crowd_sim is None else self._crowd_sim.sync_nodes
        self.clicks = ClickTracker(self.picker, agents=lambda: self._objects, before_pick=sync)
        # The scene's links' ends drag too (`sim.editor.link_ends`), before any cube.
        self.links = LinkEnds(self.picker, grid, self.history, scene.links, notify, agents)
        self.tools: list[PointerTool] = [self.links] if scene.links else []
        self.version = 0  # counts the changes to `objects`: who lists them redraws on a new one
        self._tool: PointerTool | None = None  # the one whose drag is under way
        # Whether a tool (paint mode, `sim.editor.paint`) has the left button instead.
        self.mouse_taken: Callable[[], bool] = lambda: False

    @property
    def objects(self) -> Sequence[GameObject]:
        """The scene's objects in the scene's order (the editor adds to and removes from it)."""
        return self._objects

    @property
    def dragging(self) -> bool:
        """Whether a drag is under way: a cube's, or a tool's (a handle's)."""
        return self.drag.in_progress or self._tool is not None

    @property
    def held(self) -> GameObject | None:
        """The object being dragged now, by its cube or by a tool."""
        return self.drag.dragged if self._tool is None else self._tool.held

    @property
    def selected(self) -> GameObject | None:
        """The inspector's object."""
        return self._selected

    @selected.setter
    def selected(self, obj: GameObject | None) -> None:
        self._selected = obj
        if self._crowd_sim is not None:  # its outline is drawn where its node stands
            self._crowd_sim.watched = obj

    def select(self, obj: GameObject | None) -> None:
        """Make `obj` the selection (the inspector's object), as a click on it does."""
        self.selected = obj

    def bind(self, *, events: EventSource, pointer: PointerTrail, loop: FrameLoop) -> None:
        """Route the left button, Ctrl+S, undo, redo and the pointer (`Phase.INPUT`) here.

        A press or release takes the pointer where it was at that event and the modifiers held
        with it (`sim.engine.pointer`): a drop lands where the button came up, and a Ctrl+S
        pressed and released within one frame saves.
        """
        self._pointer, self._loop = pointer, loop
        # Ctrl changes nothing about a drag: the press is heard whatever is held.
        for press in with_any_modifiers("mouse1"):
            events.accept(press, self._on_left_press, [press.startswith("shift-")])
        for release in with_any_modifiers("mouse1-up"):
            events.accept(release, self._on_left_release, [release])
        chords = {"s": self.save, "z": self.undo, "y": self.redo}
        for key, action in chords.items():
            events.accept(event_name(key, "control"), self._chord, [action])
        events.accept(event_name("z", "control+shift"), self._chord, [self.redo])
        loop.add_task(Phase.INPUT, self._follow_pointer, self.DRAG_TASK)

    def _chord(self, action: Callable[[], object]) -> None:
        action()

    def _mouse(self) -> tuple[float, float] | None:
        """The pointer now, or None when the window does not have it."""
        return None if self._pointer is None else self._pointer.now()

    def control_held(self) -> bool:
        """Whether Ctrl is held now: its keys are chords (Ctrl+Z), not typing."""
        return self._pointer is not None and self._pointer.is_down("control")

    def _over_panel(self) -> bool:
        """Whether the pointer is over a panel (a DirectGUI region of the watcher)."""
        return self._pointer is not None and self._pointer.over_region()

    def _on_left_press(self, shift: bool) -> None:
        if self.mouse_taken():  # the press's place is the tool's to read (`PointerTrail`)
            return
        mouse = None if self._pointer is None else self._pointer.position("mouse1")
        if mouse is not None:
            self._tool = next((tool for tool in self.tools if tool.press(mouse, shift=shift)), None)
            if self._tool is not None:
                return
            self.clicks.press(mouse, shift=shift)
            self.drag.on_press(mouse, shift=shift)

    def _on_left_release(self, event: str) -> None:
        # Where the button came up, not where the pointer went on to within the same frame.
        # Without the pointer (it left the window) the cube stays where the last seen pointer
        # put it, instead of jumping to the window's centre.
        if self.mouse_taken() and not self.dragging:
            return
        mouse = None if self._pointer is None else self._pointer.position(event)
        if self._tool is not None:
            tool, self._tool = self._tool, None
            tool.release(mouse)
            return
        click = self.clicks.release(mouse)
        if click is None:
            self.drag.on_release(mouse)
            return
        # A click is no move: a cube nudged by a pixel's jitter goes back where it stood.
        if self.drag.cancel() is not None:
            self._grid.sync_obstacles()
        self.selected = click.target

    def undo(self) -> Edit | None:
        """Take the last edit back (a drag in progress is dropped first) and say so on the HUD."""
        self.finish_drag()
        edit = self.history.undo()
        self._after_step("undo", edit)
        return edit

    def redo(self) -> Edit | None:
        """Make the last undone edit again (after dropping a drag in progress, itself an edit)."""
        self.finish_drag()
        edit = self.history.redo()
        self._after_step("redo", edit)
        return edit

    def _after_step(self, verb: str, edit: Edit | None) -> None:
        if edit is None:
            self._notify(f"nothing to {verb}")
            return
        self.settle()
        self._notify(f"{verb}: {edit.label}")

    def settle(self) -> None:
        """Bring the grid and the agents up to date after a change made outside a drag.

        The Start -> End path and the search view follow the grid and the ends by themselves;
        agents replan on their own only for their goal's cell and a cut route, so they are asked
        outright, as a drop asks them (`ReplanGate`) and as U does.
        """
        self._grid.sync_obstacles()
        for agent in self._agents:
            agent.replan_now()

    def finish_drag(self) -> None:
        """Drop what is being dragged where it is now, as a release would; nothing otherwise."""
        if self._tool is not None:
            tool, self._tool = self._tool, None
            tool.release(None)
        if self.drag.dragged is not None:
            self.drag.on_release(None)

    def _follow_pointer(self, task: Task) -> int:
        mouse = self._mouse()
        if mouse is None:
            return int(task.cont)
        if not self.dragging and self._over_panel():
            # A panel lies between the pointer and the scene: nothing behind it is hovered, so
            # X cannot remove an obstacle hidden under the hierarchy.
            if self.drag.hovered is not None:
                self.drag.forget(self.drag.hovered)
            return int(task.cont)
        for tool in self.tools:
            tool.move(mouse)
        if self._tool is None:
            self.drag.on_move(mouse)
        return int(task.cont)

    def add_obstacle(self, x: float, y: float) -> GameObject:
        """Put a new unit obstacle cube with its centre at world `(x, y)`."""
        name = unique_name(NEW_OBSTACLE_PREFIX, (obj.name for obj in self._world.objects))
        obstacle = self._new_obstacle(name, x, y)
        self.history.record(Add(self, name))
        self._notify(f"added {name} at ({x:.2f}, {y:.2f})")
        return obstacle

    def replace_obstacles(self, boxes: Sequence[tuple[float, float, float, float]]) -> int:
        """Remove every obstacle (moving ones too) and put a cube on each box; return how many.

        Each box is ``(x, y, size_x, size_y)``: its centre and its sides along x and y. Agents,
        Start, End and terrain stay. The grid takes the new obstacles at once (also while
        paused); the planners replan on the next world step, as after a drop. Saving writes the
        removed and the new obstacles like any other edit.
        """
        self.finish_drag()  # a dragged cube the layout removes would hang on
        removed = self._take_objects(
            [obj for obj in self._objects if obj.alive and obj.tag == Tag.OBSTACLE]
        )
        # The destroyed obstacles keep their names until the frame ends: no new one takes them.
        taken = {obj.name for obj in self._world.objects}
        number = 0
        added = []
        for x, y, size_x, size_y in boxes:
            # Counting on, where unique_name would count from 1 and read every object per cube.
            number += 1
            while f"{NEW_OBSTACLE_PREFIX}-{number}" in taken:
                number += 1
            obstacle = self._new_obstacle(f"{NEW_OBSTACLE_PREFIX}-{number}", x, y)
            obstacle.node.set_scale(size_x, size_y, 1.0)
            added.append(obstacle.name)
        self._grid.sync_obstacles()
        self.history.record(Replace(self, removed, added))
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
        self.version += 1
        return obstacle

    def move_to(self, obj: GameObject, x: float, y: float) -> None:
        """Put `obj` (Start or End) at world `(x, y)`, as if dropped there (an undoable move)."""
        before = obj.xy
        obj.node.set_pos(x, y, obj.node.get_z())
        self._grid.sync_obstacles()
        self._record_move(obj, before)

    def remove_hovered(self) -> None:
        """Remove the obstacle under the cursor, if any."""
        target = self.drag.removable_hovered()
        if target is not None:
            self.remove(target)

    def remove(self, obstacle: GameObject) -> None:
        """Remove `obstacle` (a live scene object) as X does: an undoable edit."""
        [taken] = self._take_objects([obstacle])
        self._grid.sync_obstacles()
        self.history.record(Remove(self, taken))
        self._notify(f"removed {taken.name}")

    def cycle_terrain_cost(self) -> None:
        """Give the terrain patch under the cursor the next cost of `COST_CYCLE`, if any.

        The grid takes the new cost at once (also while paused); the planners replan on the
        next world step, as after a drop.
        """
        hovered = self.drag.hovered
        if hovered is not None:
            self.step_cost(hovered)

    def step_cost(self, obj: GameObject) -> None:
        """Give terrain patch `obj` the next cost of `COST_CYCLE`, as U does; else nothing."""
        patch = obj.get_component(TerrainPatch)
        if patch is None:
            return
        before = patch.cost
        patch.cost = next_cost(before)
        self.settle()
        edit = Recost(self, obj.name, before, patch.cost)
        self.history.record(edit)
        self._notify(edit.label)

    def toggle_snap(self) -> None:
        """Turn snapping dropped cubes to cell centres on or off."""
        self.drag.snap = not self.drag.snap
        self._notify(f"snap to cell centres {'on' if self.drag.snap else 'off'}")

    def on_drop(self, dropped: GameObject, grabbed_at: Point) -> None:
        """A drag ended: bring the grid up to date (also while paused) and say where it landed.

        The planners need no call: their `ReplanGate`s see the drag end and replan on the next
        world step. The move is recorded for undo, unless the cube is back where it was grabbed.
        """
        self._grid.sync_obstacles()
        x, y = dropped.xy
        cell = self._grid.world_to_cell(x, y)
        self._notify(f"drop {dropped.name} at ({x:.2f}, {y:.2f}) cell {cell}")
        self._record_move(dropped, grabbed_at)

    def _record_move(self, obj: GameObject, before: Point) -> None:
        after = obj.xy
        if after != before:
            self.history.record(Move(self, obj.name, before, after))

    def live(self, name: str) -> GameObject | None:
        """The scene object called `name` now (an undone removal brings back a new one)."""
        return next((obj for obj in self._objects if obj.alive and obj.name == name), None)

    def put(self, name: str, xy: Point) -> None:
        """Move the object called `name` to world `xy`, its height kept; the grid follows."""
        obj = self.live(name)
        if obj is not None:
            obj.node.set_x(xy[0])
            obj.node.set_y(xy[1])
            self._grid.sync_obstacles()

    def set_cost(self, name: str, cost: float) -> None:
        """Give the terrain patch called `name` the cost `cost`; the grid follows."""
        obj = self.live(name)
        patch = None if obj is None else obj.get_component(TerrainPatch)
        if patch is not None:
            patch.cost = cost
            self._grid.sync_obstacles()

    def take(self, names: Sequence[str]) -> list[Snapshot]:
        """Remove the objects called `names` (those alive) and return how to put each back."""
        wanted = set(names)
        found = {obj.name: obj for obj in self._objects if obj.alive and obj.name in wanted}
        taken = self._take_objects([found[name] for name in names if name in found])
        self._grid.sync_obstacles()
        return taken

    def _take_objects(self, objects: Sequence[GameObject]) -> list[Snapshot]:
        """Snapshot and destroy `objects` (scene objects, alive), in one pass over the list."""
        leaving = {id(obj) for obj in objects}
        index_of = {id(obj): index for index, obj in enumerate(self._objects) if id(obj) in leaving}
        snapshots = []
        for obj in objects:
            # Unhighlighted and unselected first, so the copy carries neither.
            self.drag.forget(obj)
            if self.selected is obj:
                self.selected = None
            snapshots.append(self._snapshot(obj, index_of[id(obj)]))
            obj.destroy()
        self._objects[:] = [obj for obj in self._objects if id(obj) not in leaving]
        self.version += 1
        return snapshots

    def _snapshot(self, obj: GameObject, index: int) -> Snapshot:
        node = obj.node.copy_to(NodePath())
        # The copy shares the python tag (the back-link to the old object) until cleared.
        node.clear_python_tag(PYTHON_TAG)
        if self._motion is None:
            return Snapshot(obj.name, obj.tag, node, index)
        motion = self._motion
        return Snapshot(obj.name, obj.tag, node, index, motion.placement(obj), motion.configs(obj))

    def restore(self, snapshots: Iterable[Snapshot]) -> None:
        """Put back what `take` removed, in its place in the list, pickable and draggable.

        An object that moved by itself sets off again from where its motion is anchored.
        """
        placed = []
        for snapshot in snapshots:
            node = snapshot.node.copy_to(self._world.root)
            if snapshot.placement is not None:
                pos, heading = snapshot.placement
                node.set_pos(*pos)
                node.set_h(heading)
            obj = self._world.add(GameObject(node, tag=snapshot.tag))
            make_pickable(obj)
            configs = snapshot.motion  # with the inspector's changes, if any
            if self._motion is not None and configs is not None:
                self._motion.add(
                    obj, mover=configs.mover, rotator=configs.rotator, door=configs.door
                )
            placed.append((snapshot.index, obj))
        self._objects[:] = _merged(self._objects, placed)
        self.version += 1
        self._grid.sync_obstacles()

    def object_states(self) -> list[ObjectState]:
        """The scene's objects as the user left them, for saving.

        Cubes the user can move are saved where they stand; agents (which move by themselves)
        keep the place and heading the file gave them, so saving mid-run never moves a spawn.
        Objects that move on their own (movers, rotators, doors) are saved where their motion
        is anchored (`placement`: a mover's route origin, where it was dropped last), never
        mid-route. Objects a script moves or turns (`sim.scripting`) keep the place, scale and
        heading the file gave them: their place is the script's. Each carries the component
        settings it has now (`live_settings`): a terrain cost set with U or the inspector, an
        agent's speed, radius and mode, a mover's, rotator's or door's numbers.
        """
        states = []
        for obj in self._objects:
            if not obj.alive:
                continue
            authored = self._authored.get(obj.name)
            scripted = self._moved_by_script(obj)
            if authored is not None and (obj.tag not in DRAGGABLE_TAGS or scripted):
                states.append(
                    ObjectState(
                        name=obj.name,
                        tag=obj.tag,
                        model=authored.model,
                        pos=authored.pos,
                        scale=authored.scale,
                        heading=authored.heading,
                        settings=live_settings(obj, self._motion),
                    )
                )
                continue
            node = obj.node
            model = self._models.get(obj.name, NEW_OBSTACLE_MODEL)
            anchored = None if self._motion is None else self._motion.placement(obj)
            pos, heading = anchored or (obj.world_pos, node.get_h())
            states.append(
                ObjectState(
                    name=obj.name,
                    tag=obj.tag,
                    model=model,
                    pos=pos,
                    scale=(node.get_sx(), node.get_sy(), node.get_sz()),
                    heading=heading,
                    settings=live_settings(obj, self._motion),
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
                self._source,
                self.object_states(),
                target=self._save_as,
                base=self._save_base,
                links=self.links.specs,
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


def _merged(objects: list[GameObject], placed: list[tuple[int, GameObject]]) -> list[GameObject]:
    """`objects` with each placed object at its index, lowest first, in time linear in both.

    >>> _merged(["a", "c"], [(1, "b"), (3, "d")])
    ['a', 'b', 'c', 'd']
    """
    merged: list[GameObject] = []
    rest = iter(objects)
    for index, obj in sorted(placed, key=lambda pair: pair[0]):
        while len(merged) < index:
            following = next(rest, None)
            if following is None:  # past the end: the rest go last, in order
                break
            merged.append(following)
        merged.append(obj)
    merged.extend(rest)
    return merged
