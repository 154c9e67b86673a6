"""CrowdRenderer: every agent as one batched marker, visible at every zoom, plus debug gizmos.

Whoever owns the agents' state hands in a `source` that returns it as arrays (`CrowdFrame`,
row i = agent i); once per rendered frame (in `on_draw_gizmos`, so also while paused and while
only the camera moves) the renderer rewrites one `MarkerBatch` from them. A marker is drawn at
least `min_pixels` across: each radius is raised, in numpy, to what that many pixels span at
the agent's depth through the camera's lens, so far out a crowd still shows as dots of its
colours (`MIN_MARKER_PX`). Under a self-steered agent's own model the marker is a ground
marker: hidden by the model up close, showing round it once the model is smaller than the dot.

Agents a jam's joint plan moves now (`sim.crowd.jams`) are drawn in `JOINT_PLAN_COLOR`
whatever their own colour, so a user sees who waits for whom. `show_gizmos` (the controls
table's key) adds each agent's velocity, a line from its centre to
where it would be in `VELOCITY_LINE_S`, and a line to each neighbour it avoids (the neighbours
`sim.crowd.avoidance.find_neighbours` finds with the avoidance's settings, or the frame's
own), both drawn as batched gizmo lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray
from panda3d.core import Camera, GraphicsOutput, NodePath

from sim.config import PALETTE
from sim.crowd.avoidance import find_neighbours
from sim.engine import Component, Gizmos
from sim.engine.markers import MARKER_Z, MarkerBatch, min_world_size

MIN_MARKER_PX = 6.0  # a marker is never fewer pixels across than this, however far the camera
VELOCITY_LINE_S = 0.25  # a velocity line shows where the agent would be this much later
VELOCITY_Z = MARKER_Z + 0.02  # over the markers
NEIGHBOUR_Z = MARKER_Z - 0.005  # under them: a line joins two discs' edges, hiding neither
VELOCITY_COLOR = PALETTE.velocity
NEIGHBOUR_COLOR = PALETTE.neighbour  # muted: there are many, the velocities matter
JOINT_PLAN_COLOR = PALETTE.joint_plan
NEIGHBOUR_DIST = 4.0  # world units; used when the frame brings no neighbours of its own
MAX_NEIGHBOURS = 8
GIZMO_KEYS = ("crowd-velocity", "crowd-neighbours")
MOVING_SPEED = 1e-6  # units per second: slower agents get no velocity line


@dataclass(frozen=True, slots=True)
class CrowdFrame:
    """The agents' state as the renderer reads it, row i = agent i (arrays are not copied).

    Attributes:
        positions: (n, 2) world x, y.
        headings_deg: (n,) Panda3D headings (0 faces +Y, counter-clockwise).
        radii: (n,) disc radii, world units.
        colors: (n, 4) RGBA in 0..1.
        velocities: (n, 2) world units per second, for the velocity gizmo; None draws none.
        visible: (n,) which rows get a marker; None for all.
        neighbours: (n, k) neighbour rows, -1 padded, as `find_neighbours` gives them; None
            finds them when the gizmos are shown.
        joint: (n,) which rows a jam's joint plan moves now (drawn in `JOINT_PLAN_COLOR`);
            None: none.
    """

    positions: NDArray[np.float64]
    headings_deg: NDArray[np.float64]
    radii: NDArray[np.float64]
    colors: NDArray[np.float64]
    velocities: NDArray[np.float64] | None = None
    visible: NDArray[np.bool_] | None = None
    neighbours: NDArray[np.intp] | None = None
    joint: NDArray[np.bool_] | None = None


class CrowdArrays(Protocol):
    """Anything that keeps the agents' state as arrays (row i = agent i), e.g. `CrowdSim`."""

    @property
    def positions(self) -> NDArray[np.float64]:
        """(n, 2) world x, y."""
        ...

    @property
    def headings_deg(self) -> NDArray[np.float64]:
        """(n,) Panda3D headings."""
        ...

    @property
    def radii(self) -> NDArray[np.float64]:
        """(n,) disc radii."""
        ...

    @property
    def colors(self) -> NDArray[np.float64]:
        """(n, 4) RGBA."""
        ...

    @property
    def velocities(self) -> NDArray[np.float64]:
        """(n, 2) world units per second."""
        ...


