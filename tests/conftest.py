"""Shared test settings: with CI=true a skipped test is a failure, not a pass."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def movingai_dir() -> Path:
    """Where the shared Moving AI maps live: $MOVINGAI_DIR, else ../shared/benchmarks/movingai."""
    override = os.environ.get("MOVINGAI_DIR")
    if override:
        return Path(override)
    return REPO_ROOT.parent / "shared" / "benchmarks" / "movingai"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """In CI a skip hides a missing dependency, so report it as a failure instead."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped under CI=true, which counts as a failure: {reason}"
