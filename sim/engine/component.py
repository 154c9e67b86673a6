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
    - `update(dt)` every step while `enabled` and the game object is `alive`.
    - `on_draw_gizmos(gizmos)` once per rendered frame while `enabled`; it must only draw.
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

    def __init__(self) -> None:
        self.enabled = True
        self._game_object = None
        self._awoken = False
        self._started = False

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
