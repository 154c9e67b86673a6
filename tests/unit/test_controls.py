"""The controls table against docs/controls.md, the help texts, and what it binds (no window)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import pytest
from direct.task.Task import TaskManager
from panda3d.core import AsyncTaskManager, ClockObject, MouseWatcher, NodePath

from sim.app.controls import (
    CONTROLS,
    Binder,
    Control,
    Mode,
    bind_controls,
    controls,
    help_sections,
    hud_help,
    panel_help,
)
from sim.engine import FrameLoop, World
from sim.engine.camera import CameraPose, OrbitCamera, OrbitCameraInput
from sim.engine.pointer import PointerTrail, event_name
from tests.helpers.paths import REPO_ROOT

CONTROLS_PAGE = (REPO_ROOT / "docs" / "controls.md").read_text(encoding="utf-8")

# How the controls page names keys: backticked, as on the keycap; everything else is lower case.
KEYCAPS = {
    "Esc": "escape",
    "Delete": "delete",
    "Space": "space",
    "Enter": "enter",
    "Left": "arrow_left",
    "Right": "arrow_right",
    "Up": "arrow_up",
    "Down": "arrow_down",
    "Home": "home",
    "End": "end",
}
MODIFIERS = {"Ctrl": "control", "Shift": "shift"}
# Mouse gestures in prose, longest first so "shift + right-drag" is not read as "right-drag".
GESTURES = (
    ("shift + left-click", (("mouse1", "shift"),)),
    ("shift + right-drag", (("mouse3", "shift"),)),
    ("left-drag", (("mouse1", None),)),
    ("right-drag", (("mouse3", None),)),
    ("middle-drag", (("mouse2", None),)),
    ("mouse wheel", (("wheel_up", None), ("wheel_down", None))),
)
# Words of an action's name that say how, not what.
HOW_WORDS = {"toggle", "cycle", "in", "out", "to"}

Input = tuple[str, str | None]  # Panda3D event name, modifier held


@dataclass(frozen=True)
class PageRow:
    """One row of a controls page table: the inputs it names and all of its words."""

    inputs: frozenset[Input]
    text: str
    repeats: bool


def table_rows(heading: str, header: str) -> list[list[str]]:
    """The cells of the first table under `heading` whose header line is `header`."""
    section = CONTROLS_PAGE.split(f"\n{heading}\n", 1)[1]
    lines = section.split(f"\n{header}\n", 1)[1].splitlines()[1:]  # past the --- line
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def keycap(name: str) -> Input:
    *held, key = name.split("+")
    modifier = "+".join(MODIFIERS[name] for name in held) or None  # "Ctrl+Shift": control+shift
    return (KEYCAPS.get(key, key.lower()), modifier)


def inputs_of(cell: str) -> frozenset[Input]:
    found = {keycap(name) for name in re.findall(r"`([^`]+)`", cell)}
    prose = re.sub(r"`[^`]+`", "", cell)
    for phrase, inputs in GESTURES:
        if phrase in prose:
            found.update(inputs)
            prose = prose.replace(phrase, "")
    return frozenset(found)


def page_rows(mode: Mode) -> list[PageRow]:
    if mode is Mode.ALWAYS:
        cells = table_rows("## The scene", "| input | does |")
        return [PageRow(inputs_of(key), does, "hold to repeat" in key) for key, does in cells]
    cells = table_rows("## The search view", "| button | key | does |")
    return [
        PageRow(inputs_of(key), f"{button} {does}", "hold to repeat" in key)
        for button, key, does in cells
        if key
    ]


def named(control: Control) -> Input:
    return (control.key, control.modifier)


def row_of(control: Control) -> PageRow:
    [row] = [row for row in page_rows(control.mode) if named(control) in row.inputs]
    return row


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


@pytest.mark.parametrize("mode", list(Mode), ids=[mode.value for mode in Mode])
def test_the_controls_page_lists_every_control_and_no_other(mode: Mode) -> None:
    on_page = {found for row in page_rows(mode) for found in row.inputs}
    assert on_page == {named(control) for control in controls(mode)}


@pytest.mark.parametrize(
    "control", CONTROLS, ids=[f"{c.mode}-{c.modifier or ''}{c.key}" for c in CONTROLS]
)
def test_each_control_does_what_its_controls_page_row_says(control: Control) -> None:
    row = row_of(control)
    # The page says it in a sentence, the table in an action's name: one word must be shared,
    # by its first five letters ("blocks" / "blocked", "connectivity" / "4-connected").
    stems = {word[:5] for word in words(row.text)}
    meant = {word for word in control.action.split("_") if word not in HOW_WORDS}
    assert {word[:5] for word in meant} & stems, f"{control.action!r} vs {row.text!r}"


@pytest.mark.parametrize(
    "control", CONTROLS, ids=[f"{c.mode}-{c.modifier or ''}{c.key}" for c in CONTROLS]
)
def test_a_control_repeats_when_held_exactly_where_the_controls_page_says(control: Control) -> None:
    assert control.repeats == row_of(control).repeats


def test_one_row_per_key_mode_and_modifier() -> None:
    seen = [(control.key, control.mode, control.modifier) for control in CONTROLS]
    assert len(seen) == len(set(seen))


def test_a_table_row_with_a_modifier_binds_the_event_the_thrower_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The thrower names an event with what is held at that very press: Shift+G is "shift-g",
    # even when Shift came up again before the frame ran.
    shifted = Control("g", "shifted_g", "Shift+G test", 2, modifier="shift")
    monkeypatch.setattr("sim.app.controls.CONTROLS", (*CONTROLS, shifted))
    events, ran = Events(), []
    names = table_actions() | {"shifted_g"}
    actions = {name: (lambda name=name: ran.append(name)) for name in names}
    bind_controls(events, actions, search_open=lambda: False)
    events.send("shift-g")
    events.send("g")
    assert ran == ["shifted_g", "toggle_grid"]


def test_the_hud_keeps_one_short_hint_and_the_overlay_has_the_keys() -> None:
    assert hud_help() == "F1 help"


def sections(**state: bool) -> dict[str, list[str]]:
    flags = {"search_open": False, "plan_playing": False, "scripts_waiting": False} | state
    return dict(help_sections(**flags))


def entries(found: dict[str, list[str]]) -> set[str]:
    return {entry for listed in found.values() for entry in listed}


def test_the_help_overlay_lists_every_key_of_the_scene() -> None:
    found = sections(plan_playing=True, scripts_waiting=True)
    assert entries(found) == {control.help for control in controls(Mode.ALWAYS)}
    assert list(found) == [
        "Edit",
        "Camera, undo and help",
        "Show and simulate",
        "MAPF plan timeline",
    ]


@pytest.mark.parametrize(
    ("state", "entry"),
    [
        ("plan_playing", "/ plan play"),
        ("scripts_waiting", "A allow scripts"),
        ("search_open", "Home reset"),
    ],
    ids=["plan-keys", "allow-scripts", "search-keys"],
)
def test_a_mode_s_keys_show_only_when_they_apply(state: str, entry: str) -> None:
    assert entry not in entries(sections())
    assert entry in entries(sections(**{state: True}))


def test_the_search_keys_come_first_while_the_view_is_open() -> None:
    first, *_ = sections(search_open=True)
    assert first.startswith("Search view")


def test_panel_help_is_the_text_the_panel_has_always_shown() -> None:
    assert panel_help() == (
        "keys: T close   Enter play / pause   Left / Right step\n"
        "Up / Down speed   Home reset   End jump to the end\n"
        "A parent arrows   L numbers   F compare"
    )


class Events:
    """DirectObject's `accept`, recorded; `send` presses a key."""

    def __init__(self) -> None:
        self.accepted: dict[str, Callable[..., None]] = {}

    def accept(self, event: str, method: Callable[..., None], extra: Sequence[object] = ()) -> None:
        self.accepted[event] = lambda: method(*extra)

    def send(self, event: str) -> None:
        self.accepted[event]()


