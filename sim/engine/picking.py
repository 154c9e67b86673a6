"""Mouse picking: which game object is under the cursor, and which ground point.

A ray from the camera through the cursor is tested against the visible geometry of objects
made pickable (their collide mask), so no extra collision solids need to be kept in step with
the models; dragging intersects the same ray with the ground plane z = 0.
"""

from __future__ import annotations

from panda3d.core import (
    BitMask32,
    Camera,
    CollisionHandlerQueue,
    CollisionNode,
    CollisionRay,
    CollisionTraverser,
    LMatrix4f,
    NodePath,
    Plane,
    Point2,
    Point3,
    Vec3,
)

from sim.engine.game_object import GameObject

PICK_MASK = BitMask32.bit(1)


def make_pickable(game_object: GameObject) -> None:
    """Let rays hit the object's visible geometry (no collision solids needed)."""
    game_object.node.set_collide_mask(PICK_MASK)


class Picker:
    """Casts the mouse ray into the scene under `root` as seen by `camera` (a Camera node).

    Mouse positions are Panda3D's normalised window coordinates: x and y in [-1, 1], +y up.
    The camera may show the scene in part of the window (its display region, the viewport of
    a docked layout): positions are mapped into that region, and one outside it hits nothing.
    """

    def __init__(self, camera: NodePath[Camera], root: NodePath) -> None:
        self._camera = camera
        self._root = root
        self._ray = CollisionRay()
        ray_node = CollisionNode("mouse-ray")
        ray_node.add_solid(self._ray)
        ray_node.set_from_collide_mask(PICK_MASK)
        ray_node.set_into_collide_mask(BitMask32.all_off())
        self._ray_np = camera.attach_new_node(ray_node)
        self._queue = CollisionHandlerQueue()
        self._traverser = CollisionTraverser("mouse-picker")
        self._traverser.add_collider(self._ray_np, self._queue)

    def in_view(self, mouse: tuple[float, float]) -> tuple[float, float] | None:
        """`mouse` in the camera's display region's own [-1, 1] coordinates; None outside it."""
        node = self._camera.node()
        if node.get_num_display_regions() == 0:
            return mouse
        left, right, bottom, top = node.get_display_region(0).get_dimensions()
        x = ((mouse[0] + 1.0) / 2.0 - left) / max(right - left, 1e-9) * 2.0 - 1.0
        y = ((mouse[1] + 1.0) / 2.0 - bottom) / max(top - bottom, 1e-9) * 2.0 - 1.0
        if not (-1.0 <= x <= 1.0 and -1.0 <= y <= 1.0):
            return None
        return x, y

    def sight(self, mouse: tuple[float, float]) -> tuple[object, ...]:
        """All a pick at `mouse` depends on but the scene: the pointer, the camera, its lens.

        Equal sights pick the same object while the scene stands still, so a hover need not
        cast again: a pick walks every pickable node, a map's ten thousand boxes included.
        """
        lens = self._camera.node().get_lens()
        return (
            self.in_view(mouse),
            LMatrix4f(self._camera.get_mat(self._root)),
            LMatrix4f(lens.get_projection_mat()),
        )

    def pick(self, mouse: tuple[float, float]) -> GameObject | None:
        """The nearest pickable game object under `mouse`, or None."""
        seen = self.in_view(mouse)
        if seen is None:
            return None
        self._ray.set_from_lens(self._camera.node(), *seen)
        self._traverser.traverse(self._root)
        if self._queue.get_num_entries() == 0:
            return None
        self._queue.sort_entries()
        for index in range(self._queue.get_num_entries()):
            hit = GameObject.from_node(self._queue.get_entry(index).get_into_node_path())
            if hit is not None and hit.alive:
                return hit
        return None

    def ground_point(self, mouse: tuple[float, float], *, z: float = 0.0) -> Point3 | None:
        """Where the ray under `mouse` meets the horizontal plane at height `z`, or None.

        None when the ray runs parallel to the plane or points away from it (above the horizon),
        or when `mouse` lies outside the camera's display region.
        """
        seen = self.in_view(mouse)
        near, far = Point3(), Point3()
        # The lens now, not the one at construction: the top-down view swaps lenses.
        lens = self._camera.node().get_lens()
        if seen is None or not lens.extrude(Point2(*seen), near, far):
            return None
        near_world = self._root.get_relative_point(self._camera, near)
        far_world = self._root.get_relative_point(self._camera, far)
        hit = Point3()
        plane = Plane(Vec3(0, 0, 1), Point3(0, 0, z))
        if not plane.intersects_line(hit, near_world, far_world):
            return None
        if (hit - near_world).dot(far_world - near_world) < 0:
            return None
        return hit

    def destroy(self) -> None:
        """Remove the ray from the scene."""
        self._traverser.clear_colliders()
        self._ray_np.remove_node()
