from __future__ import annotations

import pytest

from tests.conftest import REPO_ROOT
from tests.e2e.harness import RunningApp, wait_until, xvfb

DEFAULT = REPO_ROOT / "scenes" / "default.toml"
ARTIFACTS = REPO_ROOT / "artifacts"


@pytest.fixture
def app(tmp_path):
    """The default scene in a real window under Xvfb, once its first path is planned.

    test_window.py overrides it with a window that also saves a screenshot at exit.
    """
    ARTIFACTS.mkdir(exist_ok=True)
    with xvfb() as display:
        running = RunningApp(display, DEFAULT, tmp_path)
        try:
            running.wait_for_window()
            wait_until(lambda: running.report()["path"]["found"], 20)
            yield running
        finally:
            running.stop()
