"""The window's docked furniture in one piece: the layout, the status bar, the right dock's stack.

The composition builds one `WindowPanels` over its ShowBase and hangs its panels from the
anchors here; `tick` once a frame keeps the layout on the window's size and the stack in order.
"""

from __future__ import annotations

import functools

from direct.task.Task import Task
from panda3d.core import NodePath

from sim.engine.loop import FrameLoop, Phase
from sim.engine.showbase import SimShowBase
from sim.ui.dock import Stack
from sim.ui.layout import DockedLayout
from sim.ui.status_bar import StatusBar

RIGHT_DOCK_HINT = "Click an object to inspect it.\nT opens the search view, W a race."
STATUS_HINT = "H hides the panels   Esc quits"
FOOT_GAP = 0.02  # between the left dock's foot and the legends, aspect2d units
ARRANGE_TASK = "dock-stacks"


class WindowPanels:
    """The docked layout over `base`'s window with its status bar and right-dock stack.

    Args:
        base: The app's ShowBase (its scene camera's region becomes the viewport).
        legend_bottom: How far above their corner the legends put their foot, aspect2d units;
            `legend_corner` is lowered by as much, so they stand on the left dock's foot.
    """

    def __init__(self, base: SimShowBase, *, legend_bottom: float) -> None:
        region = base.cam.node().get_display_region(0)
        self.layout = DockedLayout(base.win, region, base.camLens, base.aspect2d)
        # ShowBase gives a resized window's aspect to the lens; the layout puts the viewport's back.
        base.resize_hooks.append(functools.partial(self.layout.sync, force=True))
        self.status_bar = StatusBar(self.layout.status)
        self.legend_corner: NodePath = self.layout.left.bottom_left.attach_new_node("legends")
        self.legend_corner.set_z(FOOT_GAP - legend_bottom)
        self.right = Stack(self.layout.right, hint=RIGHT_DOCK_HINT)
        # The HUD first, then whatever else the left dock holds (a hierarchy), over the legends.
        self.left = Stack(self.layout.left, foot=self._legends_height)

    def _legends_height(self) -> float:
        """How far up from the left dock's foot the legends reach now (with a gap above)."""
        foot = self.layout.left.bottom_left
        bounds = self.legend_corner.get_tight_bounds(foot)
        return 0.0 if bounds is None else max(bounds[1].z, 0.0) + FOOT_GAP

    def tick(self, message: str | None) -> None:
        """Follow the window's size, stack the right dock, show `message` (None: the hint)."""
        self.layout.sync()
        self.left.arrange()
        self.right.arrange()
        self.status_bar.set_text(message or STATUS_HINT)

    def attach(self, loop: FrameLoop) -> None:
        """Stack both docks again once a frame after the gizmos (`Phase.GIZMOS`), last of all.

        The HUD rewrites its text as it draws its gizmos, and a selection fills the inspector
        after `tick`: stacked only then, the hierarchy would sit where the HUD ended a frame
        ago, over its new last line, and the right dock's hint would show under the inspector.
        """
        loop.add_task(Phase.GIZMOS, self._arrange, ARRANGE_TASK)

    def _arrange(self, task: Task) -> int:
        self.left.arrange()
        self.right.arrange()
        return int(task.cont)

    def destroy(self) -> None:
        """Remove the status bar, the stack and the docks; the scene gets the window back."""
        self.status_bar.destroy()
        self.left.destroy()
        self.right.destroy()
        self.layout.destroy()
