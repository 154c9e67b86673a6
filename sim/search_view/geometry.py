"""Where the search view draws: coloured cells, parent arrows, and which numbers can be read.

Plain numpy over a replay's arrays and the grid's cell centres: the view hands in what it takes
from Panda3D (cell centres, the camera's matrix and lens) as numbers, so these rules can be
read, and tested, without a window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.navigation.replay.log import CellStatus
from sim.navigation.replay.recorder import Replay

# Cells sit just above the blocked-cell shading (0.01) and below the grid lines (0.02), so the
# lines still frame every cell; arrows float above both.
CELL_Z = 0.013
ARROW_Z = 0.08
RIBBON_Z = 0.1  # Theta*'s path, over its thicket of any-angle arrows: the answer stays in view
RIBBON_WIDTH = 0.3  # as a fraction of a cell
LABEL_Z = 0.35  # in cells: the numbers float over the middle of their cell
CELL_INSET = 0.06  # fraction of a cell left bare on each side
ARROW_FROM, ARROW_TO = 0.15, 0.75  # where an arrow starts and ends, as a fraction of the step
ARROW_HEAD = 0.18  # head length, as a fraction of a cell
MIN_LABEL_PX = 44.0  # a cell must span this many pixels on screen for its numbers to be read
MAX_LABELS = 400  # the nearest this many cells get numbers; beyond that they would be noise
LAYERS = ("search-open", "search-closed", "search-path", "search-current")
"""The coloured cell layers, in drawing order (`layer_cells` fills them)."""


def layer_cells(replay: Replay) -> dict[str, NDArray[np.intp]]:
    """The flat cells of each of `LAYERS` at the replay's step.

    Start and End are left out: their cubes show them, and paint there would only hide under
    them. A cell on the path is only in the path layer, and the cell expanded last is in the
    current layer unless it is on the path.
    """
    width = replay.log.width
    status = replay.status.ravel()
    ends = np.array(
        [
            replay.log.start[0] * width + replay.log.start[1],
            replay.log.goal[0] * width + replay.log.goal[1],
        ]
    )
    keep = np.ones(status.size, dtype=bool)
    keep[ends] = False
    current = -1 if replay.current is None else replay.current[0] * width + replay.current[1]
    path = np.array([row * width + col for row, col in replay.path], dtype=np.intp)
    on_path = np.zeros(status.size, dtype=bool)
    on_path[path] = True
    closed = (status == CellStatus.CLOSED) & keep & ~on_path
    if current >= 0:
        closed[current] = False
    shown_current = current >= 0 and keep[current] and not on_path[current]
    return {
        "search-open": np.flatnonzero((status == CellStatus.OPEN) & keep),
        "search-closed": np.flatnonzero(closed),
        "search-path": np.flatnonzero(on_path & keep),
        "search-current": np.array([current] if shown_current else [], dtype=np.intp),
    }


def tape_layers(replay: Replay, layers: dict[str, NDArray[np.intp]]) -> dict[str, NDArray[np.intp]]:
    """Bidirectional's layers: the backward half's cells out of `layers`, and the meeting cell.

    Returns replacements for "search-open" and "search-closed" without the backward half's
    cells, which go to "search-open-back" and "search-closed-back", and "search-meeting" (the
    cell where the halves' best path meets, unless an end or the path covers it). Other
    searches get empty extra layers.
    """
    side = replay.side.ravel()
    backward = side == 2
    split: dict[str, NDArray[np.intp]] = {}
    for key in ("search-open", "search-closed"):
        cells = layers[key]
        split[key] = cells[~backward[cells]]
        split[key + "-back"] = cells[backward[cells]]
    meeting = replay.meeting_cell
    shown: list[int] = []
    if meeting is not None and meeting not in (replay.log.start, replay.log.goal):
        shown = [meeting[0] * replay.log.width + meeting[1]]
        # The meeting cell is drawn in its own colour only, even once the path covers it.
        for key in ("search-path", "search-current"):
            cells = layers[key]
            split[key] = cells[cells != shown[0]]
        for key in ("search-open", "search-closed", "search-open-back", "search-closed-back"):
            split[key] = split[key][split[key] != shown[0]]
    split["search-meeting"] = np.array(shown, dtype=np.intp)
    return split


def segment_ribbons(points: NDArray[np.float64], width: float, z: float) -> NDArray[np.float32]:
    """Flat quads ``(N - 1, 4, 3)`` `width` wide along the segments joining `points` (x, y rows).

    Lines one pixel wide are all the software renderer draws, whatever their thickness: a path
    of straight segments (Theta*'s) is drawn as ribbons on the ground instead.
    """
    if len(points) < 2:
        return np.zeros((0, 4, 3), dtype=np.float32)
    here, there = points[:-1], points[1:]
    step = there - here
    length = np.linalg.norm(step, axis=1, keepdims=True)
    side = np.stack([-step[:, 1], step[:, 0]], axis=1) / np.maximum(length, 1e-12) * width / 2
    corners = [here - side, there - side, there + side, here + side]
    z_all = np.full((len(here), 1), z)
    quads = np.stack([np.concatenate([corner, z_all], axis=1) for corner in corners], axis=1)
    return quads.astype(np.float32)


def parent_arrows(
    here: NDArray[np.float64], there: NDArray[np.float64], cell_size: float
) -> NDArray[np.float32]:
    """Arrows from cell centres `here` toward their parents' `there` (rows of world x, y).

    Each arrow is three segments, a shaft and two head strokes; the result holds all shafts,
    then all left strokes, then all right strokes, as ``[n, 2, 3]`` points at `ARROW_Z`.
    """
    if len(here) == 0:
        return np.zeros((0, 2, 3), dtype=np.float32)
    step = there - here
    tail = here + ARROW_FROM * step
    tip = here + ARROW_TO * step
    length = np.linalg.norm(step, axis=1, keepdims=True)
    back = -step / length * ARROW_HEAD * cell_size
    # The two head strokes: the backward direction turned by +-30 degrees.
    cos, sin = math.cos(math.radians(30.0)), math.sin(math.radians(30.0))
    left = np.stack(
        [back[:, 0] * cos - back[:, 1] * sin, back[:, 0] * sin + back[:, 1] * cos], axis=1
    )
    right = np.stack(
        [back[:, 0] * cos + back[:, 1] * sin, -back[:, 0] * sin + back[:, 1] * cos], axis=1
    )
    z = np.full((len(here), 1), ARROW_Z)

    def at_z(points: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.concatenate([points, z], axis=1)

    shafts = np.stack([at_z(tail), at_z(tip)], axis=1)
    heads_left = np.stack([at_z(tip), at_z(tip + left)], axis=1)
    heads_right = np.stack([at_z(tip), at_z(tip + right)], axis=1)
    return np.concatenate([shafts, heads_left, heads_right]).astype(np.float32)


@dataclass(frozen=True, slots=True)
class Sight:
    """What the camera can read: its frustum, its near plane, and how big a cell looks.

    Attributes:
        half_w: tan of half the horizontal field of view.
        half_h: tan of half the vertical field of view.
        near: distance of the near plane.
        pixels_per_unit_depth: pixels a cell spans on screen, times its depth.
    """

    half_w: float
    half_h: float
    near: float
    pixels_per_unit_depth: float

    @classmethod
    def of(
        cls, fov_deg: tuple[float, float], near: float, window_height: int, cell_size: float
    ) -> Sight:
        """The sight of a lens with field of view `fov_deg` (w, h) over a grid of `cell_size`."""
        half_w, half_h = (math.tan(math.radians(angle) / 2.0) for angle in fov_deg)
        return cls(half_w, half_h, near, cell_size * window_height / (2.0 * half_h))

    def reads_nothing(self, height: float) -> bool:
        """Whether no label can be read from `height` above the labels' plane.

        No point in view is nearer (in depth) than the camera's height above it divided by
        the frustum's half-diagonal slope: when a cell there is still too small to read, every
        cell is, and the usual far-away view costs nothing per cell.
        """
        nearest = height / math.sqrt(1.0 + self.half_w * self.half_w + self.half_h * self.half_h)
        return nearest > 0.0 and self.pixels_per_unit_depth / nearest < MIN_LABEL_PX

    def readable(self, local: NDArray[np.float64]) -> NDArray[np.intp]:
        """Indices of the points readable on screen, nearest first, at most `MAX_LABELS`.

        `local` holds camera-space points as rows ``x, depth, z, w`` (Panda3D: +y forward).
        """
        depth = local[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            readable = (
                (depth > self.near)
                & (np.abs(local[:, 0]) <= depth * self.half_w)
                & (np.abs(local[:, 2]) <= depth * self.half_h)
                & (self.pixels_per_unit_depth / depth >= MIN_LABEL_PX)
            )
        nearest_first = np.flatnonzero(readable)
        nearest_first = nearest_first[np.argsort(depth[nearest_first], kind="stable")]
        return nearest_first[:MAX_LABELS]
