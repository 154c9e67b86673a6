from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sim.app.composition import RunOptions, SimApp
from sim.app.report import validate_report
from sim.engine.showbase import DisplaySettings
from sim.scene.file import load_scene

OpenApp = Callable[..., SimApp]


@pytest.fixture
def open_app() -> Iterator[OpenApp]:
    """Open a headless SimApp on a scene; it is destroyed after the test.

    Whatever the test did, each app's report must still be valid at the end (as read back from
    JSON, as every reader sees it).
    """
    opened: list[SimApp] = []

    def _open(
        scene: Path, *, size: tuple[int, int] = (800, 600), save_as: Path | None = None
    ) -> SimApp:
        display = DisplaySettings(headless=True, size=size)
        app = SimApp(RunOptions(scene=load_scene(scene), display=display, save_as=save_as))
        opened.append(app)
        return app

    yield _open
    problems: list[str] = []
    for app in opened:
        try:
            problems += validate_report(json.loads(json.dumps(app.report())))
        finally:
            app.destroy()
    assert problems == [], "the report no longer matches its schema"
