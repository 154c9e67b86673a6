"""What a validated scene is: frozen dataclasses, pure data, no Panda3D and no reading.

`sim.scene.file` builds a `SceneSpec` from a TOML file; everything else (the app, the editor, the
writer, `sim compare`) reads one. Units are world units and degrees; Z is up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from sim.config import PALETTE, AgentConfig, DoorConfig, MoverConfig, RotatorConfig, Tag
from sim.errors import SimError
from sim.navigation.diagonal import DiagonalRule

DEFAULT_CAMERA_HEADING: Final = 20.0
DEFAULT_CAMERA_PITCH: Final = -55.0

Color = tuple[float, float, float, float]


class SceneError(SimError):
    """A scene file is missing, unreadable or invalid; str() is the whole one-line message."""


DEFAULT_COLORS: Final[Mapping[Tag, Color]] = {
    Tag.OBSTACLE: PALETTE.obstacle,  # grey-blue
    Tag.START: PALETTE.start,  # green
    Tag.END: PALETTE.end,  # red
    Tag.AGENT: PALETTE.agent,  # orange
    Tag.TERRAIN: (0.55, 0.38, 0.2, 1.0),  # brown (the app colours a patch by its cost)
    Tag.UNTAGGED: (0.8, 0.8, 0.8, 1.0),  # light grey
}


@dataclass(frozen=True, slots=True)
class GridSpec:
    """The navigation grid: `rows` cells along world y, `columns` along world x.

    `origin` is the world (x, y) of the grid's min corner; cells are `cell_size` units square.
    `rule` is the diagonal rule planners use (`sim.navigation.diagonal`). A scene file gives it
    as ``[grid] diagonal`` or as its shorthand ``connectivity`` (4: "never", 8:
    "no-corner-cutting"); `sim.scene.file` settles the two into this one value.
    `replan_budget_ms` bounds the agents' planning time a frame (`sim.engine.replan_queue`);
    None: no time budget (only the crowd's count of plans a frame).
    """

    origin: tuple[float, float]
    rows: int
    columns: int
    cell_size: float
    rule: DiagonalRule = DiagonalRule.NO_CORNER_CUTTING
    replan_budget_ms: float | None = None

    @property
    def connectivity(self) -> int:
        """4 when the rule is "never" (no diagonal moves), else 8.

        >>> GridSpec((0.0, 0.0), 2, 2, 1.0, DiagonalRule.ALWAYS).connectivity
        8
        """
        return 4 if self.rule is DiagonalRule.NEVER else 8

    @property
    def width(self) -> float:
        """World extent along x, in units."""
        return self.columns * self.cell_size

    @property
    def height(self) -> float:
        """World extent along y, in units."""
        return self.rows * self.cell_size

    @property
    def center(self) -> tuple[float, float]:
        """World (x, y) of the grid's centre."""
        return (self.origin[0] + self.width / 2, self.origin[1] + self.height / 2)


@dataclass(frozen=True, slots=True)
class CameraSpec:
    """Where the orbit camera starts: it looks at `target` from `distance` units away.

    `heading` and `pitch` are degrees (Panda3D HPR); a negative pitch looks down.
    """

    target: tuple[float, float, float]
    distance: float
    heading: float = DEFAULT_CAMERA_HEADING
    pitch: float = DEFAULT_CAMERA_PITCH


@dataclass(frozen=True, slots=True)
class ScriptSpec:
    """One `[[objects.scripts]]` table: a user's `Script` class to put on the object.

    `file` is the path as the scene gives it, relative to the scene file's folder (`path_in`
    says where it lies), `class_name` the class to build and `params` its keyword arguments,
    as TOML read them. Only `sim.scripting` imports and runs the file; a scene is data until
    then.
    """

    file: str
    class_name: str
    # TOML values (lists, tables) cannot be hashed; a spec's identity is its file and class.
    params: Mapping[str, object] = field(default_factory=dict, hash=False)

    def path_in(self, scene_path: Path) -> Path:
        """Where the file lies for the scene file at `scene_path`.

        >>> ScriptSpec("scripts/orbit.py", "Orbit").path_in(Path("scenes/x.toml")).as_posix()
        'scenes/scripts/orbit.py'
        """
        return scene_path.parent / self.file


@dataclass(frozen=True, slots=True)
class ObjectSpec:
    """One object in the scene.

    `pos` is the model's origin in world units (the bottom centre for `cube` and `agent`),
    `heading` is degrees counter-clockwise about +Z, `color` is RGBA in 0..1 (defaulted by tag),
    and `agent` is filled for every Agent-tagged object and None for all others. `mover`,
    `rotator` and `door` make the object move by itself (`sim.components.motion`); `pos` and
    `heading` are then where its motion starts, at time 0. `scripts` are the user's behaviours
    on it (`[[objects.scripts]]`), in file order.
    """

    name: str
    tag: Tag
    model: str
    pos: tuple[float, float, float]
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    heading: float = 0.0
    color: Color = DEFAULT_COLORS[Tag.UNTAGGED]
    agent: AgentConfig | None = None
    terrain_cost: float | None = None
    mover: MoverConfig | None = None
    rotator: RotatorConfig | None = None
    door: DoorConfig | None = None
    scripts: tuple[ScriptSpec, ...] = ()
    terrain_area: str | None = None

    @property
    def moves(self) -> bool:
        """Whether the object moves by itself (a mover, a rotator or a door)."""
        return self.mover is not None or self.rotator is not None or self.door is not None


@dataclass(frozen=True, slots=True)
class CrowdSpec:
    """One `[[crowds]]` table as the file declares it (the agents it makes are in `objects`).

    The crowd is `count` Agent objects named `<name>-1` ... `<name>-<count>`, spawned on a
    jittered lattice over `area` ``(x0, y0, x1, y1)`` seeded with `seed`, each with `model`,
    `heading`, `color` and the settings `agent`.
    """

    name: str
    count: int
    area: tuple[float, float, float, float]
    seed: int
    model: str
    heading: float
    color: Color
    agent: AgentConfig

    def member_names(self) -> list[str]:
        """The names of the crowd's agents, in order.

        >>> fans = CrowdSpec("fans", 2, (0, 0, 1, 1), 0, "agent", 0, (1, 1, 1, 1), AgentConfig())
        >>> fans.member_names()
        ['fans-1', 'fans-2']
        """
        return [f"{self.name}-{number}" for number in range(1, self.count + 1)]


@dataclass(frozen=True, slots=True)
class MapfSpec:
    """The scene's `[mapf]` table: how the agents with ``planner = "mapf"`` are planned together.

    `solver` is one of `sim.mapf.SOLVERS`, `time_limit_s` the seconds each joint (re)plan may
    take, `connectivity` the moves a plan may make (4: the benchmark's rule; 8: diagonal steps
    too, without corner cutting).
    """

    solver: str = "lacam"
    time_limit_s: float = 1.0
    connectivity: int = 4


@dataclass(frozen=True, slots=True)
class TortureSpec:
    """The scene's `[torture]` table: the limits a crowd torture case is judged against.

    `time_limit_s`: simulated seconds within which every agent must have arrived;
    `free_flow_s`: the case's free-flow time when given (else computed from the scene);
    `gate`: a segment ``(x0, y0, x1, y1)`` whose crossings are the case's flow, or None;
    `seeds_vary`: how seed N differs from seed 0.
    """

    time_limit_s: float
    free_flow_s: float | None = None
    gate: tuple[float, float, float, float] | None = None
    seeds_vary: str = "start_jitter"


@dataclass(frozen=True, slots=True)
class LinkSpec:
    """One `[[links]]` entry, in world units (`sim.scene.links`)."""

    start: tuple[float, float]
    end: tuple[float, float]
    cost: float = 1.0
    bidirectional: bool = True
    kind: str = "jump"
    width: int = 1


@dataclass(frozen=True, slots=True)
class SceneSpec:
    """A whole validated scene, as read from `path`.

    `objects` holds the file's `[[objects]]` in order, then the agents each of `crowds` expands
    into, crowd by crowd; `listed_objects` and `crowd_members` tell the two apart. `mapf` is
    the `[mapf]` table (its defaults when the file has none), `torture` the `[torture]` table
    of a crowd torture case (`sim.scene.torture`; None when the file has none).
    """

    path: Path
    version: int
    name: str
    grid: GridSpec
    camera: CameraSpec
    objects: tuple[ObjectSpec, ...] = field(default_factory=tuple)
    crowds: tuple[CrowdSpec, ...] = field(default_factory=tuple)
    mapf: MapfSpec = MapfSpec()
    torture: TortureSpec | None = None
    links: tuple[LinkSpec, ...] = ()

    @property
    def listed_objects(self) -> tuple[ObjectSpec, ...]:
        """The objects the file lists one by one (`[[objects]]`), without the crowds' agents."""
        return self.objects[: len(self.objects) - sum(crowd.count for crowd in self.crowds)]

    def crowd_members(self) -> frozenset[str]:
        """The names of every agent that comes from a `[[crowds]]` table."""
        return frozenset(name for crowd in self.crowds for name in crowd.member_names())

    def objects_with_tag(self, tag: Tag | str) -> tuple[ObjectSpec, ...]:
        """All objects with `tag` (a `Tag` or its plain string), in file order."""
        return tuple(obj for obj in self.objects if obj.tag == tag)

    def find(self, name: str) -> ObjectSpec | None:
        """The object called `name`, or None."""
        return next((obj for obj in self.objects if obj.name == name), None)
