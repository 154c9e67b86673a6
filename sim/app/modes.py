"""The one owner of the keyboard: which mode the app is in, and which part gets each key.

Panda3D's `direct.fsm.FSM` holds the mode: Scene, SearchView, Race, GeneratorMenu or
InspectorTyping. A key asks for a mode (`request("SearchView")` for T, "Race" for W,
"GeneratorMenu" for O, "InspectorTyping" for Tab); each mode's enter and exit open and close its
part (the search view, the race, the menu), and each mode says who a key goes to:

- Scene: the controls table's ALWAYS rows (`sim.app.controls`).
- SearchView: its SEARCH rows, else the ALWAYS ones; Race the same, the SEARCH rows and the
  digits driving the race (`route`) instead of the view.
- GeneratorMenu: every key of the table and its digits go to the menu, so Esc closes it.
- InspectorTyping: every key goes to the focused field (typed, or Enter, Tab, Esc).

While the search view or the race is open the menu stays shut (its layout would leave their
search stale); the refusal is that mode's filter, not a check in the menu.

Some parts leave their mode by themselves: the search panel's close button, the menu once it has
generated, a new selection that takes the keyboard from a field; the command line and the tests
open the views directly. So before each key, and once a frame, the owner catches up with them
(`follow`); they never ask each other whether one is open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

from direct.fsm.FSM import FSM

from sim.app.generator_menu import DIGITS
from sim.search_view.race_panel import SEARCH_DIGITS

if TYPE_CHECKING:
    from sim.app.generator_menu import GeneratorMenu
    from sim.editor.inspector import Inspector
    from sim.search_view.race_view import RaceView
    from sim.search_view.view import SearchView

SCENE: Final = "Scene"
SEARCH_VIEW: Final = "SearchView"
RACE: Final = "Race"
GENERATOR_MENU: Final = "GeneratorMenu"
INSPECTOR_TYPING: Final = "InspectorTyping"
MENU_REFUSED: Final = "close the search view or the race (T) to generate a layout"


class Modes(FSM):
    """The app's mode, and the keys' dispatch by mode (see the module).

    The methods named `enterX`, `exitX` and `filterX` are the FSM's hooks for mode X, named as
    `direct.fsm.FSM` looks them up.
    """

    def __init__(
        self,
        *,
        view: SearchView,
        race: RaceView,
        menu: GeneratorMenu,
        inspector: Inspector,
        notify: Callable[[str], None],
        typing_keys: Iterable[str],
        table_owned: Iterable[str] = (),
    ) -> None:
        """Start in Scene and take the digits and `typing_keys`: keys the table leaves free.

        `table_owned` are the keys the controls table binds (`sim.app.controls.table_keys`).
        """
        super().__init__("modes")
        self._view, self._race, self._menu, self._inspector = view, race, menu, inspector
        self._notify = notify
        # The keys typed through `_free_key`. A key the controls table binds too (1, 7) reaches
        # the mode through `captured` instead: accepting it here as well would deliver it twice.
        self._typing = frozenset([*typing_keys, "backspace"])
        free = [*DIGITS, *SEARCH_DIGITS, *self._typing]
        owned = frozenset(table_owned)
        for key in dict.fromkeys(key for key in free if key not in owned):
            self.accept(key, self._free_key, [key])
        self.request(SCENE)

    # --- what the controls table asks ------------------------------------------------------

    def captured(self, key: str) -> bool:
        """Offered each table key first: True when the mode's part took it (menu, field)."""
        self.follow()
        if self.state == GENERATOR_MENU:
            self._menu.key(key)
            if key in DIGITS:
                self._menu.pick(DIGITS.index(key))
        elif self.state == INSPECTOR_TYPING:
            self._inspector.field_key(key)
        elif self.state == RACE and key in SEARCH_DIGITS:
            self._race.toggle_lane(SEARCH_DIGITS[key])
        else:
            return False
        return True

    def search_keys(self) -> bool:
        """Whether the table's SEARCH rows apply: the search view or the race has the keys."""
        self.follow()
        return self.state in (SEARCH_VIEW, RACE)

    def route(
        self, view_action: Callable[[], None], race_action: Callable[[], None]
    ) -> Callable[[], None]:
        """A SEARCH row's action: `race_action` in the Race mode, else `view_action`."""
        return lambda: race_action() if self.state == RACE else view_action()

    def toggle_race(self) -> None:
        """W: open the race (from the scene or the search view), or close it."""
        self.request(SCENE if self.state == RACE else RACE)

    def follow(self) -> None:
        """Catch up with parts that opened or closed without a request (see the module)."""
        if self.state is None:  # in a transition: its enter or exit is running
            return
        if self._menu.opened:
            wanted = GENERATOR_MENU
        elif self._inspector.focused is not None:
            wanted = INSPECTOR_TYPING
        elif self._race.opened:
            wanted = RACE
        elif self._view.opened:
            wanted = SEARCH_VIEW
        else:
            wanted = SCENE
        if wanted != self.state:
            self.forceTransition(wanted)

    def _free_key(self, key: str) -> None:
        """A key the table leaves free: a digit of the menu or the race, or a typed character."""
        self.follow()
        if self.state == GENERATOR_MENU and key in DIGITS:
            self._menu.pick(DIGITS.index(key))
        elif self.state == RACE and key in SEARCH_DIGITS:
            self._race.toggle_lane(SEARCH_DIGITS[key])
        elif self.state == INSPECTOR_TYPING and key in self._typing:
            self._inspector.typed_key(key)

    # --- the FSM's hooks ---------------------------------------------------------------------

    def defaultFilter(self, request: str, args: tuple[Any, ...]) -> Any:  # noqa: N802
        """Tab gives the keyboard to a field only when the selection has fields."""
        if request == INSPECTOR_TYPING and not self._inspector.fields:
            return None
        return super().defaultFilter(request, args)

    def filterSearchView(self, request: str, args: tuple[Any, ...]) -> Any:  # noqa: N802
        """The search view keeps the menu shut."""
        return self._refuse_menu(request, args)

    def filterRace(self, request: str, args: tuple[Any, ...]) -> Any:  # noqa: N802
        """The race keeps the menu shut."""
        return self._refuse_menu(request, args)

    def _refuse_menu(self, request: str, args: tuple[Any, ...]) -> Any:
        if request == GENERATOR_MENU:
            self._notify(MENU_REFUSED)
            return None
        return self.defaultFilter(request, args)

    def enterSearchView(self) -> None:  # noqa: N802
        """Open the search view (already open when the mode follows it)."""
        self._view.open()

    def exitSearchView(self) -> None:  # noqa: N802
        """Close the view for the scene; the race closes it itself, a typed field leaves it."""
        if self.newState == SCENE:
            self._view.close()

    def enterRace(self) -> None:  # noqa: N802
        """Open the race, which takes an open search view's settings and closes it."""
        if not self._race.opened:
            self._race.open()

    def exitRace(self) -> None:  # noqa: N802
        """Close the race for the scene; a typed field leaves it open."""
        if self.newState == SCENE:
            self._race.close()

    def enterGeneratorMenu(self) -> None:  # noqa: N802
        """Show the menu."""
        self._menu.open()

    def exitGeneratorMenu(self) -> None:  # noqa: N802
        """Hide the menu (already hidden when it closed itself)."""
        self._menu.close()

    def enterInspectorTyping(self) -> None:  # noqa: N802
        """Give the selection's first field the keyboard (unless one has it already)."""
        if self._inspector.focused is None:
            self._inspector.next_field()

    def destroy(self) -> None:
        """Drop the keys and leave the mode without closing what it holds (teardown)."""
        self.ignore_all()
        self.cleanup()  # the FSM's own way to the Off state
