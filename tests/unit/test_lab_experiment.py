"""Experiment files for `sim sweep`: what a good one reads as, and every bad file's one line."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from sim.commands.cli import main
from sim.errors import SimError
from sim.lab.experiment import GeneratedEntry, MovingAIEntry, read_experiment
from sim.lab.maps import prepare_maps
from tests.helpers.paths import movingai_dir

SEARCH = '[[searches]]\nalgorithm = "astar"\n'


@pytest.fixture
def maps_dir(tmp_path: Path) -> Path:
    """A folder of small Moving AI maps beside the experiment: arena and den312d."""
    folder = tmp_path / "maps"
    folder.mkdir()
    for name in ("arena", "den312d"):
        for suffix in (".map", ".map.scen"):
            shutil.copy(movingai_dir() / f"{name}{suffix}", folder / f"{name}{suffix}")
    return folder


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "exp.toml"
    path.write_text(text, encoding="utf-8")
    return path


def check(path: Path) -> None:
    """Everything `sim sweep` checks before it writes anything."""
    experiment = read_experiment(path)
    prepare_maps(experiment, path.parent / "out" / "maps")


def test_a_good_file_reads_with_defaults_and_globs(tmp_path: Path, maps_dir: Path) -> None:
    path = write(
        tmp_path,
        'name = "t"\nseed = 3\nscenarios_per_map = 5\n'
        '[[maps]]\nmovingai = "maps/*.map"\n'
        '[[maps]]\ngenerate = "rooms"\nsize = [40, 30]\nroom = 6\n'
        '[[searches]]\nalgorithm = "astar"\n'
        '[[searches]]\nalgorithm = "astar"\nheuristic = "manhattan"\nweight = 2\n'
        "connectivity = 4\n",
    )
    experiment = read_experiment(path)
    assert [entry.name for entry in experiment.maps] == [
        "arena",
        "den312d",
        "rooms-40x30-room6-door1-seed3",
    ]
    arena, _, rooms = experiment.maps
    assert isinstance(arena, MovingAIEntry)
    assert arena.scen_path == maps_dir / "arena.map.scen"
    assert isinstance(rooms, GeneratedEntry)
    assert (rooms.width, rooms.height, rooms.seed) == (40, 30, 3)
    plain, weighted = experiment.searches
    assert (plain.heuristic, plain.weight, plain.connectivity) == ("octile", 1.0, 8)
    assert (weighted.label, weighted.weight) == ("astar manhattan w2 4-conn", 2.0)
    prepared = prepare_maps(experiment, tmp_path / "out" / "maps")
    assert [len(m.scenarios) for m in prepared] == [5, 5, 5]


def test_the_default_name_is_the_files_stem(tmp_path: Path, maps_dir: Path) -> None:
    path = write(tmp_path, f'[[maps]]\nmovingai = "maps/arena.map"\n{SEARCH}')
    experiment = read_experiment(path)
    assert (experiment.name, experiment.seed, experiment.scenarios_per_map) == ("exp", 0, 100)


ARENA = '[[maps]]\nmovingai = "maps/arena.map"\n'
BAD_FILES = {
    "invalid-toml": ("name = \n", r"exp\.toml: invalid TOML: .*"),
    "unknown-top-key": (
        f"scenario_per_map = 5\n{ARENA}{SEARCH}",
        r"exp\.toml: scenario_per_map: unknown key; did you mean 'scenarios_per_map'\?",
    ),
    "seed-not-integer": (
        f'seed = "one"\n{ARENA}{SEARCH}',
        r"exp\.toml: seed: expected an integer, got string 'one'",
    ),
    "seed-negative": (
        f"seed = -1\n{ARENA}{SEARCH}",
        r"exp\.toml: seed: must be from 0 to 2\*\*63 - 1, got -1",
    ),
    "scenarios-per-map-zero": (
        f"scenarios_per_map = 0\n{ARENA}{SEARCH}",
        r"exp\.toml: scenarios_per_map: must be at least 1, got 0",
    ),
    "no-maps": (SEARCH, r"exp\.toml: maps: missing required key"),
    "no-searches": (ARENA, r"exp\.toml: searches: missing required key"),
    "maps-not-tables": (
        f"maps = []\n{SEARCH}",
        r"exp\.toml: maps: expected one or more \[\[maps\]\] tables, got an array of 0",
    ),
    "map-without-source": (
        f"[[maps]]\nsize = [4, 4]\n{SEARCH}",
        r"exp\.toml: maps\[0\]: expected a 'movingai' path or a 'generate' kind",
    ),
    "map-with-both-sources": (
        f'[[maps]]\nmovingai = "maps/arena.map"\ngenerate = "maze"\n{SEARCH}',
        r"exp\.toml: maps\[0\]: give either 'movingai' or 'generate', not both",
    ),
    "movingai-unknown-key": (
        f'[[maps]]\nmovingai = "maps/arena.map"\nsize = [4, 4]\n{SEARCH}',
        r"exp\.toml: maps\[0\]\.size: unknown key; expected 'movingai'",
    ),
    "missing-map": (
        f'[[maps]]\nmovingai = "maps/nowhere.map"\n{SEARCH}',
        r"exp\.toml: maps\[0\]\.movingai: no such map file: .*/maps/nowhere\.map",
    ),
    "glob-matches-nothing": (
        f'[[maps]]\nmovingai = "maps/zz*.map"\n{SEARCH}',
        r"exp\.toml: maps\[0\]\.movingai: 'maps/zz\*\.map' matches no \.map file .*",
    ),
    "not-a-map-file": (
        f'[[maps]]\nmovingai = "maps/arena.map.scen"\n{SEARCH}',
        r"exp\.toml: maps\[0\]\.movingai: expected a \.map file, got arena\.map\.scen",
    ),
    "map-name-twice": (
        f'{ARENA}[[maps]]\nmovingai = "maps/a*.map"\n{SEARCH}',
        r"exp\.toml: maps\[1\]: a second map named 'arena' \(also exp\.toml: maps\[0\]\); .*",
    ),
    "too-few-scenarios": (
        f"scenarios_per_map = 200\n{ARENA}{SEARCH}",
        r"exp\.toml: maps\[0\]: arena\.map\.scen holds 160 scenarios, fewer than "
        r"scenarios_per_map = 200",
    ),
    "unknown-kind": (
        f'[[maps]]\ngenerate = "cave"\nsize = [8, 8]\n{SEARCH}',
        r"exp\.toml: maps\[0\]\.generate: expected one of 'maze', 'rooms', 'random', "
        r"got 'cave'",
    ),
    "key-of-another-kind": (
        f'[[maps]]\ngenerate = "maze"\nsize = [8, 8]\nroom = 3\n{SEARCH}',
        r"exp\.toml: maps\[0\]\.room: unknown key for a maze map; a maze map takes corridor",
    ),
    "size-missing": (
        f'[[maps]]\ngenerate = "maze"\n{SEARCH}',
        r"exp\.toml: maps\[0\]\.size: missing required key",
    ),
    "size-one-number": (
        f'[[maps]]\ngenerate = "maze"\nsize = [8]\n{SEARCH}',
        r"exp\.toml: maps\[0\]\.size: expected \[width, height\], 2 integers, got an array of 1",
    ),
    "size-zero": (
        f'[[maps]]\ngenerate = "random"\nsize = [8, 0]\n{SEARCH}',
        r"exp\.toml: maps\[0\]\.size\[1\]: must be at least 1, got 0",
    ),
    "size-too-small-for-the-kind": (
        f'[[maps]]\ngenerate = "maze"\nsize = [3, 3]\ncorridor = 2\n{SEARCH}',
        r"exp\.toml: maps\[0\]: a maze with corridor 2 needs each side 4 to 4096 cells, "
        r"got 3x3 \(width x height\)",
    ),
    "density-too-high": (
        f'[[maps]]\ngenerate = "random"\nsize = [8, 8]\ndensity = 1.5\n{SEARCH}',
        r"exp\.toml: maps\[0\]: density must be at least 0 and below 1, got 1\.5",
    ),
    "corridor-not-whole": (
        f'[[maps]]\ngenerate = "maze"\nsize = [8, 8]\ncorridor = 1.5\n{SEARCH}',
        r"exp\.toml: maps\[0\]: corridor must be a whole number, got 1\.5",
    ),
    "unknown-algorithm": (
        f'{ARENA}[[searches]]\nalgorithm = "astra"\n',
        r"exp\.toml: searches\[0\]\.algorithm: unknown algorithm 'astra'; expected one of .*",
    ),
    "unknown-heuristic": (
        f'{ARENA}[[searches]]\nalgorithm = "astar"\nheuristic = "taxicab"\n',
        r"exp\.toml: searches\[0\]\.heuristic: unknown heuristic 'taxicab'; expected one of .*",
    ),
    "weight-below-one": (
        f'{ARENA}[[searches]]\nalgorithm = "astar"\nweight = 0.5\n',
        r"exp\.toml: searches\[0\]\.weight: weight must be a finite number >= 1, got 0\.5",
    ),
    "connectivity-six": (
        f'{ARENA}[[searches]]\nalgorithm = "astar"\nconnectivity = 6\n',
        r"exp\.toml: searches\[0\]\.connectivity: expected 4 or 8, got 6",
    ),
    "unknown-implementation": (
        f'{ARENA}[[searches]]\nalgorithm = "astar"\nimplementation = "rust"\n',
        r"exp\.toml: searches\[0\]\.implementation: implementation must be auto, c or python, "
        r"got 'rust'",
    ),
    "unknown-search-key": (
        f'{ARENA}[[searches]]\nalgorithm = "astar"\nwieght = 2\n',
        r"exp\.toml: searches\[0\]\.wieght: unknown key; did you mean 'weight'\?",
    ),
    "same-search-twice": (
        f'{ARENA}{SEARCH}[[searches]]\nalgorithm = "astar"\nheuristic = "octile"\n',
        r"exp\.toml: searches\[1\]: the same search as searches\[0\]",
    ),
}


@pytest.mark.parametrize(("text", "message"), BAD_FILES.values(), ids=BAD_FILES.keys())
def test_a_bad_file_is_one_line_naming_the_key(
    tmp_path: Path, maps_dir: Path, text: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(SimError) as raised:
        check(path)
    assert re.fullmatch(message.replace("exp\\.toml", re.escape(str(path))), str(raised.value))
    assert "\n" not in str(raised.value)


def test_a_scen_of_another_map_is_refused(tmp_path: Path, maps_dir: Path) -> None:
    # den312d's cells with arena's scenarios beside them: the .scen names another map.
    shutil.copy(maps_dir / "den312d.map", maps_dir / "other.map")
    shutil.copy(maps_dir / "arena.map.scen", maps_dir / "other.map.scen")
    path = write(tmp_path, f'[[maps]]\nmovingai = "maps/other.map"\n{SEARCH}')
    with pytest.raises(SimError) as raised:
        check(path)
    assert str(raised.value) == (
        f"{path}: maps[0]: scen {maps_dir / 'other.map.scen'} is for map maps/dao/arena.map "
        f"(49x49), not {maps_dir / 'other.map'} (65x81)"
    )


def test_a_scen_with_a_start_on_a_wall_is_refused(tmp_path: Path, maps_dir: Path) -> None:
    scen = maps_dir / "arena.map.scen"
    lines = scen.read_text().splitlines()
    fields = lines[1].split("\t")
    fields[4:6] = ["0", "0"]  # arena's corner is a tree
    scen.write_text("\n".join([lines[0], "\t".join(fields), *lines[2:]]) + "\n")
    path = write(tmp_path, f"{ARENA}{SEARCH}")
    with pytest.raises(SimError) as raised:
        check(path)
    assert str(raised.value) == f"{path}: maps[0]: {scen}:2: start 0,0 is on a blocked cell 'T'"


def test_a_malformed_map_is_refused(tmp_path: Path, maps_dir: Path) -> None:
    (maps_dir / "arena.map").write_text("type octile\nheight 1\nwidth 2\nmap\n.x\n")
    path = write(tmp_path, f"{ARENA}{SEARCH}")
    with pytest.raises(SimError) as raised:
        check(path)
    assert str(raised.value) == (
        f"{path}: maps[0]: {maps_dir / 'arena.map'}:5: unknown map character 'x' at column 1"
    )


def test_a_missing_experiment_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SimError, match=r"nowhere\.toml: no such file$"):
        read_experiment(tmp_path / "nowhere.toml")


def test_sim_sweep_reports_a_bad_file_in_one_line_and_writes_nothing(
    tmp_path: Path, maps_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, f'{ARENA}[[searches]]\nalgorithm = "astar"\nconnectivity = 6\n')
    out = tmp_path / "run"
    assert main(["sweep", str(path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"sim: {path}: searches[0].connectivity: expected 4 or 8, got 6\n"
    )
    assert not out.exists()


def test_the_documented_demo_reads_with_every_map_and_search() -> None:
    """The experiment docs/lab.md tells a newcomer to run: its maps exist, its searches parse."""
    demo = read_experiment(Path(__file__).parents[2] / "experiments" / "demo.toml")
    assert demo.name == "demo"
    assert len(demo.maps) == 5
    assert [search.algorithm for search in demo.searches] == ["auto", "astar", "astar", "dijkstra"]
