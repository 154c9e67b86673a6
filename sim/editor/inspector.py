"""The inspector: the selected object's values, edited in place, rotated with Q / E.

A click selects an object (`sim.editor.selection`); the panel (`InspectorPanel`) then lists what
the scene file allows for it (`sim.editor.inspector_fields`): position, scale and heading for the
cubes the editor moves (Start, End, obstacles, terrain patches), a patch's terrain cost, an
agent's speed, radius and mode, the settings of a mover, rotator or door (from `SceneMotion`,
which carries the motion on from where it is with the new numbers). Tab focuses a field; while
one has the keyboard the app's mode owner gives it every key (`field_key` for the keys of the
controls table, `typed_key` for the others), so the scene's one-letter keys do not fire: what is
typed shows in the field, Enter applies it, Tab / Up / Down move to another field, Esc lets go
of the keyboard. A typed value is read as in a scene file (numbers, words, and lists of them
with commas or spaces between) and checked by the scene file's own readers (`sim.scene.values`,
`sim.scene.motion`): a bad one shows the reader's one-line message and changes nothing. With no
field focused the arrow keys nudge the selection by one cell and Q / E turn it by `TURN_DEG`;
the grid takes an obstacle's turned footprint at once.

Every change is one `Change` in the editor's history, so Ctrl+Z takes it back; objects are named,
not held, as an undone removal brings back a new object under the old name. Ctrl+S saves what
the editor's `object_states` reads: the cubes' position, scale and heading as they stand, and
every object's settings (`inspector_fields.live_settings`).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from panda3d.core import NodePath

from sim.components.agent_controller import AgentController
from sim.components.terrain import TerrainPatch
from sim.editor.inspector_fields import (
    ALL_AREAS,
    HEADING,
    POS,
    SCALE,
    TERRAIN_COST,
    Field,
    fields_of,
    is_motion_key,
    motion_value,
    unknown_area,
    with_motion_value,
)
from sim.editor.inspector_panel import InspectorPanel, Row, panel_text
from sim.editor.selection import OUTLINE_COLOR, OUTLINE_KEY, OUTLINE_THICKNESS, outline_segments
from sim.engine import Component, GameObject
from sim.engine.gizmos import Gizmos
from sim.errors import SimError
from sim.scene.spec import SceneSpec
from sim.scene.values import Reader

if TYPE_CHECKING:
    from sim.components.grid_manager import GridManager
    from sim.components.motion import SceneMotion
    from sim.editor.editor import SceneEditor

TURN_DEG: Final = 15.0
"""How far Q and E turn the selection, in degrees (E counter-clockwise, as headings count)."""
TYPED_CHARS: Final = {
    **{key: key for key in "abcdefghijklmnopqrstuvwxyz0123456789.,-[]"},
    "space": " ",
}
"""The keys that type into a field, by Panda3D event name, and the character each types."""


def parse_typed(text: str) -> object:
    """The value `text` stands for, read as TOML would read each part.

    Parts are separated by commas, spaces or brackets; one part is a value, more are a list. A
    part TOML cannot read is a word (a mode's name needs no quotes).

    >>> parse_typed("1.5, 2 0")
    [1.5, 2, 0]
    >>> parse_typed("patrol")
    'patrol'
    >>> parse_typed("")
    ''
    """
    parts = [part for part in re.split(r"[\s,\[\]]+", text) if part]
    read = [_part(part) for part in parts]
    if not read:
        return ""
    return read[0] if len(read) == 1 else read


def _part(part: str) -> object:
    try:
        return tomllib.loads(f"value = {part}")["value"]
    except tomllib.TOMLDecodeError:
        return part


def shown(value: object) -> str:
    """A value as the panel shows it: numbers to 4 places, lists with commas, flags as TOML's.

    None is an agent's areas left to all (`ALL_AREAS`).

    >>> shown((1.0, 2.5, 0.0)), shown(True), shown(None)
    ('1, 2.5, 0', 'true', 'all')
    """
    if value is None:
        return ALL_AREAS
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple | list):
        return ", ".join(shown(item) for item in value)
    if isinstance(value, float):
        return f"{round(value, 4):g}"
    return str(value)


class Change:
    """One inspector edit (a typed value, a nudge, a turn): a field from one value to another."""

    def __init__(
        self, inspector: Inspector, name: str, key: str, before: object, after: object
    ) -> None:
        self._inspector, self.name, self.key = inspector, name, key
        self.before, self.after = before, after

    @property
    def label(self) -> str:
        """E.g. "pillar heading 15"."""
        return f"{self.name} {self.key} {shown(self.after)}"

    def undo(self) -> None:
        """Give the field its old value."""
        self._inspector.apply(self.name, self.key, self.before)

    def redo(self) -> None:
        """Give the field the new value."""
        self._inspector.apply(self.name, self.key, self.after)


class Inspector(Component):
    """Shows and edits the editor's selection (`SceneEditor.selected`); see the module.

    Attributes:
        focused: The index of the field that has the keyboard, or None.
        typed: What the field shows while it has the keyboard: its value when it got the
            keyboard, then what was typed (the first typed character replaces the value).
        error: The last refused value's one-line message, shown until the next change, an
            undo or redo, or Esc.
    """

    def __init__(
        self,
        *,
        editor: SceneEditor,
        grid: GridManager,
        root: NodePath,
        panel: InspectorPanel,
        notify: Callable[[str], None],
        turns_itself: Callable[[str], bool] = lambda _name: False,
        motion: SceneMotion | None = None,
        details: Callable[[GameObject], list[str]] = lambda _obj: [],
    ) -> None:
        super().__init__()
        # What the panel says of the selection beyond its fields (an agent's replans).
        self._details = details
        self._motion = motion  # moves (and holds the settings of) what moves by itself
        # Whether the object called so has a rotator, which sets its heading every frame.
        self._turns_itself = turns_itself
        self._editor, self._grid, self._panel, self._notify = editor, grid, panel, notify
        self._root = root  # the frame the outline is drawn in
        self._shown: GameObject | None = None
        self.focused: int | None = None
        self.typed = ""
        self._replacing = False  # the field shows its value: the next character replaces it
        self.error: str | None = None
        self._history_seen = (0, 0)  # the history's depths the panel last showed
        self._refused_at = (0, 0)  # the history's depths when the error was raised

    @property
    def selected(self) -> GameObject | None:
        """The editor's selection, if it is still alive."""
        obj = self._editor.selected
        return obj if obj is not None and obj.alive else None

    @property
    def fields(self) -> tuple[Field, ...]:
        """The selection's fields, in panel order (none without a selection)."""
        obj = self.selected
        return () if obj is None else fields_of(obj, self._motion)

    # --- keys ------------------------------------------------------------------------------

    def typed_key(self, key: str) -> None:
        """A key the controls table leaves free, while a field has the keyboard: typed."""
        # Ctrl+Z, Ctrl+S and the like belong to the editor, whose own binding runs them.
        if self.focused is not None and not self._editor.control_held():
            self.field_key(key)

    def field_key(self, key: str) -> None:
        """A key while a field has the keyboard: typed, Enter applies, Tab and arrows move."""
        count = len(self.fields)
        if self.focused is None or count == 0:
            self.focused = None
            return
        if key in TYPED_CHARS:
            self.typed = ("" if self._replacing else self.typed) + TYPED_CHARS[key]
            self._replacing = False
        elif key == "backspace":
            self.typed, self._replacing = self.typed[:-1], False
        elif key == "enter":
            self.apply_typed()
        elif key in ("tab", "arrow_down", "arrow_up"):
            step = -1 if key == "arrow_up" else 1
            self.focus((self.focused + step) % count)
        elif key == "escape":
            self.focused, self.typed, self.error = None, "", None

    def next_field(self) -> None:
        """Tab with no field focused: give the first field of the selection the keyboard."""
        if self.fields:
            self.focus(0)

    def focus(self, index: int) -> None:
        """Give field `index` the keyboard, showing its value; typing replaces it."""
        obj = self.selected
        fields = self.fields
        value = "" if obj is None or index >= len(fields) else self.value_of(obj, fields[index].key)
        self.focused, self.typed, self._replacing = index, shown(value), True

    # --- edits -----------------------------------------------------------------------------

    def apply_typed(self) -> bool:
        """Apply what was typed into the focused field; False (and the message) if refused."""
        obj = self.selected
        if obj is None or self.focused is None or self.focused >= len(self.fields):
            return False
        key = self.fields[self.focused].key
        if self._replacing and self.typed == shown(self.value_of(obj, key)):
            return True  # Enter on the value as shown: nothing to change, nothing to undo
        applied = self.set_value(key, parse_typed(self.typed))
        if applied:
            self.typed, self._replacing = shown(self.value_of(obj, key)), True
        return applied

    def set_value(self, key: str, raw: object) -> bool:
        """Give the selection's field `key` the value `raw` (as TOML read it), undoably.

        The value is checked by the scene file's reader for the key; a bad one is refused: its
        one-line message goes to the panel and the HUD, and nothing changes.
        """
        obj = self.selected
        field = next((field for field in self.fields if field.key == key), None)
        if obj is None or field is None:
            return False
        try:
            value = field.read(Reader(obj.name, key), raw)
        except SimError as error:
            return self._refuse(str(error))
        unknown = unknown_area(self._editor.objects, value) if key == "agent.areas" else None
        if unknown is not None:
            return self._refuse(f"{obj.name}: {key}: {unknown}")
        if key == HEADING.key and self._turns_itself(obj.name):
            return self._refuse(f"{obj.name}: heading: it turns by itself ([objects.rotator])")
        self._change(obj, key, value)
        return True

    def _refuse(self, message: str) -> bool:
        self.error = message
        history = self._editor.history
        self._refused_at = (history.undo_depth, history.redo_depth)
        self._notify(message)
        return False

    def rotate(self, degrees: float) -> None:
        """Turn the selection by `degrees` about +Z (Q: -`TURN_DEG`, E: +`TURN_DEG`), undoably.

        Only the cubes the editor moves turn: an agent turns by itself, and so does an object
        with a rotator (refused with a message).
        """
        obj = self.selected
        if obj is None or HEADING not in fields_of(obj, self._motion):
            return
        heading = math.fmod(obj.node.get_h() + degrees, 360.0) + 0.0
        self.set_value(HEADING.key, round(heading, 4))

    def nudge(self, columns: int, rows: int) -> None:
        """Move the selection by whole cells along x and y (the arrow keys), undoably.

        A nudge that would put its centre off the grid is refused with a message.
        """
        obj = self.selected
        if obj is None or POS not in fields_of(obj, self._motion):
            return
        grid = self._grid
        x, y, z = obj.node.get_pos()
        x, y = x + columns * grid.grid_cell_size, y + rows * grid.grid_cell_size
        if grid.world_to_cell(x, y) is None:
            self._refuse(f"{obj.name}: pos: ({x:g}, {y:g}) lies off the grid")
            return
        self._change(obj, POS.key, (x, y, z))

    def _change(self, obj: GameObject, key: str, value: object) -> None:
        before = self.value_of(obj, key)
        self.error = None
        self.apply(obj.name, key, value)
        change = Change(self, obj.name, key, before, value)
        self._editor.history.record(change)
        self._notify(change.label)

    def value_of(self, obj: GameObject, key: str) -> object:
        """The value of `obj`'s field `key` now."""
        node = obj.node
        if key == POS.key:
            return tuple(node.get_pos())
        if key == SCALE.key:
            return tuple(node.get_scale())
        if key == HEADING.key:
            return node.get_h()
        if key == TERRAIN_COST.key:
            patch = obj.get_component(TerrainPatch)
            return None if patch is None else patch.cost
        if is_motion_key(key):
            configs = None if self._motion is None else self._motion.configs(obj)
            return None if configs is None else motion_value(configs, key)
        agent = obj.get_component(AgentController)
        setting = key.removeprefix("agent.")
        if agent is None:
            return None
        return agent.mode if setting == "mode" else getattr(agent.config, setting)

    def apply(self, name: str, key: str, value: Any) -> None:
        """Give the field `key` of the object called `name` (if alive) `value`, checked.

        The grid and the planners follow at once, as after any edit (`SceneEditor.settle`).
        """
        obj = self._editor.live(name)
        if obj is None:
            return
        node = obj.node
        if key == POS.key:
            node.set_pos(*value)
        elif key == SCALE.key:
            node.set_scale(*value)
        elif key == HEADING.key:
            node.set_h(value)
        elif key == TERRAIN_COST.key:
            patch = obj.get_component(TerrainPatch)
            if patch is not None:
                patch.cost = value
        elif is_motion_key(key):
            configs = None if self._motion is None else self._motion.configs(obj)
            if self._motion is not None and configs is not None:
                self._motion.reconfigure(obj, with_motion_value(configs, key, value))
        else:
            agent = obj.get_component(AgentController)
            if agent is not None:
                agent.update_settings(**{key.removeprefix("agent."): value})
        self._editor.settle()

    # --- drawing ---------------------------------------------------------------------------

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Outline the selection and keep the panel in step with it (also while paused)."""
        obj = self.selected
        if obj is not self._shown:  # a new selection starts with no field focused
            self._shown, self.focused, self.typed, self.error = obj, None, "", None
        history = self._editor.history
        depths = (history.undo_depth, history.redo_depth)
        if depths != self._history_seen:
            # An undo or redo (or any new edit) makes a refused value's message stale.
            self._history_seen = depths
            if self.error is not None and self._refused_at != depths:
                self.error = None
        if obj is None:
            self._panel.hide()
            return
        segments = outline_segments(obj.node, self._root)
        gizmos.lines(OUTLINE_KEY, segments, OUTLINE_COLOR, thickness=OUTLINE_THICKNESS)
        rows = [
            Row(
                field.key,
                shown(self.value_of(obj, field.key)),
                self.typed if index == self.focused else None,
            )
            for index, field in enumerate(fields_of(obj, self._motion))
        ]
        title = f"{obj.name} ({obj.tag})"
        text = panel_text(title, rows, focused=self.focused, details=self.details())
        self._panel.show(text, self.error)

    def details(self) -> list[str]:
        """What the panel says of the selection beyond its fields, unwrapped (none without one)."""
        obj = self.selected
        return [] if obj is None else self._details(obj)

    @property
    def panel(self) -> InspectorPanel:
        """The panel the inspector draws on."""
        return self._panel

    def on_destroy(self) -> None:
        """Drop the panel."""
        self._panel.destroy()


def has_rotator(scene: SceneSpec, name: str) -> bool:
    """Whether `scene`'s object called `name` has a rotator (which sets its heading itself)."""
    spec = scene.find(name)
    return spec is not None and spec.rotator is not None
