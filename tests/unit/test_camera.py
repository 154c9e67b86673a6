from __future__ import annotations

import pytest
from panda3d.core import NodePath

from sim.engine.camera import MAX_PITCH_DEG, MIN_PITCH_DEG, CameraPose, DragMode, OrbitCamera

HOME = CameraPose(target=(1.0, 2.0, 0.0), distance=20.0, heading_deg=20.0, pitch_deg=-55.0)


@pytest.fixture
def rig() -> tuple[NodePath, NodePath, OrbitCamera]:
    root = NodePath("root")
    camera = root.attach_new_node("camera")
    return root, camera, OrbitCamera(camera, HOME)


def test_camera_looks_at_target_from_distance(rig):
    root, camera, _ = rig
    on_view_axis = root.get_relative_point(camera, (0, HOME.distance, 0))
    assert tuple(on_view_axis) == pytest.approx(HOME.target, abs=1e-4)
    offset = camera.get_pos(root) - on_view_axis
    assert offset.length() == pytest.approx(HOME.distance, abs=1e-4)
    assert camera.get_pos(root).z > 0, "a negative pitch puts the camera above the ground"


def test_orbit_drag_turns_heading_and_keeps_distance(rig):
    root, camera, orbit = rig
    orbit.begin_drag(DragMode.ORBIT, (0.0, 0.0))
    orbit.drag_to((0.5, 0.0))
    orbit.end_drag()
    assert orbit.pose.heading_deg != HOME.heading_deg
    assert orbit.pose.target == HOME.target
    target = root.get_relative_point(camera, (0, orbit.pose.distance, 0))
    assert tuple(target) == pytest.approx(HOME.target, abs=1e-4)


@pytest.mark.parametrize(
    ("drag_y", "limit"),
    [(10.0, MAX_PITCH_DEG), (-10.0, MIN_PITCH_DEG)],
    ids=["up-clamps-near-horizon", "down-clamps-at-top-view"],
)
def test_orbit_pitch_is_clamped(rig, drag_y, limit):
    _, _, orbit = rig
    orbit.begin_drag(DragMode.ORBIT, (0.0, 0.0))
    orbit.drag_to((0.0, drag_y))
    assert orbit.pose.pitch_deg == limit


def test_pan_moves_target_in_ground_plane(rig):
    _, _, orbit = rig
    orbit.begin_drag(DragMode.PAN, (0.0, 0.0))
    orbit.drag_to((0.3, 0.2))
    assert orbit.pose.target[:2] != HOME.target[:2]
    assert orbit.pose.target[2] == HOME.target[2]
    assert orbit.pose.heading_deg == HOME.heading_deg


def test_drag_without_begin_does_nothing(rig):
    _, _, orbit = rig
    orbit.drag_to((0.9, 0.9))
    assert orbit.pose == HOME


def test_zoom_in_and_out(rig):
    _, _, orbit = rig
    orbit.zoom(1)
    assert orbit.pose.distance < HOME.distance
    orbit.zoom(-2)
    assert orbit.pose.distance > HOME.distance


def test_reset_returns_home(rig):
    _, _camera, orbit = rig
    orbit.begin_drag(DragMode.ORBIT, (0.0, 0.0))
    orbit.drag_to((0.4, 0.3))
    orbit.zoom(3)
    orbit.reset()
    assert orbit.pose == HOME
    assert not orbit.dragging
