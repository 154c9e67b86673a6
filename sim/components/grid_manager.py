"""GridManager: rasterizes obstacles and terrain patches into the navigation grid; plans on it."""

from __future__ import annotations

import itertools
import math
import time
import weakref
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from panda3d.core import TransformState

from sim.components.plan_text import NO_ROOM_TEXT, NO_WALKABLE_TEXT, REASON_TEXT, endpoint_notes
from sim.components.terrain import TerrainTracker
from sim.config import Tag
from sim.crowd.route import BlockStamps
from sim.engine import Component, GameObject
from sim.navigation import (
    Box,
    Endpoints,
    Footprint,
    GridMap,
    PathResult,
    SearchSettings,
    box_footprint,
    find_path_with,
    transform_box,
)
from sim.navigation.areas import within_areas
from sim.navigation.carving import Carve, Carver
from sim.navigation.catalogue import PLANNER, PLANNER_ALGORITHM, PLANNER_HEURISTICS
from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.heuristics import Heuristic
from sim.navigation.line_of_sight import segment_is_clear, smooth_path
from sim.navigation.links import NavLink
from sim.navigation.query import Algorithm
from sim.navigation.room import Room
from sim.navigation.searches.repair_choice import RepairChoice

# An obstacle whose top is this close to the ground, or below it, covers no cell: an open door
# sinks into the ground (`sim.components.motion`). Models stand on their origin, and a cube
# is as tall as its z scale.
SUNK_TOP_Z = 1e-6
INCREMENTAL_CELLS = 1 << 23
"""Grid cells of incremental search state the agents may hold together (about 30 bytes a cell
each): past that, `incremental_search` gives None and an agent plans with A* from scratch."""
HEURISTICS = tuple(heuristic.value for heuristic in PLANNER_HEURISTICS)
"""The planner's heuristics, in the order the app cycles them; the first is the default."""

Cell = tuple[int, int]
Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class PlanOutcome:
    """A plan between two world points, ready to draw, steer along and report.

    Attributes:
        found: Whether a path exists.
        reason: Plain words for the user: why there is no path, or what was adjusted ("" if
            nothing was).
        cells: Grid path `(row, col)` from the start cell to the goal cell, both included (a
            tuple, or for a crowd's plan a sequence read from its field on demand).
        waypoints: World `(x, y)` points to steer through after the start: the centres of the
            smoothed path's cells, the last replaced by the goal point itself when it is on
            a walkable cell.
        cost: Path cost in world units (step lengths times cell costs times the cell size).
        length: World length of the path through its cells' centres.
        expanded: Nodes the search expanded.
        plan_ms: Wall-clock time of the search in milliseconds.
        repaired: Whether an incremental search repaired its previous search (rather than
            searching afresh: the first plan, a new goal cell, or no incremental search).
        fresh_expanded: What A* from scratch expanded on the same grid and cells, when the plan
            was asked to compare (`GridManager.plan`'s `compare`); else None.
    """

    found: bool
    reason: str = ""
    cells: Sequence[Cell] = ()
    waypoints: tuple[Point, ...] = ()
    cost: float = math.inf
    length: float = math.inf
    expanded: int = 0
    plan_ms: float = 0.0
    repaired: bool = False
    fresh_expanded: int | None = None


@dataclass(slots=True)
class _Tracked:
    box: Box
    footprint: Footprint = field(repr=False)
    # The node's net transform when `box` was read: while it is the same, so is the box.
    transform: TransformState = field(repr=False)
    settled: bool = False  # moved only by edits that sync the grid themselves


