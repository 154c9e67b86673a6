"""The JSON run report (`sim run --report`): its schema and its validator.

It is written with `sim.files.write_json_atomic` (all on one line when it is large).

The report is a public contract (docs/command-line.md, "The JSON report"): scripts, the window tests
and `sim soak` read it. Each part is a TypedDict below, so the one definition gives the builder
(`sim.app.report_builder`) its types and `validate_report` its rules. A key marked `NotRequired` is
left out in some states (the path's numbers when the scene has no Start or End); the search view has
two shapes, without a search and with one. The builder rounds: positions to 5 decimals, headings to
4, costs to 6, times to 3 (ms) or 6 (s).

This module imports no Panda3D, so anything can check a report it has read.
"""

from __future__ import annotations

import functools
import json
import math
import types
from typing import (
    Any,
    Literal,
    NotRequired,
    TypedDict,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)


class WindowEntry(TypedDict):
    """`window`: the window's (or offscreen buffer's) size in pixels, `[width, height]`.

    `shadows`: the sun casts shadows (a window whose driver runs shaders; never offscreen);
    `multisamples`: samples per pixel of its anti-aliasing, 0 for none; both as they are now
    (an auto look drops them while the frame rate stays low). `look`: what was asked, "auto",
    "full" or "plain" (`sim run --look`). `fps`: frames per second of wall-clock time over the
    last second, as the HUD shows it (headless runs render as fast as they can).
    """

    size: list[int]
    shadows: bool
    multisamples: int
    look: str
    fps: float


class CameraEntry(TypedDict):
    """`camera`: the orbit camera's pose (world units, degrees)."""

    target: list[float]
    distance: float
    heading_deg: float
    pitch_deg: float


class GridEntry(TypedDict):
    """`grid`: the planning grid, its settings, how many cells obstacles block, its terrain.

    `terrain_cells` counts the walkable cells whose cost multiplier is not 1, and `cost_range`
    is ``[lowest, highest]`` multiplier over the walkable cells (``[1, 1]`` without terrain).
    `diagonal` names the diagonal rule the path and the agents plan with (never,
    no-corner-cutting, one-obstacle or always; `connectivity` is 4 for never, else 8).
    """

    rows: int
    columns: int
    cell_size: float
    origin: list[float]
    connectivity: Literal[4, 8]
    diagonal: str
    heuristic: str
    blocked_cells: int
    terrain_cells: int
    cost_range: list[float]
    version: int


class ExplanationEntry(TypedDict):
    """`path.explanation`: why Start cannot reach End (`sim.navigation.regions.explain`).

    The cell counts of Start's and End's regions, and the fewest blocked cells whose removal
    would join them, `[row, col]` from Start's side to End's.
    """

    start_region_cells: int
    goal_region_cells: int
    fix_cells: list[list[int]]


class PathEntry(TypedDict):
    """`path`: the Start -> End plan; cells are `[row, col]`, `screen` each cell's pixel or null.

    Without a Start and an End only `found` (false), `reason`, `cells` and `screen` are there.
    `explanation` is null unless Start and End lie in different regions.
    """

    found: bool
    reason: str
    cells: list[list[int]]
    cost: NotRequired[float | None]
    length: NotRequired[float | None]
    expanded: NotRequired[int]
    plan_ms: NotRequired[float]
    screen: list[list[int] | None]
    explanation: NotRequired[ExplanationEntry | None]


class ObjectEntry(TypedDict):
    """One of `objects`: a live scene object, in world units and window pixels (or null).

    `pos` and `heading` are where it is now: a mover mid-route, a rotator turned, an open door
    sunk below the ground (`sim.components.motion`).
    """

    name: str
    tag: str
    pos: list[float]
    scale: list[float]
    heading: float
    screen: list[int] | None


class ReplansByCause(TypedDict):
    """An agent's replans by why it made them; they sum to its `replans`.

    `path_cut`: a cell its remaining route crossed became blocked, or an obstacle pushed it;
    `goal_moved`: its goal went to another cell (or, patrolling, it turned round); `interval`:
    the interval, and the replans asked for from outside (the first, R, M, a drop, U, K, N).
    """

    interval: int
    path_cut: int
    goal_moved: int


