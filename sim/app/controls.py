"""The controls: one table of every key and mouse gesture, what it does, and its help text.

The table binds the plain keys (`bind_controls`), writes the help overlay's sections
(`help_sections`, F1 or ?), the HUD's one-line hint (`hud_help`) and the search panel's key lines
(`panel_help`); tests/unit/test_controls.py checks it against the docs page docs/controls.md.
The mouse buttons, Ctrl+S, Ctrl+Z and the redo keys are listed too, for the help and that page,
but their owners bind them: a drag needs the press, the pointer every frame and the release
(`OrbitCameraInput`, `SceneEditor.bind`). A row's modifiers are part of its event's name, as the
button thrower names events ("control-s", "shift-i"; `sim.engine.pointer.event_name`), so what
was held is what was held at the key's own press, however short the frame (? is Shift and /,
`HelpOverlay.bind`).

A key may have one row in each mode: while the search view is open its SEARCH row runs, else its
ALWAYS row (T opens the view, and closes it while it is open). Which mode holds the keys is the
mode owner's to say (`sim.app.modes`): it answers `search_open`, and `captured` hands every key
to the generator menu or an inspector field while one has the keyboard.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from sim.engine.pointer import event_name
from sim.ui.help_overlay import HelpOverlay

if TYPE_CHECKING:
    from direct.showbase.ShowBase import ShowBase

    from sim.app.modes import Modes
    from sim.app.script_gate import ScriptGate
    from sim.engine.events import EventSource


class Mode(StrEnum):
    """When a row's key does something."""

    ALWAYS = "always"
    SEARCH = "search"  # only while the search view is open


class Binder(StrEnum):
    """Who binds a row's event."""

    TABLE = "table"  # `bind_controls`: a plain key press runs the named action
    CAMERA = "camera"  # `OrbitCameraInput` (orbit, pan, zoom)
    EDITOR = "editor"  # `SceneEditor.bind` (drag, add, Ctrl+S, undo, redo)
    PLAYBACK = "playback"  # `MapfPlayback` (a MAPF plan's timeline), only while one plays
    HELP = "help"  # `HelpOverlay.bind`: ? is Shift and /, read at press time


@dataclass(frozen=True, slots=True)
class Control:
    """One row of the controls table.

    Attributes:
        key: Panda3D's event name for the button ("g", "arrow_right", "mouse1", "wheel_up").
        action: What it does, by name: a key of the actions `bind_controls` is given for TABLE
            rows, a description for the rows other binders own.
        help: Its words in the help text; rows with the same words share one entry there.
        line: Which line of its help text it goes on, from 0: the HUD's for ALWAYS rows, the
            search panel's for SEARCH rows.
        mode: When the key does something.
        repeats: Whether holding the key repeats it (Panda3D's "<key>-repeat" event).
        modifier: The buttons held with it ("shift", "control", "control+shift"): its event
            is "shift-<key>", "control-<key>" or "shift-control-<key>", and the plain key
            does not run it.
        bound_by: Who binds the event.
    """

    key: str
    action: str
    help: str
    line: int
    mode: Mode = Mode.ALWAYS
    repeats: bool = False
    modifier: str | None = None
    bound_by: Binder = Binder.TABLE


_EDITOR, _CAMERA, _SEARCH = Binder.EDITOR, Binder.CAMERA, Mode.SEARCH
_PLAYBACK = Binder.PLAYBACK
_UNDO_HELP = "Ctrl+Z undo, Ctrl+Shift+Z/Y redo"

