"""Crowd markers on screen: one batch of oriented discs, visible at every zoom, debug gizmos.

Offscreen p3tinydisplay, pixels read back. The bare-ShowBase tests look straight down on the
ground (+y up the image), so a marker's pixel is where `world_to_pixel` puts its centre; the
scene tests open the crowd scenes as `sim run` does and read the agents' colours at their
places.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from direct.showbase.ShowBase import ShowBase
from numpy.typing import NDArray
from panda3d.core import Filename, Point3, load_prc_file_data, unload_prc_file

from sim.components.crowd_render import (
    GIZMO_KEYS,
    JOINT_PLAN_COLOR,
    CrowdFrame,
    CrowdRenderer,
    frames_of,
)
from sim.components.ground_view import EndLabels
from sim.config import PALETTE, Tag
from sim.engine import Gizmos, World
from sim.engine.markers import MARKER_Z, MarkerBatch
from sim.engine.projection import world_to_pixel
from sim.scene.file import load_scene
from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.pixels import OFFSCREEN_PRC, dominant, near, rgb, screenshot_rgb

pytestmark = pytest.mark.render

SIZE = (320, 240)
CAMERA_HEIGHT = 30.0  # straight down: about 22 x 16 world units in view
BACKGROUND = (0.3, 0.3, 0.3, 1.0)
RED, GREEN, BLUE = (1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0)
TOLERANCE = 40  # a marker's centre is its colour; texture filtering moves it a little
CROWD_COUNT = 8  # a scene with this many agents or more is a crowd scene


@pytest.fixture
def showbase() -> Iterator[ShowBase]:
    page = load_prc_file_data("test_crowd_render", OFFSCREEN_PRC)
    base = ShowBase()
    base.disable_mouse()
    base.set_background_color(*BACKGROUND)
    look_down(base, CAMERA_HEIGHT)
    yield base
    base.destroy()
    unload_prc_file(page)


def look_down(base: ShowBase, height: float) -> None:
    """Camera over the origin looking straight down, +y up the image, +x to the right."""
    base.camera.set_pos(0.0, 0.0, height)
    base.camera.set_hpr(0.0, -90.0, 0.0)


def render(base: ShowBase) -> NDArray[np.uint8]:
    """Render two frames (the first fills the buffer) and return RGB rows, top row first."""
    base.graphics_engine.render_frame()
    base.graphics_engine.render_frame()
    return screenshot_rgb(base.win)


def pixel_of(base: ShowBase, x: float, y: float) -> tuple[int, int]:
    """Where world (x, y) on the markers' plane shows: (column, row) of the image."""
    found = world_to_pixel(Point3(x, y, MARKER_Z), camera=base.cam, lens=base.camLens, size=SIZE)
    assert found is not None, f"({x}, {y}) is out of view"
    return found


def disc_pixels(base: ShowBase, radius: float) -> float:
    """The area in pixels of a disc of `radius` world units on the markers' plane."""
    (x0, _), (x1, _) = pixel_of(base, -5.0, 0.0), pixel_of(base, 5.0, 0.0)
    return float(np.pi * (radius * (x1 - x0) / 10.0) ** 2)


def looks_like(image: NDArray[np.uint8], color: tuple[float, ...]) -> NDArray[np.bool_]:
    """Pixels of `color`'s hue, lit or shaded: their RGB points its way (within ~18 degrees).

    An agent's own model, where it is drawn, is lit: its pixels are its colour changed by the
    light (p3tinydisplay saturates it), not the colour itself as a marker's centre is.
    """
    values = image.astype(float)
    lengths = np.linalg.norm(values, axis=-1)
    target = np.asarray(color[:3], dtype=float)
    cosine = values @ target / np.maximum(lengths * np.linalg.norm(target), 1e-9)
    return (cosine > 0.95) & (lengths > 60.0)


def colour_at(image: NDArray[np.uint8], pixel: tuple[int, int]) -> tuple[int, ...]:
    column, row = pixel
    return tuple(int(c) for c in image[row, column])


def is_background(image: NDArray[np.uint8], pixel: tuple[int, int]) -> bool:
    column, row = pixel
    return bool(near(image[row : row + 1, column : column + 1], rgb(BACKGROUND), 2).all())


def is_near(image: NDArray[np.uint8], pixel: tuple[int, int], color: tuple[float, ...]) -> bool:
    column, row = pixel
    return bool(near(image[row : row + 1, column : column + 1], rgb(color), TOLERANCE).all())


# ---- MarkerBatch ------------------------------------------------------------------------------


