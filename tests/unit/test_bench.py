"""`sim bench` through `cli.main` (no timing assertions) and its path legality checker."""

from __future__ import annotations

import datetime
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.bench import crowd as crowd_bench
from sim.bench import crowd_window, results, startup
from sim.bench.crowd import spawn_cells
from sim.bench.maps import bench_map, check_path, contestants_for
from sim.bench.peers import diagonal_ok
from sim.commands.cli import main
from sim.navigation import GridMap
from sim.scene.file import load_scene
from tests.helpers.paths import movingai_dir

# A wall at (1, 0): the diagonal (0, 0) -> (1, 1) would cut its corner.
CORNER = np.array([[1, 1, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)

needs_maps = pytest.mark.skipif(
    not (movingai_dir() / "arena.map").is_file(), reason="shared Moving AI maps not found"
)


@pytest.fixture(autouse=True)
def maps_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOVINGAI_DIR", str(movingai_dir()))


@needs_maps
def test_bench_prints_our_rows(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "--maps", "arena", "--sample", "5", "--peers", "none"])
    out = capsys.readouterr().out
    assert status == 0
    assert "arena (49x49), 5 queries" in out
    assert "| ours" in out
    assert "median ms" in out
    assert "first planned path of a process" in out


def test_corner_cut_is_illegal() -> None:
    verdict = check_path(CORNER, [(0, 0), (1, 1), (2, 1)], (0, 0), (2, 1))
    assert not verdict.legal
    assert verdict.problem == "step 1 cuts the corner of (1, 0)"


def test_legal_path_has_its_cost() -> None:
    verdict = check_path(CORNER, [(0, 0), (0, 1), (1, 1), (2, 1), (2, 0)], (0, 0), (2, 0))
    assert verdict.legal
    assert verdict.cost == pytest.approx(4.0)


def test_legal_diagonal_costs_sqrt2() -> None:
    verdict = check_path(CORNER, [(0, 0), (0, 1), (1, 2)], (0, 0), (1, 2))
    assert verdict.legal
    assert verdict.cost == pytest.approx(1.0 + np.sqrt(2.0))


@pytest.mark.parametrize(
    ("cells", "problem"),
    [
        pytest.param([(0, 0), (0, 2)], "step 1 is not one of the 8 moves", id="jump"),
        pytest.param([(0, 0), (1, 0)], "cell 1 (1, 0) is not walkable", id="wall"),
        pytest.param([(0, 1), (0, 0)], "does not run from start to goal", id="wrong-start"),
    ],
)
def test_other_illegal_paths(cells: list[tuple[int, int]], problem: str) -> None:
    assert check_path(CORNER, cells, (0, 0), cells[-1]).problem == problem


def test_two_decimal_lengths_count_as_optimal(tmp_path: Path) -> None:
    # 1 + sqrt(2) printed with 2 decimals, as AR0011SR.map.scen does: 2.41 is that optimum.
    (tmp_path / "small.map").write_text("type octile\nheight 2\nwidth 3\nmap\n...\n...\n")
    (tmp_path / "small.map.scen").write_text("version 1.0\n0 small.map 3 2 0 0 2 1 2.41\n")
    ours, _ = contestants_for([])
    report = bench_map(tmp_path / "small.map", ours, sample=1, seed=0, peer_limit=1)
    assert [row.legal_text() for row in report.rows] == ["yes"] * len(ours)


def test_diagonal_ok_matches_checker() -> None:
    legal = diagonal_ok(CORNER, 1, 1)
    assert not legal[0, 0]  # would cut (1, 0)
    assert legal[1, 1]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["--sample", "0"], "expected a positive integer, got '0'", id="sample-0"),
        pytest.param(["--maps", "atlantis"], "unknown map 'atlantis'", id="unknown-map"),
        pytest.param(["--peers", "dijkstra9000"], "unknown peer 'dijkstra9000'", id="unknown-peer"),
        pytest.param(["--peer-limit", "-1"], "expected a positive integer", id="peer-limit"),
    ],
)
def test_bad_values_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bench", *argv])
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert message in err


def test_bench_crowd_prints_the_throughput_table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sim.bench import crowd as crowd_bench

    monkeypatch.setattr(crowd_bench, "SIZES", (10,))
    monkeypatch.setattr(crowd_bench, "GROUPS", ((2, 5),))
    monkeypatch.setattr(crowd_bench, "SECONDS", 0.5)
    monkeypatch.setattr(crowd_window, "rendered_fps", lambda agents: None)
    assert main(["bench", "--crowd"]) == 0
    out = capsys.readouterr().out
    assert "Crowd throughput on crowd.toml (128x128 cells), 0.5 simulated s per size" in out
    row = next(line for line in out.splitlines() if line.startswith("| 10 "))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert float(cells[2]) > 0, "simulated frames per second"
    assert out.strip().endswith("not measured (no 200-agent run)")


