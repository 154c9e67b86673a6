from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sim.app.composition import RunOptions, SimApp
from sim.engine.showbase import DisplaySettings
from sim.scene.file import load_scene

OpenApp = Callable[..., SimApp]


@pytest.fixture
def open_app() -> Iterator[OpenApp]:
    """Open a headless SimApp on a scene; it is destroyed after the test."""
    opened: list[SimApp] = []

    def _open(
        scene: Path, *, size: tuple[int, int] = (800, 600), save_as: Path | None = None
    ) -> SimApp:
        display = DisplaySettings(headless=True, size=size)
        app = SimApp(RunOptions(scene=load_scene(scene), display=display, save_as=save_as))
        opened.append(app)
        return app

    yield _open
    for app in opened:
        app.destroy()
