"""Drive the real app in a real window: Xvfb, the `sim` process, xdotool, and X client messages."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sim.app.report import validate_report
from tests.helpers.reports import read_report

HAVE_X_TOOLS = bool(shutil.which("Xvfb") and shutil.which("xdotool"))
needs_x = pytest.mark.skipif(not HAVE_X_TOOLS, reason="Xvfb and xdotool are not installed")


@contextmanager
def xvfb(size: str = "1024x768x24") -> Iterator[str]:
    """Start Xvfb on a free display number and yield it as ':N'."""
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", size, "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    number = b""
    while not number.endswith(b"\n"):
        chunk = os.read(read_end, 16)
        if not chunk:
            raise RuntimeError("Xvfb exited before it announced its display")
        number += chunk
    os.close(read_end)
    try:
        yield ":" + number.decode().strip()
    finally:
        server.terminate()
        server.wait(timeout=10)


class RunningApp:
    """`sim run` in a window on `display`, with its report file and helpers to drive it."""

    def __init__(self, display: str, scene: Path, workdir: Path, *extra: str) -> None:
        self.display = display
        self.report_path = workdir / "report.json"
        self.env = {**os.environ, "DISPLAY": display}
        command = [sys.executable, "-m", "sim", "run", str(scene), "--size", "800x600"]
        command += ["--report", str(self.report_path), *extra]
        self.process = subprocess.Popen(
            command, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.window = ""

    def wait_for_window(self, timeout_s: float = 30.0) -> str:
        """Wait until the window exists and the report has been written once; return its id."""
        wait_until(lambda: self.report_path.exists(), timeout_s, self._why)
        found = self.xdotool("search", "--sync", "--name", "^gridpath-sim", timeout_s=timeout_s)
        self.window = found.split()[0]
        return self.window

    def report(self) -> dict[str, Any]:
        """The app's latest report; the test fails if it does not match the report's schema."""
        data = read_report(self.report_path)
        problems = validate_report(data)
        if problems:
            pytest.fail(f"invalid report {self.report_path}: {'; '.join(problems)}")
        return data

    def wait_for_next_report(self, timeout_s: float = 20.0) -> dict[str, Any]:
        """Wait for a report written after this call, so it reflects all input sent before.

        The app rewrites its report once per simulated second; one read right after a drag
        can still be from mid-drag, when End's cell and the path's last cell agree as well.
        """
        frames = self.report()["frames"]
        wait_until(lambda: self.report()["frames"] > frames, timeout_s, self._why)
        return self.report()

    def xdotool(self, *args: str, timeout_s: float = 15.0) -> str:
        """Run xdotool on this display and return its output."""
        done = subprocess.run(
            ["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=timeout_s
        )
        return done.stdout

    def wait_exit(self, timeout_s: float = 20.0) -> int:
        """Wait for the app to exit; return its status."""
        try:
            return self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise

    def stop(self) -> None:
        """Kill the app if it is still running."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def _why(self) -> str:
        if self.process.poll() is not None:
            stderr = self.process.stderr.read() if self.process.stderr is not None else ""
            return f"the app exited with {self.process.returncode}: {stderr}"
        return "the app is still starting"


def wait_until(
    condition: Callable[[], bool], timeout_s: float, explain: Callable[[], str] = lambda: ""
) -> None:
    """Poll `condition` every 50 ms until it holds; fail the test after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s} s: {explain()}")
        time.sleep(0.05)


def send_close_request(display: str, window: int) -> None:
    """Ask `window` to close the way a window manager's close button does (WM_DELETE_WINDOW).

    xdotool 3.2016 has no such command, so this speaks to libX11 directly.
    """
    x11 = ctypes.cdll.LoadLibrary("libX11.so.6")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XSendEvent.argtypes = [
        ctypes.c_void_p,
        ctypes.c_ulong,
        ctypes.c_int,
        ctypes.c_long,
        ctypes.c_void_p,
    ]
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    connection = x11.XOpenDisplay(display.encode())
    if not connection:
        raise RuntimeError(f"cannot open X display {display}")
    try:
        event = _ClientMessage(
            type=_CLIENT_MESSAGE,
            window=window,
            message_type=x11.XInternAtom(connection, b"WM_PROTOCOLS", 0),
            format=32,
        )
        event.data[0] = x11.XInternAtom(connection, b"WM_DELETE_WINDOW", 0)
        event.data[1] = 0  # CurrentTime
        x11.XSendEvent(connection, window, 0, 0, ctypes.byref(event))
        x11.XFlush(connection)
    finally:
        x11.XCloseDisplay(connection)


_CLIENT_MESSAGE = 33


class _ClientMessage(ctypes.Structure):
    # XClientMessageEvent, padded to the size of the XEvent union (24 longs).
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("window", ctypes.c_ulong),
        ("message_type", ctypes.c_ulong),
        ("format", ctypes.c_int),
        ("data", ctypes.c_long * 5),
        ("pad", ctypes.c_long * 12),
    ]


def screenshot(display: str, path: Path) -> None:
    """Save the whole X screen as a PNG (ImageMagick's `import`), for a person to look at."""
    if shutil.which("import"):
        subprocess.run(
            ["import", "-window", "root", str(path)],
            env={**os.environ, "DISPLAY": display},
            timeout=30,
            check=False,
            capture_output=True,
        )


def drag(app: RunningApp, start: tuple[int, int], end: tuple[int, int], steps: int = 10) -> None:
    """Press the left button at `start`, move to `end` in steps, release: as a hand would.

    Returns once the app has written a report after the drop.
    """
    window = app.window
    args = ["mousemove", "--window", window, str(start[0]), str(start[1]), "sleep", "0.15"]
    args += ["mousedown", "1", "sleep", "0.1"]
    for i in range(1, steps + 1):
        x = round(start[0] + (end[0] - start[0]) * i / steps)
        y = round(start[1] + (end[1] - start[1]) * i / steps)
        args += ["mousemove", "--window", window, str(x), str(y), "sleep", "0.05"]
    args += ["sleep", "0.1", "mouseup", "1", "sleep", "0.1"]
    app.xdotool(*args, timeout_s=30)
    app.wait_for_next_report()
