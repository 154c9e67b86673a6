"""A MAPF plan played back: every agent in one merged geometry, moved with numpy each frame.

A thousand agents as a thousand game objects would cost a thousand nodes and Python calls a
frame; here they are one `GeomNode` of low boxes whose vertices are rewritten in place, and
one of line segments for their trails, so a frame costs a few numpy operations whatever K is.
Positions are interpolated linearly between time steps, so agents glide from cell to cell in
step; the colour says each agent's state at the current step: moving (it leaves its cell
next step), waiting (it stays, not yet home for good), or at goal (it never leaves again).

The timeline is `time` in steps, from 0 to the makespan: `update` advances it while `playing`
and the world runs (Space pauses it, as every simulated thing; `toggle_play` only it), and
`step_forward`, `step_back` and `scrub` move it by whole steps at any time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

import numpy as np
from numpy.typing import NDArray
from panda3d.core import (
    Geom,
    GeomLines,
    GeomNode,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    NodePath,
    OmniBoundingVolume,
)

from sim.config import PALETTE
from sim.engine import Component

Color = tuple[float, float, float, float]

STEPS_PER_S: Final = 4.0
"""Playback speed: plan time steps per simulated second."""
TRAIL_STEPS: Final = 4
"""A trail reaches back this many steps."""
BODY_HALF: Final = 0.32  # half a box's side, in cells: a gap stays between neighbours
BODY_HEIGHT: Final = 0.5  # in cells
STEP_EPSILON: Final = 1e-6
TRAIL_Z: Final = 0.04  # just above the ground, in cells
SIDE_SHADE: Final = 0.6  # sides are darker than the top, so boxes read as boxes unlit
TRAIL_SHADE: Final = 0.8
TRAIL_THICKNESS: Final = 2.0  # pixels; thin lines vanish on a large map seen whole


class AgentState(IntEnum):
    """What an agent is doing at a time step."""

    MOVING = 0
    WAITING = 1
    AT_GOAL = 2


# From the palette, one meaning a colour: moving along the plan is following a joint plan.
STATE_COLORS: Final[dict[AgentState, Color]] = {
    AgentState.MOVING: PALETTE.joint_plan,
    AgentState.WAITING: PALETTE.mapf_waiting,
    AgentState.AT_GOAL: PALETTE.mapf_at_goal,
}
STATE_LABELS: Final[dict[AgentState, str]] = {
    AgentState.MOVING: "moving",
    AgentState.WAITING: "waiting",
    AgentState.AT_GOAL: "at goal",
}

# A box's top (4 corners, counter-clockwise seen from above) and its 4 sides (4 corners each).
_TOP = [(-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]
_SIDES = [
    [(-1, -1, 0), (1, -1, 0), (1, -1, 1), (-1, -1, 1)],
    [(1, -1, 0), (1, 1, 0), (1, 1, 1), (1, -1, 1)],
    [(1, 1, 0), (-1, 1, 0), (-1, 1, 1), (1, 1, 1)],
    [(-1, 1, 0), (-1, -1, 0), (-1, -1, 1), (-1, 1, 1)],
]
_CORNERS: Final = np.array([_TOP, *_SIDES], dtype=np.float32).reshape(-1, 3)
_QUADS: Final = len(_CORNERS) // 4
_TOP_VERTICES: Final = 4


@dataclass(frozen=True, slots=True)
class PlanGeometry:
    """Where a plan's cells are in the world.

    A map cell ``(row, col)`` has its centre at ``x = origin_x + (col + 0.5) * cell_size`` and
    ``y = origin_y + (rows - row - 0.5) * cell_size``: the map's first row is north, as
    `sim.scene.layout` lays maps out.
    """

    rows: int
    columns: int
    origin: tuple[float, float]
    cell_size: float = 1.0

    def centres(self, cells: NDArray[np.int64]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """World x and y of flat map cells (``row * columns + col``), any shape.

        >>> x, y = PlanGeometry(2, 3, (0.0, 0.0)).centres(np.array([0, 5]))
        >>> x.tolist(), y.tolist()
        ([0.5, 2.5], [1.5, 0.5])
        """
        row, col = np.divmod(cells, self.columns)
        x = self.origin[0] + (col + 0.5) * self.cell_size
        y = self.origin[1] + (self.rows - row - 0.5) * self.cell_size
        return x.astype(np.float32), y.astype(np.float32)


class MapfAgents(Component):
    """Draw and play a MAPF plan: `paths` ``[agent][t]`` flat cells, all the same length.

    Args:
        root: The node the agents and trails hang under.
        paths: Each agent's cell per time step from 0 (a solver's `MapfResult.paths`).
        goals: Each agent's goal cell.
        geometry: Where cells are in the world.
        steps_per_s: Playback speed.
    """

    def __init__(
        self,
        root: NodePath,
        paths: Sequence[Sequence[int]],
        goals: Sequence[int],
        geometry: PlanGeometry,
        *,
        steps_per_s: float = STEPS_PER_S,
    ) -> None:
        super().__init__()
        self.paths = np.asarray(paths, dtype=np.int64).reshape(len(goals), -1)
        self.goals = np.asarray(goals, dtype=np.int64)
        self.geometry = geometry
        self.steps_per_s = steps_per_s
        self.time = 0.0
        self.playing = True
        self._x, self._y = geometry.centres(self.paths)
        self._arrival = _arrivals(self.paths, self.goals)
        self.root = root.attach_new_node("mapf-agents")
        self._bodies = _body_geom(self.agents)
        self._trails = _trail_geom(self.agents)
        for name, geom in (("mapf-bodies", self._bodies), ("mapf-trails", self._trails)):
            node = GeomNode(name)
            node.add_geom(geom)
            # The vertices move every frame: culling by stale bounds would hide agents.
            node.set_bounds(OmniBoundingVolume())
            node.set_final(True)
            self.root.attach_new_node(node).set_render_mode_thickness(TRAIL_THICKNESS)
        # Colours are baked in (lit tops and darker sides): the scene's lights would grey them.
        self.root.set_light_off(1)
        self._draw()

    @property
    def agents(self) -> int:
        """Number of agents."""
        return int(self.paths.shape[0])

    @property
    def makespan(self) -> int:
        """The last time step of the plan."""
        return int(self.paths.shape[1]) - 1

    @property
    def step(self) -> int:
        """The time step now (the one the agents left or stand on)."""
        # Steps summed from frame times land a hair under a whole step: that step is meant.
        return min(int(np.floor(self.time + STEP_EPSILON)), self.makespan)

    def update(self, dt: float) -> None:
        """Advance the timeline with simulated time, stopping at the makespan."""
        if self.playing and self.time < self.makespan:
            self.set_time(self.time + dt * self.steps_per_s)

    def toggle_play(self) -> None:
        """Pause or resume the timeline (simulated time goes on)."""
        self.playing = not self.playing

    def set_time(self, time: float) -> None:
        """Show the plan at `time` (steps; clamped to 0..makespan)."""
        self.time = float(min(max(time, 0.0), self.makespan))
        self._draw()

    def step_forward(self) -> None:
        """Go to the next whole step."""
        self.set_time(np.floor(self.time) + 1)

    def step_back(self) -> None:
        """Go to the previous whole step (from between two steps, to the earlier)."""
        self.set_time(np.ceil(self.time) - 1)

    def scrub(self, steps: int) -> None:
        """Jump `steps` whole steps (negative: back) from the nearest whole step."""
        self.set_time(round(self.time) + steps)

    def cells(self) -> NDArray[np.int64]:
        """Each agent's cell at the current step."""
        return self.paths[:, self.step]

    def positions(self) -> NDArray[np.float32]:
        """Each agent's world ``(x, y)`` now, interpolated between steps."""
        step = self.step
        after = min(step + 1, self.makespan)
        frac = np.float32(max(self.time - step, 0.0))
        x = self._x[:, step] + (self._x[:, after] - self._x[:, step]) * frac
        y = self._y[:, step] + (self._y[:, after] - self._y[:, step]) * frac
        return np.stack([x, y], axis=1)

    def states(self) -> NDArray[np.int64]:
        """Each agent's `AgentState` at the current step."""
        step = self.step
        after = min(step + 1, self.makespan)
        moving = self.paths[:, step] != self.paths[:, after]
        home = step >= self._arrival
        return np.where(
            moving, AgentState.MOVING, np.where(home, AgentState.AT_GOAL, AgentState.WAITING)
        ).astype(np.int64)

    def state_counts(self) -> dict[str, int]:
        """How many agents are in each state now, by label."""
        counts = np.bincount(self.states(), minlength=len(AgentState))
        return {STATE_LABELS[state]: int(counts[state]) for state in AgentState}

    def on_destroy(self) -> None:
        """Remove the agents' and trails' nodes."""
        self.root.remove_node()

    def _draw(self) -> None:
        positions = self.positions()
        colors = np.array([STATE_COLORS[state] for state in AgentState], dtype=np.float32)
        state_colors = colors[self.states()]
        size = self.geometry.cell_size
        corners = (
            _CORNERS
            * np.float32(size)
            * np.array([BODY_HALF, BODY_HALF, BODY_HEIGHT], dtype=np.float32)
        )
        body = np.empty((self.agents, len(_CORNERS), 7), dtype=np.float32)
        body[:, :, 0] = positions[:, None, 0] + corners[None, :, 0]
        body[:, :, 1] = positions[:, None, 1] + corners[None, :, 1]
        body[:, :, 2] = corners[None, :, 2]
        body[:, :, 3:] = state_colors[:, None, :]
        body[:, _TOP_VERTICES:, 3:6] *= SIDE_SHADE
        _write(self._bodies, body)
        trail = np.empty((self.agents, TRAIL_STEPS + 1, 7), dtype=np.float32)
        steps = np.clip(np.arange(self.step - TRAIL_STEPS + 1, self.step + 1), 0, self.makespan)
        trail[:, :TRAIL_STEPS, 0] = self._x[:, steps]
        trail[:, :TRAIL_STEPS, 1] = self._y[:, steps]
        trail[:, TRAIL_STEPS, :2] = positions
        trail[:, :, 2] = TRAIL_Z * size
        fade = np.linspace(0.35, 1.0, TRAIL_STEPS + 1, dtype=np.float32)[None, :, None]
        trail[:, :, 3:6] = state_colors[:, None, :3] * TRAIL_SHADE * fade
        trail[:, :, 6] = 1.0
        _write(self._trails, trail)