def frames_of(
    state: CrowdArrays,
    *,
    joint: Callable[[], NDArray[np.bool_]] | None = None,
    visible: Callable[[], NDArray[np.bool_] | None] | None = None,
) -> Callable[[], CrowdFrame]:
    """A `CrowdRenderer` source reading `state`'s arrays each frame (no copies, no loop).

    `joint` gives the rows a jam's joint plan moves now (`CrowdFrame.joint`), `visible` the
    rows that get a marker (`CrowdFrame.visible`: not those a link's crossing shows by their
    own model or a teleport hides).
    """

    def frame() -> CrowdFrame:
        return CrowdFrame(
            state.positions,
            state.headings_deg,
            state.radii,
            state.colors,
            state.velocities,
            visible=None if visible is None else visible(),
            joint=None if joint is None else joint(),
        )

    return frame


class CrowdRenderer(Component):
    """Draws the `source`'s agents as one marker batch under its game object, every frame.

    Args:
        source: Returns the agents' state now; called once per rendered frame.
        camera: The camera's node (a Camera with its lens), for the minimum on-screen size.
        window: The window or buffer it renders into (its height in pixels now).
        min_pixels: The smallest a marker is drawn across, in pixels.
        neighbour_dist: Neighbour search distance for the gizmos, when the frame has none.
        max_neighbours: At most this many neighbours an agent, likewise.
    """

    def __init__(
        self,
        source: Callable[[], CrowdFrame],
        *,
        camera: NodePath[Camera],
        window: GraphicsOutput,
        min_pixels: float = MIN_MARKER_PX,
        neighbour_dist: float = NEIGHBOUR_DIST,
        max_neighbours: int = MAX_NEIGHBOURS,
    ) -> None:
        super().__init__()
        self._source = source
        self._camera, self._window = camera, window
        self.min_pixels = min_pixels
        self._neighbour_dist, self._max_neighbours = neighbour_dist, max_neighbours
        self.show_gizmos = False
        self._markers: MarkerBatch | None = None

    @property
    def markers(self) -> MarkerBatch | None:
        """The marker batch (None before `awake`)."""
        return self._markers

    def toggle_gizmos(self) -> None:
        """Show or hide every agent's velocity and neighbour lines."""
        self.show_gizmos = not self.show_gizmos

    def awake(self) -> None:
        """Create the marker batch under this component's game object."""
        self._markers = MarkerBatch(self.game_object.node, name="crowd-markers")

    def on_destroy(self) -> None:
        """Remove the marker node."""
        if self._markers is not None:
            self._markers.destroy()
            self._markers = None

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Rewrite the markers from the source's arrays; draw the debug lines if shown."""
        if self._markers is None:
            return
        frame = self._source()
        self._markers.update(
            frame.positions,
            frame.headings_deg,
            self.drawn_radii(frame),
            marker_colors(frame),
            frame.visible,
        )
        if self.show_gizmos and len(frame.positions):
            gizmos.lines(GIZMO_KEYS[0], self.velocity_segments(frame), VELOCITY_COLOR)
            gizmos.lines(GIZMO_KEYS[1], self.neighbour_segments(frame), NEIGHBOUR_COLOR)

    def drawn_radii(self, frame: CrowdFrame) -> NDArray[np.float64]:
        """Each agent's radius, raised to `min_pixels / 2` pixels at its depth."""
        radii = np.asarray(frame.radii, dtype=np.float64)
        points = np.asarray(frame.positions, dtype=np.float64).reshape(-1, 2)
        if not len(points) or self.min_pixels <= 0.0:
            return radii
        xyz = np.column_stack([points, np.full(len(points), MARKER_Z)])
        lens = self._camera.node().get_lens()
        height = max(self._window.get_y_size(), 1)
        pixel = min_world_size(xyz, camera=self._camera, lens=lens, height_px=height)
        return np.maximum(radii, pixel * (self.min_pixels / 2.0))

    def velocity_segments(self, frame: CrowdFrame) -> NDArray[np.float64]:
        """(m, 2, 3) velocity lines of the shown agents that move (none without velocities)."""
        points = np.asarray(frame.positions, dtype=np.float64).reshape(-1, 2)
        if frame.velocities is None:
            return _segments(points[:0], points[:0], VELOCITY_Z)
        velocity = np.asarray(frame.velocities, dtype=np.float64).reshape(-1, 2)
        moving = np.einsum("ij,ij->i", velocity, velocity) > MOVING_SPEED**2
        if frame.visible is not None:
            moving &= np.asarray(frame.visible, dtype=bool)
        start = points[moving]
        return _segments(start, start + velocity[moving] * VELOCITY_LINE_S, VELOCITY_Z)

    def neighbour_segments(self, frame: CrowdFrame) -> NDArray[np.float64]:
        """(m, 2, 3) lines joining each pair of neighbours once, both of them shown."""
        points = np.asarray(frame.positions, dtype=np.float64).reshape(-1, 2)
        neighbours = frame.neighbours
        if neighbours is None:
            neighbours = find_neighbours(
                points, neighbour_dist=self._neighbour_dist, max_neighbours=self._max_neighbours
            )
        pairs = neighbour_pairs(neighbours)
        if frame.visible is not None:
            shown = np.asarray(frame.visible, dtype=bool)
            pairs = pairs[shown[pairs[:, 0]] & shown[pairs[:, 1]]]
        return _segments(points[pairs[:, 0]], points[pairs[:, 1]], NEIGHBOUR_Z)


