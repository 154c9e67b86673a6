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
    ["sim.navigation", "sim.commands.plan", "sim.commands.compare", "sim.scene.grid"],
    ids=["navigation", "plan-command", "compare-command", "scene-grid"],
)
def test_imports_without_panda3d(module: str) -> None:
    modules = modules_after_import(f"import {module}")
    assert module in modules
    assert [name for name in modules if name.startswith(("panda3d", "direct"))] == []


def test_sim_compare_runs_without_panda3d() -> None:
    # The whole command, not only its import: rasterizing a scene must not need Panda3D either.
    statement = (
        "import contextlib, io\n"
        "from sim.commands.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['compare', 'scenes/default.toml', '--repeat', '1']) == 0"
    )
    modules = modules_after_import(statement)
    assert "sim.commands.compare" in modules
    assert [name for name in modules if name.startswith(("panda3d", "direct"))] == []