class AgentEntry(TypedDict):
    """One of `agents`; `blocked_cell_frames` must stay 0.

    `radius` is the agent's size in world units; `path_cost` the cost of its current planned
    route (world units times the cells' costs, as `path.cost`), null while it has none.
    `pushes` counts the frames an obstacle moved onto the agent and pushed it aside,
    `expanded_total` the nodes all its plans expanded. `planner` is "independent" or "mapf"
    (planned with the others: see `mapf`). `speed` is how fast it moved over its last step,
    world units per second.
    """

    name: str
    radius: float
    pos: list[float]
    heading_deg: float
    speed: float
    mode: str
    state: str
    reached_goal: bool
    arrivals: int
    replans: int
    distance_travelled: float
    path_found: bool
    path_cost: float | None
    waypoints: list[list[float]]
    blocked_cell_frames: int
    pushes: int
    replans_by_cause: ReplansByCause
    expanded_total: int
    planner: NotRequired[str]  # added with joint plans: older reports have none


class CrowdJamsEntry(TypedDict):
    """What the crowd's no-deadlock rule did so far (`sim.crowd.jams`).

    `jams` found, `handoffs` (joint plans made), `handbacks` (plans over), `unsolved` (jams no
    plan solved) and `under_plan` (agents a joint plan moves now).
    """

    jams: int
    handoffs: int
    handbacks: int
    unsolved: int
    under_plan: int


class MapfEntry(TypedDict):
    """The joint plan of the agents with ``planner = "mapf"`` (null in a scene without any).

    `solver` is the scene's `[mapf]` solver; `solved`, `soc` (sum of costs, in time steps) and
    `makespan` describe its last plan (0 when not solved); `replans` counts the plans after
    the first (the world changed); `agents` how many agents it plans.
    """

    solver: str
    solved: bool
    soc: int
    makespan: int
    replans: int
    agents: int


class CompareEntry(TypedDict):
    """One row of the search view's comparison table (`search_view.compare`)."""

    search: str
    found: bool
    expanded: int
    cost: float | None
    gap: float | None
    optimal: bool


class RaceLaneEntry(TypedDict):
    """One lane of a race (`search_view.race`), where it stands at the race's tick.

    `search` is its `find_path` name and `label` the name on screen ("weighted A* x1.5",
    "A* manhattan"); `expanded` counts its expansions so far (jump points for JPS), `open` its
    frontier; `cost` is its path's cost in world units once finished (null before, and
    without a path); `place` its finish place from 1 (lanes finishing on the same tick share
    one), null before it finishes.
    """

    search: str
    label: str
    expanded: int
    open: int
    finished: bool
    cost: float | None
    place: int | None


class SearchViewSettings(TypedDict):
    """The keys `search_view` starts with: open or not, what it searches, how it plays and shows.

    `diagonal` names the diagonal rule the view's search moves by (the grid's when the view
    opens and whenever J switches the grid's rule; the panel's 4/8 button may change it).
    """

    open: bool
    algorithm: str
    heuristic: str
    weight: float
    connectivity: Literal[4, 8]
    diagonal: str
    playing: bool
    steps_per_s: int
    show_parents: bool
    show_numbers: bool
    restarts: int
    message: str
    numbers_shown: int
    search: str
    race: list[RaceLaneEntry] | None


class SearchViewIdle(SearchViewSettings):
    """`search_view` while the view has no search (it was never opened, or lacks Start or End)."""

    step: None
    start: None
    goal: None
    compare_open: bool
    compare: list[CompareEntry]
    buttons: dict[str, list[int]]
    cost: None
    meeting_cell: None
    explanation: None


class SearchViewReplay(SearchViewSettings):
    """`search_view` once it has a search: where the replay stands; cells are `[row, col]`.

    `recorded` counts the steps recorded so far (`finished` once the search has ended),
    `current` is the cell the last step expanded (null at step 0), `cost` the finished path's
    cost in world units (null before the end or without a path), `meeting_cell` where
    bidirectional's halves meet at this step (null before they meet and for other searches),
    `explanation` why there is no path once the search has ended finding End unreachable, as
    `path.explanation` (null otherwise).
    """

    start: list[int]
    goal: list[int]
    step: int
    recorded: int
    finished: bool
    at_end: bool
    frontier_cells: int
    expanded_cells: int
    current: list[int] | None
    path: list[list[int]]
    compare_open: bool
    compare: list[CompareEntry]
    buttons: dict[str, list[int]]
    cost: float | None
    meeting_cell: list[int] | None
    explanation: ExplanationEntry | None