CONTROLS: tuple[Control, ...] = (
    Control("mouse1", "move_cube", "click select, left-drag move cube", 0, bound_by=_EDITOR),
    Control(
        "mouse1", "add_obstacle", "shift+click add obstacle", 0, modifier="shift", bound_by=_EDITOR
    ),
    Control("x", "remove_hovered", "X/Del remove", 0),
    Control("delete", "remove_hovered", "X/Del remove", 0),
    Control("v", "toggle_snap", "V snap", 0),
    Control("u", "cycle_terrain_cost", "U terrain cost", 0),
    Control("o", "open_generator_menu", "O generate", 0),
    Control("s", "save", "Ctrl+S save", 0, modifier="control", bound_by=_EDITOR),
    Control("q", "rotate_left", "Q/E rotate", 0),
    Control("e", "rotate_right", "Q/E rotate", 0),
    Control("arrow_left", "nudge_left", "arrows nudge", 0),
    Control("arrow_right", "nudge_right", "arrows nudge", 0),
    Control("arrow_up", "nudge_up", "arrows nudge", 0),
    Control("arrow_down", "nudge_down", "arrows nudge", 0),
    Control("tab", "inspect_fields", "Tab fields", 0),
    Control("mouse3", "orbit", "right-drag orbit", 1, bound_by=_CAMERA),
    Control("mouse2", "pan", "middle/shift+right-drag pan", 1, bound_by=_CAMERA),
    Control("mouse3", "pan", "middle/shift+right-drag pan", 1, modifier="shift", bound_by=_CAMERA),
    Control("wheel_up", "zoom_in", "wheel zoom", 1, bound_by=_CAMERA),
    Control("wheel_down", "zoom_out", "wheel zoom", 1, bound_by=_CAMERA),
    Control("c", "reset_camera", "C camera", 1),
    Control("7", "toggle_top_down", "7 top-down", 1),
    Control("f1", "toggle_help", "F1/? help", 1),
    Control("?", "toggle_help", "F1/? help", 1, bound_by=Binder.HELP),
    Control("escape", "quit", "Esc quit", 1),
    Control("a", "allow_scripts", "A allow scripts", 1),
    Control("z", "undo", _UNDO_HELP, 1, modifier="control", bound_by=_EDITOR),
    Control("z", "redo", _UNDO_HELP, 1, modifier="control+shift", bound_by=_EDITOR),
    Control("y", "redo", _UNDO_HELP, 1, modifier="control", bound_by=_EDITOR),
    Control("/", "toggle_plan_play", "/ plan play", 1, bound_by=_PLAYBACK),
    Control(",", "step_plan_back", ",/. plan step", 1, repeats=True, bound_by=_PLAYBACK),
    Control(".", "step_plan_forward", ",/. plan step", 1, repeats=True, bound_by=_PLAYBACK),
    Control("[", "scrub_plan_back", "[/] plan scrub", 1, repeats=True, bound_by=_PLAYBACK),
    Control("]", "scrub_plan_forward", "[/] plan scrub", 1, repeats=True, bound_by=_PLAYBACK),
    Control("g", "toggle_grid", "G grid", 2),
    Control("b", "toggle_blocks", "B blocks", 2),
    Control("p", "toggle_path", "P path", 2),
    Control("h", "toggle_hud", "H HUD", 2),
    Control("space", "toggle_pause", "Space pause", 2),
    Control("r", "reset_agents", "R reset agent", 2),
    Control("m", "toggle_agent_mode", "M chase/patrol", 2),
    Control("k", "cycle_heuristic", "K heuristic", 2),
    Control("n", "toggle_connectivity", "N 4/8", 2),
    Control("j", "cycle_diagonal_rule", "J diagonal rule", 2),
    Control("t", "toggle_search_view", "T search view", 2),
    Control("w", "toggle_race", "W race", 2),
    Control("d", "toggle_crowd_gizmos", "D crowd gizmos", 2),
    Control("f", "frame_selection", "F frame selection", 1),
    Control("1", "step_frame", "1 step", 2),
    Control("-", "speed_down", "-/= speed", 2),
    Control("=", "speed_up", "-/= speed", 2),
    Control("i", "toggle_paint", "I paint walls", 2),
    Control("i", "clear_walls", "Shift+I clear walls", 2, modifier="shift", bound_by=_EDITOR),
    Control("t", "close_search_view", "T close", 0, _SEARCH),
    Control("enter", "play_pause", "Enter play / pause", 0, _SEARCH),
    Control("arrow_left", "step_back", "Left / Right step", 0, _SEARCH, repeats=True),
    Control("arrow_right", "step_forward", "Left / Right step", 0, _SEARCH, repeats=True),
    Control("arrow_up", "faster", "Up / Down speed", 1, _SEARCH),
    Control("arrow_down", "slower", "Up / Down speed", 1, _SEARCH),
    Control("home", "reset_search", "Home reset", 1, _SEARCH),
    Control("end", "search_to_end", "End jump to the end", 1, _SEARCH),
    Control("a", "toggle_parent_arrows", "A parent arrows", 2, _SEARCH),
    Control("l", "toggle_search_numbers", "L numbers", 2, _SEARCH),
    Control("f", "toggle_compare", "F compare", 2, _SEARCH),
)
"""Every control, in the order the help texts list them."""

HUD_HINT = "F1 help"
LINE_TITLES = ("Edit", "Camera, undo and help", "Show and simulate")
"""The help overlay's section titles, by a row's `line`."""
PANEL_GAP = "   "
PANEL_PREFIX = "keys: "


def controls(mode: Mode, *, bound_by: Binder | None = None) -> list[Control]:
    """The rows of `mode`, in table order; only those `bound_by` binds, when given."""
    return [c for c in CONTROLS if c.mode is mode and bound_by in (None, c.bound_by)]


def table_keys() -> set[str]:
    """The events `bind_controls` binds (in any mode): the presses `captured` sees."""
    return {event_name(row.key, row.modifier) for row in CONTROLS if row.bound_by is Binder.TABLE}


def help_lines(rows: Iterable[Control]) -> list[list[str]]:
    """The help entries of `rows`, line by line; rows with the same words give one entry."""
    lines: list[list[str]] = []
    for row in rows:
        while len(lines) <= row.line:
            lines.append([])
        if row.help not in lines[row.line]:
            lines[row.line].append(row.help)
    return lines


def hud_help() -> str:
    """The HUD's hint along the bottom of the window: the help overlay lists the keys."""
    return HUD_HINT


