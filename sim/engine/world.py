"""World: owns the GameObjects under one root node and steps their components in a fixed order."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import deque
from typing import TYPE_CHECKING

from panda3d.core import NodePath

from sim.config import Tag
from sim.engine.component import Component
from sim.engine.game_object import PYTHON_TAG, TAG_KEY, GameObject

if TYPE_CHECKING:
    from sim.engine.gizmos import Gizmos


class World:
    """The set of live GameObjects and the one place their hooks are called from.

    Lifecycle rules (Unity's hooks, in snake_case):

    - **awake**: once per component, as soon as the component is attached to an object that is in
      this world *and* the world has started (its first `step()` has begun). Components that enter
      before the first step are queued and awoken at the start of that step, in the order they
      entered (object added, then its components in order; later `add_component` calls append).
      After that, `World.add` and `GameObject.add_component` call `awake` before they return,
      including when called from inside a hook.
    - **start**: once per component, in the start phase of the first step after its awake, and
      only while it is `enabled` (a disabled component starts in the first step it is enabled).
    - **update(dt)**: every step for each component that has started, is `enabled`, whose
      `needs_update` is True (a step skips the others without touching them) and whose
      object is `alive`. So anything added during a step (in awake, start or update) gets awake
      at once and its start and first update in the *next* step.
    - **destroy**: `alive` turns False at once, so the object's remaining hooks in this frame
      are skipped, but `find*` and `objects` still return it until the end of the step. Then
      each destroyed object, in the order destroyed, gets `on_destroy` on its awoken components
      and its lookups dropped; then their nodes are removed, all at once. Objects whose nodes
      lie under a destroyed object's node are destroyed with it. Destroying N objects costs
      O(N), whatever the number of objects in the world.

    One `step(dt)` therefore runs: (1) queued awakes, (2) pending starts, (3) updates, in object
    insertion order then component order, (4) deferred destroys. Exceptions from hooks propagate;
    the step stops there and the rest of its work waits for the next step.

    Args:
        root: Node the world's objects hang under (e.g. ShowBase's `render`, or a bare
            `NodePath("root")` in tests).

    Raises:
        ValueError: If `root` is empty.
    """

    def __init__(self, root: NodePath) -> None:
        if root.is_empty():
            raise ValueError("World needs a non-empty root NodePath, got an empty one.")
        self._root = root
        # Insertion order, and each object's insertion number: a dict so that removing one
        # object is O(1) and tearing down N objects stays O(N).
        self._objects: dict[GameObject, int] = {}
        self._added = 0
        self._awake_queue: deque[Component] = deque()
        # Awoken components not started yet, and every (object, component) pair in update
        # order (None: to be listed again): a step then touches only what it has to, not
        # every component of every object twice.
        self._unstarted: list[Component] = []
        self._pairs: tuple[tuple[GameObject, Component], ...] | None = None
        # The positions in `_pairs` of the components that need updates (None: to be listed
        # again), and whether one's `needs_update` changed since they were listed.
        self._updating: list[int] | None = None
        self._updating_changed = False
        # The positions in `_pairs` of the components that draw gizmos (None: to be listed
        # again): at 10,000 agents, calling each one's hook to return at once took 2 ms a frame.
        self._drawing: list[int] | None = None
        # Objects by tag, each in insertion order until one is retagged (then sorted on
        # lookup): the grid asks for its obstacles every frame, among thousands of agents.
        self._tagged: dict[str, dict[GameObject, None]] = {}
        self._retagged = False
        # Count joins, leaves and tag changes, in all and per tag (`membership_version`).
        self._membership = 0
        self._tag_versions: dict[str, int] = {}
        self._destroy_queue: deque[GameObject] = deque()
        self._started = False
        self._stepping = False
        self._frame_count = 0
        self._time_s = 0.0

    @property
    def root(self) -> NodePath:
        """The node objects are parented to when they have no parent of their own."""
        return self._root

    @property
    def objects(self) -> tuple[GameObject, ...]:
        """Every object in the world, in insertion order (destroyed ones until the frame ends)."""
        return tuple(self._objects)

    @property
    def membership_version(self) -> int:
        """A number that changes whenever an object joins, leaves or changes its tag.

        Who follows the objects of a tag compares it instead of copying the list each frame
        (a big map has tens of thousands of obstacles).
        """
        return self._membership

    def tag_version(self, tag: str) -> int:
        """A number that changes whenever an object tagged `tag` joins or leaves that tag."""
        return self._tag_versions.get(tag, 0)

    def _joined(self, *tags: str) -> None:
        """Objects joined or left `tags`: move the versions on."""
        self._membership += 1
        for tag in tags:
            self._tag_versions[tag] = self._tag_versions.get(tag, 0) + 1

    @property
    def started(self) -> bool:
        """True once the first `step()` has begun; from then on awake runs immediately."""
        return self._started

    @property
    def frame_count(self) -> int:
        """Number of steps begun; during the n-th step's hooks it is n."""
        return self._frame_count

    @property
    def time_s(self) -> float:
        """Simulated seconds: the sum of every step's dt, this step's included."""
        return self._time_s

    def add(self, game_object: GameObject) -> GameObject:
        """Add `game_object` and return it; its node is parented to `root` if it has no parent.

        Adding an object already in this world does nothing. Awake follows the class rules.

        Raises:
            ValueError: If the object is destroyed or belongs to another world.
        """
        if game_object.world is self:
            return game_object
        if game_object.world is not None:
            raise ValueError(f"{game_object!r} already belongs to another World.")
        if not game_object.alive:
            raise ValueError(f"Cannot add destroyed {game_object!r} to a World.")
        if game_object.node.get_parent().is_empty():
            game_object.node.reparent_to(self._root)
        game_object._world = self
        self._objects[game_object] = self._added
        self._added += 1
        self._pairs = None
        self._tagged.setdefault(game_object.tag, {})[game_object] = None
        self._joined(game_object.tag)
        for component in game_object.components:
            self._on_component_added(component)
        return game_object

    def spawn(
        self, name: str, *, tag: str = Tag.UNTAGGED, node: NodePath | None = None
    ) -> GameObject:
        """Create a GameObject named `name`, add it, and return it.

        Args:
            name: The object's name; a given `node` is renamed to it.
            tag: Unity-style tag, also set as the Panda3D tag `tag`.
            node: Node to wrap (e.g. a loaded model); None makes an empty node under `root`.
        """
        if node is None:
            node = self._root.attach_new_node(name)
        else:
            node.set_name(name)
        return self.add(GameObject(node, tag=tag))

    def find(self, name: str) -> GameObject | None:
        """Return the first object (insertion order) named `name`, or None. O(number of objects)."""
        return next((obj for obj in self._objects if obj.name == name), None)

    def find_with_tag(self, tag: str) -> GameObject | None:
        """Return the first object (insertion order) tagged `tag`, or None."""
        tagged = self._tagged.get(tag)
        if not tagged:
            return None
        if not self._retagged:
            return next(iter(tagged))
        return min(tagged, key=self._objects.__getitem__)

    def find_all_with_tag(self, tag: str) -> list[GameObject]:
        """Return every object tagged `tag`, in insertion order."""
        tagged = self._tagged.get(tag)
        if not tagged:
            return []
        if not self._retagged:
            return list(tagged)
        return sorted(tagged, key=self._objects.__getitem__)

    def _retag(self, game_object: GameObject, old: str, new: str) -> None:
        """`game_object`'s tag changed from `old` to `new` (called by its tag setter)."""
        if old == new:
            return
        self._tagged.get(old, {}).pop(game_object, None)
        self._tagged.setdefault(new, {})[game_object] = None
        self._retagged = True
        self._joined(old, new)

    def destroy(self, game_object: GameObject) -> None:
        """Mark `game_object` (and objects under its node) dead; remove them at the frame's end.

        Removal happens at the end of the step in progress, or, when called between steps, at the
        end of the next step or the next `flush_destroyed()` (which a paused FrameLoop calls).
        Destroying a dead object does nothing.

        Raises:
            ValueError: If the object is not in this world.
        """
        if game_object.world is not self:
            raise ValueError(f"{game_object!r} is not in this World.")
        if not game_object.alive:
            return
        for obj in (game_object, *self._live_objects_under(game_object)):
            obj._mark_dead()
            self._destroy_queue.append(obj)

    def _live_objects_under(self, game_object: GameObject) -> list[GameObject]:
        """Live objects of this world whose nodes lie under `game_object`'s, in insertion order.

        Only that node's subtree is searched (every GameObject's node carries the Panda3D tag
        `TAG_KEY`), never the list of all objects: destroying N objects one by one, as a
        teardown does, then costs O(N) instead of O(N^2).
        """
        under = []
        for node in game_object.node.find_all_matches(f"**/={TAG_KEY}"):
            owner = node.get_python_tag(PYTHON_TAG)
            if (
                isinstance(owner, GameObject)
                and owner is not game_object
                and owner.world is self
                and owner.alive
            ):
                under.append(owner)
        under.sort(key=self._objects.__getitem__)
        return under

    def flush_destroyed(self) -> int:
        """Finish pending destroys now and return how many objects were removed.

        For each, in the order destroyed: `on_destroy` on its awoken components, then removal
        from `objects` and lookups; then all their nodes are removed. Objects destroyed by an
        `on_destroy` are removed in the same call.
        """
        removed: list[GameObject] = []
        try:
            while self._destroy_queue:
                obj = self._destroy_queue.popleft()
                tag = obj.tag
                obj._run_on_destroy()
                del self._objects[obj]
                self._tagged.get(tag, {}).pop(obj, None)
                self._joined(tag)
                self._pairs = None
                removed.append(obj)
        finally:
            # The nodes leave together, after the hooks: one by one, each would cost a scan of
            # its parent's children.
            detach_all([obj.node for obj in removed])
            for obj in removed:
                obj._drop_node()
        return len(removed)

    def step(self, dt: float) -> None:
        """Advance the world by `dt` seconds in the four phases described on the class.

        Raises:
            ValueError: If `dt` is negative or not finite.
            RuntimeError: If called from inside a step.
        """
        if not (math.isfinite(dt) and dt >= 0.0):
            raise ValueError(f"dt must be a finite number >= 0, got {dt!r}.")
        if self._stepping:
            raise RuntimeError("World.step() called from inside a step.")
        self._stepping = True
        try:
            self._frame_count += 1
            self._time_s += dt
            self._started = True
            self._run_queued_awakes()
            self._run_pending_starts()
            self._run_updates(dt)
            self.flush_destroyed()
        finally:
            self._stepping = False

    def draw_gizmos(self, gizmos: Gizmos) -> None:
        """Call `on_draw_gizmos(gizmos)` on every awoken, enabled component of every live object.

        Skips those whose `draws_gizmos` is False or whose class keeps the default hook.
        Order: object insertion order, then component order. Does not flush `gizmos`.
        """
        pairs = self._update_pairs()
        if self._drawing is None:
            self._drawing = [
                at
                for at, (_, component) in enumerate(pairs)
                if component._draws_gizmos
                and type(component).on_draw_gizmos is not Component.on_draw_gizmos
            ]
        for at in self._drawing:
            obj, component = pairs[at]
            if obj._alive and component.enabled and component._awoken:
                component.on_draw_gizmos(gizmos)

    def _on_component_added(self, component: Component) -> None:
        """Awake now if started, else queue for the first step (called by add/add_component)."""
        self._pairs = None
        if self._started:
            self._awake(component)
        else:
            self._awake_queue.append(component)

    def _awake(self, component: Component) -> None:
        component._awoken = True
        self._unstarted.append(component)
        component.awake()

    def _run_queued_awakes(self) -> None:
        # Pop one at a time so that, if an awake raises, the rest stay queued for the next step.
        while self._awake_queue:
            component = self._awake_queue.popleft()
            if component.game_object.alive and not component._awoken:
                self._awake(component)

    def _run_pending_starts(self) -> None:
        if not self._unstarted:
            return
        # Those awoken so far, in object insertion order then component order; components
        # awoken by these starts wait for the next step. Disabled ones keep waiting.
        waiting = [c for c in self._unstarted if not c._started]
        waiting.sort(key=self._start_order)
        self._unstarted = []
        for component in waiting:
            obj = component.game_object
            if obj.world is not self or not obj.alive:
                continue
            if component.enabled:
                component._started = True
                component.start()
            else:
                self._unstarted.append(component)

    def _start_order(self, component: Component) -> tuple[int, int]:
        obj = component.game_object
        order = self._objects.get(obj, self._added)
        return (order, obj._components.index(component))

    def _update_pairs(self) -> tuple[tuple[GameObject, Component], ...]:
        """Every (object, component) pair in insertion order, listed again after a change."""
        if self._pairs is None:
            self._pairs = tuple((obj, c) for obj in self._objects for c in obj._components)
            self._updating = None
            self._drawing = None
        return self._pairs

    def _updates_changed(self, *, woken: bool) -> None:
        """A component's `needs_update` changed (called by its setter)."""
        self._updating = None
        # One that stops is skipped where it stands; one woken must be listed in this step.
        self._updating_changed |= woken

    @staticmethod
    def _needing_update(pairs: tuple[tuple[GameObject, Component], ...]) -> list[int]:
        return [at for at, (_, component) in enumerate(pairs) if component._needs_update]

    def _run_updates(self, dt: float) -> None:
        pairs = self._update_pairs()
        if self._updating is None:
            self._updating = self._needing_update(pairs)
        updating = self._updating
        self._updating_changed = False
        turn = 0
        while turn < len(updating):
            at = updating[turn]
            turn += 1
            obj, component = pairs[at]
            if obj._alive and component.enabled and component._started and component._needs_update:
                component.update(dt)
            if self._updating_changed:
                # Listed again over this step's pairs: one woken further on still runs now.
                self._updating_changed = False
                updating = self._needing_update(pairs)
                turn = bisect_right(updating, at)


