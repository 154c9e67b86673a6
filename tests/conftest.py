"""Shared test settings: the shared fixtures, a settings folder of the test's own (never the
user's), and with CI=true a skipped test is a failure."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["tests.helpers.fixtures"]

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture(autouse=True)
def own_settings(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point the settings file (its trusted folders) at an empty folder, for the command-line
    calls and the processes a test starts: a test never reads or writes the user's settings."""
    monkeypatch.setenv("SIM_CONFIG_DIR", str(tmp_path_factory.mktemp("settings")))
    monkeypatch.delenv("SIM_TRUSTED_FOLDERS", raising=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """In CI a skip hides a missing dependency, so report it as a failure instead."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped under CI=true, which counts as a failure: {reason}"
