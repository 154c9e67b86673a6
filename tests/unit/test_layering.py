"""The pathfinding core stays headless: importing it must not pull in Panda3D."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT


def modules_after_import(statement: str) -> list[str]:
    """Run `statement` in a fresh interpreter; return the names in its sys.modules."""
    probe = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    names: list[str] = json.loads(completed.stdout)
    return names


@pytest.mark.parametrize(
    "module",
    ["sim.navigation", "sim.plan_command"],
    ids=["navigation", "plan-command"],
)
def test_imports_without_panda3d(module: str) -> None:
    modules = modules_after_import(f"import {module}")
    assert module in modules
    assert [name for name in modules if name.startswith(("panda3d", "direct"))] == []