def help_sections(
    *, search_open: bool, plan_playing: bool, scripts_waiting: bool
) -> list[tuple[str, list[str]]]:
    """The help overlay's sections, (title, entries), for the keys that work now.

    Every ALWAYS row by its help line (`LINE_TITLES`), the SEARCH rows first while the search
    view is open, a MAPF plan's timeline keys only while one plays (`plan_playing`) and "A allow
    scripts" only while the scene's scripts wait to be allowed (`scripts_waiting`).

    >>> [title for title, _ in help_sections(
    ...     search_open=False, plan_playing=False, scripts_waiting=False)]
    ['Edit', 'Camera, undo and help', 'Show and simulate']
    """
    rows = [
        row
        for row in controls(Mode.ALWAYS)
        if (plan_playing or row.bound_by is not Binder.PLAYBACK)
        and (scripts_waiting or row.action != "allow_scripts")
    ]
    scene = [row for row in rows if row.bound_by is not Binder.PLAYBACK]
    sections = [
        (LINE_TITLES[index] if index < len(LINE_TITLES) else "More", entries)
        for index, entries in enumerate(help_lines(scene))
        if entries
    ]
    playback = [row.help for row in rows if row.bound_by is Binder.PLAYBACK]
    if playback:
        sections.append(("MAPF plan timeline", list(dict.fromkeys(playback))))
    if search_open:
        search = [entry for line in help_lines(controls(Mode.SEARCH)) for entry in line]
        sections.insert(0, ("Search view (these keys first)", search))
    return sections


def panel_help() -> str:
    """The search panel's key lines: the keys that work while the search view is open."""
    lines = help_lines(controls(Mode.SEARCH))
    return PANEL_PREFIX + "\n".join(PANEL_GAP.join(line) for line in lines)


HELP_ROOM = 0.94  # the share of the window the help overlay may cover, each way


def add_help_overlay(
    base: ShowBase,
    modes: Modes,
    plan_playing: Callable[[], bool],
    scripts: ScriptGate,
) -> HelpOverlay:
    """The F1 / ? help overlay over `base`'s window, listing `help_sections` as they are on open.

    The table's F1 row runs its `toggle`; this binds ? (Shift and /, `HelpOverlay.bind`). Its
    `captured` takes Esc while it is open and hands every other key on to `modes.captured`.
    """

    def room() -> tuple[float, float]:
        return 2 * base.a2dRight * HELP_ROOM, 2 * base.a2dTop * HELP_ROOM

    overlay = HelpOverlay(
        base.aspect2d,
        lambda: help_sections(
            search_open=modes.search_keys(),
            plan_playing=plan_playing(),
            scripts_waiting=not scripts.allowed,
        ),
        room,
        passes_to=modes.captured,
    )
    overlay.bind()
    return overlay


def bind_controls(
    events: EventSource,
    actions: Mapping[str, Callable[[], None]],
    *,
    search_open: Callable[[], bool],
    captured: Callable[[str], bool] = lambda _key: False,
) -> None:
    """Bind every TABLE row's event (its key, with its modifiers) on `events` to its action.

    Args:
        events: Anything with DirectObject's `accept` (ShowBase is one).
        actions: The function behind each TABLE row's action name, no more and no fewer.
        search_open: Whether the search view is open now (its SEARCH rows apply then).
        captured: Offered each press first, with its event name; True means it took the
            key (a modal menu), so no row runs: Esc closes the menu instead of quitting.

    Raises:
        ValueError: If `actions` lacks an action of the table, or has one the table never names.
    """
    rows = controls(Mode.ALWAYS, bound_by=Binder.TABLE) + controls(
        Mode.SEARCH, bound_by=Binder.TABLE
    )
    named = {row.action for row in rows}
    if missing := sorted(named - actions.keys()):
        raise ValueError(f"no function for the controls {', '.join(missing)}.")
    if unused := sorted(actions.keys() - named):
        raise ValueError(f"no control runs {', '.join(unused)}.")
    for key in dict.fromkeys(event_name(row.key, row.modifier) for row in rows):
        of_key = [row for row in rows if event_name(row.key, row.modifier) == key]
        events.accept(key, _dispatch(key, of_key, actions, search_open, captured))
        repeating = [row for row in of_key if row.repeats]
        if repeating:
            events.accept(
                f"{key}-repeat", _dispatch(key, repeating, actions, search_open, captured)
            )


def _dispatch(
    key: str,
    rows: list[Control],
    actions: Mapping[str, Callable[[], None]],
    search_open: Callable[[], bool],
    captured: Callable[[str], bool],
) -> Callable[[], None]:
    """One key's handler: a menu's when it takes the key, else the key's row for the mode."""
    by_mode = {row.mode: actions[row.action] for row in rows}

    def press() -> None:
        if captured(key):
            return
        mode = Mode.SEARCH if Mode.SEARCH in by_mode and search_open() else Mode.ALWAYS
        action = by_mode.get(mode)
        if action is not None:
            action()

    return press
