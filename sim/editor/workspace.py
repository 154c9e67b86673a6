"""The editor's window parts built together: the hierarchy, the handles and the toolbar.

The composition hands in the parts they use and where each panel hangs; this module wires them
to each other (the hierarchy and the handles follow the editor's selection, the toolbar drives
the simulated time) and to the frame loop, so the app adds them in a few lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from direct.task.Task import Task
from panda3d.core import Camera, NodePath, Point3

from sim.editor.handles import Handles
from sim.editor.hierarchy import Hierarchy, crowd_members
from sim.engine import GameObject, World
from sim.engine.loop import FrameLoop, Phase
from sim.ui.list_panel import ListPanel
from sim.ui.time_controls import TimeControls
from sim.ui.toolbar import Toolbar

if TYPE_CHECKING:
    from sim.components.grid_manager import GridManager
    from sim.components.motion import SceneMotion
    from sim.editor.editor import SceneEditor
    from sim.editor.inspector import Inspector
    from sim.engine.camera import OrbitCamera
    from sim.scene.spec import SceneSpec

HIERARCHY_SIZE: Final = (0.62, 0.5)
"""The hierarchy panel's width and height in `aspect2d` units (about 190 x 240 pixels)."""
TOOLBAR_SIZE: Final = (1.3, 0.066)
TOOLBAR_PX: Final = 36
"""The strip the layout keeps for the toolbar over the viewport, in pixels."""
TOOLBAR_TASK: Final = "toolbar"


@dataclass(frozen=True, slots=True)
class Anchors:
    """Where the panels hang: each a node whose origin is the panel's top-left corner."""

    hierarchy: NodePath
    toolbar: NodePath


class Workspace:
    """The hierarchy, the handles and the toolbar of one running scene.

    Args:
        editor: The scene editor (selection, objects, pointer tools).
        inspector: The selection's edits, which a handle drag ends in.
        camera: The orbit camera a framing moves.
        lens_camera: The camera node the scene is seen through (for the handles' size).
        grid: Keeps handle moves on the grid.
        motion: What moves by itself.
        scene: The scene (its crowds, and which objects turn by themselves).
        world: The world the scene's objects live in.
        loop: The frame loop the parts follow the scene in.
        anchors: Where the hierarchy and the toolbar hang.
        hierarchy_width: The hierarchy panel's width, its anchor's units (a dock's width).
        clock: Frame time in seconds (double-clicks).
        reset: What the toolbar's Reset does (agents back on Start).
    """

    def __init__(
        self,
        *,
        editor: SceneEditor,
        inspector: Inspector,
        camera: OrbitCamera,
        lens_camera: NodePath[Camera],
        grid: GridManager,
        motion: SceneMotion,
        scene: SceneSpec,
        world: World,
        loop: FrameLoop,
        anchors: Anchors,
        clock: Callable[[], float],
        reset: Callable[[], None],
        hierarchy_width: float = HIERARCHY_SIZE[0],
    ) -> None:
        self._loop = loop
        self._hierarchy_size = (hierarchy_width, HIERARCHY_SIZE[1])
        crowds = crowd_members((crowd.name, crowd.member_names()) for crowd in scene.crowds)
        self.hierarchy = Hierarchy(
            editor=editor,
            panel=lambda click, double: ListPanel(
                anchors.hierarchy,
                self._hierarchy_size,
                title="Hierarchy",
                on_click=click,
                on_double_click=double,
                clock=clock,
            ),
            crowd_of=crowds,
            look_at=camera.look_at,
            world=world,
            kind=lambda obj: _motion_kind(motion, obj),
        )
        self.hierarchy.attach(loop)
        turning = frozenset(spec.name for spec in scene.objects if spec.rotator is not None)
        self.handles = Handles(
            inspector=inspector,
            picker=editor.picker,
            camera=lens_camera,
            root=world.root,
            grid=grid,
            motion=motion,
            turns_itself=turning.__contains__,
            snap=lambda: editor.drag.snap,
        )
        self.handles.attach(loop)
        editor.tools.append(self.handles)
        self.time = TimeControls(loop)
        self.toolbar = Toolbar(
            anchors.toolbar,
            TOOLBAR_SIZE,
            {
                "play_pause": self.time.toggle_pause,
                "step": self.time.step,
                "reset": reset,
                "slower": self.time.slower,
                "faster": self.time.faster,
            },
        )
        loop.add_task(Phase.UI, self._show_time, TOOLBAR_TASK)

    def actions(self) -> dict[str, Callable[[], None]]:
        """The controls table's actions these parts own, by name (`sim.app.controls`)."""
        return {
            "frame_selection": self.hierarchy.frame_selected,
            "step_frame": self.time.step,
            "speed_down": self.time.slower,
            "speed_up": self.time.faster,
        }

    def handle_points(self) -> dict[str, Point3]:
        """Where to grab each handle shown, by name ("x", "y", "ring"), in the world."""
        return {handle.value: point for handle, point in self.handles.grab_points().items()}

    @property
    def hierarchy_height(self) -> float:
        """How far down the hierarchy panel reaches from its anchor (0 while hidden)."""
        return 0.0 if self.hierarchy.panel.node.is_hidden() else self._hierarchy_size[1]

    def set_visible(self, visible: bool) -> None:
        """Show or hide the panels (the handles stay: they are part of the scene's editing)."""
        for node in (self.hierarchy.panel.node, self.toolbar.node):
            if visible:
                node.show()
            else:
                node.hide()

    def _show_time(self, task: Task) -> int:
        time = self.time
        self.toolbar.show(time.time_s, time.speed, paused=time.paused)
        return int(task.cont)

    def destroy(self) -> None:
        """Remove the panels and the handles and stop following the scene."""
        self._loop.remove_task(TOOLBAR_TASK)
        self.time.detach()
        self.hierarchy.detach()
        self.handles.detach()
        self.toolbar.destroy()


def _motion_kind(motion: SceneMotion, obj: GameObject) -> str | None:
    """What moves `obj` by itself ("door", "mover", "rotator", joined), or None."""
    configs = motion.configs(obj)
    if configs is None:
        return None
    kinds = [name for name in ("door", "mover", "rotator") if getattr(configs, name) is not None]
    return ", ".join(kinds) or None