SearchViewEntry = SearchViewIdle | SearchViewReplay
"""`search_view`; in both shapes `compare` holds the comparison table's rows while it is open
and `buttons` each button's middle in window pixels while the view is open."""


class HierarchyRowEntry(TypedDict):
    """A row the hierarchy panel draws now: its words and its middle in window pixels."""

    label: str
    screen: list[int]


class EditorEntry(TypedDict):
    """`editor`: how many edits Ctrl+Z can take back and Ctrl+Shift+Z redo, and the selection.

    `selected` is the name of the object the inspector shows, null when none is selected;
    `handles` the selection's move and rotate handles ("x", "y", "ring"), each with a pixel to
    grab it at (those off screen left out); `hierarchy` the rows the hierarchy panel draws.
    """

    undo_depth: int
    redo_depth: int
    selected: str | None
    handles: NotRequired[dict[str, list[int]]]  # added with the handles
    hierarchy: NotRequired[list[HierarchyRowEntry]]  # added with the hierarchy panel


class ScriptsEntry(TypedDict):
    """`scripts`: the scene's scripts and whether the user allowed them to run.

    `count` is how many the scene names; `trusted` whether they run (allowed on the command
    line, by a trusted folder, or with the banner's key; true too for a scene without scripts);
    `skipped` how many do not run for want of that; `banner` what the window's banner says while
    they wait, null once allowed; `warnings` a line per method that looks like a hook but is
    never called (`Update`, `async def update`).
    """

    count: int
    trusted: bool
    skipped: int
    banner: str | None
    warnings: list[str]


class MapfStates(TypedDict):
    """How many of a played MAPF plan's agents are in each state at its current step."""

    moving: int
    waiting: int
    at_goal: int


class MapfPlaybackEntry(TypedDict):
    """`mapf_playback`: a MAPF plan played on a map (`sim run MAP.map --agents K`).

    `step` is the timeline's step now (`time` the same in fractional steps), `playing` whether
    it advances (`/` pauses it), `steps` its last step; `cells` each agent's cell at `step` as
    ``[x, y]`` (column, row of the map).
    """

    step: int
    time: float
    playing: bool
    steps: int
    agents: int
    solver: str
    soc: int
    makespan: int
    states: MapfStates
    cells: list[list[int]]


class Report(TypedDict):
    """The whole report, as `sim run --report` writes it (`mapf_playback` only with a plan)."""

    scene: str
    frames: int
    sim_time_s: float
    window: WindowEntry
    camera: CameraEntry
    grid: GridEntry
    path: PathEntry
    objects: list[ObjectEntry]
    agents: list[AgentEntry]
    hud: str
    search_view: SearchViewEntry
    editor: EditorEntry
    errors: list[str]
    scripts: ScriptsEntry
    messages: list[str]
    """The HUD's last messages (edits, saves, notices), oldest first: the one showing may
    already have given way to a newer one."""
    mapf: NotRequired[MapfEntry | None]  # added with joint plans: older reports have none
    mapf_playback: NotRequired[MapfPlaybackEntry]
    crowd_jams: NotRequired[CrowdJamsEntry]  # added with the no-deadlock rule


def validate_report(data: object) -> list[str]:
    """Check `data` (a report as read back from JSON) against `Report`, part by part.

    Every key must be there (unless `NotRequired`), no other key may be, and every value must
    have its type: a float field takes any finite JSON number, an int field a whole one (never
    true or false), a nullable field null as well.

    Returns:
        One line per problem, each starting with the key path, e.g.
        `report.path.cells[2]: expected a list, got a string`; empty when the report is valid.

    >>> validate_report({"scene": "x.toml"})[0]
    'report.frames: missing'
    """
    problems: list[str] = []
    _check(data, Report, "report", problems)
    return problems


