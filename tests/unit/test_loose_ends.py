"""Loose ends a user hits from the command line: each is one clear line, or just works."""

from __future__ import annotations

import codecs
import os
from pathlib import Path

import pytest

from sim.commands.cli import main
from tests.helpers.paths import DEFAULT_SCENE

SMALL_MAP = "type octile\nheight 4\nwidth 5\nmap\n.....\n.@@@.\n.@..T\n.....\n"
SMALL_SCEN = (
    "version 1\n"
    "0\tsmall.map\t5\t4\t0\t0\t4\t0\t4\n"
    "0\tsmall.map\t5\t4\t0\t0\t2\t2\t6\n"
    "1\tsmall.map\t5\t4\t4\t0\t0\t3\t7\n"
)


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got: {captured.err!r}"
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.fixture
def small(tmp_path: Path) -> Path:
    (tmp_path / "small.map").write_text(SMALL_MAP)
    (tmp_path / "small.map.scen").write_text(SMALL_SCEN)
    return tmp_path / "small.map"


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("clear\x1b[2J\x1b[31m.map", "clear\\x1b[2J\\x1b[31m.map"),
        ("two\nlines.map", "two\\nlines.map"),
        ("back\rover.map", "back\\rover.map"),
        ("bell\x07.map", "bell\\x07.map"),
    ],
    ids=["escape-codes", "newline", "carriage-return", "bell"],
)
def test_a_file_name_with_control_characters_is_echoed_escaped_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, shown: str
) -> None:
    missing = tmp_path / name
    status = main(["plan", str(missing), "--from", "0,0", "--to", "1,1"])
    assert status == 2
    line = one_error_line(capsys)
    assert line.startswith(f"sim: {tmp_path}/{shown}")
    assert "\x1b" not in line


def test_a_scenario_file_s_map_name_with_escape_codes_is_echoed_escaped(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scen = small.parent / "other.scen"
    scen.write_text("version 1\n0\tevil\x1b]0;owned\x07.map\t5\t4\t0\t0\t4\t0\t4\n")
    status = main(["plan", str(small), "--scen", str(scen)])
    assert status == 2
    line = one_error_line(capsys)
    assert "evil\\x1b]0;owned\\x07.map" in line
    assert "\x1b" not in line
    assert "\x07" not in line


def test_a_scene_name_with_escape_codes_is_echoed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = tmp_path / "evil\x1b[2J.toml"
    scene.write_text('name = "x"\n[grid]\nbogus = 1\n')
    status = main(["run", str(scene), "--headless"])
    assert status == 2
    line = one_error_line(capsys)
    assert line.startswith(f"sim: {tmp_path}/evil\\x1b[2J.toml")


def test_a_file_name_with_bytes_not_utf8_is_echoed_as_those_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.map")
    status = main(["plan", missing, "--from", "0,0", "--to", "1,1"])
    assert status == 2
    line = one_error_line(capsys)
    assert "caf\\xe9.map" in line
    line.encode("utf-8")  # printable as it is: no lone surrogate left


def test_a_map_with_a_utf8_byte_order_mark_reads_as_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bom.map"
    path.write_bytes(codecs.BOM_UTF8 + SMALL_MAP.encode("ascii"))
    status = main(["plan", str(path), "--from", "0,0", "--to", "4,0"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert captured.err == ""
    assert captured.out.startswith("from 0,0 to 4,0: cost 4.00000000")


def test_sample_beyond_the_file_says_it_checks_them_all(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["plan", str(small), "--scen", f"{small}.scen", "--sample", "10"])
    captured = capsys.readouterr()
    assert status == 0
    assert captured.err.splitlines() == [
        f"sim: plan: --sample 10: {small}.scen holds only 3 scenarios; checking all 3"
    ]
    assert captured.out.splitlines()[-1] == "3 passed, 0 failed"


def test_sample_within_the_file_says_nothing(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["plan", str(small), "--scen", f"{small}.scen", "--sample", "2"])
    captured = capsys.readouterr()
    assert status == 0
    assert captured.err == ""
    assert captured.out.splitlines()[-1] == "2 passed, 0 failed"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["maze", "--corridor", "99999999999999999999", "--size", "64x64"],
            "sim: generate: corridor must be 1 to 62 on a 64x64 map, got 99999999999999999999",
        ),
        (
            ["rooms", "--room", "99999", "--size", "64x30"],
            "sim: generate: room must be 1 to 28 on a 64x30 map, got 99999",
        ),
    ],
    ids=["corridor", "room"],
)
def test_a_huge_corridor_or_room_gives_the_real_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    out = tmp_path / "x.map"
    kind, *flags = argv
    status = main(["generate", kind, str(out), "--seed", "1", *flags])
    assert status == 2
    assert one_error_line(capsys) == expected
    assert not out.exists()


def test_a_race_of_one_search_against_itself_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["run", str(DEFAULT_SCENE), "--headless", "--race", "astar,astar:octile"])
    assert status == 2
    line = one_error_line(capsys)
    assert line.startswith("sim run: argument --race: 'astar,astar:octile' names a search twice")


def test_generate_echoes_the_names_it_wrote_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m\x1b[31m.map"
    assert main(["generate", "random", str(out), "--size", "8x8", "--seed", "1"]) == 0
    printed = capsys.readouterr().out
    assert "m\\x1b[31m.map" in printed
    assert "\x1b" not in printed
    assert out.is_file()


def test_compare_echoes_the_table_it_wrote_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t\x1b[31m.csv"
    assert main(["compare", str(DEFAULT_SCENE), "--repeat", "1", "--csv", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "t\\x1b[31m.csv" in printed
    assert "\x1b" not in printed
    assert out.is_file()
