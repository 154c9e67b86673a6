"""A `--record-search` film shows the HUD as it is (its frame rate known) and the search legend."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from sim.commands.cli import main
from sim.config import SCENES_DIR
from sim.search_view.view import CLOSED_COLOR, OPEN_COLOR
from tests.helpers.paths import artifact
from tests.helpers.pixels import near, rgb

pytestmark = pytest.mark.render

WIDTH, HEIGHT = 480, 360
# The HUD's first line (the frame rate) in the window's top-left corner, in pixels.
FPS_BOX = (slice(0, HEIGHT // 14), slice(0, WIDTH // 8))


@pytest.fixture(scope="module")
def film(tmp_path_factory) -> tuple[np.ndarray, np.ndarray]:
    """The film's first frame and the run's last screenshot (the HUD as it settled)."""
    folder = tmp_path_factory.mktemp("gif")
    gif_path, shot = folder / "search.gif", folder / "end.png"
    argv = ["run", "--headless", "--frames", "3", "--size", f"{WIDTH}x{HEIGHT}"]
    argv += ["--search", "astar", "--record-search", str(gif_path), "--screenshot", str(shot)]
    assert main([*argv, str(SCENES_DIR / "default.toml")]) == 0
    with Image.open(gif_path) as gif:
        gif.seek(0)
        first = np.asarray(gif.convert("RGB"))
    Image.fromarray(first).save(artifact("search-gif-first-frame.png"))
    with Image.open(shot) as image:
        settled = np.asarray(image.convert("RGB"))
    return first, settled


def test_the_first_frame_has_the_search_legend(film) -> None:
    first, _ = film
    legend = first[HEIGHT // 3 :, : WIDTH // 3]  # the bottom-left, where the legend stands
    for name, colour in (("open", OPEN_COLOR), ("closed", CLOSED_COLOR)):
        assert near(legend, rgb(colour), 16).sum() >= 20, f"no {name} swatch in the film's legend"


def test_the_first_frame_shows_the_frame_rate_the_run_settles_on(film) -> None:
    first, settled = film
    # Before the fix the film kept the HUD of the run's first frame: "0 fps" against "60 fps".
    shown, expected = first[FPS_BOX].astype(int), settled[FPS_BOX].astype(int)
    assert (expected > 200).sum() > 20, "the settled screenshot shows no frame rate there"
    # The film's HUD is written (the numbers themselves differ from run to run: the frame rate
    # and the search's timings are measured, so only the text's presence is compared).
    ink, settled_ink = int((shown > 200).sum()), int((expected > 200).sum())
    assert ink > 0.5 * settled_ink, "the film's first frame shows no HUD text there"