def marker_colors(frame: CrowdFrame) -> NDArray[np.float64]:
    """Each agent's colour, `JOINT_PLAN_COLOR` for those in a joint plan (a copy only then).

    >>> frame = CrowdFrame(np.zeros((2, 2)), np.zeros(2), np.ones(2), np.ones((2, 4)),
    ...                    joint=np.array([False, True]))
    >>> marker_colors(frame).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 0.3, 1.0, 1.0]]
    """
    colors = np.asarray(frame.colors, dtype=np.float64)
    if frame.joint is None or not np.any(frame.joint):
        return colors
    colors = colors.copy()
    colors[np.asarray(frame.joint, dtype=bool)] = JOINT_PLAN_COLOR
    return colors


def neighbour_pairs(neighbours: NDArray[np.intp]) -> NDArray[np.intp]:
    """Each unordered pair of a neighbour table once, as rows `[i, j]` with `i < j`, sorted.

    >>> neighbour_pairs(np.array([[1, 2], [0, -1], [-1, -1]])).tolist()
    [[0, 1], [0, 2]]
    """
    table = np.asarray(neighbours, dtype=np.int64).reshape(len(neighbours), -1)
    n = len(table)
    rows = np.repeat(np.arange(n, dtype=np.int64), table.shape[1])
    cols = table.reshape(-1)
    found = (cols >= 0) & (cols != rows)
    low = np.minimum(rows[found], cols[found])
    high = np.maximum(rows[found], cols[found])
    # One integer per pair: a 1-D unique sorts plain numbers, many times faster than rows.
    keys = np.unique(low * n + high)
    return np.stack([keys // n, keys % n], axis=1).astype(np.intp)


def _segments(
    start: NDArray[np.float64], end: NDArray[np.float64], z: float
) -> NDArray[np.float64]:
    """(m, 2, 3) gizmo segments from (m, 2) starts and ends, at height `z`."""
    segments = np.full((len(start), 2, 3), z)
    segments[:, 0, :2] = start
    segments[:, 1, :2] = end
    return segments
