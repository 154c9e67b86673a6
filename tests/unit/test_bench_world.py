"""`sim bench --carve` and `--burst`, tiny: their JSON keys, their checks, their bad input."""

from __future__ import annotations

import pytest

from sim.bench.world.burst import run_burst
from sim.bench.world.carve import run_carve
from sim.commands.cli import main

CARVE_KEYS = {"obstacles", "agents", "sim_fps", "p99_frame_ms", "repairs", "expanded_total"}
BURST_KEYS = {"agents", "p50_frame_ms", "p99_frame_ms", "max_frame_ms", "frames_to_all_planned"}


@pytest.mark.parametrize("repair", ["auto", "dstar-lite", "find-path"])
def test_carve_repairs_cut_routes_to_optimal_paths(repair: str) -> None:
    report = run_carve(obstacles=40, agents=40, frames=90, repair=repair, check_every=1)
    data = report.to_json()
    assert data.keys() >= CARVE_KEYS
    assert (data["obstacles"], data["agents"]) == (40, 40)
    assert report.repairs > 0
    assert report.checked == report.plans > 0
    assert report.mismatches == 0
    assert report.routes_broken == 0
    assert report.cells_flipped <= report.cells_touched
    # The app's choice searches afresh here (too few plans a goal to pay for a D* Lite
    # tree); D* Lite never searches afresh, find_path never repairs.
    assert (report.fresh_searches > 0) == (repair == "auto")
    assert (report.reused > 0) == (repair == "dstar-lite")


def test_carve_refuses_an_unknown_repair() -> None:
    with pytest.raises(ValueError, match="repair must be one of"):
        run_carve(frames=1, repair="bfs")


def test_burst_plans_everyone_nearest_first() -> None:
    report = run_burst(agents=60, budget_ms=0.5)
    data = report.to_json()
    assert data.keys() >= BURST_KEYS
    assert data["agents"] == 60
    assert report.frames_to_all_planned is not None
    assert report.nearest_first


def test_carve_and_burst_together_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "--carve", "--burst"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "--carve and --burst are separate runs" in err[0]