POSITIONS = np.array([[-6.0, 3.0], [0.0, 0.0], [6.0, -3.0]])
COLORS = np.array([RED, GREEN, BLUE])


def test_each_marker_shows_its_colour_at_its_place(showbase: ShowBase) -> None:
    markers = MarkerBatch(showbase.render)
    markers.update(POSITIONS, np.zeros(3), np.full(3, 1.5), COLORS)
    image = render(showbase)
    showbase.win.get_screenshot().write(Filename.from_os_specific(str(artifact("markers.png"))))

    assert markers.count == 3
    for (x, y), color in zip(POSITIONS, COLORS, strict=True):
        assert is_near(image, pixel_of(showbase, x, y), color), (x, y, color)
    area = disc_pixels(showbase, 1.5)
    for channel in range(3):
        blob = dominant(image, channel, margin=100)
        # The disc, less its dark nose (a ninth of it).
        assert 0.75 * area < blob.sum() < 1.02 * area, (channel, blob.sum(), area)
    assert is_background(image, (5, 5)), "the background elsewhere"


def test_markers_follow_moved_positions_and_hidden_rows_go(showbase: ShowBase) -> None:
    markers = MarkerBatch(showbase.render)
    markers.update(POSITIONS, np.zeros(3), 1.5, COLORS)
    render(showbase)
    moved = POSITIONS + np.array([[4.0, -5.0], [-3.0, 4.0], [-2.0, 6.0]])
    markers.update(moved, np.zeros(3), 1.5, COLORS, visible=[True, True, False])
    image = render(showbase)

    assert markers.count == 2
    for (x, y), color in zip(moved[:2], COLORS[:2], strict=True):
        assert is_near(image, pixel_of(showbase, x, y), color)
    for x, y in POSITIONS[:2]:
        assert is_background(image, pixel_of(showbase, x, y)), "left its old place"
    assert dominant(image, 2, margin=100).sum() == 0, "the hidden blue row is not drawn"


def test_zero_markers_draw_nothing(showbase: ShowBase) -> None:
    background = render(showbase)
    markers = MarkerBatch(showbase.render)
    markers.update(np.empty((0, 2)), np.empty(0), np.empty(0), np.empty((0, 4)))
    assert markers.count == 0
    assert np.array_equal(render(showbase), background)
    markers.update(POSITIONS, np.zeros(3), 1.5, COLORS)
    assert not np.array_equal(render(showbase), background)
    markers.update(np.empty((0, 2)), [], [], RED)
    assert np.array_equal(render(showbase), background), "back to none"


@pytest.mark.parametrize(
    ("heading", "towards"),
    [(0.0, (0.0, 1.0)), (90.0, (-1.0, 0.0)), (180.0, (0.0, -1.0)), (-90.0, (1.0, 0.0))],
    ids=["north", "west", "south", "east"],
)
def test_the_dark_nose_points_along_the_heading(
    showbase: ShowBase, heading: float, towards: tuple[float, float]
) -> None:
    MarkerBatch(showbase.render).update([[0.0, 0.0]], [heading], [6.0], [RED])
    image = render(showbase)
    ahead = pixel_of(showbase, 3.0 * towards[0], 3.0 * towards[1])
    behind = pixel_of(showbase, -3.0 * towards[0], -3.0 * towards[1])
    assert max(colour_at(image, ahead)) < 100, "the nose is dark"
    assert is_near(image, behind, RED), "the body behind it is the colour"


@pytest.mark.parametrize(
    "bad",
    [
        {"positions": np.zeros((2, 3))},
        {"headings_deg": [0.0]},
        {"radii": [1.0, -1.0]},
        {"colors": np.zeros((2, 3))},
        {"positions": [[0.0, np.nan], [0.0, 0.0]]},
        {"visible": [True]},
    ],
    ids=["positions-shape", "headings-shape", "negative-radius", "colors-shape", "nan", "mask"],
)
def test_bad_arrays_are_refused_by_name(showbase: ShowBase, bad: dict[str, object]) -> None:
    arrays: dict[str, object] = {
        "positions": np.zeros((2, 2)),
        "headings_deg": np.zeros(2),
        "radii": np.ones(2),
        "colors": np.ones((2, 4)),
    }
    arrays.update(bad)
    name = next(iter(bad)).split("_")[0]
    with pytest.raises(ValueError, match=name):
        MarkerBatch(showbase.render).update(**arrays)  # type: ignore[arg-type]


# ---- CrowdRenderer ----------------------------------------------------------------------------


