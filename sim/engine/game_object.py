"""GameObject: a NodePath plus a tag and an ordered list of Components (Unity's GameObject).

The scene graph stays Panda3D's: a GameObject wraps one NodePath, writes its tag as a real Panda3D
tag (so `root.find_all_matches("**/=tag=Obstacle")` works) and leaves a python-tag back-link on the
node so a picked Geom can be turned back into its GameObject.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from panda3d.core import LPoint3f, LVecBase3f, NodePath

from sim.config import Tag
from sim.engine.component import Component

if TYPE_CHECKING:
    from sim.engine.world import World

TAG_KEY = "tag"
"""Panda3D tag key that holds a GameObject's tag (the key/value form the egg loader keeps)."""
PYTHON_TAG = "game_object"
"""Python-tag key on a GameObject's node that points back at the GameObject."""

C = TypeVar("C", bound=Component)


class GameObject:
    """A named, tagged node with components; see `World` for when hooks run.

    Args:
        node: The node to wrap (non-empty, not already wrapped). Its name is the object's name.
        tag: Unity-style tag, e.g. "Obstacle"; stored as the Panda3D tag `tag`.

    Raises:
        ValueError: If `node` is empty or already belongs to another GameObject.
    """

    def __init__(self, node: NodePath, *, tag: str = Tag.UNTAGGED) -> None:
        if node.is_empty():
            raise ValueError("GameObject needs a non-empty NodePath, got an empty one.")
        if node.has_python_tag(PYTHON_TAG):
            owner = node.get_python_tag(PYTHON_TAG)
            raise ValueError(f"Node {node.get_name()!r} already belongs to {owner!r}.")
        self._node = node
        self._name_when_removed = ""
        self._components: list[Component] = []
        self._alive = True
        self._world: World | None = None
        node.set_python_tag(PYTHON_TAG, self)
        self._tag = tag
        self.tag = tag  # also on the node

    @property
    def node(self) -> NodePath:
        """The wrapped NodePath (empty after the object has been removed)."""
        return self._node

    @property
    def name(self) -> str:
        """The node's name (kept readable after the node has been removed)."""
        if self._node.is_empty():
            return self._name_when_removed
        return str(self._node.get_name())

    @name.setter
    def name(self, value: str) -> None:
        self._node.set_name(value)

    @property
    def tag(self) -> str:
        """Unity-style tag; setting it rewrites the Panda3D tag `tag` on the node."""
        return self._tag

    @tag.setter
    def tag(self, value: str) -> None:
        old, self._tag = self._tag, value
        if not self._node.is_empty():
            self._node.set_tag(TAG_KEY, value)
        if self._world is not None:
            self._world._retag(self, old, value)

    @property
    def world(self) -> World | None:
        """The world this object was added to; None before `World.add` and after removal."""
        return self._world

    @property
    def alive(self) -> bool:
        """False from the moment `destroy()` is called (removal itself waits for the frame end)."""
        return self._alive

    @property
    def pos(self) -> LPoint3f:
        """Position relative to the parent node, world units, Z up (a copy: assign to change it)."""
        return self._node.get_pos()

    @pos.setter
    def pos(self, value: LVecBase3f | tuple[float, float, float]) -> None:
        self._node.set_pos(value)

    @property
    def world_pos(self) -> tuple[float, float, float]:
        """Where the object is in the world: `(x, y, z)`, world units, Z up.

        The one way to read an object's place: relative to the scene graph's root, so it holds
        whatever node the object hangs under.
        """
        pos = self._node.get_pos(self._node.get_top())
        return (float(pos.x), float(pos.y), float(pos.z))

    @property
    def xy(self) -> tuple[float, float]:
        """Where the object stands on the ground: world `(x, y)` of `world_pos`."""
        pos = self._node.get_pos(self._node.get_top())
        return (float(pos.x), float(pos.y))

    @property
    def heading(self) -> float:
        """Heading relative to the parent in degrees (Panda3D H: counter-clockwise about +Z)."""
        return float(self._node.get_h())

    @heading.setter
    def heading(self, value: float) -> None:
        self._node.set_h(value)

    @property
    def components(self) -> tuple[Component, ...]:
        """The attached components, in the order they were added."""
        return tuple(self._components)

    def add_component(self, component: C) -> C:
        """Attach `component` and return it (for chaining: `mover = go.add_component(Mover())`).

        In a world that has started stepping, the component's `awake` runs before this returns and
        its `start` runs at the start of the next step, before its first `update`. Otherwise awake
        waits until the object is in a world and that world takes its first step.

        Raises:
            ValueError: If the component is already attached (to this or another object), or
                this object has been destroyed.
        """
        if not self._alive:
            raise ValueError(f"Cannot add {type(component).__name__} to destroyed {self!r}.")
        if component.attached:
            raise ValueError(f"{component!r} is already attached; a component has one owner.")
        component._game_object = self
        self._components.append(component)
        if self._world is not None:
            self._world._on_component_added(component)
        return component

    def get_component(self, kind: type[C]) -> C | None:
        """Return the first component that is an instance of `kind`, or None."""
        for component in self._components:
            if isinstance(component, kind):
                return component
        return None

    def get_components(self, kind: type[C]) -> list[C]:
        """Return every component that is an instance of `kind`, in the order they were added."""
        return [c for c in self._components if isinstance(c, kind)]

    def destroy(self) -> None:
        """Destroy this object: `alive` turns False now; removal follows.

        In a world, removal waits for the end of the current frame (see `World.destroy`).
        Outside a world it is immediate: `on_destroy` for awoken components (none, normally),
        then the node is removed. Calling it again does nothing.
        """
        if not self._alive:
            return
        if self._world is not None:
            self._world.destroy(self)
            return
        self._alive = False
        self._remove()

    @staticmethod
    def from_node(node: NodePath) -> GameObject | None:
        """Return the GameObject owning `node` or its nearest ancestor that has one, else None.

        Used by mouse picking: the collision entry gives the Geom's NodePath deep inside a model.
        """
        if node.is_empty():
            return None
        owner_node = node.find_net_python_tag(PYTHON_TAG)
        if owner_node.is_empty():
            return None
        owner = owner_node.get_python_tag(PYTHON_TAG)
        return owner if isinstance(owner, GameObject) else None

    def _remove(self) -> None:
        """Run `on_destroy` hooks, then drop the node; the caller has already cleared `alive`."""
        self._run_on_destroy()
        self._drop_node()

    def _run_on_destroy(self) -> None:
        """Call `on_destroy` on the awoken components and leave the world; the node stays."""
        for component in tuple(self._components):
            if component._awoken:
                component.on_destroy()
        self._world = None

    def _drop_node(self) -> None:
        """Remove the node (a World may have detached it already, many at once)."""
        if not self._node.is_empty():
            self._name_when_removed = self.name
            # Clearing the back-link breaks the node <-> object reference cycle.
            self._node.clear_python_tag(PYTHON_TAG)
            self._node.remove_node()

    def _mark_dead(self) -> None:
        self._alive = False

    def __repr__(self) -> str:
        state = "" if self._alive else " (destroyed)"
        return f"<GameObject {self.name!r} tag={self._tag!r}{state}>"
