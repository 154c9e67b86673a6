"""An environment's `rgb_array` frame is the 3D scene: its ground, its walls and the agents."""

from __future__ import annotations

import builtins

import gymnasium
import numpy as np
import pytest

import sim.envs
from sim.envs import mapf_policy, parallel_env
from sim.envs.view import agent_color
from sim.scene.builder import GROUND_COLOR
from tests.helpers.paths import DEFAULT_SCENE, REPO_ROOT
from tests.helpers.pixels import near, rgb, screenshot_rgb

pytestmark = pytest.mark.render

MAP = REPO_ROOT / "tests" / "data" / "maps" / "two_rooms.map"


def count(frame: np.ndarray, color: tuple[float, ...], tolerance: int = 40) -> int:
    target = rgb(color) if max(color) <= 1.0 else tuple(int(c) for c in color[:3])
    return int(near(frame, target, tolerance).sum())  # type: ignore[arg-type]


def most_common(frame: np.ndarray) -> tuple[int, int, int]:
    colours, counts = np.unique(frame.reshape(-1, 3), axis=0, return_counts=True)
    red, green, blue = (int(value) for value in colours[counts.argmax()])
    return red, green, blue


def test_navigate_renders_the_scene_with_its_agent(open_app) -> None:
    env = gymnasium.make(sim.envs.NAVIGATE_ID, render_mode="rgb_array", render_size=(320, 240))
    try:
        env.reset(seed=0)
        frame = env.render()
        assert isinstance(frame, np.ndarray)
        assert frame.shape == (240, 320, 3)
        assert frame.dtype == np.uint8
        assert count(frame, agent_color(0), tolerance=8) > 20
        before = frame.copy()
        env.step(2)
        env.step(2)
        after = env.render()
        assert isinstance(after, np.ndarray)
        assert not np.array_equal(after, before)  # the agent moved in the picture
    finally:
        env.close()
    assert getattr(builtins, "base", None) is None
    # The picture is the app's scene: its lit ground, most of the frame, is the app's colour.
    ground = most_common(frame)
    assert np.abs(np.array(ground) - [round(c * 255) for c in GROUND_COLOR[:3]]).max() < 80
    app = open_app(DEFAULT_SCENE)
    app.step()
    # The app shows its scene in the viewport between its docks: the ground is seen there.
    view = app.layout.frame.viewport
    image = screenshot_rgb(app.base.win)
    scene = image[view.top : view.top + view.height, view.left : view.left + view.width]
    assert count(scene, ground, tolerance=3) > view.width * view.height // 10


def test_the_parallel_env_renders_a_map_with_every_agent() -> None:
    env = parallel_env(map=MAP, agents=3, render_mode="rgb_array", render_size=(320, 240))
    try:
        env.reset(seed=2)
        frame = env.render()
        assert frame is not None
        assert frame.shape == (240, 320, 3)
        for index in range(3):
            assert count(frame, agent_color(index), tolerance=8) > 10, index
        # Agents that reach their targets leave the grid, and the picture.
        act = mapf_policy(env, "lacam", time_limit_s=5.0)
        while env.agents:
            env.step(act(None))
        done = env.render()
        assert done is not None
        for index in range(3):
            assert count(done, agent_color(index), tolerance=8) == 0, index
    finally:
        env.close()