def _arrivals(paths: NDArray[np.int64], goals: NDArray[np.int64]) -> NDArray[np.int64]:
    """The step from which each agent stays on its goal (the path's length if it never does)."""
    away = paths != goals[:, None]
    last_away = np.where(away.any(axis=1), away.shape[1] - 1 - np.argmax(away[:, ::-1], 1), -1)
    return np.where(away[:, -1], away.shape[1], last_away + 1)


def _format() -> GeomVertexFormat:
    """Float positions and float colours, interleaved in one array (7 floats a vertex)."""
    array = GeomVertexArrayFormat()
    array.add_column("vertex", 3, Geom.NT_float32, Geom.C_point)
    array.add_column("color", 4, Geom.NT_float32, Geom.C_color)
    return GeomVertexFormat.register_format(GeomVertexFormat(array))


def _body_geom(agents: int) -> Geom:
    data = GeomVertexData("mapf-bodies", _format(), Geom.UH_dynamic)
    data.unclean_set_num_rows(agents * len(_CORNERS))
    quads = np.arange(agents * _QUADS, dtype=np.uint32)[:, None] * 4
    corners = np.array([0, 1, 2, 0, 2, 3], dtype=np.uint32)[None, :]
    return _geom(data, GeomTriangles(Geom.UH_static), (quads + corners).ravel())


