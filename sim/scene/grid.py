"""A scene file's navigation grid, computed without Panda3D exactly as the live app computes it.

The app's `GridManager` reads each Obstacle-tagged object's transform back from Panda3D, which
keeps it in single precision, and rasterizes `transform_box` of it. `scene_grid` does the same from
the `SceneSpec` alone, so headless tools (`sim compare`) search the very grid the 3D view shows.
"""

from __future__ import annotations

import numpy as np

from sim.config import Tag
from sim.navigation import (
    Box,
    Endpoints,
    GridMap,
    box_footprint,
    rasterize_terrain,
    transform_box,
)
from sim.scene.spec import ObjectSpec, SceneSpec


def obstacle_box(obj: ObjectSpec) -> Box:
    """Return the footprint GridManager rasterizes for object `obj`: its box seen from above.

    >>> from sim.config import Tag
    >>> from sim.scene.spec import ObjectSpec
    >>> wall = ObjectSpec("wall", Tag.OBSTACLE, "cube", (1.1, 2.0, 0.0), (3.0, 1.0, 1.0), -90.0)
    >>> obstacle_box(wall)
    Box(x=1.1, y=2.0, size_x=3.0, size_y=1.0, heading_deg=270.0)
    """
    x, y, _ = obj.pos
    size_x, size_y, _ = obj.scale
    # Panda3D stores a transform in float32 and GridManager reads it back as such.
    single = (float(np.float32(value)) for value in (x, y, size_x, size_y, obj.heading))
    return transform_box(*single)


def scene_grid(scene: SceneSpec) -> GridMap:
    """Return the scene's grid: walkable wherever no Obstacle-tagged object's footprint lies.

    Objects with other tags never block. Parts of an obstacle off the grid are dropped, as in
    the app. Terrain-tagged objects give the cells they cover their cost (the highest where
    patches overlap, `rasterize_terrain`); a scene without terrain has no cost array.
    """
    spec = scene.grid
    blocked = np.zeros((spec.rows, spec.columns), dtype=bool)
    for obj in scene.objects_with_tag(Tag.OBSTACLE):
        footprint = box_footprint(
            obstacle_box(obj), blocked.shape, origin=spec.origin, cell_size=spec.cell_size
        )
        blocked[footprint.rows, footprint.cols] |= footprint.mask
    patches = [
        (obstacle_box(obj), obj.terrain_cost)
        for obj in scene.objects_with_tag(Tag.TERRAIN)
        if obj.terrain_cost is not None
    ]
    costs = (
        rasterize_terrain(patches, blocked.shape, origin=spec.origin, cell_size=spec.cell_size)
        if patches
        else None
    )
    return GridMap(~blocked, costs, origin=spec.origin, cell_size=spec.cell_size)


def scene_endpoints(scene: SceneSpec, grid: GridMap) -> Endpoints:
    """Return the cells between the scene's first Start and first End object, on `grid`.

    As in the app (`GridMap.endpoints`): a point off the grid takes the nearest border cell, a
    point in an obstacle the nearest walkable cell, and the result says so.

    Raises:
        ValueError: naming the scene, when it has no Start or no End object.
    """
    points = []
    for tag in (Tag.START, Tag.END):
        found = scene.objects_with_tag(tag)
        if not found:
            raise ValueError(f"scene {scene.name!r} ({scene.path}) has no {tag} object")
        points.append((found[0].pos[0], found[0].pos[1]))
    return grid.endpoints(points[0], points[1])
