"""``kind = "mapf"`` experiments: the file's checks, and a tiny sweep end to end on Dask."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from sim.errors import SimError
from sim.lab.experiment import experiment_kind, read_document, read_experiment
from sim.lab.mapf_experiment import parse_mapf_experiment
from sim.lab.mapf_rows import COLUMNS
from tests.helpers.paths import REPO_ROOT

ROWS = ["......", ".@@@..", "......", "..@...", "......"]
AGENTS = [((0, 0), (5, 4)), ((5, 0), (0, 4)), ((0, 2), (5, 2)), ((5, 2), (0, 2))]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ISSUE_COLUMNS = (
    "solved",
    "sum_of_costs",
    "makespan",
    "soc_lower_bound",
    "makespan_lower_bound",
    "time_s",
)


@pytest.fixture
def bench_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A MAPF benchmark folder with one 6x5 map and its random-1 file, as $MAPF_DIR."""
    folder = tmp_path / "mapf"
    (folder / "maps").mkdir(parents=True)
    (folder / "scen-random").mkdir()
    (folder / "maps" / "tiny.map").write_text(
        f"type octile\nheight {len(ROWS)}\nwidth {len(ROWS[0])}\nmap\n" + "\n".join(ROWS) + "\n"
    )
    lines = ["version 1"] + [
        f"0\ttiny.map\t6\t5\t{sx}\t{sy}\t{gx}\t{gy}\t1" for (sx, sy), (gx, gy) in AGENTS
    ]
    (folder / "scen-random" / "tiny-random-1.scen").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("MAPF_DIR", str(folder))
    return folder


GOOD = (
    'kind = "mapf"\ntime_limit_s = 0.5\nagents = [4, 2, 2]\nsolvers = ["pibt", "lacam"]\n'
    '[[maps]]\nbenchmark = "tiny"\n'
)


def test_a_good_file_lists_every_run(tmp_path: Path, bench_dir: Path) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(GOOD)
    document = read_document(path)
    assert experiment_kind(document, path) == "mapf"
    experiment = parse_mapf_experiment(document, path)
    assert experiment.name == "exp"
    assert experiment.agents == (2, 4)
    runs = [(Path(t.scen_path).name, t.agents, t.solver) for t in experiment.tasks()]
    assert runs == [
        ("tiny-random-1.scen", 2, "pibt"),
        ("tiny-random-1.scen", 2, "lacam"),
        ("tiny-random-1.scen", 4, "pibt"),
        ("tiny-random-1.scen", 4, "lacam"),
    ]


def test_a_map_of_ones_own_with_a_glob(tmp_path: Path, bench_dir: Path) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(
        'kind = "mapf"\nagents = [2]\nsolvers = ["cbs"]\n'
        f'[[maps]]\nmap = "{bench_dir}/maps/tiny.map"\nscen = "{bench_dir}/scen-random/*.scen"\n'
    )
    experiment = parse_mapf_experiment(read_document(path), path)
    assert [scen.name for _, scen in experiment.scenarios] == ["tiny-random-1.scen"]
    assert experiment.time_limit_s == 10.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param(
            ('kind = "mapf"', 'kind = "crowd"'), "kind: expected 'path' or 'mapf'", id="kind"
        ),
        pytest.param(('"pibt", "lacam"', '"pibt", "astar"'), "solvers[1]: expected", id="solver"),
        pytest.param(('"pibt", "lacam"', '"pibt", "pibt"'), "listed twice", id="solver-twice"),
        pytest.param(("[4, 2, 2]", "[0]"), "agents[0]", id="agents-zero"),
        pytest.param(("[4, 2, 2]", '"many"'), "agents: expected a list", id="agents-text"),
        pytest.param(("[4, 2, 2]", "[5]"), "holds only 4", id="agents-beyond"),
        pytest.param(("0.5", "0"), "time_limit_s: must be > 0", id="time-limit"),
        pytest.param(('"tiny"', '"atlantis"'), "no map 'atlantis'", id="map"),
        pytest.param(('"tiny"\n', '"tiny"\nscen_files = 3\n'), "no scenario file", id="files"),
        pytest.param(("time_limit_s", "searches = 1\ntime_limit_s"), "searches", id="key"),
    ],
)
def test_a_bad_file_is_one_line_naming_the_key(
    tmp_path: Path, bench_dir: Path, change: tuple[str, str], message: str
) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(GOOD.replace(*change))
    with pytest.raises(SimError) as raised:
        parse_mapf_experiment(read_document(path), path)
    text = str(raised.value)
    assert "\n" not in text
    assert text.startswith(str(path))
    assert message in text


def test_a_path_experiment_may_say_its_kind(tmp_path: Path) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(
        'kind = "path"\n[[maps]]\ngenerate = "maze"\nsize = [9, 9]\n'
        '[[searches]]\nalgorithm = "astar"\n'
    )
    assert read_experiment(path).searches[0].algorithm == "astar"


def test_the_demo_experiment_is_a_mapf_one() -> None:
    document = tomllib.loads((REPO_ROOT / "experiments" / "mapf-demo.toml").read_text())
    assert document["kind"] == "mapf"
    assert set(document["solvers"]) == {"lacam", "pibt", "cbs"}


@pytest.mark.lab
@pytest.mark.timeout(240)
def test_a_tiny_sweep_writes_rows_summary_and_plots(tmp_path: Path, bench_dir: Path) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(GOOD.replace('["pibt", "lacam"]', '["pibt", "lacam", "cbs"]'))
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "sim", "sweep", str(path), "--out", str(out), "--workers", "1"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=180,
        env={**os.environ, "MAPF_DIR": str(bench_dir)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    with (out / "results.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == COLUMNS
    assert set(ISSUE_COLUMNS) <= set(COLUMNS)
    assert [(r["agents"], r["solver"]) for r in rows] == [
        (k, s) for k in ("2", "4") for s in ("pibt", "lacam", "cbs")
    ]
    assert all(r["solved"] == "true" and r["valid"] == "true" for r in rows)
    assert all(int(r["sum_of_costs"]) >= int(r["soc_lower_bound"]) for r in rows)
    assert "| tiny | cbs | 4 |" in (out / "summary.md").read_text()
    for plot in ("success_rate.png", "runtime.png", "soc_over_bound.png"):
        assert (out / "plots" / plot).read_bytes().startswith(PNG_MAGIC)
    again = subprocess.run(
        [sys.executable, "-m", "sim", "sweep", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
        check=False,
    )
    assert again.returncode == 2
    assert "not empty" in again.stderr
