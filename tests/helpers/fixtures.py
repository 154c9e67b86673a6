"""The fixtures every test folder shares; tests/conftest.py registers them (`pytest_plugins`).

`open_app` opens any scene headless; `default_scene` is the default scene headless with a
virtual mouse; `window_app` is the default scene in a real window under Xvfb.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from sim.app.composition import RunOptions, SimApp
from sim.app.report import validate_report
from sim.engine.showbase import DisplaySettings
from sim.scene.file import load_scene
from sim.scene.script_trust import ScriptTrust
from tests.helpers.paths import DEFAULT_SCENE, artifact
from tests.helpers.reports import as_read
from tests.helpers.virtual_mouse import Mouse
from tests.helpers.window import RunningApp, wait_until, xvfb

OpenApp = Callable[..., SimApp]


class DefaultScene(NamedTuple):
    """The default scene's headless app and the virtual mouse bound to it."""

    app: SimApp
    mouse: Mouse


@pytest.fixture
def open_app() -> Iterator[OpenApp]:
    """Open a headless SimApp on a scene; it is destroyed after the test.

    Whatever the test did, each app's report must still be valid at the end (as read back from
    JSON, as every reader sees it).
    """
    opened: list[SimApp] = []

    def _open(
        scene: Path,
        *,
        size: tuple[int, int] = (800, 600),
        save_as: Path | None = None,
        trust_scripts: bool = True,
    ) -> SimApp:
        # Trusted unless asked: which scenes the commands trust is tested from the command line.
        display = DisplaySettings(headless=True, size=size)
        options = RunOptions(
            scene=load_scene(scene),
            display=display,
            save_as=save_as,
            scripts=ScriptTrust(allowed=trust_scripts),
        )
        app = SimApp(options)
        opened.append(app)
        return app

    yield _open
    problems: list[str] = []
    for app in opened:
        try:
            problems += validate_report(as_read(app.report()))
        finally:
            app.destroy()
    assert problems == [], "the report no longer matches its schema"


@pytest.fixture
def window_size() -> tuple[int, int]:
    """The default scene's buffer size in pixels; a module that reads no pixels may shrink it."""
    return (800, 600)


@pytest.fixture
def default_scene(open_app: OpenApp, window_size: tuple[int, int]) -> DefaultScene:
    """scenes/default.toml headless with a virtual mouse bound, one frame in.

    After that frame the scene has been drawn once, so clicks and drags land on what is shown.
    """
    app = open_app(DEFAULT_SCENE, size=window_size)
    mouse = Mouse(app)
    app.step()
    return DefaultScene(app, mouse)


@pytest.fixture
def window_app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunningApp]:
    """scenes/default.toml in a real window under Xvfb, once its first path is planned.

    The app saves its last frame to artifacts/<test name>.png when it exits by itself.
    """
    shot = artifact(f"{request.node.name}.png")
    with xvfb() as display:
        running = RunningApp(display, DEFAULT_SCENE, tmp_path, "--screenshot", str(shot))
        try:
            running.wait_for_window()
            wait_until(lambda: running.report()["path"]["found"], 20)
            yield running
        finally:
            running.stop()