def _trail_geom(agents: int) -> Geom:
    data = GeomVertexData("mapf-trails", _format(), Geom.UH_dynamic)
    points = TRAIL_STEPS + 1
    data.unclean_set_num_rows(agents * points)
    starts = (np.arange(agents, dtype=np.uint32) * points)[:, None] + np.arange(
        TRAIL_STEPS, dtype=np.uint32
    )
    segments = np.stack([starts, starts + 1], axis=-1)
    return _geom(data, GeomLines(Geom.UH_static), segments.ravel().astype(np.uint32))


def _geom(
    data: GeomVertexData, primitive: GeomTriangles | GeomLines, indices: NDArray[np.uint32]
) -> Geom:
    primitive.set_index_type(Geom.NT_uint32)
    handle = primitive.modify_vertices()
    handle.unclean_set_num_rows(len(indices))
    # The stubs do not know Panda3D's arrays export the buffer protocol.
    np.frombuffer(memoryview(handle), dtype=np.uint32)[:] = indices  # type: ignore[arg-type]
    geom = Geom(data)
    geom.add_primitive(primitive)
    return geom


def _write(geom: Geom, rows: NDArray[np.float32]) -> None:
    """Copy `rows` (vertex then colour, 7 floats each) over the geom's vertices."""
    array = geom.modify_vertex_data().modify_array(0)
    np.frombuffer(memoryview(array), dtype=np.float32)[:] = rows.ravel()  # type: ignore[arg-type]
