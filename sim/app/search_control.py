"""`sim run --search`: open the search view from the command line, at a step, and film it.

`--search NAME[:HEURISTIC]` names a `find_path` search (astar, dijkstra, bfs, greedy, dfs, jps,
bidirectional, theta) and optionally one of the view's heuristics; `--search-step N|end` puts
the replay at that step (default: the end), so screenshots and the report show it; and
`--record-search OUT.gif` writes the search as an animated GIF: every k-th step from step 0 to
the end, k chosen so the film has at most `MAX_GIF_FRAMES` frames (fewer for a window so large
that the film would pass `MAX_GIF_BYTES`), the last one the end, written frame by frame
(`sim.search_view.gif`) into a temporary file renamed into place at the end. The
view opens after the run's first frame (which puts the obstacles in the grid); the film's
frames are rendered then, with simulated time paused, so the agents wait and the run's other
`--frames` are left to it. Like the view in the app, a scene whose obstacles move restarts it.

Parsing stays free of Panda3D, so a bad value costs no window.

>>> parse_search("theta"), parse_search("astar:manhattan")
((<SearchKind.THETA>, None), (<SearchKind.ASTAR>, 'manhattan'))
>>> parse_search_step("end"), parse_search_step("12"), gif_steps(7), len(gif_steps(10_000)) <= 300
(None, 12, [0, 1, 2, 3, 4, 5, 6, 7], True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from sim.files import atomic_writer
from sim.navigation.catalogue import SearchKind

if TYPE_CHECKING:
    from panda3d.core import GraphicsOutput

    from sim.search_view.view import SearchView

MAX_GIF_FRAMES = 300
# What a film's frames may add up to, one byte a pixel each, so a large window gets fewer
# frames rather than a file of gigabytes (they are streamed, so memory holds two at most).
MAX_GIF_BYTES = 256 * 2**20
GIF_FRAME_MS = 60
GIF_LAST_FRAME_MS = 1500  # the finished search stays up a moment before the film loops
SEARCH_NAMES = tuple(dict.fromkeys(kind.algorithm.value for kind in SearchKind))
"""The `find_path` names `--search` takes; weighted A* is not one (it is astar x weight)."""
VIEW_HEURISTICS = ("manhattan", "octile", "euclidean", "chebyshev")


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """What `sim run` asked of the search view.

    Attributes:
        kind: The search to show.
        heuristic: One of `VIEW_HEURISTICS`, or None for the view's default.
        step: The step to show; None for the end.
        gif: Where to write the film, or None.
    """

    kind: SearchKind
    heuristic: str | None = None
    step: int | None = None
    gif: Path | None = None


def parse_search(text: str) -> tuple[SearchKind, str | None]:
    """``NAME[:HEURISTIC]`` as a search and a heuristic (ValueError naming a bad part)."""
    name, _, heuristic = text.partition(":")
    kinds = [kind for kind in SearchKind if kind.algorithm.value == name and not kind.takes_weight]
    if not kinds:
        raise ValueError(f"unknown search {name!r}; expected one of {', '.join(SEARCH_NAMES)}")
    kind = kinds[0]
    if not heuristic:
        if text.endswith(":"):
            raise ValueError(f"{text!r}: a heuristic is missing after ':'")
        return kind, None
    if not kind.takes_heuristic:
        raise ValueError(f"{name} takes no heuristic, got {heuristic!r}")
    if heuristic not in VIEW_HEURISTICS:
        raise ValueError(
            f"unknown heuristic {heuristic!r}; expected one of {', '.join(VIEW_HEURISTICS)}"
        )
    return kind, heuristic


def parse_search_step(text: str) -> int | None:
    """``N`` (an integer >= 0) or ``end`` (None); ValueError otherwise."""
    if text == "end":
        return None
    try:
        step = int(text)
    except ValueError:
        raise ValueError(f"expected a step >= 0 or 'end', got {text!r}") from None
    if step < 0:
        raise ValueError(f"expected a step >= 0 or 'end', got {text!r}")
    return step


def gif_steps(total: int, most: int = MAX_GIF_FRAMES) -> list[int]:
    """The steps the film shows for a search of `total` steps: every k-th, then the last.

    k is the smallest stride that keeps the film within `most` frames (at least 2).
    """
    stride = max(1, math.ceil(total / (max(most, 2) - 1)))
    return [*range(0, total, stride), total]


def gif_frame_limit(width: int, height: int) -> int:
    """The most frames a film of a `width` x `height` window may have: `MAX_GIF_BYTES` in all.

    >>> gif_frame_limit(800, 600), gif_frame_limit(8192, 8192)
    (300, 4)
    """
    return max(2, min(MAX_GIF_FRAMES, MAX_GIF_BYTES // max(width * height, 1)))


def start_search(
    view: SearchView,
    request: SearchRequest,
    *,
    window: GraphicsOutput,
    first_frame: Callable[[], None],
    render_paused: Callable[[], None],
) -> str | None:
    """Open `view` on `request`'s search, film it if asked, and leave it at the step asked.

    `first_frame` runs the app's first frame if it has not run; `render_paused` renders one with
    simulated time stopped (the view draws; nothing moves); the film is read from `window`.

    Returns:
        None, or why the view shows no search (the search refused the scene, or the scene
        has no Start and End): `sim run` says so in one line.
    """
    # The first frame rasterizes the obstacles: a view opened before it would restart.
    first_frame()
    view.open()
    view.set_choice(request.kind)
    if request.heuristic is not None:
        view.set_heuristic(request.heuristic)
    replay = view.replay
    if replay is None:
        return view.message or "the search view has no search"
    total = replay.log.total_steps()
    if request.gif is not None:
        most = gif_frame_limit(window.get_x_size(), window.get_y_size())
        _record_gif(view, window, render_paused, request.gif, gif_steps(total, most))
    replay.seek(total if request.step is None else request.step)
    # Render that step now, so a run of one frame shows and screenshots it too.
    render_paused()
    return None


def _record_gif(
    view: SearchView,
    window: GraphicsOutput,
    render_paused: Callable[[], None],
    path: Path,
    steps: list[int],
) -> None:
    """Render each of `steps` with simulated time paused and write them as one GIF.

    Each frame is written as soon as the next one is known, so at most two frames are held
    whatever the window's size (300 full frames at 4K would be gigabytes). The GIF goes to a
    temporary file renamed over `path` at the end (`atomic_writer`): a full disk or a kill
    leaves an old GIF at `path` whole.

    Raises:
        OSError: The GIF could not be written; `path` is as it was.
    """
    # Pillow comes with the app's dependencies; imported here so `sim run` alone never pays.
    from sim.search_view.gif import GifStream

    replay = view.replay
    assert replay is not None  # start_search checked
    durations = [GIF_FRAME_MS] * (len(steps) - 1) + [GIF_LAST_FRAME_MS]
    with atomic_writer(path) as file:
        gif = GifStream(file)
        for step, duration_ms in zip(steps, durations, strict=True):
            replay.seek(step)
            render_paused()
            texture = window.get_screenshot()
            flat = np.frombuffer(bytes(texture.get_ram_image_as("RGB")), np.uint8)
            gif.add(flat.reshape(texture.get_y_size(), texture.get_x_size(), 3)[::-1], duration_ms)
        gif.close()