# Panda3D finds a child to detach by scanning its parent's child list, so detaching k of a
# parent's n children one by one costs O(k * n): minutes for 100,000 objects under one root.
# From this many on, the parent's child list is rebuilt once instead.
BULK_DETACH_MIN = 64


def detach_all(nodes: list[NodePath]) -> None:
    """Detach every node in `nodes` from its parent, in time linear in the parents' children.

    Siblings that stay keep their order, their sort values and their NodePaths. Empty and
    parentless nodes are skipped.
    """
    by_parent: dict[int, tuple[NodePath, list[NodePath]]] = {}
    for node in nodes:
        parent = NodePath() if node.is_empty() else node.get_parent()
        if not parent.is_empty():
            by_parent.setdefault(parent.get_key(), (parent, []))[1].append(node)
    for parent, children in by_parent.values():
        if len(children) < BULK_DETACH_MIN:
            for child in children:
                child.detach_node()
        else:
            _rebuild_without(parent, {child.get_key() for child in children})


def _rebuild_without(parent: NodePath, leaving: set[int]) -> None:
    """Empty `parent`'s child lists at once and put back the children whose key is not leaving.

    Adding a node that is not yet a child costs O(1) (Panda3D checks the child's own short
    parent list first), so the whole rebuild is linear.
    """
    panda_node = parent.node()
    kept = [
        (child.node(), panda_node.get_child_sort(index))
        for index, child in enumerate(parent.get_children())
        if child.get_key() not in leaving
    ]
    stashed = [
        (child.node(), panda_node.get_stashed_sort(index))
        for index, child in enumerate(parent.get_stashed_children())
        if child.get_key() not in leaving
    ]
    panda_node.remove_all_children()
    for child_node, sort in kept:
        panda_node.add_child(child_node, sort)
    for child_node, sort in stashed:
        panda_node.add_stashed(child_node, sort)
