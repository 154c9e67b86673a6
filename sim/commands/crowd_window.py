"""The child `sim bench` starts for the rendered crowd (`sim.bench.crowd_window.rendered_fps`).

It opens the app on the crowd scene with N agents in an 800 x 600 window with no frame-rate
cap, lets it settle, counts whole app frames over wall-clock seconds, then as many seconds of
frames with simulated time stopped, and prints ``{"fps", "paused_fps", "steps_per_frame",
"shadows"}`` (`sim.bench.crowd_window.WindowFrames`). It lives with the commands because it
builds the app, which the bench, a library below the commands, never imports.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence

from sim.app.composition import RunOptions, SimApp
from sim.bench.crowd_window import (
    LOOK_SETTLE_S,
    SECONDS,
    SETTLE_FRAMES,
    UNCAPPED_FPS,
    WINDOW,
    crowd_scene,
)
from sim.engine.showbase import DisplaySettings


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
        frames, steps, began = 0, app.world.frame_count, time.perf_counter()
        while time.perf_counter() - began < seconds:
            app.step()
            frames += 1
        fps = frames / (time.perf_counter() - began)
        steps = app.world.frame_count - steps
        paused, began = 0, time.perf_counter()
        while time.perf_counter() - began < seconds:
            app.render_paused()
            paused += 1
        answer = {
            "fps": fps,
            "paused_fps": paused / (time.perf_counter() - began),
            "steps_per_frame": steps / frames,
            "shadows": app.look.shadows,
        }
        print(json.dumps(answer), flush=True)
    finally:
        app.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
