"""`sim plan` through `cli.main`: scenario checks, one path, and one-line errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim.commands import plan as plan_command
from sim.commands.cli import main
from sim.navigation import find_path
from sim.navigation.searches import kernel
from sim.navigation.searches.kernel import KERNEL_AVAILABLE
from tests.helpers.paths import movingai_dir

SMALL_MAP = "type octile\nheight 4\nwidth 5\nmap\n.....\n.@@@.\n.@..T\n.....\n"
# bucket, map, width, height, start x, start y, goal x, goal y, optimal (x = column, y = row)
SMALL_SCEN = (
    "version 1\n"
    "0\tsmall.map\t5\t4\t0\t0\t4\t0\t4\n"
    "0\tsmall.map\t5\t4\t0\t0\t2\t2\t6\n"
    "1\tsmall.map\t5\t4\t4\t0\t0\t3\t7\n"
    "0\tsmall.map\t5\t4\t0\t3\t3\t2\t3.41421\n"
)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """A 5 x 4 map with its scenario file beside it; returns the map's path."""
    (tmp_path / "small.map").write_text(SMALL_MAP)
    (tmp_path / "small.map.scen").write_text(SMALL_SCEN)
    return tmp_path / "small.map"


def scen_of(map_path: Path) -> str:
    return str(map_path) + ".scen"


def test_scenarios_all_pass(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["plan", str(small), "--scen", scen_of(small)])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0
    assert lines[-1] == "4 passed, 0 failed"
    scenario_lines = lines[2:-1]
    assert len(scenario_lines) == 4
    assert all(line.endswith("ok") for line in scenario_lines)
    assert scenario_lines[3].split()[:7] == [
        "5",
        "0",
        "0,3",
        "3,2",
        "3.41421000",
        "3.41421356",
        "1.0e-06",
    ]


