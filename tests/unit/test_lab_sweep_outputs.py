"""`sim sweep --out`: it replaces only what a sweep wrote, and reads back only its own chunks.

`--resume` finishes a folder a sweep made and nothing else; in `partial/` it reads only regular
files of a chunk's size, so a FIFO or a link to a device left there is run again, never read.
Names of maps that Markdown would read as table syntax stay inside their cell of summary.md.
Each sweep runs as its own `python -m sim` process on a local cluster (marked `lab`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import REPO_ROOT

pytestmark = [pytest.mark.lab, pytest.mark.timeout(240)]


def sweep(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim", "sweep", *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=180,
        check=False,
    )


def small_experiment(tmp_path: Path, map_name: str = "open") -> Path:
    """Four scenarios of A* on a 16 x 16 open Moving AI map named `map_name`, with its .scen."""
    grid = tmp_path / f"{map_name}.map"
    grid.write_text("type octile\nheight 16\nwidth 16\nmap\n" + ("." * 16 + "\n") * 16, "ascii")
    # Straight runs along a row of the open map: the optimum is the run's length.
    lines = [f"0\t{grid.name}\t16\t16\t0\t{y}\t{y + 5}\t{y}\t{y + 5}" for y in range(4)]
    Path(f"{grid}.scen").write_text("version 1\n" + "\n".join(lines) + "\n", encoding="utf-8")
    path = tmp_path / "exp.toml"
    path.write_text(
        f'scenarios_per_map = 4\n[[maps]]\nmovingai = "{grid}"\n'
        '[[searches]]\nalgorithm = "astar"\n',
        encoding="utf-8",
    )
    return path


def test_resume_refuses_a_folder_no_sweep_made(tmp_path: Path) -> None:
    out = tmp_path / "notes"
    out.mkdir()
    (out / "summary.md").write_text("my own summary\n", encoding="utf-8")
    (out / "results.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    done = sweep(str(small_experiment(tmp_path)), "--out", str(out), "--resume")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"sim: --out {out}: --resume finishes a folder a sweep made")
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


def test_resume_runs_again_a_fifo_and_a_link_to_a_device_in_partial(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = [str(small_experiment(tmp_path)), "--out", str(out), "--workers", "1", "--chunk", "1"]
    first = sweep(*args)
    assert first.returncode == 0, first.stderr
    assert (out / ".sim-sweep").is_file()
    chunks = sorted((out / "partial").glob("*.csv"))
    assert len(chunks) == 4
    chunks[0].unlink()
    os.mkfifo(chunks[0])  # a read of it would wait for a writer forever
    chunks[1].unlink()
    chunks[1].symlink_to("/dev/zero")  # a read of it would never end
    again = sweep(*args, "--resume")
    assert again.returncode == 0, again.stderr
    assert "2 chunks run, 2 kept from an earlier run" in again.stdout
    assert all(chunk.is_file() and not chunk.is_symlink() for chunk in chunks)
    assert (out / "results.csv").read_text(encoding="utf-8").count("\n") == 1 + 4


def test_a_map_name_with_a_bar_stays_in_its_cell(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = sweep(str(small_experiment(tmp_path, "a|b")), "--out", str(out), "--workers", "1")
    assert done.returncode == 0, done.stderr
    summary = (out / "summary.md").read_text(encoding="utf-8")
    [line] = [line for line in summary.splitlines() if "a\\|b" in line]
    assert line.startswith("| a\\|b | ")
    header = summary.splitlines()[summary.splitlines().index("## Per map and search") + 2]
    # As many cell borders as the header: an unescaped `|` would add one.
    assert line.replace("\\|", "").count("|") == header.count("|")
