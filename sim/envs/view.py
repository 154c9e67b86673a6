"""The 3D view of an environment: its scene, built as the window builds it, with agent markers.

"rgb_array" renders offscreen with Panda3D's software renderer and reads the frame back as a
``(height, width, 3)`` uint8 array; "human" opens a window and shows each frame. A map becomes a
scene first (`sim.scene.layout.map_scene_text`: blocked cells merged into few boxes). Panda3D
allows one ShowBase per process, so one environment at a time may render; `close` frees it.
"""

from __future__ import annotations

import builtins
import colorsys
import tomllib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from panda3d.core import NodePath, TransparencyAttrib

from sim.engine import World
from sim.engine.camera import CameraPose, OrbitCamera
from sim.engine.showbase import DisplaySettings, SimShowBase, open_showbase
from sim.envs.source import EnvError, GridSource
from sim.navigation import Cell
from sim.scene.builder import build_scene
from sim.scene.file import parse_scene
from sim.scene.grid import scene_grid
from sim.scene.layout import map_scene_text
from sim.scene.spec import SceneSpec

AGENT_HEIGHT = 0.8
"""An agent marker's height, in cells: tall enough to stand out of the ground's grid lines."""
GOAL_HEIGHT = 0.08
"""A goal marker is a flat tile of its agent's colour, darker, so that seen from above the two
still differ."""
GOAL_SHADE = 0.45


def agent_color(index: int) -> tuple[float, float, float, float]:
    """The colour of agent `index`: hues spread by the golden angle, so neighbours differ."""
    red, green, blue = colorsys.hsv_to_rgb((index * 0.618034) % 1.0, 0.75, 0.95)
    return red, green, blue, 1.0


class SceneView:
    """One environment's 3D view (see the module).

    Args:
        source: the environment's grid.
        mode: "rgb_array" or "human".
        size: the frame's ``(width, height)`` in pixels.

    Raises:
        EnvError: when another view (or app) already holds this process's ShowBase.
    """

    def __init__(self, source: GridSource, mode: str, size: tuple[int, int]) -> None:
        if getattr(builtins, "base", None) is not None:
            raise EnvError("one 3D view per process: close the other environment's view first")
        self._source = source
        scene = source.scene or _map_scene(source)
        self._grid = scene_grid(scene)
        settings = DisplaySettings(
            headless=mode == "rgb_array", size=size, title=f"gridpath-sim: {source.name}"
        )
        self.base: SimShowBase = open_showbase(settings)
        self._world = World(self.base.render)
        build_scene(self._world, self.base.loader, scene)
        pose = scene.camera
        OrbitCamera(
            self.base.camera, CameraPose(pose.target, pose.distance, pose.heading, pose.pitch)
        )
        self._markers = self.base.render.attach_new_node("env-markers")
        self._agents: list[NodePath] = []
        self._goals: list[NodePath] = []
        self._cube = self.base.loader.load_model("cube", okMissing=False)

    def frame(self, agents: Sequence[Cell], goals: Sequence[Cell]) -> NDArray[np.uint8]:
        """Place agent `i` on ``agents[i]`` and its goal on ``goals[i]``; render; the pixels."""
        self._fit(self._agents, len(agents), AGENT_HEIGHT, scale=0.7, shade=1.0)
        self._fit(self._goals, len(goals), GOAL_HEIGHT, scale=0.9, shade=GOAL_SHADE)
        for marker, cell in zip(self._agents[: len(agents)], agents, strict=True):
            self._place(marker, cell, AGENT_HEIGHT)
        for marker, cell in zip(self._goals[: len(goals)], goals, strict=True):
            self._place(marker, cell, GOAL_HEIGHT)
        engine = self.base.graphicsEngine
        engine.render_frame()
        engine.render_frame()  # the second flip makes the first frame's image the screenshot's
        return _pixels(self.base)

    def _fit(
        self, markers: list[NodePath], count: int, height: float, *, scale: float, shade: float
    ) -> None:
        size = self._grid.cell_size
        while len(markers) < count:
            marker = self._cube.copy_to(self._markers)
            marker.set_scale(size * scale, size * scale, size * height)
            red, green, blue, alpha = agent_color(len(markers))
            marker.set_color(red * shade, green * shade, blue * shade, alpha)
            marker.set_transparency(TransparencyAttrib.M_none)
            # Unlit: each agent keeps its exact colour in every frame, whichever way it faces.
            marker.set_light_off(1)
            markers.append(marker)
        for index, marker in enumerate(markers):
            if index < count:
                marker.show()
            else:
                marker.hide()

    def _place(self, marker: NodePath, cell: Cell, height: float) -> None:
        x, y = self._grid.cell_to_world(*self._source.view_cell(cell))
        marker.set_pos(x, y, self._grid.cell_size * height / 2)

    def close(self) -> None:
        """Close the window or buffer and free the process's ShowBase."""
        self.base.destroy()


def _map_scene(source: GridSource) -> SceneSpec:
    text = map_scene_text(source.walkable, name=source.name, endpoints=None)
    return parse_scene(tomllib.loads(text), source=f"{source.name}.map")


def _pixels(base: SimShowBase) -> NDArray[np.uint8]:
    texture = base.win.get_screenshot()
    if texture is None:
        raise EnvError("the 3D view could not read its frame back")
    flat = np.frombuffer(bytes(texture.get_ram_image_as("RGB")), np.uint8)
    # Panda3D's rows run bottom-up; an image's run top-down.
    return flat.reshape(texture.get_y_size(), texture.get_x_size(), 3)[::-1].copy()
