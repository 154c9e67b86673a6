"""`sim bench --env`: the JSON's keys, ours alone without POGEMA, a failing peer in one line."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

from sim.bench.envs import steps as env_steps
from sim.commands.cli import main
from tests.helpers.paths import REPO_ROOT


def test_the_report_has_the_rows_keys_and_says_when_pogema_did_not_run() -> None:
    report = env_steps.run(pogema_python=None, counts=(1, 3), steps=4)
    document = report.to_json()
    assert [row["agents"] for row in document["rows"]] == [1, 3]
    for row in document["rows"]:
        assert {"agents", "ours_agent_steps_per_s", "pogema_agent_steps_per_s"} <= row.keys()
        assert row["ours_agent_steps_per_s"] > 0
        assert row["pogema_agent_steps_per_s"] is None
    assert document["reset_512_ms"] > 0
    lines = report.lines()
    assert any("POGEMA not run" in line for line in lines)
    assert any("not measured" in line for line in lines)


def test_sim_bench_env_writes_its_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("POGEMA_PYTHON", raising=False)
    monkeypatch.setattr(env_steps, "AGENT_COUNTS", (2,))
    monkeypatch.setattr(env_steps, "STEPS", 3)
    monkeypatch.setattr(env_steps, "RESETS", 2)
    out = tmp_path / "env.json"
    assert main(["bench", "--env", "--json", str(out)]) == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["rows"][0]["agents"] == 2
    assert "| 2 |" in capsys.readouterr().out


def test_a_failing_pogema_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'no pogema here' >&2\nexit 3\n", encoding="utf-8")
    broken.chmod(0o755)
    monkeypatch.setenv("POGEMA_PYTHON", str(broken))
    monkeypatch.setattr(env_steps, "AGENT_COUNTS", (1,))
    monkeypatch.setattr(env_steps, "STEPS", 2)
    assert main(["bench", "--env"]) == 2


def test_the_example_plays_an_episode() -> None:
    example = runpy.run_path(str(REPO_ROOT / "examples" / "evaluate_policies.py"))
    import gymnasium

    import sim.envs

    env = gymnasium.make(
        sim.envs.NAVIGATE_ID,
        map=REPO_ROOT / "experiments" / "maps" / "den312d.map",
        random_pairs=True,
    )
    reached, cost = example["play"](env, sim.envs.oracle_policy(env), 0)
    assert reached
    assert cost > 0
