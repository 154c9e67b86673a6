"""Where the scene shows in the window: world points to window pixels through the viewport."""

from __future__ import annotations

from panda3d.core import Lens, NodePath, Point3

from sim.engine import GameObject
from sim.engine.projection import world_to_pixel
from sim.ui.layout import DockedLayout


def screen_of_point(
    point: Point3, *, camera: NodePath, lens: Lens, layout: DockedLayout
) -> tuple[int, int] | None:
    """Where world `point` shows in the window (pixels, origin top-left), if in the viewport."""
    viewport = layout.frame.viewport
    seen = world_to_pixel(point, camera=camera, lens=lens, size=(viewport.width, viewport.height))
    if seen is None:
        return None
    return seen[0] + viewport.left, seen[1] + viewport.top


def middle_of(game_object: GameObject, render: NodePath) -> Point3:
    """The middle of `game_object`'s bounds in `render`'s frame (its position if it has none)."""
    node = game_object.node
    # Bounds relative to another node leave composed transforms in Panda3D's state cache,
    # which ShowBase then sweeps every frame: for 20,000 objects, 8 s a frame after the
    # first report. A child of render needs no other node: its parent's frame is render's.
    bounds = (
        node.get_tight_bounds() if node.get_parent() == render else node.get_tight_bounds(render)
    )
    if bounds is None:
        return Point3(*game_object.world_pos)
    low, high = bounds
    return Point3((low + high) / 2)
