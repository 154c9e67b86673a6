"""Drive the editor's inspector as a user does: click an object, tab to a field, type."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.app.composition import SimApp
    from sim.engine import GameObject
    from tests.helpers.virtual_mouse import Mouse


def select(app: SimApp, mouse: Mouse, name: str) -> GameObject:
    """Click the object `name` and check the editor selected it."""
    obj = app.world.find(name)
    assert obj is not None, f"no object {name}"
    mouse.click(app.screen_of(obj))
    assert app.editor.selected is obj
    return obj


def type_into(mouse: Mouse, text: str) -> None:
    """Type `text` into the focused field and press Enter."""
    names = {" ": "space"}
    for char in text:
        mouse.key(names.get(char, char))
    mouse.key("enter")


def focus(app: SimApp, mouse: Mouse, key: str) -> None:
    """Tab to the field `key` of the selection."""
    mouse.key("tab")
    for _ in range(len(app.inspector.fields)):
        focused = app.inspector.focused
        assert focused is not None, "no field has the focus"
        if app.inspector.fields[focused].key == key:
            return
        mouse.key("tab")
    raise AssertionError(f"no field {key}")
