"""The world steps 1/60 s at a time whatever the frame rate: the same trace at 10 to 60 fps.

The window renders at whatever rate the machine manages; a headless app whose non-real-time
clock runs at the same rate stands in for it. Every frame the loop runs as many fixed steps as
the frame's time holds, so at equal simulated times the agents, the crowd and the movers stand
where the 60 fps run has them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.app.composition import RunOptions, SimApp
from sim.config import SCENES_DIR
from sim.engine.loop import MAX_STEPS_PER_FRAME, WINDOW_STEP_S
from sim.engine.showbase import DisplaySettings
from sim.scene.file import load_scene
from sim.scene.script_trust import ScriptTrust

pytestmark = pytest.mark.render

SIMULATED_S = 3
RATES = (10, 15, 30, 60)
CROWD_AND_MOVERS = """
[[crowds]]
name = "pack"
count = 12
area = [-11.0, 3.0, -8.0, 7.0]
"""


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    """The traffic scene (movers, a door, a turnstile, one agent) with a crowd of 12 beside it."""
    path = tmp_path / "traffic_crowd.toml"
    path.write_text((SCENES_DIR / "traffic.toml").read_text() + CROWD_AND_MOVERS)
    return path


def trace_at(scene: Path, fps: int, out: Path) -> dict[float, dict]:
    """Run `scene` headless, rendering `fps` frames per simulated second; its trace by time."""
    options = RunOptions(
        scene=load_scene(scene),
        display=DisplaySettings(headless=True, size=(160, 120)),
        trace=out,
        scripts=ScriptTrust(allowed=True),
    )
    app = SimApp(options)
    try:
        app.clock.set_frame_rate(fps)  # rendered frames; the world keeps its own step
        for _ in range(SIMULATED_S * fps):
            app.step()
        dropped = app.loop.dropped_s
    finally:
        app.destroy()
    assert dropped == 0.0, f"{fps} fps lost {dropped} s to the cap"
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["dt"] == pytest.approx(WINDOW_STEP_S)
    return {round(line["t"], 3): line for line in lines[1:]}


def test_the_window_step_keeps_ten_fps_in_real_time():
    assert MAX_STEPS_PER_FRAME * WINDOW_STEP_S >= 1 / 10 - 1e-12


@pytest.mark.parametrize("fps", RATES[:-1], ids=[f"{fps}fps" for fps in RATES[:-1]])
def test_the_trace_is_the_same_at_any_frame_rate(scene: Path, tmp_path: Path, fps: int):
    reference = trace_at(scene, 60, tmp_path / "60.jsonl")
    slower = trace_at(scene, fps, tmp_path / f"{fps}.jsonl")
    assert len(slower) == SIMULATED_S * fps
    assert len(reference[next(iter(reference))]["pos"]) == 13, "the agent and the crowd"
    first, last = reference[min(reference)], reference[max(reference)]
    assert first["movers"] != last["movers"], "the movers move"
    moved = [a != b for a, b in zip(first["pos"], last["pos"], strict=True)]
    assert all(moved), "every agent walks"
    for t, line in slower.items():
        expected = reference[t]
        for got, want in zip(line["pos"], expected["pos"], strict=True):
            assert got == pytest.approx(want, abs=1e-4), f"an agent at t = {t}"
        for got, want in zip(line["movers"], expected["movers"], strict=True):
            assert got == pytest.approx(want, abs=1e-4), f"a mover at t = {t}"
        assert line["heading"] == pytest.approx(expected["heading"], abs=1e-3), f"t = {t}"