class GridManager(Component):
    """Owns the navigation grid: which cells the `Obstacle`-tagged objects cover, and planning.

    The grid is `num_of_rows` x `num_of_columns` cells of `grid_cell_size` world units; rows
    run along world +Y, columns along world +X, and `origin` is the grid's minimum corner.
    Each obstacle's full footprint (position, scale, heading) is rasterized; every frame the
    obstacles are checked, only footprints that changed are redone, and `version` goes up
    whenever the walkable mask, the cell costs or the planning settings change (`mask_version`
    only when the mask does, `costs_version` only when the costs do).

    `Terrain`-tagged objects with a `TerrainPatch` give the cells they cover their cost (see
    `sim.components.terrain`); every plan pays those costs.
    """

    def __init__(
        self,
        *,
        origin: Point,
        num_of_rows: int,
        num_of_columns: int,
        grid_cell_size: float,
        rule: DiagonalRule = DiagonalRule.NO_CORNER_CUTTING,
        show_grid: bool = True,
        show_obstacle_blocks: bool = True,
    ) -> None:
        super().__init__()
        self.origin = origin
        self.num_of_rows = num_of_rows
        self.num_of_columns = num_of_columns
        self.grid_cell_size = grid_cell_size
        self.show_grid = show_grid
        self.show_obstacle_blocks = show_obstacle_blocks
        self._rule = rule
        self._heuristic = PLANNER_HEURISTICS[0]
        # When each cell was blocked, for `blocked_since_mask`; from `start` on (nothing plans
        # before it).
        self._stamps: BlockStamps | None = None
        self._walkable = np.ones((num_of_rows, num_of_columns), dtype=bool)
        self._carver = Carver(self._walkable)  # moves redo only the cells left and entered
        self.grid = GridMap(self._walkable, origin=origin, cell_size=grid_cell_size)
        self._terrain = TerrainTracker(
            (num_of_rows, num_of_columns),
            origin=origin,
            cell_size=grid_cell_size,
            box_of=self._box_of,
        )
        self.costs_version = 0
        self._tracked: dict[int, _Tracked] = {}
        self._objects: dict[int, GameObject] = {}
        self.version = 0
        self.mask_version = 0
        self.rasterized_footprints = 0  # how many footprints were (re)done, for tests
        self.planning_ms = 0.0  # wall time of every plan so far: the replan budget's clock
        self._room = Room()
        self._searches: weakref.WeakSet[RepairChoice] = weakref.WeakSet()
        # A map's ten thousand boxes cost a frame nothing once `settled` names them (the editor
        # syncs after its edits); `watched` are looked at every frame all the same (a drag).
        self.settled: Callable[[GameObject], bool] = lambda _obj: False
        self._seen = -1  # the world's obstacle version at the last full look
        self._unsettled: dict[int, GameObject] = {}
        self.watched: Callable[[], Iterable[GameObject]] = tuple
        self.links: tuple[NavLink, ...] = ()  # the scene's (`sim.scene.links`): every plan's

    @property
    def walkable(self) -> NDArray[np.bool_]:
        """`[row, col]` mask of cells no obstacle covers (do not modify)."""
        return self._walkable

    @property
    def costs(self) -> NDArray[np.float64] | None:
        """`[row, col]` cost multiplier of every cell (read-only), or None: no terrain patch."""
        return self._terrain.costs

    @property
    def diagonal(self) -> bool:
        """True for 8-connected planning (any rule but "never"), False for 4-connected."""
        return self._rule is not DiagonalRule.NEVER

    @property
    def rule(self) -> DiagonalRule:
        """The diagonal rule plans use (the scene's ``[grid] diagonal`` until switched)."""
        return self._rule

    @property
    def heuristic(self) -> Heuristic:
        """The A* heuristic in use."""
        return self._heuristic

    def set_planning(
        self, *, diagonal: bool | str | None = None, heuristic: str | None = None
    ) -> None:
        """Change the diagonal rule (True, False or a rule name) or heuristic (a name); replan."""
        if heuristic is not None:
            if heuristic not in HEURISTICS:
                raise ValueError(f"unknown heuristic {heuristic!r}; expected one of {HEURISTICS}")
            self._heuristic = Heuristic(heuristic)
        if diagonal is not None:
            self._rule = parse_diagonal(diagonal)
        self.version += 1

    def start(self) -> None:
        """Rasterize every obstacle and terrain patch present when the scene starts."""
        self.sync_obstacles()
        self._stamps = BlockStamps(self._walkable.size)

    def update(self, dt: float) -> None:
        """Pick up obstacles and patches that were added, moved, turned, scaled or removed."""
        self.sync_obstacles(every=False)

    def sync_obstacles(self, *, every: bool = True) -> bool:
        """Redo the footprints of obstacles and patches that changed; True if the grid did.

        With `every` False (each frame's update), `settled` obstacles are not looked at again
        unless `watched` names them: what moves them syncs the grid itself.
        """
        world = self.world
        if world is None:
            return False
        terrain_changed = self._terrain.sync(world.find_all_with_tag(Tag.TERRAIN))
        if terrain_changed:
            self.costs_version += 1
            self.version += 1
            self.grid = GridMap(
                self._walkable,
                self._terrain.costs,
                origin=self.origin,
                cell_size=self.grid_cell_size,
            )
        # No obstacle came, went or was retagged since the last full look and none unsettled is
        # dead: read only those that may have moved, never the list of every obstacle.
        seen = world.tag_version(Tag.OBSTACLE)
        unsettled = self._unsettled
        full = every or seen != self._seen or not all(obj.alive for obj in unsettled.values())
        watched = {} if every else {id(o): o for o in self.watched() if o.tag == Tag.OBSTACLE}
        watched = {key: obj for key, obj in watched.items() if obj.alive}
        if full:
            obstacles = world.find_all_with_tag(Tag.OBSTACLE)
            current = {id(obj): obj for obj in obstacles if obj.alive}
            self._seen = seen
        else:
            current = unsettled | watched
        changed = False
        added: list[Footprint] = []
        for gone in set(self._tracked) - set(current) if full else ():
            self._stamp(self._carver.remove(self._tracked.pop(gone).footprint))
            del self._objects[gone]
            unsettled.pop(gone, None)
            changed = True
        for key, obj in current.items():
            tracked = self._tracked.get(key)
            if tracked is not None and tracked.settled and not every and key not in watched:
                continue
            # Comparing transforms costs about a microsecond, reading the box forty: with
            # thousands of obstacles the box is read only for those whose node moved.
            transform = obj.node.get_net_transform()
            if tracked is not None and tracked.transform == transform:
                continue
            box = self._obstacle_box(obj)
            if tracked is not None and tracked.box == box:
                tracked.transform = transform
                continue
            footprint = box_footprint(
                box, self._walkable.shape, origin=self.origin, cell_size=self.grid_cell_size
            )
            if tracked is None:
                added.append(footprint)  # carved together below, as a map's walls come at once
            else:
                self._stamp(self._carver.move(tracked.footprint, footprint))
            self._tracked[key] = _Tracked(box, footprint, transform, self.settled(obj))
            self._objects[key] = obj
            if not self._tracked[key].settled:
                unsettled[key] = obj
            self.rasterized_footprints += 1
            changed = True
        if added:
            self._stamp(self._carver.add_all(added))
        if changed:
            self.version += 1
            self.mask_version += 1
        return changed or terrain_changed

    def _obstacle_box(self, obj: GameObject) -> Box:
        """An obstacle's box, or an empty one (no cell) while its top lies at or below 0."""
        box = self._box_of(obj)
        node = obj.node
        root = node.get_top()
        if node.get_z(root) + abs(node.get_sz(root)) <= SUNK_TOP_Z:
            return Box(box.x, box.y, 0.0, 0.0)  # no heading: a sunk door turning redoes nothing
        return box

    def _box_of(self, obj: GameObject) -> Box:
        node = obj.node
        root = node.get_top()
        (x, y), scale = obj.xy, node.get_scale(root)
        return transform_box(x, y, scale.x, scale.y, node.get_h(root))

    def outside_note(self, name: str, box: Box) -> str | None:
        """Say how much of obstacle `name` (its footprint `box`) lies off the grid, if any.

        Returns:
            None when the box lies wholly on the grid, else a one-line note for the user; the
            part off the grid is never rasterized (cells outside do not exist).
        """
        # Plain floats, not numpy: a scene may ask this of 100,000 obstacles at startup.
        x0, y0 = self.origin
        x1 = x0 + self.num_of_columns * self.grid_cell_size
        y1 = y0 + self.num_of_rows * self.grid_cell_size
        # Its corners lie within half its diagonal of its centre, whatever its heading.
        reach = math.hypot(box.size_x, box.size_y) / 2
        if (
            x0 <= box.x - reach
            and box.x + reach <= x1
            and y0 <= box.y - reach
            and box.y + reach <= y1
        ):
            return None
        xs, ys = zip(*box.corners(), strict=True)
        if min(xs) >= x0 and min(ys) >= y0 and max(xs) <= x1 and max(ys) <= y1:
            return None
        footprint = box_footprint(
            box, self._walkable.shape, origin=self.origin, cell_size=self.grid_cell_size
        )
        if not footprint.mask.any():
            return f"obstacle {name!r} lies wholly outside the grid; it is ignored"
        return f"obstacle {name!r} lies partly outside the grid; the outside part is ignored"

    def _stamp(self, carve: Carve) -> None:
        if self._stamps is not None:
            version = self.mask_version + 1
            self._stamps.changed(carve.blocked, blocked=True, version=version)
            self._stamps.changed(carve.freed, blocked=False, version=version)

    def blocked_since_mask(self, cells: NDArray[np.intp], mask_version: int) -> bool:
        """Whether one of the flat `cells` is blocked now and became so after `mask_version`.

        A cell blocked all along does not count, nor one blocked and freed again since.
        """
        if self._stamps is None:
            return False
        blocked = cells[~self._walkable.ravel()[cells]]
        return self._stamps.blocked_after(blocked, mask_version)

    def blocked_cells(self) -> int:
        """How many cells obstacles cover."""
        return int(self._walkable.size - np.count_nonzero(self._walkable))

    def world_to_cell(self, x: float, y: float, *, clamp: bool = False) -> Cell | None:
        """The cell under world point `(x, y)`; None outside the grid unless `clamp`."""
        return self.grid.world_to_cell(x, y, clamp=clamp)

    def clamped_cell(self, point: Point) -> Cell:
        """The cell under world point `point`, or the nearest border cell when it is outside."""
        cell = self.grid.world_to_cell(*point, clamp=True)
        if cell is None:  # clamping always finds a cell; this keeps the type honest
            raise ValueError(f"no cell for {point!r}")
        return cell

    def cell_to_world(self, cell: Cell) -> Point:
        """The world `(x, y)` of a cell's centre."""
        return self.grid.cell_to_world(*cell)

    def is_blocked_at(self, x: float, y: float) -> bool:
        """True when world point `(x, y)` lies in a cell an obstacle covers."""
        cell = self.world_to_cell(x, y)
        return cell is not None and not bool(self._walkable[cell])

    def is_open_at(self, x: float, y: float) -> bool:
        """True when world point `(x, y)` lies in a cell whose eight neighbours are walkable too.

        Every point of such a cell keeps a whole cell from any wall and from the grid's edge.
        """
        cell = self.world_to_cell(x, y)
        return cell is not None and self._room.is_open(self._walkable, self.mask_version, cell)

    def move_is_clear(self, start: Point, end: Point, *, radius: float = 0.0) -> bool:
        """True when a straight move between two world points stays in walkable cells.

        Points outside the grid are never clear; a corner between two blocked cells is not
        squeezed through (the planner's no-corner-cutting rule). With a `radius` (world
        units) the whole disc must keep clear of blocked cells and the border all the way,
        touching allowed (`sim.navigation.clearance`).
        """
        a, b = self._to_cell_space(start), self._to_cell_space(end)
        if radius > 0.0:
            return self._room.disc_is_clear(
                self._walkable, self.mask_version, a, b, radius / self.grid_cell_size
            )
        # An agent's step mostly stays inside one cell. Two points strictly inside the same
        # walkable cell's square join by a segment that touches no other cell, which is what
        # the full test would find, about 10 times slower.
        col, row = math.floor(a[0]), math.floor(a[1])
        if (
            col < a[0]
            and row < a[1]
            and math.floor(b[0]) == col < b[0]
            and math.floor(b[1]) == row < b[1]
            and 0 <= row < self.num_of_rows
            and 0 <= col < self.num_of_columns
            and self._walkable[row, col]
        ):
            return True
        return segment_is_clear(self._walkable, a, b)

    def _to_cell_space(self, point: Point) -> Point:
        return (
            (point[0] - self.origin[0]) / self.grid_cell_size,
            (point[1] - self.origin[1]) / self.grid_cell_size,
        )

    def allowed_cells(self, areas: Collection[str] | None) -> NDArray[np.bool_] | None:
        """What `plan` keeps an agent to (`allowed`): the cells of `areas` (`AreaLayer`)."""
        return self._terrain.areas.allowed(None if areas is None else frozenset(areas))

    def usable_grid(self, radius: float) -> GridMap:
        """The grid an agent of `radius` world units plans on: the cells with room for its disc.

        Up to half a cell that is `grid` itself. Past it, the clearance map (computed when first
        asked, once per walkable mask) gives the cells whose disc of `radius` keeps clear of blocked
        cells and the border; each radius's grid is kept until the mask or the costs change.
        """
        return self._room.usable_grid(self.grid, self.mask_version, radius / self.grid_cell_size)

    def smoothing_mask(self, radius: float) -> NDArray[np.bool_]:
        """``[row, col]`` the cells a disc of `radius` world units may be smoothed across.

        Every point of such a cell keeps `radius` from walls, so a smoothed line that touches
        only them (`smooth_path` with this mask) keeps the disc clear (`Room.smoothing_mask`).
        """
        return self._room.smoothing_mask(
            self._walkable, self.mask_version, radius / self.grid_cell_size
        )

    @property
    def planning_key(self) -> tuple[str, str]:
        """``(rule, heuristic)``: a search built for other settings must be built again."""
        return (self._rule.value, self._heuristic.value)

    def incremental_search(self) -> RepairChoice | None:
        """A new repairing planner (D* Lite while cheaper, else fresh) for the settings, or None.

        None when D* Lite cannot run the settings (manhattan is not consistent with diagonal
        moves) or the searches alive would hold more than `INCREMENTAL_CELLS` cells.
        """
        if (len(self._searches) + 1) * self._walkable.size > INCREMENTAL_CELLS:
            return None
        try:
            search = RepairChoice(SearchSettings(self._rule, self._heuristic))
        except ValueError:
            return None
        self._searches.add(search)
        return search

    def plan(
        self,
        start: Point,
        goal: Point,
        *,
        smoothing: bool = True,
        radius: float = 0.0,
        search: RepairChoice | None = None,
        compare: bool = False,
        avoid: Collection[Cell] = (),
        allowed: NDArray[np.bool_] | None = None,
    ) -> PlanOutcome:
        """Plan from world point `start` to world point `goal`; never raises for "no path".

        Points off the grid use the nearest border cell; a start or goal inside an obstacle
        uses the nearest walkable cell, and `reason` says so. An agent of `radius` world units
        plans on `usable_grid(radius)`: a start or goal closer to a wall than that moves to
        the nearest cell with room, and smoothing keeps the agent's swept disc clear. It plans
        round the `avoid` cells where it can (`sim.crowd.rules.detour`), else through them.

        With a `search` (`incremental_search()`, built for the current `planning_key`) it
        repairs its last search or searches afresh, the cheaper; the path costs the same. With
        `compare` as well, A* from scratch runs on the same grid and cells too, for
        `fresh_expanded` (the HUD's comparison; its time is not in `plan_ms`).
        """
        grid = within_areas(self.usable_grid(radius), allowed).with_blocked(avoid)
        ends = grid.endpoints(start, goal)
        if ends.start is None or ends.goal is None:
            return PlanOutcome(False, NO_WALKABLE_TEXT if grid is self.grid else NO_ROOM_TEXT)
        start_cell, goal_cell = ends.start, ends.goal
        notes = endpoint_notes(ends) if grid is self.grid else self._room_notes(ends, start, goal)
        began = time.perf_counter()
        if search is None or avoid:  # a detour searches afresh
            result = self._fresh_search(grid, start_cell, goal_cell, PLANNER_ALGORITHM)
        else:
            result = search.plan(
                grid.walkable, start_cell, goal_cell, costs=self.costs, links=self.links
            )
        plan_ms = (time.perf_counter() - began) * 1000.0
        self.planning_ms += plan_ms
        repaired = search is not None and search.last_repaired
        fresh = None
        if search is not None and compare:
            fresh = self._fresh_search(grid, start_cell, goal_cell, PLANNER.algorithm).expanded
        if not result.found and avoid:
            return self.plan(
                start, goal, smoothing=smoothing, radius=radius, search=search, allowed=allowed
            )
        if not result.found:
            reason = REASON_TEXT.get(result.reason, str(result.reason))
            return PlanOutcome(
                False,
                reason,
                expanded=result.expanded,
                plan_ms=plan_ms,
                repaired=repaired,
                fresh_expanded=fresh,
            )
        cells = tuple(result.cells)
        steps = itertools.pairwise(cells)
        return PlanOutcome(
            True,
            "; ".join(notes),
            cells,
            self._waypoints(
                cells, goal, smoothing=smoothing and not avoid, radius=radius, allowed=allowed
            ),
            cost=result.cost * self.grid_cell_size,
            length=sum(math.dist(a, b) for a, b in steps) * self.grid_cell_size,
            expanded=result.expanded,
            plan_ms=plan_ms,
            repaired=repaired,
            fresh_expanded=fresh,
        )

    def _fresh_search(
        self, grid: GridMap, start: Cell, goal: Cell, algorithm: Algorithm | None
    ) -> PathResult:
        # The HUD compares a repair with A* from scratch, so `compare` asks for astar itself;
        # None is the planner's own choice (`PLANNER_ALGORITHM`, "auto").
        # Settings as values: the planner's default ones take find_path's short way.
        settings = SearchSettings(
            rule=self._rule, heuristic=self._heuristic, algorithm=algorithm, costs=self.costs
        )
        return find_path_with(grid.walkable, start, goal, settings, self.links)

    def _waypoints(
        self,
        cells: Sequence[Cell],
        goal: Point,
        *,
        smoothing: bool,
        radius: float = 0.0,
        allowed: NDArray[np.bool_] | None = None,
    ) -> tuple[Point, ...]:
        # A disc skips only over cells where all of it has room (`smoothing_mask`): the
        # exact swept-disc test would cost a hundred times a point's at every candidate.
        walkable = self.smoothing_mask(radius) if radius > 0.0 else self._walkable
        walkable = walkable if allowed is None else walkable & allowed
        kept = smooth_path(walkable, cells, costs=self.costs) if smoothing else list(cells)
        points = [self.cell_to_world(cell) for cell in kept[1:]]
        if self.world_to_cell(*goal) == cells[-1]:
            # End the path on the goal itself, not on its cell's centre, when that is legal.
            before = points[-2] if len(points) >= 2 else self.cell_to_world(kept[0])
            if points and self.move_is_clear(before, goal, radius=radius):
                points[-1] = goal
            elif radius == 0.0 or self.move_is_clear(
                self.cell_to_world(cells[-1]), goal, radius=radius
            ):
                points.append(goal)
        return tuple(points)

    def _room_notes(self, ends: Endpoints, start: Point, goal: Point) -> list[str]:
        """`endpoint_notes` for an agent with a size: inside an obstacle, or too near a wall."""
        notes = []
        moves = ((ends.goal_moved, goal, "End"), (ends.start_moved, start, "start"))
        for moved, point, name in moves:
            if moved:
                where = "inside an obstacle" if self.is_blocked_at(*point) else "too near a wall"
                notes.append(f"{name} is {where}: using the nearest cell with room for the agent")
        return notes

    def cell_quads(
        self, cells: NDArray[np.intp], z: float, *, inset: float = 0.0
    ) -> NDArray[np.float32]:
        """Return a flat quad `(N, 4, 3)` over each flat cell at height `z`, for `Gizmos.quads`.

        `inset` is the fraction of a cell left bare on each side (so grid lines still show).
        """
        rows, cols = np.divmod(cells, self.num_of_columns)
        size = self.grid_cell_size
        x0 = self.origin[0] + (cols + inset) * size
        y0 = self.origin[1] + (rows + inset) * size
        x1, y1 = x0 + (1.0 - 2.0 * inset) * size, y0 + (1.0 - 2.0 * inset) * size
        z_all = np.full(x0.shape, z, dtype=np.float64)
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        quads = np.stack([np.stack([x, y, z_all], axis=-1) for x, y in corners], axis=1)
        return quads.astype(np.float32).reshape(-1, 4, 3)

    def cell_centres(self, cells: NDArray[np.intp]) -> NDArray[np.float64]:
        """Return the world ``(x, y)`` `(N, 2)` of each flat cell's centre."""
        rows, cols = np.divmod(cells, self.num_of_columns)
        size = self.grid_cell_size
        return np.stack(
            [self.origin[0] + (cols + 0.5) * size, self.origin[1] + (rows + 0.5) * size], axis=1
        )
