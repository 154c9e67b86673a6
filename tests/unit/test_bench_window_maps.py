"""`sim bench --window`: the maps' lines and verdicts, and a clear line when no map is there."""

from __future__ import annotations

from sim.bench.window.maps import MapWindowRow, window_lines
from sim.commands.cli import main


def test_a_map_that_opened_no_window_misses_both_targets() -> None:
    lines = window_lines([MapWindowRow("a", 4.0, 45.0, 10.0, True), MapWindowRow("b")])
    assert "MISSED: 45.0 fps at worst (1 maps)" in lines[0]
    assert "MISSED: 4.0 s at worst (1 maps)" in lines[1]
    assert lines[2] == "  - a: opened in 4.0 s, 45.0 fps, 10.0 ms CPU a frame, shadows on"
    assert lines[3] == "  - b: no window"


def test_a_slow_map_misses_the_frame_rate() -> None:
    lines = window_lines([MapWindowRow("a", 4.0, 29.9, 30.0, False)])
    assert lines[0].endswith("MISSED: 29.9 fps at worst (1 maps)")
    assert lines[1].endswith("MET: 4.0 s at worst (1 maps)")


def test_no_map_in_the_folder_is_one_line_and_status_2(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("MOVINGAI_DIR", str(tmp_path))
    assert main(["bench", "--window"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("sim: bench: none of 8room_000, maze512-1-0, random512-40-0 in")