def test_bench_crowd_json_and_its_own_section_of_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sim.bench import crowd as crowd_bench

    monkeypatch.setattr(crowd_bench, "SIZES", (10,))
    monkeypatch.setattr(crowd_bench, "GROUPS", ((2, 8),))
    monkeypatch.setattr(crowd_bench, "SECONDS", 0.2)
    monkeypatch.setattr(crowd_window, "rendered_fps", lambda agents: 31.5)
    written = tmp_path / "RESULTS.md"
    monkeypatch.setattr(results, "RESULTS_PATH", written)
    written.write_text(
        "# Planner benchmark results\n\n## arena (49x49), 3 queries\n\nmaps table\n\n"
        "## Crowd throughput on crowd.toml, an old run\n\nold crowd table\n\n"
        "## Targets\n\n- median per query: 1.0x\n"
        "- 200 agents on the 128x128 crowd scene at >= 60 simulated fps: 1.0 fps, NOT met\n"
        "- 16 goal groups x 625 agents at >= 30 simulated fps: 1.0 fps, NOT met\n"
        "- first planned path: met\n"
    )
    answer = tmp_path / "crowd.json"
    assert main(["bench", "--crowd", "--write-results", "--json", str(answer)]) == 0
    text = written.read_text()
    assert "maps table" in text, "the other sections stay"
    assert "old crowd table" not in text
    assert "| agents | planning ms / sim s | sim fps | arrived | fields | overlap max |" in text
    assert (tmp_path / "crowd-throughput.svg").is_file()
    targets = text.split("## Targets", 1)[1]
    assert "1.0 fps, NOT met" not in targets, "the crowd's targets are the new run's"
    assert "- 1000 agents at >= 120 simulated fps" in targets
    assert targets.strip().endswith("- first planned path: met")
    sizes = json.loads(answer.read_text())["sizes"]
    assert [entry["agents"] for entry in sizes] == [10]
    assert set(sizes[0]) >= {"agents", "sim_fps", "render_fps", "arrived", "overlap_max"}
    assert sizes[0]["overlap_max"] <= 0.1
    assert sizes[0]["render_fps"] == 31.5
    assert sizes[0]["sim_cpu_fps"] > 0
    groups = json.loads(answer.read_text())["groups"]
    assert [(g["groups"], g["agents_per_group"], g["agents"]) for g in groups] == [(2, 8, 16)]
    assert set(groups[0]) >= {"sim_fps", "sim_cpu_fps", "arrived", "overlap_max"}
    assert groups[0]["fields_computed"] == 2, "one distance field per goal"
    assert targets.count("- 16 goal groups x 625 agents at >= 30 simulated fps") == 1
    assert "- 5000 agents at >= 30 fps rendered in an 800x600 window" in targets
    capsys.readouterr()


def test_bench_crowds_spawn_one_to_a_free_cell_connected_to_the_middle() -> None:
    walkable = np.ones((6, 6), dtype=bool)
    walkable[:, 3] = False  # a wall down the middle: the east half is cut off
    grid = GridMap(walkable)
    places = spawn_cells(grid, (1.5, 2.5), 18)
    assert len(set(places)) == 18
    cells = [grid.world_to_cell(x, y) for x, y in places]
    assert all(cell is not None and cell[1] < 3 for cell in cells), "the west half only"
    assert places[0] == (1.5, 2.5), "the middle's own cell first"
    with pytest.raises(ValueError, match="only 18 free cells"):
        spawn_cells(grid, (1.5, 2.5), 19)


def test_the_window_bench_puts_n_agents_in_the_crowd_scene() -> None:
    scene = crowd_window.crowd_scene(30)
    agents = scene.objects_with_tag("Agent")
    assert [agent.name for agent in agents] == [f"crowd-{n}" for n in range(1, 31)]
    assert scene.crowds == (), "its agents are listed one by one"
    shipped = load_scene(crowd_bench.CROWD_SCENE)
    others = [spec for spec in scene.objects if spec.tag != "Agent"]
    assert others == [spec for spec in shipped.objects if spec.tag != "Agent"]


def test_first_path_timing_reports_the_median_process(monkeypatch: pytest.MonkeyPatch) -> None:
    # A first launch that compiles bytecode (90 ms), then three whose first query costs 30, 10
    # and 20 ms beyond a warm one.
    outputs = iter(
        json.dumps({"import_ms": 5.0, "first_ms": extra + 1.0, "warm_ms": 1.0})
        for extra in (89.0, 30.0, 10.0, 20.0)
    )
    environments: list[dict[str, str]] = []

    def fake_run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        environments.append(kwargs["env"])
        return subprocess.CompletedProcess(command, 0, stdout=next(outputs) + "\n", stderr="")

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(subprocess, "run", fake_run)  # the one startup calls
    timing = startup.first_path_timing(movingai_dir() / "arena.map", 5, 0)
    assert (timing.runs, timing.extra_ms, timing.cold_first_ms) == (3, 20.0, 90.0)
    caches = {env["PYTHONPYCACHEPREFIX"] for env in environments}
    assert len(caches) == 1, "every run shares one private bytecode cache"
    assert not any("PYTHONDONTWRITEBYTECODE" in env for env in environments)