@functools.cache
def _fields(kind: type) -> tuple[tuple[str, Any, bool], ...]:
    """A TypedDict's keys in order, each with its type and whether it may be left out."""
    # TypedDict's own __required_keys__ misses NotRequired under postponed annotations
    # (Python 3.11), so the markers are read from the resolved hints instead.
    fields = []
    for key, hint in get_type_hints(kind, include_extras=True).items():
        optional = get_origin(hint) is NotRequired
        fields.append((key, get_args(hint)[0] if optional else hint, optional))
    return tuple(fields)


def _check(value: object, kind: Any, where: str, problems: list[str]) -> None:
    """Append to `problems` every way `value` is not of type `kind`; `where` is its key path."""
    container = _container(kind)
    if get_origin(kind) in (Union, types.UnionType):
        arms = [arm for arm in get_args(kind) if arm is not type(None)]
        if value is None and len(arms) < len(get_args(kind)):
            return
        # A list or object where one is expected is checked inside, so a problem names the
        # deepest key path; of several object shapes, the closest one speaks.
        inside = [arm for arm in arms if _container(arm) is type(value)]
        if inside:
            closest: list[str] = min((_problems(value, arm, where) for arm in inside), key=len)
            problems += closest
        elif not any(_fits(value, arm) for arm in arms):
            problems.append(_mismatch(value, kind, where))
    elif container is None or type(value) is not container:
        if not _fits(value, kind):
            problems.append(_mismatch(value, kind, where))
    elif isinstance(value, dict) and is_typeddict(kind):
        fields = _fields(kind)
        for key, hint, optional in fields:
            if key in value:
                _check(value[key], hint, f"{where}.{key}", problems)
            elif not optional:
                problems.append(f"{where}.{key}: missing")
        known = {key for key, _, _ in fields}
        problems += [f"{where}.{key}: unexpected key" for key in value if key not in known]
    elif isinstance(value, list):
        (item,) = get_args(kind)
        for index, element in enumerate(value):
            _check(element, item, f"{where}[{index}]", problems)
    elif isinstance(value, dict):
        _, item = get_args(kind)
        for key, element in value.items():
            _check(element, item, f"{where}.{key}", problems)


def _container(kind: Any) -> type | None:
    """`list` or `dict` when `kind` is one (a TypedDict is a dict), else None."""
    if get_origin(kind) is list:
        return list
    if get_origin(kind) is dict or is_typeddict(kind):
        return dict
    return None


def _problems(value: object, kind: Any, where: str) -> list[str]:
    problems: list[str] = []
    _check(value, kind, where, problems)
    return problems


def _fits(value: object, kind: Any) -> bool:
    """Whether `value` is of type `kind`."""
    if _container(kind) is not None:
        return type(value) is _container(kind) and not _problems(value, kind, "")
    if get_origin(kind) is Literal:
        return any(type(value) is type(choice) and value == choice for choice in get_args(kind))
    if kind is float:
        # A float field that holds a whole number may read back as an int (a scene's `2`).
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )
    if kind is str:
        return isinstance(value, str)
    # bool is a subclass of int: compare the exact type, as JSON tells true from 1.
    return type(value) is kind


def _mismatch(value: object, kind: Any, where: str) -> str:
    # Against a choice of values the value itself says more than its type.
    chose = get_origin(kind) is Literal and isinstance(value, int | str)
    got = json.dumps(value) if chose else _json_type(value)
    return f"{where}: expected {_describe(kind)}, got {got}"


def _describe(kind: Any) -> str:
    """`kind` in JSON's words: "a finite number", "a list or null", "4 or 8"."""
    origin = get_origin(kind)
    if origin is Literal:
        return " or ".join(json.dumps(choice) for choice in get_args(kind))
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(arm) for arm in get_args(kind))
    if _container(kind) is list:
        return "a list"
    if _container(kind) is dict:
        return "an object"
    names = {bool: "true or false", int: "an integer", float: "a finite number", str: "a string"}
    return names.get(kind, "null")


def _json_type(value: object) -> str:
    """What `value` is in JSON's words: "null", "a list", "an integer", "true", "NaN"."""
    if value is None:
        return "null"
    if isinstance(value, bool) or (isinstance(value, float) and not math.isfinite(value)):
        return json.dumps(value)
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }
    return names.get(type(value), type(value).__name__)
