"""The mode owner: one FSM decides which part has the keys (no window: the parts are stand-ins)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sim.app.controls import table_keys
from sim.app.modes import (
    GENERATOR_MENU,
    INSPECTOR_TYPING,
    MENU_REFUSED,
    RACE,
    SCENE,
    SEARCH_VIEW,
    Modes,
)


class Part:
    """A view, a race or a menu: opened and closed, and what its keys did."""

    def __init__(self) -> None:
        self.opened = False
        self.keys: list[object] = []

    def open(self) -> None:
        self.opened = True

    def close(self) -> None:
        self.opened = False

    def key(self, key: str) -> None:
        self.keys.append(key)

    def pick(self, index: int) -> None:
        self.keys.append(index)

    def toggle_lane(self, kind: object) -> None:
        self.keys.append(kind)


class Race(Part):
    def __init__(self, view: Part) -> None:
        super().__init__()
        self._view = view

    def open(self) -> None:
        self._view.close()  # as RaceView: the race takes the view's place
        self.opened = True


class Fields:
    """The inspector: a selection with fields, one of which may have the keyboard."""

    def __init__(self) -> None:
        self.fields: tuple[str, ...] = ("pos",)
        self.focused: int | None = None
        self.keys: list[str] = []

    def next_field(self) -> None:
        if self.fields:
            self.focused = 0

    def field_key(self, key: str) -> None:
        self.keys.append(key)
        if key == "escape":
            self.focused = None

    def typed_key(self, key: str) -> None:
        self.keys.append(key)


class Rig:
    def __init__(self) -> None:
        self.view = Part()
        self.race = Race(self.view)
        self.menu = Part()
        self.inspector = Fields()
        self.said: list[str] = []
        self.modes = Modes(
            view=self.view,  # type: ignore[arg-type]
            race=self.race,  # type: ignore[arg-type]
            menu=self.menu,  # type: ignore[arg-type]
            inspector=self.inspector,  # type: ignore[arg-type]
            notify=self.said.append,
            typing_keys=["i"],
            table_owned=table_keys(),
        )


@pytest.fixture
def rig() -> Iterator[Rig]:
    made = Rig()
    yield made
    made.modes.destroy()


def test_the_search_view_mode_opens_and_closes_the_view(rig: Rig) -> None:
    assert rig.modes.state == SCENE
    assert not rig.modes.search_keys()
    rig.modes.request(SEARCH_VIEW)
    assert rig.view.opened
    assert rig.modes.search_keys()
    rig.modes.request(SCENE)
    assert not rig.view.opened


def test_the_race_takes_the_search_views_place_and_routes_its_keys(rig: Rig) -> None:
    ran: list[str] = []
    play = rig.modes.route(lambda: ran.append("view"), lambda: ran.append("race"))
    rig.modes.request(SEARCH_VIEW)
    play()
    rig.modes.toggle_race()
    play()
    assert (rig.modes.state, rig.race.opened, rig.view.opened) == (RACE, True, False)
    rig.modes.toggle_race()
    assert (rig.modes.state, rig.race.opened) == (SCENE, False)
    assert ran == ["view", "race"]


@pytest.mark.parametrize("mode", [SEARCH_VIEW, RACE])
def test_the_menu_stays_shut_over_a_search(rig: Rig, mode: str) -> None:
    rig.modes.request(mode)
    rig.modes.request(GENERATOR_MENU)
    assert not rig.menu.opened
    assert rig.said == [MENU_REFUSED]


def test_the_open_menu_captures_every_table_key(rig: Rig) -> None:
    rig.modes.request(GENERATOR_MENU)
    assert rig.modes.captured("escape")
    assert rig.menu.keys == ["escape"]


def test_a_view_closed_by_its_own_button_gives_the_keys_back(rig: Rig) -> None:
    rig.modes.request(SEARCH_VIEW)
    rig.view.close()  # the panel's close button
    assert not rig.modes.search_keys()
    assert rig.modes.state == SCENE


def test_typing_over_the_search_view_leaves_it_open_and_returns_to_it(rig: Rig) -> None:
    rig.modes.request(SEARCH_VIEW)
    rig.modes.request(INSPECTOR_TYPING)
    assert (rig.modes.state, rig.inspector.focused, rig.view.opened) == (INSPECTOR_TYPING, 0, True)
    assert rig.modes.captured("t")
    assert rig.modes.captured("escape")
    assert rig.modes.search_keys()
    assert rig.modes.state == SEARCH_VIEW
    assert rig.inspector.keys == ["t", "escape"]


def test_tab_without_fields_keeps_the_scene(rig: Rig) -> None:
    rig.inspector.fields = ()
    rig.modes.request(INSPECTOR_TYPING)
    assert rig.modes.state == SCENE
