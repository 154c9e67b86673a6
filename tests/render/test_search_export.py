"""`sim run --headless --search ... --search-step ... --record-search OUT.gif`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import GifImagePlugin, Image

from sim.app.search_control import gif_steps
from sim.commands.cli import main
from sim.config import SCENES_DIR
from sim.search_view.view import BACKWARD_CLOSED_COLOR, CLOSED_COLOR
from tests.helpers.paths import artifact
from tests.helpers.pixels import near, rgb

pytestmark = pytest.mark.render

BASE = ["run", "--headless", "--frames", "2", "--size", "320x240"]


def frame(gif: Image.Image, index: int) -> np.ndarray:
    gif.seek(index)
    return np.asarray(gif.convert("RGB"))


def searched(image: np.ndarray, *colours) -> int:
    return sum(int(near(image, rgb(colour), 24).sum()) for colour in colours)


def test_the_gif_has_a_frame_per_chosen_step_and_shows_the_search_grow(tmp_path):
    gif_path, report = tmp_path / "search.gif", tmp_path / "r.json"
    argv = [*BASE, "--search", "bidirectional", "--record-search", str(gif_path)]
    assert main([*argv, "--report", str(report)]) == 0
    entry = json.loads(report.read_text())["search_view"]
    assert entry["at_end"]
    total = entry["step"]
    with Image.open(gif_path) as gif:
        assert isinstance(gif, GifImagePlugin.GifImageFile)
        assert gif.n_frames == len(gif_steps(total))
        first, middle, last = (frame(gif, i) for i in (0, gif.n_frames // 2, gif.n_frames - 1))
        Image.fromarray(middle).save(artifact("search-gif-middle.png"))
    colours = (CLOSED_COLOR, BACKWARD_CLOSED_COLOR)
    assert searched(first, *colours) < searched(middle, *colours) < searched(last, *colours)


def test_search_step_puts_the_view_and_the_report_at_that_step(tmp_path):
    report, shot = tmp_path / "r.json", tmp_path / "s.png"
    argv = [*BASE, "--search", "astar:manhattan", "--search-step", "7"]
    assert main([*argv, "--report", str(report), "--screenshot", str(shot)]) == 0
    entry = json.loads(report.read_text())["search_view"]
    assert (entry["search"], entry["heuristic"], entry["step"]) == ("astar", "manhattan", 7)
    assert entry["cost"] is None
    assert shot.stat().st_size > 0


def test_search_step_end_reports_the_cost_of_the_finished_path(tmp_path):
    report = tmp_path / "r.json"
    assert main([*BASE, "--search", "jps", "--search-step", "end", "--report", str(report)]) == 0
    data = json.loads(report.read_text())
    entry = data["search_view"]
    assert entry["at_end"]
    assert entry["search"] == "jps"
    # JPS finds A*'s cost; the planner's path between the same cells costs the same.
    assert entry["cost"] == pytest.approx(data["path"]["cost"], rel=1e-6)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--search", "nope"], "unknown search 'nope'"),
        (["--search", "astar:zero"], "unknown heuristic 'zero'"),
        (["--search", "theta:octile"], "theta takes no heuristic"),
        (["--search", "jps", "--search-step", "-3"], "expected a step >= 0 or 'end'"),
        (["--search", "jps", "--search-step", "soon"], "expected a step >= 0 or 'end'"),
        (["--search-step", "3"], "need --search NAME"),
        (["--search", "jps", "--record-search", "x.png"], "writes a GIF"),
    ],
    ids=["name", "heuristic", "theta-heuristic", "negative-step", "word-step", "no-search", "png"],
)
def test_bad_values_are_one_line_and_exit_2(tmp_path, capsys, extra, message):
    assert main([*BASE, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_record_search_needs_headless(capsys):
    assert main(["run", "--search", "jps", "--record-search", "x.gif"]) == 2
    assert "--record-search needs --headless" in capsys.readouterr().err


def test_an_existing_file_that_is_not_a_gif_is_left_alone(tmp_path, capsys):
    notes = tmp_path / "notes.gif"
    notes.write_text("my notes\n")
    assert main([*BASE, "--search", "jps", "--record-search", str(notes)]) == 2
    assert "is not a GIF image; refusing to replace it" in capsys.readouterr().err
    assert notes.read_text() == "my notes\n"


def test_a_search_that_refuses_the_scene_is_one_line_and_exit_2(capsys):
    terrain = str(SCENES_DIR / "terrain.toml")
    assert main([*BASE, terrain, "--search", "theta"]) == 2
    err = capsys.readouterr().err
    assert "--search theta: Theta* cannot search this" in err
    assert len(err.strip().splitlines()) == 1
