"""The child `sim bench` starts for the rendered crowd (`sim.bench.crowd_window.rendered_fps`).

It opens the app on the crowd scene with N agents in an 800 x 600 window with no frame-rate
cap, lets it settle, counts whole app frames over wall-clock seconds, then as many seconds of
frames with simulated time stopped, and prints ``{"fps", "paused_fps", "steps_per_frame",
"shadows", "phases_ms", "draw_phases_ms"}`` (`sim.bench.crowd_window.WindowFrames`): a whole
frame's milliseconds by task, then those of `DRAW_FRAMES` more paused frames, each flipped on its
own right after it is drawn so that the swap is timed apart from Panda3D's cull and draw calls.
It lives with the commands because it builds the app, which the bench, a library below the
commands, never imports.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence

from direct.showbase.ShowBase import ShowBase

from sim.app.composition import RunOptions, SimApp
from sim.bench.crowd_window import (
    DRAW_PHASES,
    LOOK_SETTLE_S,
    PHASES,
    SECONDS,
    SETTLE_FRAMES,
    UNCAPPED_FPS,
    WINDOW,
    crowd_scene,
)
from sim.engine.loop import GIZMO_TASK, SIM_TASK
from sim.engine.showbase import DisplaySettings

DRAW_FRAMES = 60  # paused frames flipped one by one to split the render from the swap
# Panda3D's tasks by the phase of a frame they are; every other task is "other".
PHASE_OF_TASK = {SIM_TASK: "world", GIZMO_TASK: "gizmos", "igLoop": "render"}


class FramePhases:
    """Milliseconds of counted frames, by phase (`PHASES`, or `DRAW_PHASES` when flipping).

    The phases: world (the fixed steps), gizmos (`World.draw_gizmos`, the crowd's markers
    rewritten), render (Panda3D's render task: cull, draw calls and the swap of the frame before),
    swap (only when `flip`: the frame flipped right after it is drawn, where Mesa's llvmpipe
    rasterizes and the image goes to the X server) and other (input, panels, the other tasks).
    Flipping at once changes the frame: llvmpipe's threads can no longer rasterize one frame
    while the next one's tasks run, so whole frames are timed without it.

    Args:
        base: The app's ShowBase.
        flip: Flip each frame right after it is drawn and time the swap on its own.
    """

    def __init__(self, base: ShowBase, *, flip: bool = False) -> None:
        self._base = base
        self._flip = flip
        self._totals_s = dict.fromkeys(DRAW_PHASES if flip else PHASES, 0.0)
        self.frames = 0

    def run(self, frame: Callable[[], None]) -> None:
        """Run one frame (flipping it at once when asked) and add its time to the phases."""
        began = time.perf_counter()
        frame()
        drawn = time.perf_counter()
        if self._flip:
            self._base.graphicsEngine.flip_frame()
            self._totals_s["swap"] += time.perf_counter() - drawn
        named = 0.0
        for task in self._base.task_mgr.mgr.get_tasks():
            phase = PHASE_OF_TASK.get(task.name)
            if phase in self._totals_s:
                self._totals_s[phase] += task.dt
                named += task.dt
        self._totals_s["other"] += max(drawn - began - named, 0.0)
        self.frames += 1

    def ms(self) -> dict[str, float]:
        """Each phase's mean milliseconds a frame."""
        frames = max(self.frames, 1)
        return {name: 1000.0 * total / frames for name, total in self._totals_s.items()}


def main(argv: Sequence[str] | None = None) -> int:
    """The child: open the window, count frames, print their JSON (argv: N [seconds])."""
    args = list(sys.argv[1:] if argv is None else argv)
    n_agents = int(args[0])
    seconds = float(args[1]) if len(args) > 1 else SECONDS
    display = DisplaySettings(size=WINDOW, title="gridpath-sim crowd bench", max_fps=UNCAPPED_FPS)
    app = SimApp(RunOptions(scene=crowd_scene(n_agents), display=display))
    try:
        for _ in range(SETTLE_FRAMES):
            app.step()
        settling = time.perf_counter()
        fallback = app.look_fallback
        while fallback is not None and not fallback.done:
            if time.perf_counter() - settling > LOOK_SETTLE_S:
                break
            app.step()
        whole, steps, began = FramePhases(app.base), app.world.frame_count, time.perf_counter()
        while time.perf_counter() - began < seconds:
            whole.run(app.step)
        fps = whole.frames / (time.perf_counter() - began)
        steps = app.world.frame_count - steps
        paused, began = 0, time.perf_counter()
        while time.perf_counter() - began < seconds:
            app.render_paused()
            paused += 1
        paused_fps = paused / (time.perf_counter() - began)
        drawing = FramePhases(app.base, flip=True)
        for _ in range(DRAW_FRAMES):
            drawing.run(app.render_paused)
        answer = {
            "fps": fps,
            "paused_fps": paused_fps,
            "steps_per_frame": steps / whole.frames,
            "shadows": app.look.shadows,
            "phases_ms": whole.ms(),
            "draw_phases_ms": drawing.ms(),
        }
        print(json.dumps(answer), flush=True)
    finally:
        app.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
