"""Open a ShowBase for a window or an offscreen buffer; every PRC setting we rely on lives here.

Headless runs use the software renderer p3tinydisplay on an offscreen buffer and a non-real-time
clock, so they need no display and no GPU and every frame is exactly `1 / fixed_fps` seconds long.
Windows use pandagl (Mesa's llvmpipe on machines without a GPU): tinydisplay in a real X window
corrupts the heap at process exit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from direct.showbase.ShowBase import ShowBase
from panda3d.core import (
    ClockObject,
    ConfigPage,
    Filename,
    get_model_path,
    load_prc_file_data,
    unload_prc_file,
)

from sim.config import DEFAULT_FIXED_FPS, MODELS_DIR
from sim.engine.fonts import install_ui_font
from sim.engine.lighting import look_prc

OFFSCREEN_PIPE = "p3tinydisplay TinyOffscreenGraphicsPipe"
WINDOW_PIPE = "pandagl"
STATE_COLLECT_RATE = 0.05
"""The fraction of Panda3D's cached render and transform states its collector visits a frame."""


@dataclass(frozen=True, slots=True)
class DisplaySettings:
    """How the scene is shown.

    Attributes:
        headless: Render offscreen with p3tinydisplay and step a non-real-time clock.
        size: Window or buffer size in pixels, (width, height).
        title: Window title (what `xdotool search --name` finds).
        fixed_fps: Headless frames per simulated second; dt is exactly 1 / fixed_fps.
        max_fps: Frame-rate cap for windows, so the app does not burn a core on a 2-core machine.
        look: The window's look (`sim.config.LOOKS`): auto, full or plain.
    """

    headless: bool = False
    size: tuple[int, int] = (1024, 768)
    title: str = "gridpath-sim"
    fixed_fps: int = DEFAULT_FIXED_FPS
    max_fps: int = 60
    look: str = "auto"


class SimShowBase(ShowBase):
    """A ShowBase whose exit request (Esc, closing the window) sets a flag instead of exiting.

    ShowBase's own exit calls `sys.exit()` from inside a task; the app's frame loop checks
    `quit_requested` instead, so it can write its report and return status 0.
    """

    def __init__(self, prc_page: ConfigPage) -> None:
        self.quit_requested = False
        self.resize_hooks: list[Callable[[], None]] = []
        self._prc_page = prc_page
        super().__init__()

    def finalizeExit(self) -> None:  # noqa: N802 - ShowBase's own hook name
        """Record that the user asked to quit; the frame loop ends after this frame."""
        self.quit_requested = True

    def adjustWindowAspectRatio(self, aspectRatio: float) -> None:  # noqa: N802, N803
        """Follow a resized window as ShowBase does, then run `resize_hooks`.

        ShowBase gives the scene camera's lens the whole window's aspect; a layout that shows
        the scene in part of the window puts its own back in a hook.
        """
        super().adjustWindowAspectRatio(aspectRatio)
        for hook in self.resize_hooks:
            hook()

    def destroy(self) -> None:
        """Close the window and forget our PRC page, so the next ShowBase starts clean."""
        super().destroy()
        unload_prc_file(self._prc_page)


def prc_for(settings: DisplaySettings) -> str:
    """Return the PRC text that opens the display `settings` describe."""
    width, height = settings.size
    lines = [
        f"win-size {width} {height}",
        f"window-title {settings.title}",
        "audio-library-name null",
        "sync-video false",
        "print-pipe-types false",
        "notify-level-device fatal",
        "notify-level-display error",
        "model-cache-dir",
        # Panda3D walks every cached state each frame to free the unused; a big map keeps tens
        # of thousands alive (a transform per wall box), which cost 1-5 ms a frame. A twentieth
        # a frame frees the unused ones over some tens of frames instead.
        f"garbage-collect-states-rate {STATE_COLLECT_RATE}",
    ]
    if settings.headless:
        lines += ["window-type offscreen", f"load-display {OFFSCREEN_PIPE}"]
    else:
        lines += [
            "window-type onscreen",
            f"load-display {WINDOW_PIPE}",
            "clock-mode limited",
            f"clock-frame-rate {settings.max_fps}",
            *look_prc(headless=False, look=settings.look),
        ]
    return "\n".join(lines) + "\n"


def open_showbase(settings: DisplaySettings) -> SimShowBase:
    """Open a ShowBase as `settings` say, with our models folder first on the model path.

    Headless: the global clock is switched to non-real-time at `settings.fixed_fps`, so every
    `task_mgr.step()` advances exactly one frame of `1 / fixed_fps` seconds.

    Raises:
        RuntimeError: No graphics pipe could open (Panda3D's own error, re-raised with a hint).
    """
    page = load_prc_file_data("gridpath-sim display", prc_for(settings))
    try:
        base = SimShowBase(page)
    except Exception as error:
        unload_prc_file(page)
        hint = "is a display set and pandagl usable? try --headless"
        raise RuntimeError(f"could not open the display: {error} ({hint})") from error
    models = Filename.from_os_specific(str(MODELS_DIR))
    search_path = get_model_path()
    if models not in [
        search_path.get_directory(i) for i in range(search_path.get_num_directories())
    ]:
        search_path.prepend_directory(models)
    install_ui_font()
    base.disable_mouse()
    clock = ClockObject.get_global_clock()
    if settings.headless:
        clock.set_mode(ClockObject.M_non_real_time)
        clock.set_frame_rate(settings.fixed_fps)
    else:
        clock.set_mode(ClockObject.M_limited)
        clock.set_frame_rate(settings.max_fps)
    return base
