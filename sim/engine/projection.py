"""World points to window pixels, for the report's `screen` field and for tests that click."""

from __future__ import annotations

from panda3d.core import Lens, NodePath, Point2, Point3


def world_to_pixel(
    point: Point3, *, camera: NodePath, lens: Lens, size: tuple[int, int]
) -> tuple[int, int] | None:
    """Return the pixel `(x, y)` where `point` appears, origin top-left, or None when not visible.

    `point` is in the coordinate space of `camera`'s scene root. None means the point is behind
    the camera or outside the window.
    """
    in_camera = camera.get_relative_point(camera.get_top(), point)
    projected = Point2()
    if not lens.project(in_camera, projected):
        return None
    width, height = size
    x = (projected.x + 1.0) / 2.0 * width
    y = (1.0 - projected.y) / 2.0 * height
    if not (0 <= x < width and 0 <= y < height):
        return None
    return int(x), int(y)


def node_middle(node: NodePath) -> Point3:
    """The middle of `node`'s tight bounds in its scene root's space (its origin when empty)."""
    root = node.get_top()
    # Bounds relative to another node leave composed transforms in Panda3D's state cache,
    # which ShowBase then sweeps every frame: for 20,000 objects, 8 s a frame after the
    # first report. A child of the root needs no other node: its parent's frame is the root's;
    # so does a child of an untransformed child of the root (a wall batch's hidden cubes).
    parent = node.get_parent()
    in_frame = parent == root or (
        parent.get_parent() == root and parent.get_transform().is_identity()
    )
    bounds = node.get_tight_bounds() if in_frame else node.get_tight_bounds(root)
    if bounds is None:
        return node.get_pos(root)
    low, high = bounds
    return Point3((low + high) / 2)
