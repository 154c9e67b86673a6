"""Rendered crowd throughput: the crowd scene with N agents in a real 800 x 600 pandagl window.

`rendered_fps(n)` runs ``python -m sim.commands.crowd_window N`` in a child process (one window
a process, as a user gets it) on the display in ``$DISPLAY``, or on an Xvfb it starts when
there is none and Xvfb is installed. The child opens the crowd scene with N agents, placed as
the headless benchmark places them (`sim.bench.crowd.spawn_cells`), in an 800 x 600 window
with no frame-rate cap and the default look (auto: shadows and anti-aliasing until the frame
rate stays under `sim.config.LOOK_FALLBACK_FPS`, then plain), lets it settle for
`SETTLE_FRAMES` frames and until the look has settled (at most `LOOK_SETTLE_S`), then counts
whole app frames (input, simulation, markers, gizmos, HUD, rendering) over `SECONDS` seconds of
wall clock: what a user sees once the look has settled. Then it counts as long again the frames
with simulated time stopped (`SimApp.render_paused`: everything but the world's steps) and
prints ``{"fps", "paused_fps", "steps_per_frame", "shadows", "phases_ms", "draw_phases_ms"}``
(`WindowFrames`; a whole frame's milliseconds by task, `PHASES`, and a paused one's with its swap
timed apart, `DRAW_PHASES`), so a figure says where a frame goes: the window steps the world by
fixed 1/60 s steps, as many as the frame's wall-clock time holds (at most
`sim.engine.loop.MAX_STEPS_PER_FRAME`), and a slow step costs a frame several times over. The
result is None when no window could be opened.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from sim.bench.crowd import CROWD_SCENE, spawn_cells, spawn_centre
from sim.config import Tag
from sim.scene.file import load_scene
from sim.scene.grid import scene_grid
from sim.scene.spec import SceneSpec

WINDOW = (800, 600)
SECONDS = 5.0
"""Wall-clock seconds the frames are counted over."""
SETTLE_FRAMES = 30
"""Frames run first and not counted: the first ones load models and compute the field."""
LOOK_SETTLE_S = 10.0
"""Wall-clock seconds the settling waits at most for the auto look's verdict."""
UNCAPPED_FPS = 1000  # the window's frame-rate cap, far above anything it reaches
PHASES = ("world", "gizmos", "render", "other")
"""A whole frame's phases as the child times them: the world's steps, `World.draw_gizmos` (the
crowd's markers rewritten), Panda3D's render task (cull, draw calls and the swap of the frame
before, where Mesa's llvmpipe rasterizes, partly while the next frame's tasks run) and the rest."""
DRAW_PHASES = ("gizmos", "render", "swap", "other")
"""A paused frame's phases, each frame flipped as soon as it is drawn: the render task is then
cull and draw calls only, and the swap (llvmpipe rasterizing, the image sent to the X server)
is timed on its own."""


@dataclass(frozen=True, slots=True)
class WindowFrames:
    """What one window run of the crowd scene measured.

    Attributes:
        fps: Whole app frames per wall-clock second (the bench's ``render fps``).
        paused_fps: Frames per second with simulated time stopped: input, markers, gizmos,
            panels and rendering, without the world's steps.
        steps_per_frame: World steps a counted frame ran on average (fixed 1/60 s steps
            catching up with the wall clock).
        shadows: Whether the settled look kept its shadows.
        phases_ms: A counted frame's mean milliseconds in each of `PHASES`, in that order.
        draw_phases_ms: A paused frame's, flipped at once, in each of `DRAW_PHASES`.
    """

    fps: float
    paused_fps: float
    steps_per_frame: float
    shadows: bool
    phases_ms: tuple[float, ...] = ()
    draw_phases_ms: tuple[float, ...] = ()

    @property
    def draw_ms(self) -> float:
        """Milliseconds a frame costs without the world's steps."""
        return 1000.0 / self.paused_fps

    @property
    def step_ms(self) -> float:
        """Milliseconds one world step costs in the window: a frame's rest over its steps.

        >>> round(WindowFrames(20.0, 100.0, 2.0, False).step_ms, 3)
        20.0
        """
        rest = 1000.0 / self.fps - self.draw_ms
        return max(rest, 0.0) / self.steps_per_frame if self.steps_per_frame > 0 else 0.0


