"""`sim compare SCENE --csv F --chart F.png`: the table as CSV and as a bar chart PNG."""

from __future__ import annotations

import csv
import errno
import math
import os
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.commands.cli import main
from sim.commands.compare_export import CSV_COLUMNS, INSTALL_HINT, csv_text
from sim.navigation.replay.compare import compare_searches, format_table
from tests.helpers.paths import DEFAULT_SCENE

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FIRST_WORDS = {"A*", "weighted", "greedy", "Dijkstra", "BFS", "DFS", "JPS", "bidirectional"}
FIRST_WORDS |= {"Theta*"}


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_csv_and_chart_of_the_default_scene(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, chart = tmp_path / "table.csv", tmp_path / "chart.png"
    status = main(
        ["compare", str(DEFAULT_SCENE), "--repeat", "1", "--csv", str(table), "--chart", str(chart)]
    )
    assert status == 0
    out = capsys.readouterr().out
    assert f"wrote {table}" in out
    assert f"wrote {chart}" in out
    with table.open(newline="", encoding="utf-8") as handle:
        lines = list(csv.reader(handle))
    assert tuple(lines[0]) == CSV_COLUMNS
    rows = lines[1:]
    assert len(rows) >= 16  # the 15, bidirectional always, JPS and Theta* where allowed
    printed = [line.split()[0] for line in out.splitlines() if line.split()[:1]]
    # The CSV rows are the printed table's rows, in its order.
    assert [row[0].split()[0] for row in rows] == [name for name in printed if name in FIRST_WORDS]
    dijkstra = next(row for row in rows if row[0] == "Dijkstra")
    assert dijkstra[1] == ""
    assert dijkstra[5] == "0.0"
    assert dijkstra[6] == ""
    assert all(int(row[2]) > 0 and float(row[3]) >= 0 for row in rows)
    optimum = float(dijkstra[4])
    for row in rows:
        assert float(row[4]) == pytest.approx(optimum + float(row[5]))
        assert (row[6] == "*") == (float(row[5]) > 0)  # Theta* may be shorter: no mark
    data = chart.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert png_size(data) == (900, 600)
    assert len(data) > 10_000  # bars, labels and a title, not a blank canvas


def test_csv_matches_the_table_and_leaves_no_path_empty() -> None:
    walkable = np.array([[True, False, True]])
    rows = compare_searches(walkable, (0, 0), (0, 2), repeat=1)
    lines = list(csv.reader(csv_text(rows).splitlines()))
    assert len(lines) == len(format_table(rows))  # a header and 15 rows: no footnote
    assert all(line[4] == "" and line[5] == "" and line[6] == "" for line in lines[1:])
    assert all(line[7].startswith("no path") for line in lines[1:])


@pytest.mark.parametrize(
    ("flag", "name", "message"),
    [
        ("--csv", "missing/table.csv", "folder"),
        ("--chart", "missing/chart.png", "folder"),
        ("--chart", "chart.jpg", "is a PNG"),
        ("--csv", ".", "is a folder"),
    ],
)
def test_bad_export_paths_are_one_line_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flag: str,
    name: str,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["compare", str(DEFAULT_SCENE), "--repeat", "1", flag, name]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # refused before any search ran
    [line] = captured.err.splitlines()
    assert flag in line
    assert message in line
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_of_another_kind_is_not_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = tmp_path / "shot.png"
    image.write_bytes(PNG_MAGIC + bytes(32))
    assert main(["compare", str(DEFAULT_SCENE), "--csv", str(image)]) == 2
    assert "not a CSV file" in capsys.readouterr().err
    assert image.read_bytes() == PNG_MAGIC + bytes(32)


def test_chart_without_matplotlib_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    chart = tmp_path / "chart.png"
    assert main(["compare", str(DEFAULT_SCENE), "--chart", str(chart)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert INSTALL_HINT in line
    assert not chart.exists()


def test_more_adds_jps_bidirectional_and_theta_where_the_grid_allows() -> None:
    open_grid = np.ones((5, 5), dtype=bool)
    rows = compare_searches(open_grid, (0, 0), (4, 1), repeat=1, more=True)
    assert [row.label for row in rows[15:]] == ["JPS", "bidirectional", "Theta*"]
    jps, both, theta = rows[15:]
    assert jps.optimal
    assert both.optimal
    assert jps.guaranteed
    assert both.guaranteed
    assert not theta.guaranteed
    # Theta*'s one straight segment beats every path along the grid's moves, unmarked.
    assert theta.gap is not None
    assert theta.gap < 0
    assert theta.cost == pytest.approx(math.hypot(4, 1))
    lines = format_table(rows)
    assert "*" not in next(line for line in lines if line.startswith("Theta*")).split()
    assert len(compare_searches(open_grid, (0, 0), (4, 1), repeat=1)) == 15  # the view's table


def test_more_skips_what_the_query_refuses() -> None:
    open_grid = np.ones((5, 5), dtype=bool)
    four = compare_searches(open_grid, (0, 0), (4, 1), repeat=1, more=True, diagonal=False)
    assert [row.label for row in four[15:]] == ["bidirectional", "Theta*"]
    costs = np.full((5, 5), 2.0)
    costly = compare_searches(open_grid, (0, 0), (4, 1), repeat=1, more=True, costs=costs)
    assert [row.label for row in costly[15:]] == ["bidirectional"]
    assert costly[15].optimal


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("NOTES.md", "# Notes\n\nalgorithm,heuristic are the columns\n"),
        ("tool.py", "print('hello')\n"),
        ("scene.toml", 'version = 1\nname = "x"\n'),
        ("other.csv", "a,b,c\n1,2,3\n"),
    ],
    ids=["markdown", "python", "scene", "another-table"],
)
def test_csv_replaces_only_a_table_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    target = tmp_path / name
    target.write_text(text, encoding="utf-8")
    assert main(["compare", str(DEFAULT_SCENE), "--repeat", "1", "--csv", str(target)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # refused before any search ran
    [line] = captured.err.splitlines()
    assert line.startswith(f"sim: --csv {target}: exists and is not a CSV file sim compare wrote")
    assert target.read_text(encoding="utf-8") == text


def test_csv_replaces_a_table_it_wrote_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "table.csv"
    table.write_text("\ufeff" + ",".join(CSV_COLUMNS) + "\r\nA*,octile,1,0.1,1.0,0.0,,\r\n")
    assert main(["compare", str(DEFAULT_SCENE), "--repeat", "1", "--csv", str(table)]) == 0
    assert f"wrote {table}" in capsys.readouterr().out
    assert table.read_text(encoding="utf-8").splitlines()[0] == ",".join(CSV_COLUMNS)
    assert len(table.read_text(encoding="utf-8").splitlines()) > 2


@pytest.mark.parametrize("flag", ["--csv", "--chart"])
def test_a_full_disk_is_one_line_and_leaves_the_old_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flag: str,
) -> None:
    old = (",".join(CSV_COLUMNS) + "\n").encode() if flag == "--csv" else PNG_MAGIC
    target = tmp_path / ("table.csv" if flag == "--csv" else "chart.png")
    target.write_bytes(old)

    def full_disk(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full_disk)  # the temporary file cannot reach the disk
    assert main(["compare", str(DEFAULT_SCENE), "--repeat", "1", flag, str(target)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line == f"sim: {flag} {target}: not written: No space left on device"
    assert target.read_bytes() == old
    assert [path.name for path in tmp_path.iterdir()] == [target.name]  # no temporary file left