@pytest.fixture(scope="module")
def written_results(tmp_path_factory: pytest.TempPathFactory) -> str:
    """RESULTS.md as `sim bench --write-results` writes it: one small map, a short crowd."""
    from sim.bench import crowd as crowd_bench

    if not (movingai_dir() / "arena.map").is_file():
        pytest.skip("shared Moving AI maps not found")
    written = tmp_path_factory.mktemp("bench") / "RESULTS.md"
    # An earlier run's file: its tables and targets are replaced, its hand-written note kept.
    written.write_text(
        "# Planner benchmark results\n\nold header\n\n"
        "## Ours against the peers, every map\n\nold summary\n\n"
        "## arena (49x49), 50 queries\n\nold arena table\n\n"
        "## den312d (65x81), 50 queries\n\nold den312d table\n\n"
        "## Targets\n\n- median per query <= 1.0x tcod on every map: met\n\n"
        "## Closing the gap to pyastar2d\n\nA note written by hand.\n"
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MOVINGAI_DIR", str(movingai_dir()))
        patch.setattr(results, "RESULTS_PATH", written)
        patch.setattr(crowd_bench, "SIZES", (200,))
        patch.setattr(crowd_bench, "GROUPS", ())
        patch.setattr(crowd_bench, "SECONDS", 2 / 60)
        patch.setattr(crowd_window, "rendered_fps", lambda agents: None)
        argv = ["bench", "--maps", "arena", "--sample", "3", "--peers", "none", "--write-results"]
        assert main(argv) == 0
    assert (written.parent / "maps-vs-peers.svg").is_file(), "the chart beside the file"
    return written.read_text(encoding="utf-8")


def test_results_header_says_when_where_and_how(written_results: str) -> None:
    command = "sim bench --maps arena --sample 3 --seed 0 --peers none --peer-limit 10"
    assert f"on {datetime.date.today().isoformat()}." in written_results
    assert f"- command (defaults spelled out): `{command} --write-results`" in written_results
    assert "- machine: " in written_results
    assert ", panda3d " in written_results


def test_results_have_the_map_tables(written_results: str) -> None:
    assert "## arena (49x49), 3 queries" in written_results
    assert "| ours (auto: " in written_results
    assert "| ours A* " in written_results
    assert ", unreachable | walled-in goal (the map is one region)" in written_results
    assert "Unreachable, walled-in goal (the map is one region): the first query" in written_results


def test_results_replace_every_section_they_write_and_keep_notes_written_by_hand(
    written_results: str,
) -> None:
    headings = [line for line in written_results.splitlines() if line.startswith("## ")]
    assert len(headings) == len(set(headings)), headings
    for old in ("old header", "old summary", "old arena table", "old den312d table"):
        assert old not in written_results, "the earlier run's header, summary and tables go"
    assert "## den312d" not in written_results, "a map this run did not bench is gone"
    assert headings[0] == "## Ours against the peers, every map"
    assert headings[-2:] == ["## Targets", "## Closing the gap to pyastar2d"]
    assert written_results.endswith("## Closing the gap to pyastar2d\n\nA note written by hand.\n")
    assert "1.0x tcod" not in written_results, "the old tcod target is gone"


def test_results_link_the_chart_of_ratios_per_map(written_results: str) -> None:
    assert "![ours / pyastar2d and ours / tcod per map](maps-vs-peers.svg)" in written_results
    summary = written_results.split("## Ours against the peers, every map", 1)[1]
    assert re.search(r"^\| arena +\| 49x49 +\| [\d.]+ +\| [\d.]+ +\| - +\| - +\|", summary, re.M)


def test_results_have_the_crowd_table(written_results: str) -> None:
    assert "## Crowd throughput on crowd.toml (128x128 cells)" in written_results
    header = (
        "| agents | planning ms / sim s | sim fps | arrived | fields | overlap max | render fps "
        "| sim fps (cpu) |"
    )
    assert header in written_results
    row = (
        r"^\| 200 +\| [\d.]+ +\| [\d.]+ +\| \d+ +\| \d+ +\| [\d.]+ +\| (n/a|[\d.]+) +"
        r"\| [\d.]+ +\|$"
    )
    assert re.search(row, written_results, re.M)


def test_results_list_every_target(written_results: str) -> None:
    targets = written_results.split("## Targets", 1)[1]
    assert "- ours / tcod <= 0.15x on every map: not measured (arena)" in targets
    assert "- ours / pyastar2d <= 0.8x on every map of 256x256 or more: not measured" in targets
    assert "geometric mean over the 512x512 maps of ours / pyastar2d <= 0.5x" in targets
    assert "<= 0.02x the median reachable query on every 512x512 map" in targets
    assert re.search(r"- every path ours returned legal and optimal .*: (\d+) of \1, met", targets)
    assert re.search(
        r"- every unreachable query answered found=False, reason=unreachable, every repeat on "
        r"the same array with expanded 0: 51 of 51 answers, \d+ of 50 repeats with expanded 0, ",
        targets,
    )
    assert "first planned path of a process <= 50 ms" in targets
    assert "the median of 3" in targets
    crowd = (
        r"- 200 agents on the 128x128 crowd scene at >= 60 simulated fps "
        r"\(whole sim step, no rendering\): [\d.]+ fps, (met|NOT met)"
    )
    assert re.search(crowd, targets)