def table_actions() -> set[str]:
    return {c.action for c in CONTROLS if c.bound_by is Binder.TABLE}


@pytest.fixture
def bound() -> tuple[Events, list[str], list[bool]]:
    events, ran, search_open = Events(), [], [False]
    actions = {name: (lambda name=name: ran.append(name)) for name in table_actions()}
    bind_controls(events, actions, search_open=lambda: search_open[0])
    return events, ran, search_open


def test_bind_controls_binds_every_key_of_the_table(bound) -> None:
    events, _, _ = bound
    table = {c.key for c in CONTROLS if c.bound_by is Binder.TABLE}
    repeating = {f"{c.key}-repeat" for c in CONTROLS if c.repeats and c.bound_by is Binder.TABLE}
    assert set(events.accepted) == table | repeating


def test_search_view_keys_work_only_while_it_is_open(bound) -> None:
    events, ran, search_open = bound
    events.send("home")
    events.send("t")
    assert ran == ["toggle_search_view"]
    search_open[0] = True
    events.send("arrow_right")
    events.send("arrow_right-repeat")
    events.send("g")
    events.send("t")
    assert ran[1:] == ["step_forward", "step_forward", "toggle_grid", "close_search_view"]


@pytest.mark.parametrize(
    ("change", "message"),
    [("drop", "no function for the controls quit"), ("add", "no control runs fly")],
    ids=["missing", "unused"],
)
def test_bind_controls_wants_exactly_the_tables_actions(change: str, message: str) -> None:
    actions: dict[str, Callable[[], None]] = {name: lambda: None for name in table_actions()}
    if change == "drop":
        del actions["quit"]
    else:
        actions["fly"] = lambda: None
    with pytest.raises(ValueError, match=message):
        bind_controls(Events(), actions, search_open=lambda: False)


@pytest.fixture
def loop() -> Iterator[FrameLoop]:
    manager = TaskManager()
    manager.mgr = AsyncTaskManager("controls-tests")
    frame_loop = FrameLoop(World(NodePath("root")), ClockObject(ClockObject.M_non_real_time))
    frame_loop.attach(manager)
    yield frame_loop
    frame_loop.detach()
    manager.destroy()


def test_the_camera_binds_its_rows_and_nothing_else(loop: FrameLoop) -> None:
    events = Events()
    camera = NodePath("root").attach_new_node("camera")
    orbit = OrbitCamera(camera, CameraPose((0.0, 0.0, 0.0), 10.0, 0.0, -45.0))
    pointer = PointerTrail(MouseWatcher("watcher"), events=events, loop=loop)
    OrbitCameraInput(orbit, events=events, pointer=pointer, loop=loop)
    pressed = {event for event in events.accepted if not event.endswith("-up")}
    rows = [c for c in CONTROLS if c.bound_by is Binder.CAMERA]
    assert {event_name(c.key, c.modifier) for c in rows} <= pressed
    # The same buttons with other modifiers held (Ctrl), which do what the plain ones do.
    assert {event.rsplit("-", 1)[-1] for event in pressed} == {c.key for c in rows}