class Crowd:
    """A renderer in a world over a lattice of small agents, as the app composes it."""

    def __init__(
        self,
        base: ShowBase,
        *,
        count: int = 25,
        radius: float = 0.4,
        spacing: float = 3.0,
        **kwargs: Any,
    ) -> None:
        side = int(np.ceil(np.sqrt(count)))
        grid = np.stack(np.meshgrid(np.arange(side), np.arange(side)), axis=-1).reshape(-1, 2)
        self.positions = ((grid[:count] - (side - 1) / 2) * spacing).astype(np.float64)
        self.velocities = np.tile([2.0, 0.0], (count, 1))
        self.frame = CrowdFrame(
            self.positions,
            np.full(count, -90.0),
            np.full(count, radius),
            np.tile(RED, (count, 1)),
            self.velocities,
        )
        self.base = base
        self.world = World(base.render)
        self.gizmos = Gizmos(base.render)
        self.renderer = self.world.spawn("crowd-render").add_component(
            CrowdRenderer(lambda: self.frame, camera=base.cam, window=base.win, **kwargs)
        )
        self.world.step(0.0)  # awake: the batch exists

    def draw(self) -> NDArray[np.uint8]:
        self.world.draw_gizmos(self.gizmos)
        self.gizmos.flush()
        return render(self.base)

    def visible(self, image: NDArray[np.uint8]) -> int:
        """How many agents show red at their centre's pixel."""
        return sum(is_near(image, pixel_of(self.base, x, y), RED) for x, y in self.positions)


def test_agents_stay_visible_when_the_camera_is_far_out(showbase: ShowBase) -> None:
    look_down(showbase, 1500.0)  # about 1,100 x 800 units: a 0.8 wide agent is 0.2 px
    crowd = Crowd(showbase, spacing=100.0)
    image = crowd.draw()
    showbase.win.get_screenshot().write(Filename.from_os_specific(str(artifact("crowd-far.png"))))
    assert crowd.visible(image) == 25
    # Each at least ~6 px across, and no bigger than that needs.
    assert 25 * 15 < dominant(image, 0, margin=100).sum() < 25 * 50

    crowd.renderer.min_pixels = 0.0  # the true size: a few hit a pixel's centre, most vanish
    assert crowd.visible(crowd.draw()) < 10


def test_close_up_markers_keep_their_radius(showbase: ShowBase) -> None:
    crowd = Crowd(showbase, count=4, radius=1.0)
    assert np.array_equal(crowd.renderer.drawn_radii(crowd.frame), np.ones(4))
    image = crowd.draw()
    area = disc_pixels(showbase, 1.0)
    assert 4 * 0.75 * area < dominant(image, 0, margin=100).sum() < 4 * 1.02 * area
    assert crowd.visible(image) == 4


def velocity_pixels(image: np.ndarray) -> np.ndarray:
    """Pixels of the crowd gizmos' velocity colour (`PALETTE.velocity`, lime)."""
    return near(image, rgb(PALETTE.velocity), 40)


def test_the_gizmo_key_shows_velocities_and_neighbours(showbase: ShowBase) -> None:
    crowd = Crowd(showbase, count=9, neighbour_dist=3.5, max_neighbours=4)
    image = crowd.draw()
    assert crowd.gizmos.keys() == set()
    lime = velocity_pixels(image)  # the palette's velocity colour
    assert lime.sum() == 0

    crowd.renderer.toggle_gizmos()
    image = crowd.draw()
    assert crowd.gizmos.keys() == set(GIZMO_KEYS)
    # Each velocity line runs 2 units/s x 0.25 s = 0.5 units east from its agent's centre.
    x, y = crowd.positions[4]
    column, row = pixel_of(showbase, x + 0.3, y)
    lime = velocity_pixels(image)
    assert lime[row - 1 : row + 2, column - 3 : column + 2].any(), "a velocity line to the east"
    # A 3 x 3 lattice 3 apart, neighbours within 3.5: 12 pairs along the rows and columns.
    assert crowd.renderer.neighbour_segments(crowd.frame).shape == (12, 2, 3)

    crowd.renderer.toggle_gizmos()
    crowd.draw()
    assert crowd.gizmos.keys() == set()


