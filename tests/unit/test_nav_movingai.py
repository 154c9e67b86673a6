"""Moving AI readers: the format, CRLF, and every malformed-file message with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.navigation import MapFormatError, parse_map, parse_scenarios, read_map, read_scenarios
from sim.navigation.maps.movingai import REL_TOLERANCE
from tests.helpers.paths import movingai_dir

GOOD_MAP = "type octile\nheight 3\nwidth 4\nmap\n.GS@\nOTW.\n....\n"


def test_map_characters() -> None:
    grid = parse_map(GOOD_MAP)
    assert grid.walkable.tolist() == [
        [True, True, True, False],
        [False, False, False, True],
        [True, True, True, True],
    ]
    assert (grid.height, grid.width, grid.terrain((1, 1))) == (3, 4, "T")


def test_map_with_crlf_line_ends() -> None:
    assert (
        parse_map(GOOD_MAP.replace("\n", "\r\n")).walkable.tolist()
        == parse_map(GOOD_MAP).walkable.tolist()
    )


def test_map_without_final_newline() -> None:
    assert parse_map(GOOD_MAP.rstrip("\n")).height == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "type grid\nheight 1\nwidth 1\nmap\n.\n",
            r"m.map:1: expected 'type octile', got type 'grid'",
            id="type",
        ),
        pytest.param(
            "type octile\nwidth 1\nmap\n.\n", r"m.map:3: expected 'height N'", id="no-height"
        ),
        pytest.param(
            "type octile\nheight x\nwidth 1\nmap\n.\n",
            r"m.map:2: expected 'height N' with N >= 1 before 'map', got 'x'",
            id="height-not-int",
        ),
        pytest.param(
            "type octile\nheight 1\nwidth 0\nmap\n\n", r"m.map:3: expected 'width N'", id="width-0"
        ),
        pytest.param(
            "type octile\nheight 1\nwidth 1\ncolour red\nmap\n.\n",
            r"m.map:4: expected 'type', 'height', 'width' or 'map', got 'colour red'",
            id="unknown-header",
        ),
        pytest.param(
            "type octile\nheight 1\nwidth 1\n",
            r"m.map:3: no 'map' line before the end",
            id="no-map",
        ),
        pytest.param(
            "type octile\nheight 2\nwidth 3\nmap\n...\n..\n",
            r"m.map:6: expected 3 characters, got 2",
            id="short-row",
        ),
        pytest.param(
            "type octile\nheight 2\nwidth 2\nmap\n..\n.x\n",
            r"m.map:6: unknown map character 'x' at column 1",
            id="unknown-char",
        ),
        pytest.param(
            "type octile\nheight 3\nwidth 2\nmap\n..\n..\n",
            r"m.map:7: expected 3 map rows, found 2",
            id="missing-rows",
        ),
        pytest.param(
            "type octile\nheight 1\nwidth 2\nmap\n..\n..\n",
            r"m.map:6: unexpected text after the last map row: '..'",
            id="extra-rows",
        ),
    ],
)
def test_malformed_map_names_file_and_line(text: str, message: str) -> None:
    with pytest.raises(MapFormatError, match=message):
        parse_map(text, source="m.map")


SCEN_LINE = "3\tmaps/x.map\t4\t3\t0\t2\t3\t0\t4.24264"


def test_scenario_fields() -> None:
    (scenario,) = parse_scenarios(f"version 1\n{SCEN_LINE}\n")
    assert (scenario.bucket, scenario.map_name, scenario.map_width, scenario.map_height) == (
        3,
        "maps/x.map",
        4,
        3,
    )
    assert (scenario.start, scenario.goal) == ((2, 0), (0, 3))  # (row, col) = (y, x)
    assert (scenario.optimal_length, scenario.line) == (4.24264, 2)


def test_space_separated_scenarios_and_blank_lines() -> None:
    text = "version 1.0\r\n\r\n" + SCEN_LINE.replace("\t", "   ") + "\r\n\r\n"
    (scenario,) = parse_scenarios(text)
    assert (scenario.start, scenario.line) == ((2, 0), 3)


def test_empty_scenario_list() -> None:
    assert parse_scenarios("version 1\n") == []


def scen_text(*lengths: str) -> str:
    """A tab-separated version 1 file: one scenario per printed length, on a 9x9 map."""
    lines = (f"0\tm.map\t9\t9\t0\t0\t{x}\t0\t{length}\n" for x, length in enumerate(lengths))
    return "version 1\n" + "".join(lines)


def test_two_decimal_lengths_allow_half_a_unit_of_the_last() -> None:
    # AR0011SR.map.scen prints every length with 2 decimals: 2.83 for 2 sqrt(2) = 2.828427...
    text = "version 1.0\n0 m 9 9 0 0 2 2 2.83\n33 m 9 9 0 0 8 8 132.40\n"
    short, long = parse_scenarios(text)
    assert (short.length_decimals, short.fixed_decimals) == (2, True)
    assert (long.length_decimals, long.fixed_decimals) == (2, True)
    assert short.tolerance == pytest.approx(0.005)
    assert long.tolerance == pytest.approx(0.005)  # above 1e-5 x 132.40 = 0.0013
    assert short.accepts(2 * 2**0.5)
    assert not short.accepts(2.824)


def test_eight_decimal_lengths_keep_the_relative_tolerance() -> None:
    diagonal, straight = parse_scenarios(scen_text("1.41421356", "2.00000000"))
    assert (diagonal.length_decimals, diagonal.fixed_decimals) == (8, True)
    assert (straight.length_decimals, straight.fixed_decimals) == (8, True)
    assert diagonal.tolerance == pytest.approx(REL_TOLERANCE * 1.41421356)  # > 5e-9
    assert diagonal.accepts(2**0.5)
    assert not diagonal.accepts(1.41421356 + 2e-5)


def test_six_significant_digit_lengths_keep_the_relative_tolerance() -> None:
    # The %g writer of older files: 6 significant digits, trailing zeros dropped, so the
    # decimals vary and "1004.4" (1004.40) or "4" (4.00000) are exact to 6 digits all the same.
    diagonal, straight, long = parse_scenarios(scen_text("1.41421", "4", "1004.4"))
    assert [s.length_decimals for s in (diagonal, straight, long)] == [5, 0, 1]
    assert not any(s.fixed_decimals for s in (diagonal, straight, long))
    assert diagonal.tolerance == pytest.approx(REL_TOLERANCE * 1.41421)
    assert long.tolerance == pytest.approx(REL_TOLERANCE * 1004.4)  # not 0.05
    assert diagonal.accepts(2**0.5)
    assert not straight.accepts(3 * 2**0.5)  # 4.24: no half-unit slack on "4"
    assert not long.accepts(1004.4 + 0.02)


def test_integer_lengths_alone_are_not_fixed_decimals() -> None:
    (scenario,) = parse_scenarios(scen_text("4"))
    assert (scenario.length_decimals, scenario.fixed_decimals) == (0, False)
    assert scenario.tolerance == pytest.approx(4e-5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("", r"s.scen:1: empty file; expected 'version 1'", id="empty"),
        pytest.param("version 2\n", r"s.scen:1: expected 'version 1', got 'version 2'", id="v2"),
        pytest.param(
            f"version 1\n{SCEN_LINE}\t7\n", r"s.scen:2: expected 9 fields, got 10", id="10-fields"
        ),
        pytest.param(
            "version 1\n0 m 4 3 0 2 3 0\n", r"s.scen:2: expected 9 fields, got 8", id="8-fields"
        ),
        pytest.param(
            "version 1\n0 m 4 3 0 2.5 3 0 1\n",
            r"s.scen:2: start y must be an integer, got '2.5'",
            id="float-coordinate",
        ),
        pytest.param(
            "version 1\nb m 4 3 0 2 3 0 1\n",
            r"s.scen:2: bucket must be an integer, got 'b'",
            id="bucket",
        ),
        pytest.param(
            "version 1\n0 m 4 3 -1 2 3 0 1\n", r"s.scen:2: start x must be >= 0, got -1", id="neg"
        ),
        pytest.param(
            "version 1\n0 m 4 3 0 2 4 0 1\n",
            r"s.scen:2: goal \(4, 0\) lies outside the 4x3 map",
            id="goal-outside",
        ),
        pytest.param(
            "version 1\n0 m 4 3 0 3 3 0 1\n",
            r"s.scen:2: start \(0, 3\) lies outside the 4x3 map",
            id="start-below-the-last-row",
        ),
        pytest.param(
            "version 1\n0 m 4 3 0 2 3 0 far\n",
            r"s.scen:2: optimal length must be a number, got 'far'",
            id="length-word",
        ),
        pytest.param(
            "version 1\n0 m 4 3 0 2 3 0 nan\n",
            r"s.scen:2: optimal length must be finite and >= 0, got 'nan'",
            id="length-nan",
        ),
    ],
)
def test_malformed_scenarios_name_file_and_line(text: str, message: str) -> None:
    with pytest.raises(MapFormatError, match=message):
        parse_scenarios(text, source="s.scen")


def test_reading_a_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_map(tmp_path / "absent.map")


def test_reading_reports_the_path(tmp_path: Path) -> None:
    path = tmp_path / "bad.map"
    path.write_bytes(b"type octile\nheight 1\nwidth 1\nmap\n\xff\n")
    with pytest.raises(MapFormatError, match=r"bad.map:5: unknown map character 'ÿ'"):
        read_map(path)


SHARED_SIZES = {
    "arena": (49, 49),
    "den312d": (81, 65),
    "lak303d": (194, 194),
    "brc202d": (481, 530),
    "AcrosstheCape": (768, 768),
    "maze512-1-0": (512, 512),
    "maze512-32-9": (512, 512),
    "random512-25-0": (512, 512),
    "8room_000": (512, 512),
    "Berlin_0_256": (256, 256),
    "hrt201n": (305, 294),
    "AR0011SR": (512, 512),
    "Aftershock": (512, 512),
    "32room_000": (512, 512),
    "maze512-2-0": (512, 512),
    "random512-40-0": (512, 512),
    "Paris_0_512": (512, 512),
    "ht_chantry": (141, 162),
}
FIXED_DECIMALS = {"AR0011SR": 2, "Berlin_0_256": 8, "Paris_0_512": 8, "maze512-32-9": 8}
"""Files printing every length with fixed decimals; the others print 6 significant digits."""


@pytest.mark.parametrize(("name", "shape"), list(SHARED_SIZES.items()), ids=list(SHARED_SIZES))
def test_shared_benchmark_files_load(name: str, shape: tuple[int, int]) -> None:
    folder = movingai_dir()
    if not (folder / f"{name}.map").is_file():
        pytest.skip(f"Moving AI benchmark {name}.map not found in {folder}")
    grid = read_map(folder / f"{name}.map")
    scenarios = read_scenarios(folder / f"{name}.map.scen")
    assert grid.walkable.shape == shape
    assert scenarios
    assert all((s.map_height, s.map_width) == shape for s in scenarios)
    assert all(grid.walkable[s.start] and grid.walkable[s.goal] for s in scenarios)


@pytest.mark.parametrize("name", list(SHARED_SIZES), ids=list(SHARED_SIZES))
def test_shared_benchmark_files_precision(name: str) -> None:
    path = movingai_dir() / f"{name}.map.scen"
    if not path.is_file():
        pytest.skip(f"Moving AI benchmark {path.name} not found in {movingai_dir()}")
    scenarios = read_scenarios(path)
    if name in FIXED_DECIMALS:
        assert {(s.length_decimals, s.fixed_decimals) for s in scenarios} == {
            (FIXED_DECIMALS[name], True)
        }
    else:
        assert not any(s.fixed_decimals for s in scenarios)
