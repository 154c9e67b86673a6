"""Jobs whose size the user chooses: refused up front with the estimate, before the work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.commands import generate as generate_command
from sim.commands.cli import main
from sim.lab import sweep as lab_sweep
from sim.navigation import generate_layout
from sim.navigation.catalogue import SearchKind
from sim.search_view.budget import check_recording_budget


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got: {captured.err!r}"
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.fixture
def no_full_map(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """`sim generate` fails the test if it draws a map larger than the 256 x 256 sample."""
    drawn: list[tuple[int, int]] = []

    def drawing(kind: str, height: int, width: int, **options: Any) -> Any:
        drawn.append((width, height))
        assert width * height <= 256 * 256, f"the {width}x{height} map was drawn"
        return generate_layout(kind, height, width, **options)

    monkeypatch.setattr(generate_command, "generate_layout", drawing)
    return drawn


def test_a_billion_scenarios_are_refused_before_the_map_is_drawn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_full_map: list[tuple[int, int]]
) -> None:
    out = tmp_path / "x.map"
    argv = ["generate", "maze", str(out), "--size", "64x64", "--seed", "1"]
    status = main([*argv, "--scen", "1000000000"])
    assert status == 2
    assert one_error_line(capsys) == (
        "sim: --scen: 1000000000 scenarios on a 64x64 map would take about 400 GB and "
        "4.1e+12 cell visits (a distance field over the map each); at most 1000000 fit"
    )
    assert no_full_map == []
    assert list(tmp_path.iterdir()) == []


def test_scenarios_within_the_budget_are_drawn(tmp_path: Path) -> None:
    out = tmp_path / "x.map"
    status = main(["generate", "random", str(out), "--size", "32x32", "--seed", "1", "--scen", "5"])
    assert status == 0
    assert len((tmp_path / "x.map.scen").read_text().splitlines()) == 6


@pytest.mark.parametrize(
    ("kind", "megabytes", "fits"),
    [("maze", 318, 918), ("random", 314, 925)],
    ids=["maze", "random"],
)
def test_a_scene_too_big_is_refused_from_a_sample_before_the_map_is_drawn(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_full_map: list[tuple[int, int]],
    kind: str,
    megabytes: int,
    fits: int,
) -> None:
    out, scene = tmp_path / "x.map", tmp_path / "x.toml"
    argv = ["generate", kind, str(out), "--size", "4096x4096", "--seed", "1"]
    status = main([*argv, "--scene", str(scene)])
    assert status == 2
    assert one_error_line(capsys) == (
        f"sim: --scene {scene}: a scene of this 4096x4096 {kind} would take about "
        f"{megabytes} MB (measured on a 256x256 one), over the 16 MB a scene may; "
        f"at most about {fits}x{fits} fits"
    )
    assert no_full_map == [(256, 256)]
    assert list(tmp_path.iterdir()) == []


def test_a_scene_the_sample_cannot_judge_is_still_made_and_measured(tmp_path: Path) -> None:
    out, scene = tmp_path / "x.map", tmp_path / "x.toml"
    argv = ["generate", "rooms", str(out), "--size", "300x200", "--seed", "1"]
    assert main([*argv, "--scene", str(scene)]) == 0
    assert scene.read_text().count("[[objects]]") > 10


def test_scenarios_per_map_past_the_budget_is_refused_before_any_map_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed")

    def never(*_args: object) -> None:
        raise AssertionError("the maps were prepared")

    monkeypatch.setattr(lab_sweep, "prepare_maps", never)
    experiment = tmp_path / "exp.toml"
    experiment.write_text(
        "scenarios_per_map = 1000000000\n"
        '[[maps]]\ngenerate = "maze"\nsize = [64, 64]\n'
        '[[searches]]\nalgorithm = "astar"\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    status = main(["sweep", str(experiment), "--out", str(out)])
    assert status == 2
    assert one_error_line(capsys) == (
        f"sim: {experiment}: scenarios_per_map: 1000000000 scenarios on a 64x64 map would take "
        "about 400 GB and 4.1e+12 cell visits (a distance field over the map each); "
        "at most 1000000 fit"
    )
    assert not out.exists()


@pytest.mark.parametrize("kind", ["maze", "rooms"])
def test_a_long_layout_reports_its_progress_and_draws_the_same_map(kind: str) -> None:
    shares: list[float] = []
    with_progress = generate_layout(kind, 600, 700, seed=3, progress=shares.append)
    assert (with_progress == generate_layout(kind, 600, 700, seed=3)).all()
    assert shares == sorted(shares)
    assert shares[-1] == 1.0
    if kind == "maze":  # some 200,000 edges: several blocks
        assert len(shares) > 2


def test_jump_point_search_on_a_large_open_grid_is_counted_not_refused() -> None:
    # The square of 1,048,576 cells passes the tape's budget, but JPS takes a handful of
    # steps there: counted by the kernel first, it records.
    walkable = np.ones((1024, 1024), dtype=bool)
    check_recording_budget(SearchKind.JPS, walkable, ends=((0, 0), (1023, 1023)))
    with pytest.raises(ValueError, match="reads the whole grid each step"):
        check_recording_budget(SearchKind.JPS, walkable)
