"""Component: the unit of behaviour attached to a GameObject (Unity's MonoBehaviour, snake_case).

The World calls the hooks; the order and the exact rules live in `sim.engine.world`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.engine.game_object import GameObject
    from sim.engine.gizmos import Gizmos
    from sim.engine.world import World


class Component:
    """Base class for behaviour: override the hooks you need; every default does nothing.

    Lifecycle (driven by `World.step`; see `World` for the full order):

    - `awake()` once, when the component is in a world and that world has started stepping.
    - `start()` once, right before its first `update`, and only while `enabled`.
    - `update(dt)` every step while `enabled`, `needs_update` and the game object is `alive`.
    - `on_draw_gizmos(gizmos)` once per rendered frame while `enabled` and `draws_gizmos`; it
      must only draw.
    - `on_destroy()` once, at the end of the frame its game object was destroyed in, and only if
      `awake()` ran (it releases what `awake` acquired).

    A component belongs to one game object for its whole life. Subclasses that define `__init__`
    should call `super().__init__()`; the class-level defaults keep a forgotten call harmless.

    Attributes:
        enabled: When False, `start` is postponed and `update`/`on_draw_gizmos` are skipped.
            `awake` and `on_destroy` run regardless, so what `awake` acquires is always
            released.
    """

    enabled: bool = True
    # Lifecycle state, written only by GameObject and World.
    _game_object: GameObject | None = None
    _awoken: bool = False
    _started: bool = False
    _needs_update: bool = True
    _draws_gizmos: bool = True

    def __init__(self) -> None:
        self.enabled = True
        self._game_object = None
        self._awoken = False
        self._started = False
        self._needs_update = True
        self._draws_gizmos = True

    @property
    def needs_update(self) -> bool:
        """False: the world leaves this component out of its updates (its other hooks run).

        For a component that something else moves for a while (thousands of them, each an
        update call that would return at once). Unlike `enabled` it keeps its gizmos and its
        start. Set True again during a step, its update runs in that same step when its turn
        in the order is still to come, else from the next step.
        """
        return self._needs_update

    @needs_update.setter
    def needs_update(self, value: bool) -> None:
        if value is self._needs_update:
            return
        self._needs_update = value
        world = self.world
        if world is not None:
            world._updates_changed(woken=value)

    @property
    def draws_gizmos(self) -> bool:
        """False: the world leaves this component out of its gizmo drawing (its other hooks run).

        For thousands of components whose `on_draw_gizmos` would draw nothing for a while (an
        agent the crowd moves): each call would still cost a frame its share. A class that
        keeps the default `on_draw_gizmos` is left out whatever this says.
        """
        return self._draws_gizmos

    @draws_gizmos.setter
    def draws_gizmos(self, value: bool) -> None:
        if value is self._draws_gizmos:
            return
        self._draws_gizmos = value
        world = self.world
        if world is not None:
            world._drawing = None

    @property
    def game_object(self) -> GameObject:
        """The game object this component is attached to.

        Raises:
            RuntimeError: If the component has not been attached with `GameObject.add_component`.
        """
        if self._game_object is None:
            raise RuntimeError(f"{type(self).__name__} is not attached to a GameObject yet.")
        return self._game_object

    @property
    def attached(self) -> bool:
        """True once `GameObject.add_component` has taken this component."""
        return self._game_object is not None

    @property
    def world(self) -> World | None:
        """The game object's world, or None if unattached or not (yet) in a world."""
        return None if self._game_object is None else self._game_object.world

    def awake(self) -> None:
        """Set up own state; other objects may not have started yet. Default: nothing."""

    def start(self) -> None:
        """Set up what depends on other objects, right before the first update. Default: nothing."""

    def update(self, dt: float) -> None:
        """Advance by `dt` seconds of simulated time (>= 0). Default: nothing."""

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Submit this frame's debug drawing to `gizmos`; must not change state."""

    def on_destroy(self) -> None:
        """Release what `awake`/`start` acquired; the node still exists. Default: nothing."""

    def __repr__(self) -> str:
        owner = "unattached" if self._game_object is None else repr(self._game_object.name)
        return f"<{type(self).__name__} on {owner}>"
