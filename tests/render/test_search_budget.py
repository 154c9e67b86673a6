"""The search view's budgets: a recording too large is refused before it starts; a film of a
large window keeps fewer frames, never more memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import GifImagePlugin, Image

from sim.app import search_control
from sim.commands.cli import main
from sim.search_view import view as search_view
from tests.helpers.paths import DEFAULT_SCENE

pytestmark = pytest.mark.render

BASE = ["run", "--headless", "--frames", "1", "--size", "160x120"]


@pytest.fixture(scope="module")
def open_2048(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scene of an open 2048 x 2048 grid (no obstacle), Start and End far apart."""
    folder = tmp_path_factory.mktemp("open")
    scene = folder / "open.toml"
    argv = ["generate", "random", str(folder / "open.map"), "--size", "2048x2048", "--seed", "1"]
    assert main([*argv, "--density", "0", "--scene", str(scene)]) == 0
    return scene


@pytest.fixture
def nothing_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*_args: object, **_options: object) -> None:
        raise AssertionError("the search was recorded")

    monkeypatch.setattr(search_view, "record", never)


def test_a_search_too_large_to_record_is_refused_with_its_estimate(
    open_2048: Path, capsys: pytest.CaptureFixture[str], nothing_recorded: None
) -> None:
    status = main([*BASE, str(open_2048), "--search", "dijkstra"])
    assert status == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "sim: --search dijkstra: Dijkstra cannot search this: recording it could take 6.3 GB "
        "(1500 bytes for each of the 4,194,304 walkable cells it may expand); the view records "
        "on at most 1,431,655 (2 GB); sim plan has no such limit"
    ]


def test_a_tape_search_too_large_to_record_is_refused_with_its_estimate(
    open_2048: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main([*BASE, str(open_2048), "--search", "bidirectional"])
    assert status == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("sim: --search bidirectional: bidirectional cannot search this: ")
    assert "1.8e+13 cell reads (4,194,304 steps over 4,194,304 walkable cells)" in line


def test_the_view_in_the_window_says_why_it_shows_no_search(open_app, open_2048: Path) -> None:
    app = open_app(open_2048, size=(320, 240))
    app.step()
    app.search_view.open()
    app.step()
    entry = app.report()["search_view"]
    assert entry["open"]
    assert entry["step"] is None
    assert "recording it could take 6.3 GB" in entry["message"]


def test_a_film_of_a_large_window_keeps_fewer_frames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As if the window were huge: 160 x 120 pixels with room for 12 frames.
    monkeypatch.setattr(search_control, "MAX_GIF_BYTES", 160 * 120 * 12)
    gif, report = tmp_path / "s.gif", tmp_path / "r.json"
    argv = [*BASE, "--search", "dijkstra", "--record-search", str(gif), "--report", str(report)]
    assert main([*argv[:1], str(DEFAULT_SCENE), *argv[1:]]) == 0
    assert json.loads(report.read_text())["search_view"]["step"] > 12
    with Image.open(gif) as film:
        assert isinstance(film, GifImagePlugin.GifImageFile)
        assert film.n_frames <= 12
