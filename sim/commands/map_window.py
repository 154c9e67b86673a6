"""The child `sim bench --window` starts for a map (`sim.bench.window.maps.rendered_map`).

It opens the map as ``sim run MAP.map`` does, in a window of `sim.bench.window.maps.WINDOW`
with the default look and no frame-rate cap, times the opening up to the first frame drawn,
lets the look settle, counts whole app frames over wall-clock seconds and prints
``{"open_s": ..., "fps": ..., "cpu_ms": ..., "shadows": ...}``. It lives with the commands
because it builds the app, which the bench, a library below the commands, never imports.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sim.app.composition import RunOptions, SimApp
from sim.bench.crowd_window import LOOK_SETTLE_S, SETTLE_FRAMES, UNCAPPED_FPS
from sim.bench.window.maps import SECONDS, WINDOW
from sim.commands.run_map import open_scene
from sim.engine.showbase import DisplaySettings


def main(argv: Sequence[str] | None = None) -> int:
    """The child: open the map, time it, print the figures (argv: MAP [seconds])."""
    args = list(sys.argv[1:] if argv is None else argv)
    seconds = float(args[1]) if len(args) > 1 else SECONDS
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sim-map-window-") as folder:
        asked = argparse.Namespace(
            scene=Path(args[0]),
            scen=None,
            index=None,
            agents=None,
            solver=None,
            time_limit=None,
            save_as=Path(folder) / "map.toml",
        )
        opened = open_scene(asked)
        if opened.scene is None:
            return opened.status or 1
        display = DisplaySettings(size=WINDOW, title="gridpath-sim map bench", max_fps=UNCAPPED_FPS)
        app = SimApp(RunOptions(scene=opened.scene, display=display))
        try:
            app.step()
            open_s = time.perf_counter() - began
            for _ in range(SETTLE_FRAMES):
                app.step()
            settling = time.perf_counter()
            fallback = app.look_fallback
            while fallback is not None and not fallback.done:
                if time.perf_counter() - settling > LOOK_SETTLE_S:
                    break
                app.step()
            frames, start, cpu = 0, time.perf_counter(), time.process_time()
            while time.perf_counter() - start < seconds:
                app.step()
                frames += 1
            fps = frames / (time.perf_counter() - start)
            cpu_ms = 1000.0 * (time.process_time() - cpu) / frames
            figures = {"open_s": open_s, "fps": fps, "cpu_ms": cpu_ms, "shadows": app.look.shadows}
            print(json.dumps(figures), flush=True)
        finally:
            app.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