def rendered_fps(n_agents: int, *, seconds: float = SECONDS) -> float | None:
    """Frames per second of `n_agents` of the crowd scene in an 800 x 600 window, or None."""
    frames = window_frames(n_agents, seconds=seconds)
    return None if frames is None else frames.fps


def window_frames(n_agents: int, *, seconds: float = SECONDS) -> WindowFrames | None:
    """`n_agents` of the crowd scene in an 800 x 600 window, measured; None without a window."""
    env = dict(os.environ)
    with window_display(env) as display:
        if display is None:
            return None
        env["DISPLAY"] = display
        argv = [sys.executable, "-m", "sim.commands.crowd_window", str(n_agents), str(seconds)]
        try:
            # Twice `seconds` counted: whole frames, then paused ones.
            done = subprocess.run(
                argv, env=env, capture_output=True, text=True, timeout=seconds * 12 + 120
            )
        except subprocess.TimeoutExpired:
            return None
    if done.returncode != 0 or not done.stdout.strip():
        return None
    try:
        answer = json.loads(done.stdout.strip().splitlines()[-1])
        return WindowFrames(
            fps=float(answer["fps"]),
            paused_fps=float(answer["paused_fps"]),
            steps_per_frame=float(answer["steps_per_frame"]),
            shadows=bool(answer["shadows"]),
            phases_ms=tuple(float(answer["phases_ms"][name]) for name in PHASES),
            draw_phases_ms=tuple(float(answer["draw_phases_ms"][name]) for name in DRAW_PHASES),
        )
    except (ValueError, KeyError, TypeError):
        return None


@contextlib.contextmanager
def window_display(env: dict[str, str]) -> Iterator[str | None]:
    """The display to open the window on: ``$DISPLAY``, or an Xvfb of our own, or None."""
    if env.get("DISPLAY"):
        yield env["DISPLAY"]
        return
    if shutil.which("Xvfb") is None:
        yield None
        return
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    try:
        number = b""
        while not number.endswith(b"\n"):
            chunk = os.read(read_end, 16)
            if not chunk:
                break
            number += chunk
        os.close(read_end)
        yield ":" + number.decode().strip() if number.endswith(b"\n") else None
    finally:
        server.terminate()
        server.wait(timeout=10)


def crowd_scene(n_agents: int) -> SceneSpec:
    """The crowd scene with its agents replaced by `n_agents` like its first one."""
    scene = load_scene(CROWD_SCENE)
    agents = scene.objects_with_tag(Tag.AGENT)
    places = spawn_cells(scene_grid(scene), spawn_centre(scene), n_agents)
    crowd = [
        dataclasses.replace(agents[0], name=f"crowd-{number}", pos=(x, y, 0.0))
        for number, (x, y) in enumerate(places, start=1)
    ]
    others = [spec for spec in scene.objects if spec.tag is not Tag.AGENT]
    return dataclasses.replace(scene, objects=(*others, *crowd), crowds=())


def main(argv: list[str] | None = None) -> int:
    """Measure each agent count given (default 1000 and 5000) and print one line for each.

    ``python -m sim.bench.crowd_window 1000 5000``: whole frames per second, frames per second
    with simulated time stopped, world steps a frame, and what a frame's drawing and one world
    step cost in milliseconds; then a line of each kind of frame's milliseconds by phase.
    """
    sizes = [int(arg) for arg in (sys.argv[1:] if argv is None else argv)] or [1000, 5000]
    for n_agents in sizes:
        frames = window_frames(n_agents)
        if frames is None:
            print(f"{n_agents} agents: no window could be opened", flush=True)
            return 1
        print(
            f"{n_agents} agents: {frames.fps:.1f} fps, {frames.paused_fps:.1f} paused fps, "
            f"{frames.steps_per_frame:.2f} steps a frame, draw {frames.draw_ms:.1f} ms, "
            f"step {frames.step_ms:.1f} ms, shadows {'on' if frames.shadows else 'off'}",
            flush=True,
        )
        for kind, names, phases in (
            ("whole", PHASES, frames.phases_ms),
            ("paused, flipped at once", DRAW_PHASES, frames.draw_phases_ms),
        ):
            split = ", ".join(f"{name} {ms:.1f}" for name, ms in zip(names, phases, strict=True))
            print(f"  {kind} frame ms: {split}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
