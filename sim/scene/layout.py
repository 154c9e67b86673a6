"""A scene of a grid layout: the TOML text the 3D app opens to show a generated (or any) map.

The scene's grid has a cell per map cell, 1 unit wide, centred on the world origin. The map's
first row is the scene's last (the north edge, +y), so seen from above the scene looks like
the ``.map`` file reads. The blocked cells become as few Obstacle cubes as
`blocked_rectangles` gives (runs of each row, merged down through equal runs); Start and End
stand on connected cells far apart (`distant_pair`), and one agent starts on Start and chases
End. The camera looks down on the whole grid.

`layout_boxes` places the same rectangles on any grid (the app's generator menu lays a layout
over the running scene's grid with it), and `grid_cell` says where a map cell lands there.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Final

import numpy as np
from numpy.typing import NDArray

from sim.config import Tag
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import Cell, check_walkable
from sim.navigation.maps.generators import blocked_rectangles, distant_pair
from sim.scene.spec import DEFAULT_COLORS, CameraSpec, GridSpec, ObjectSpec, SceneSpec

CAMERA_PITCH_DEG: Final = -75.0
"""Steep enough to see down every corridor of a maze, not straight down (an orbit's pole)."""
# As `sim.scene.file`'s default camera: the lens's 50-degree field of view, a small margin.
_FOV_DEG: Final = 50.0
_MARKER_SCALE: Final = 0.8


def layout_scene_text(walkable: NDArray[np.bool_], *, name: str, comment: str = "") -> str:
    """Return the TOML text of a scene showing `walkable` (``[row, col]`` as a .map reads).

    Args:
        walkable: the map, True where walkable; its row 0 is the map's top (north) row.
        name: the scene's name (shown in the window's title).
        comment: text for the comment at the head of the file (how the map was made); may
            hold several lines.

    Raises:
        ValueError: the map has fewer than 2 connected walkable cells (no Start and End).

    >>> text = layout_scene_text(np.array([[True, False], [True, True]]), name="tiny")
    >>> "rows = 2" in text and 'name = "obstacle_1"' in text
    True
    """
    mask = check_walkable(walkable)
    return _scene_text(mask, name, distant_pair(mask), comment, chaser=True)


def map_scene_text(
    walkable: NDArray[np.bool_],
    *,
    name: str,
    endpoints: tuple[Cell, Cell] | None,
    comment: str = "",
) -> str:
    """Return the TOML text of a scene of `walkable` with Start and End on `endpoints`.

    As `layout_scene_text`, without the agent: `endpoints` are map cells ``(row, col)`` for
    the Start and End cubes, or None for a scene without them (a map opened with no scenario).

    >>> text = map_scene_text(np.array([[True, False]]), name="tiny", endpoints=None)
    >>> 'tag = "Start"' in text, 'name = "obstacle_1"' in text
    (False, True)
    """
    return _scene_text(check_walkable(walkable), name, endpoints, comment, chaser=False)


def map_scene_spec(
    walkable: NDArray[np.bool_],
    *,
    path: Path,
    name: str,
    endpoints: tuple[Cell, Cell] | None,
) -> SceneSpec:
    """The `SceneSpec` that `load_scene` reads from `map_scene_text`'s text, built directly.

    A 512 x 512 map is some 35,000 obstacle tables: writing and reading them back as TOML
    took most of a map's opening. `path` is the file the scene names as its own (saving
    merges edits onto it, so the caller writes `map_scene_text` there).

    >>> spec = map_scene_spec(np.array([[True, False]]), path=Path("t.toml"), name="t",
    ...                       endpoints=None)
    >>> [(obj.name, obj.pos, obj.scale) for obj in spec.objects]
    [('obstacle_1', (0.5, 0.0, 0.0), (1.0, 1.0, 1.0))]
    """
    mask = check_walkable(walkable)
    height, width = mask.shape
    grid = GridSpec((-width / 2, -height / 2), height, width, 1.0, DiagonalRule.NO_CORNER_CUTTING)
    camera = CameraSpec((0.0, 0.0, 0.0), _camera_distance(width, height), 0.0, CAMERA_PITCH_DEG)
    objects = tuple(
        ObjectSpec(
            name,
            Tag(tag),
            model,
            (x, y, 0.0),
            (scale, scale, scale) if isinstance(scale, float) else scale or (1.0, 1.0, 1.0),
            color=DEFAULT_COLORS[Tag(tag)],
        )
        for name, tag, model, x, y, scale in _scene_objects(mask, endpoints, chaser=False)
    )
    return SceneSpec(path, 1, name, grid, camera, objects)


_Placed = tuple[str, str, str, float, float, float | tuple[float, float, float] | None]
"""An object of a map scene: name, tag, model, x, y and its scale (one number, three, or None
for the model's own)."""


def _scene_objects(
    mask: NDArray[np.bool_], endpoints: tuple[Cell, Cell] | None, *, chaser: bool
) -> list[_Placed]:
    """Start and End on `endpoints` (and an agent on Start when `chaser`), then the Obstacles."""
    height, width = mask.shape
    placed: list[_Placed] = []
    if endpoints is not None:
        start_x, start_y = _centre(endpoints[0], height, width)
        end_x, end_y = _centre(endpoints[1], height, width)
        placed.append(("start", "Start", "cube", start_x, start_y, _MARKER_SCALE))
        placed.append(("end", "End", "cube", end_x, end_y, _MARKER_SCALE))
        if chaser:
            placed.append(("agent", "Agent", "agent", start_x, start_y, None))
    for index, (row0, col0, row1, col1) in enumerate(blocked_rectangles(mask), start=1):
        x = -width / 2 + (col0 + col1) / 2
        y = height / 2 - (row0 + row1) / 2
        scale = (float(col1 - col0), float(row1 - row0), 1.0)
        placed.append((f"obstacle_{index}", "Obstacle", "cube", x, y, scale))
    return placed


def _camera_distance(width: int, height: int) -> float:
    """How far the camera stands to see the whole grid (as `sim.scene.file`'s default)."""
    radius = math.hypot(width, height) / 2
    return round(radius / math.sin(math.radians(_FOV_DEG / 2)), 3)


def _scene_text(
    mask: NDArray[np.bool_],
    name: str,
    endpoints: tuple[Cell, Cell] | None,
    comment: str,
    *,
    chaser: bool,
) -> str:
    """The scene's text; `chaser` adds an agent on Start that chases End."""
    height, width = mask.shape
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    lines += [
        "# Obstacles are runs of blocked cells merged into rectangles; the map's first row is",
        "# the scene's north edge (+y).",
        "",
        "version = 1",
        f"name = {_string(name)}",
        "",
        "[grid]",
        f"origin = [{-width / 2}, {-height / 2}]",
        f"rows = {height}",
        f"columns = {width}",
        "cell_size = 1.0",
        "connectivity = 8",
        "",
        "[camera]",
        "target = [0.0, 0.0, 0.0]",
        f"distance = {_camera_distance(width, height)}",
        "heading = 0.0",
        f"pitch = {CAMERA_PITCH_DEG}",
        "",
    ]
    for label, tag, model, x, y, scale in _scene_objects(mask, endpoints, chaser=chaser):
        if isinstance(scale, tuple):
            lines += _object(label, tag, model, x, y, f"[{scale[0]}, {scale[1]}, {scale[2]}]")
        else:
            lines += _object(label, tag, model, x, y, scale)
    return "\n".join(lines) + "\n"


BOX_MARGIN: Final = 1e-4
"""How far, in cells, a box of `layout_boxes` stays inside its cells' edges: the grid counts a
cell a box only touches as free, and float32 positions must not tip an edge over."""


def layout_boxes(
    walkable: NDArray[np.bool_], *, origin: tuple[float, float], cell_size: float
) -> list[tuple[float, float, float, float]]:
    """The obstacle boxes ``(x, y, size_x, size_y)`` that block exactly `walkable`'s blocked cells.

    The map's row 0 lands on the grid's last row (the north edge, +y), as in
    `layout_scene_text`: a grid of the map's size with its minimum corner at `origin` then
    blocks the cells ``grid_cell`` gives for the map's blocked cells, and no other.

    >>> layout_boxes(np.array([[False, True], [True, True]]), origin=(0.0, 0.0), cell_size=2.0)
    [(1.0, 3.0, 1.9996, 1.9996)]
    """
    mask = check_walkable(walkable)
    height = mask.shape[0]
    x0, y0 = origin
    inset = 2 * BOX_MARGIN * cell_size
    boxes = []
    for row0, col0, row1, col1 in blocked_rectangles(mask):
        x = x0 + (col0 + col1) / 2 * cell_size
        y = y0 + (height - (row0 + row1) / 2) * cell_size
        size_x, size_y = (col1 - col0) * cell_size - inset, (row1 - row0) * cell_size - inset
        boxes.append((x, y, size_x, size_y))
    return boxes


def grid_cell(cell: Cell, height: int) -> Cell:
    """The grid cell ``(row, col)`` a map cell lands on (`layout_boxes`: map row 0 is north).

    >>> grid_cell((0, 3), 10)
    (9, 3)
    """
    row, col = cell
    return height - 1 - row, col


def _centre(cell: Cell, height: int, width: int) -> tuple[float, float]:
    """World x, y of a map cell's centre (map row 0 is the north edge)."""
    row, col = cell
    return -width / 2 + col + 0.5, height / 2 - row - 0.5


def _object(
    name: str, tag: str, model: str, x: float, y: float, scale: float | str | None
) -> list[str]:
    lines = [
        "[[objects]]",
        f'name = "{name}"',
        f'tag = "{tag}"',
        f'model = "{model}"',
        f"pos = [{float(x)}, {float(y)}, 0.0]",
    ]
    if scale is not None:
        lines.append(f"scale = {scale}")
    return [*lines, ""]


def _string(text: str) -> str:
    """`text` as a TOML basic string (quotes, backslashes and control characters escaped)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(
        f"\\u{ord(char):04x}" if ord(char) < 32 or ord(char) == 127 else char for char in escaped
    )
    return f'"{escaped}"'