def test_an_owner_of_arrays_feeds_the_renderer_as_they_change(showbase: ShowBase) -> None:
    state = SimpleNamespace(
        positions=POSITIONS.copy(),
        headings_deg=np.zeros(3),
        radii=np.full(3, 1.5),
        colors=COLORS,
        velocities=np.zeros((3, 2)),
    )
    world, gizmos = World(showbase.render), Gizmos(showbase.render)
    renderer = CrowdRenderer(frames_of(state), camera=showbase.cam, window=showbase.win)
    world.spawn("crowd-render").add_component(renderer)
    world.step(0.0)
    state.positions[0] = (-6.0, -6.0)  # moved in place, as a simulation writes its rows
    world.draw_gizmos(gizmos)
    image = render(showbase)
    assert is_near(image, pixel_of(showbase, -6.0, -6.0), RED)
    assert is_background(image, pixel_of(showbase, -6.0, 3.0))


def test_agents_in_a_joint_plan_show_its_colour_and_their_own_after(showbase: ShowBase) -> None:
    state = SimpleNamespace(
        positions=POSITIONS.copy(),
        headings_deg=np.zeros(3),
        radii=np.full(3, 1.5),
        colors=COLORS,
        velocities=np.zeros((3, 2)),
    )
    joint = np.array([False, True, False])
    world, gizmos = World(showbase.render), Gizmos(showbase.render)
    source = frames_of(state, joint=lambda: joint)
    renderer = CrowdRenderer(source, camera=showbase.cam, window=showbase.win)
    world.spawn("crowd-render").add_component(renderer)
    world.step(0.0)
    world.draw_gizmos(gizmos)
    image = render(showbase)
    showbase.win.get_screenshot().write(Filename.from_os_specific(str(artifact("joint-plan.png"))))
    middle, ends = pixel_of(showbase, 0.0, 0.0), (POSITIONS[0], POSITIONS[2])
    assert is_near(image, middle, JOINT_PLAN_COLOR), colour_at(image, middle)
    for (x, y), color in zip(ends, (RED, BLUE), strict=True):
        assert is_near(image, pixel_of(showbase, x, y), color), "the others keep their own"

    joint[:] = False  # the plan is over: the agent is drawn in its own colour again
    world.draw_gizmos(gizmos)
    image = render(showbase)
    assert is_near(image, middle, GREEN), colour_at(image, middle)
    assert np.array_equal(state.colors, COLORS), "the crowd's own colours are never written"


def test_no_agents_is_fine(showbase: ShowBase) -> None:
    background = render(showbase)
    crowd = Crowd(showbase, count=0)
    crowd.renderer.toggle_gizmos()
    assert np.array_equal(crowd.draw(), background)


# ---- The crowd scenes -------------------------------------------------------------------------


def crowd_scenes() -> list[str]:
    """Every scene in scenes/ with a crowd (`CROWD_COUNT` agents or more)."""
    return sorted(
        path.name
        for path in SCENES_DIR.glob("*.toml")
        if len(load_scene(path).objects_with_tag(Tag.AGENT)) >= CROWD_COUNT
    )


@pytest.mark.parametrize("scene", crowd_scenes())
@pytest.mark.parametrize("zoom", [0, -40], ids=["default-camera", "zoomed-far-out"])
def test_every_agent_shows_its_colour_in_every_crowd_scene(open_app, scene, zoom) -> None:
    app = open_app(SCENES_DIR / scene)
    app.toggle_path()  # the agents' routes are orange too: only the agents count here
    # Start's and End's labels are drawn over the scene on purpose: only the agents count here.
    labels = next(o for o in app.world.objects if o.name == "end-labels").get_component(EndLabels)
    assert labels is not None
    labels.node.hide()
    app.camera.zoom(zoom)
    app.step()
    app.step()
    name = f"crowd-scene-{scene.removesuffix('.toml')}-{'far' if zoom else 'default'}.png"
    shot = artifact(name)
    assert app.save_screenshot(shot)
    image = screenshot_rgb(app.base.win)
    hidden = []
    for agent in app.agents:
        x, y = agent.position
        pixel = app.screen_of_point(Point3(x, y, MARKER_Z))
        color = tuple(agent.game_object.node.get_color())
        if pixel is None:
            hidden.append(agent.game_object.name)
            continue
        column, row = pixel
        window = image[max(row - 2, 0) : row + 3, max(column - 2, 0) : column + 3]
        if not looks_like(window, color).any():
            hidden.append(agent.game_object.name)
    assert hidden == [], f"{len(hidden)} of {len(app.agents)} agents not seen, see {shot}"
    if zoom:
        # Far out a group is a few pixels across: its markers keep it at least one minimum
        # marker's area (~28 px for 6 px across), where the agents' true size gives ~12.
        for color in {tuple(agent.game_object.node.get_color()) for agent in app.agents}:
            assert looks_like(image, color).sum() >= 20, (color, shot)