def test_limit_keeps_the_first_scenarios(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(small), "--scen", scen_of(small), "--limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "2 passed, 0 failed"
    assert [line.split()[0] for line in lines[2:-1]] == ["2", "3"]


def sampled_lines(small: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["plan", str(small), "--scen", scen_of(small), *argv]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "2 passed, 0 failed"
    return [line.split()[0] for line in lines[2:-1]]


def test_sample_spreads_over_the_buckets(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Buckets by line: 2: 0, 3: 0, 4: 1, 5: 0; two picks take the first and the last bucket.
    assert sampled_lines(small, ["--sample", "2"], capsys) == ["2", "4"]


def test_seed_is_accepted_and_changes_nothing(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for seed in ("0", "7"):
        assert sampled_lines(small, ["--sample", "2", "--seed", seed], capsys) == ["2", "4"]


def test_wrong_length_fails_with_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "small.map").write_text(SMALL_MAP)
    scen = tmp_path / "wrong.scen"
    scen.write_text("version 1\n0\tsmall.map\t5\t4\t0\t0\t4\t0\t4.0001\n")
    status = main(["plan", str(tmp_path / "small.map"), "--scen", str(scen)])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert lines[-1] == "0 passed, 1 failed"
    assert lines[-2].endswith("FAIL: ours 4.00000 vs published 4.0001 (diff -0.00010)")


def test_unreachable_scenario_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "split.map").write_text("type octile\nheight 1\nwidth 3\nmap\n.@.\n")
    scen = tmp_path / "split.map.scen"
    scen.write_text("version 1\n0\tsplit.map\t3\t1\t0\t0\t2\t0\t2\n")
    assert main(["plan", str(tmp_path / "split.map"), "--scen", str(scen)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].endswith("FAIL (unreachable)")
    assert lines[-1] == "0 passed, 1 failed"


def test_scenarios_as_json(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(small), "--scen", scen_of(small), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["passed"], document["failed"]) == (4, 0)
    last = document["scenarios"][3]
    assert (last["start"], last["goal"], last["optimal"]) == ([0, 3], [3, 2], 3.41421)
    assert last["cost"] == pytest.approx(3.41421356)
    assert last["diff"] == pytest.approx(2 + 2**0.5 - 3.41421)
    assert last["passed"] is True
    assert document["implementation"] == "auto"
    assert document["algorithm"] == (find_path.__kwdefaults__ or {})["algorithm"]


# As AR0011SR.map.scen prints them: space-separated, every length with 2 decimals.
TWO_DECIMAL_SCEN = "version 1.0\n0 small.map 5 4 0 3 3 2 3.41\n0 small.map 5 4 0 0 4 0 4.00\n"


def test_two_decimal_lengths_pass_within_half_a_unit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "small.map").write_text(SMALL_MAP)
    scen = tmp_path / "two.scen"
    scen.write_text(TWO_DECIMAL_SCEN)
    assert main(["plan", str(tmp_path / "small.map"), "--scen", str(scen), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["passed"], document["failed"], document["tolerance"]) == (2, 0, 1e-5)
    diagonal = document["scenarios"][0]
    assert diagonal["rel_diff"] > 1e-5  # 3.41 for 2 + sqrt(2) = 3.41421...
    assert diagonal["abs_tolerance"] == pytest.approx(0.005)
    assert diagonal["passed"] is True


def test_two_decimal_length_off_by_more_than_half_a_unit_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "small.map").write_text(SMALL_MAP)
    scen = tmp_path / "off.scen"
    scen.write_text(TWO_DECIMAL_SCEN.replace("3.41", "3.42"))
    assert main(["plan", str(tmp_path / "small.map"), "--scen", str(scen)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "1 passed, 1 failed"
    assert lines[-3].endswith("FAIL: ours 3.4142 vs published 3.42 (diff -0.0058)")


def test_one_path(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(small), "--from", "0,0", "--to", "2,2"]) == 0
    summary, path = capsys.readouterr().out.splitlines()
    assert summary.startswith("from 0,0 to 2,2: cost 6.00000000, 7 cells,")
    assert path == "path (x,y): 0,0 0,1 0,2 0,3 1,3 2,3 2,2"


def test_one_path_as_json(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(small), "--from", "0,3", "--to", "3,2", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["found"] is True
    assert document["path"] == [[0, 3], [1, 3], [2, 3], [3, 2]]
    assert document["cost"] == pytest.approx(2 + 2**0.5)


def test_no_path_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "split.map"
    path.write_text("type octile\nheight 1\nwidth 3\nmap\n.@.\n")
    assert main(["plan", str(path), "--from", "0,0", "--to", "2,0"]) == 1
    assert "no path (unreachable)" in capsys.readouterr().out


def user_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run `sim` expecting bad input: exit 2 and exactly one line on stderr; return it."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


def test_missing_map_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    absent = tmp_path / "absent.map"
    assert user_error(["plan", str(absent), "--from", "0,0", "--to", "1,1"], capsys) == (
        f"sim: {absent}: no such file"
    )


def test_map_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = user_error(["plan", str(tmp_path), "--from", "0,0", "--to", "1,1"], capsys)
    assert line == f"sim: {tmp_path}: is a directory, not a file"


def test_missing_scen_file(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    absent = small.with_name("absent.scen")
    line = user_error(["plan", str(small), "--scen", str(absent)], capsys)
    assert line == f"sim: {absent}: no such file"


def test_malformed_map_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.map"
    path.write_text("type octile\nheight 2\nwidth 2\nmap\n..\n.?\n")
    line = user_error(["plan", str(path), "--from", "0,0", "--to", "1,0"], capsys)
    assert line == f"sim: {path}:6: unknown map character '?' at column 1"


def test_malformed_scen_names_file_and_line(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scen = small.with_name("bad.scen")
    scen.write_text("version 1\n0\tsmall.map\t5\t4\t0\t0\t4\t0\n")
    line = user_error(["plan", str(small), "--scen", str(scen)], capsys)
    assert (
        line == f"sim: {scen}:2: expected 9 fields, got 8: '0\\tsmall.map\\t5\\t4\\t0\\t0\\t4\\t0'"
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param("0\tother.map\t5\t4", "is for map other.map (5x4)", id="name"),
        pytest.param(
            "0\tmaps/dao/other.map\t5\t4", "is for map maps/dao/other.map (5x4)", id="path"
        ),
        pytest.param("0\tsmall.map\t9\t4", "is for map small.map (9x4)", id="width"),
        pytest.param("0\tmaps/small.map\t5\t9", "is for map maps/small.map (5x9)", id="height"),
    ],
)
def test_scen_for_another_map(
    small: Path, line: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    scen = small.with_name("other.scen")
    scen.write_text(f"version 1\n0\tsmall.map\t5\t4\t0\t0\t4\t0\t4\n{line}\t0\t0\t4\t0\t4\n")
    assert user_error(["plan", str(small), "--scen", str(scen)], capsys) == (
        f"sim: scen {scen} {expected}, not {small} (5x4)"
    )


@pytest.mark.parametrize(
    "name", ["small.map", "maps/dao/small.map", "small", "maps\\small.map"], ids=str
)
def test_scen_names_its_map_by_path_or_bare_name(
    small: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    scen = small.with_name("named.scen")
    scen.write_text(f"version 1\n0\t{name}\t5\t4\t0\t0\t4\t0\t4\n")
    assert main(["plan", str(small), "--scen", str(scen)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 passed, 0 failed"


@pytest.mark.parametrize(
    ("ends", "expected"),
    [
        pytest.param("1\t1\t4\t0", ":3: start 1,1 is on a blocked cell '@'", id="start-wall"),
        pytest.param("0\t0\t4\t2", ":3: goal 4,2 is on a blocked cell 'T'", id="goal-tree"),
        pytest.param("5\t0\t4\t0", ":3: start (5, 0) lies outside the 5x4 map", id="outside"),
        pytest.param("0\t0\t0\t4", ":3: goal (0, 4) lies outside the 5x4 map", id="below"),
    ],
)
def test_scenario_end_on_a_wall_or_outside_is_a_file_error(
    small: Path, ends: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    scen = small.with_name("ends.scen")
    good = "0\tsmall.map\t5\t4\t0\t0\t4\t0\t4\n"
    scen.write_text(f"version 1\n{good}0\tsmall.map\t5\t4\t{ends}\t4\n{good}")
    # The whole file is checked: --limit 1 would never plan the bad line.
    line = user_error(["plan", str(small), "--scen", str(scen), "--limit", "1"], capsys)
    assert line == f"sim: {scen}{expected}"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("a,b", "sim: --from: expected X,Y (two integers), got 'a,b'", id="letters"),
        pytest.param("1", "sim: --from: expected X,Y (two integers), got '1'", id="one-number"),
        pytest.param("1,2,3", "sim: --from: expected X,Y (two integers), got '1,2,3'", id="three"),
        pytest.param("1.5,2", "sim: --from: expected X,Y (two integers), got '1.5,2'", id="float"),
    ],
)
def test_bad_from_value(
    small: Path, value: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert user_error(["plan", str(small), "--from", value, "--to", "0,0"], capsys) == expected


@pytest.mark.parametrize(
    ("option", "value", "problem"),
    [
        pytest.param("--from", "5,0", "--from 5,0 lies outside the 5x4 map", id="from-right"),
        pytest.param("--to", "0,4", "--to 0,4 lies outside the 5x4 map", id="to-below"),
        pytest.param("--to", "-1,0", "--to -1,0 lies outside the 5x4 map", id="to-negative"),
        pytest.param("--from", "1,1", "--from 1,1 is on a blocked cell '@'", id="from-wall"),
        pytest.param("--to", "4,2", "--to 4,2 is on a blocked cell 'T'", id="to-tree"),
    ],
)
def test_point_outside_or_on_a_wall(
    small: Path, option: str, value: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    points = {"--from": "0,0", "--to": "4,0", option: value}
    # "--to=-1,0": argparse would read a bare "-1,0" as an option.
    argv = ["plan", str(small), f"--from={points['--from']}", f"--to={points['--to']}"]
    assert user_error(argv, capsys).startswith(f"sim: {small}: {problem}")


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        pytest.param([], "sim: plan: give --scen FILE, or --from X,Y and --to X,Y", id="no-mode"),
        pytest.param(
            ["--scen", "x.scen", "--from", "0,0", "--to", "1,0"],
            "sim: plan: give either --scen or --from/--to, not both",
            id="both-modes",
        ),
        pytest.param(["--from", "0,0"], "sim: plan: --from and --to go together", id="no-to"),
        pytest.param(
            ["--from", "0,0", "--to", "1,0", "--limit", "3"],
            "sim: plan: --limit and --sample apply to --scen only",
            id="limit-without-scen",
        ),
    ],
)
def test_inconsistent_options(
    small: Path, extra: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert user_error(["plan", str(small), *extra], capsys) == expected


@pytest.mark.parametrize("value", ["0", "-3", "many"], ids=["zero", "negative", "word"])
def test_limit_must_be_a_positive_integer(
    small: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = user_error(["plan", str(small), "--scen", scen_of(small), "--limit", value], capsys)
    assert line == f"sim plan: argument --limit: expected a positive integer, got '{value}'"


needs_kernel = pytest.mark.skipif(
    not KERNEL_AVAILABLE, reason="sim.navigation.searches._kernel not built"
)


def shared(name: str) -> Path:
    """A shared Moving AI map's path; skips when the benchmark set is not there."""
    path = movingai_dir() / f"{name}.map"
    if not path.is_file():
        pytest.skip(f"Moving AI benchmark {path.name} not found in {movingai_dir()}")
    return path


def test_shared_arena_sample(capsys: pytest.CaptureFixture[str]) -> None:
    arena = shared("arena")
    assert main(["plan", str(arena), "--scen", scen_of(arena), "--sample", "40"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "40 passed, 0 failed"
    buckets = [int(line.split()[1]) for line in lines[2:-1]]
    assert buckets == sorted(buckets)
    assert (buckets[0], buckets[-1]) == (0, 15)  # arena's first and last bucket


def test_shared_two_decimal_file_passes(capsys: pytest.CaptureFixture[str]) -> None:
    # AR0011SR.map.scen prints every length with 2 decimals: 1e-5 relative would fail most.
    ar = shared("AR0011SR")
    assert main(["plan", str(ar), "--scen", scen_of(ar), "--sample", "20"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "20 passed, 0 failed"


def planned(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """Run `sim plan ... --json`; the document without its times."""
    assert main(["plan", *argv, "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    document.pop("implementation")
    document.pop("ms", None)
    for row in document.get("scenarios", []):
        row.pop("ms")
    return document


@needs_kernel
def test_python_and_c_agree(capsys: pytest.CaptureFixture[str]) -> None:
    den = shared("den312d")
    argv = [str(den), "--scen", scen_of(den), "--sample", "25"]
    python = planned([*argv, "--implementation", "python"], capsys)
    assert python["passed"] == 25
    assert python == planned([*argv, "--implementation", "c"], capsys)
    path = [str(den), "--from", "4,5", "--to", "50,70"]
    python = planned([*path, "--implementation", "python"], capsys)
    assert python["found"] is True
    assert python == planned([*path, "--implementation", "c"], capsys)


@pytest.mark.parametrize("implementation", ["auto", "c", "python"])
def test_plans_with_find_path(
    small: Path, implementation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, Any]] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return find_path(*args, **kwargs)

    if implementation == "c" and not KERNEL_AVAILABLE:
        pytest.skip("sim.navigation.searches._kernel not built")
    monkeypatch.setattr(plan_command, "find_path", spy)
    argv = ["plan", str(small), "--scen", scen_of(small), "--implementation", implementation]
    assert main(argv) == 0
    # A warm-up query, then the file's four; the algorithm is find_path's own default.
    assert calls == [{"implementation": implementation}] * 5


def test_c_without_the_kernel_is_one_line(
    small: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # find_path's default runs jump point search here, in its own extension.
    monkeypatch.setattr(kernel, "KERNEL_AVAILABLE", False)
    monkeypatch.setattr(kernel, "JPS_AVAILABLE", False)
    argv = ["plan", str(small), "--scen", scen_of(small), "--implementation", "c"]
    assert user_error(argv, capsys) == (
        "sim: plan: --implementation c: "
        "implementation='c' but the compiled jump point search is not built"
    )
    assert capsys.readouterr().out == ""


def test_unknown_implementation(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = user_error(
        ["plan", str(small), "--from", "0,0", "--to", "1,0", "--implementation", "go"], capsys
    )
    assert line.startswith("sim plan: argument --implementation: invalid choice: 'go'")
