"""The docked layout in an offscreen window: the panels beside the viewport, never over it.

Each test opens the default scene headless, opens the panels a user would (the inspector on
End, the search view and its comparison table) and reads the frame back: every drawn 2-D node
lies outside the viewport, the End cube and the whole grid show inside it, and the docks'
text stands on their opaque backdrop.
"""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import GeomNode, NodePath, PGItem, Point3, TextNode

from sim.editor.workspace import TOOLBAR_PX
from sim.ui.dock import BACKDROP_COLOR, Rect
from sim.ui.layout import dock_frame
from tests.helpers.inspector import select
from tests.helpers.paths import SCENES_DIR, artifact
from tests.helpers.pixels import dominant, rgb, screenshot_rgb

pytestmark = pytest.mark.render

SIZES = [(800, 600), (1280, 720)]
BACKDROP = np.array(rgb(BACKDROP_COLOR))


def _open_everything(app, mouse) -> None:
    """The inspector on End, the search view at its end and the comparison table."""
    select(app, mouse, "end")
    mouse.key("t")
    app.search_view.to_end()
    mouse.key("f")
    for _ in range(3):
        app.step()


def _local_box(node: NodePath) -> tuple[float, float, float, float] | None:
    """What `node` itself draws, (left, right, bottom, top) in its own frame; None: nothing.

    Geometry, text (a TextNode draws what it holds) and DirectGUI frames (a PGItem draws its
    frame itself, outside the scene graph) are each measured their own way.
    """
    kind = node.node()
    if isinstance(kind, PGItem):
        left, right, bottom, top = kind.get_frame()
        return None if left == right or bottom == top else (left, right, bottom, top)
    if isinstance(kind, TextNode):
        if not kind.get_text():
            return None
        if kind.has_card():
            x0, x1, z0, z1 = kind.get_card_actual()
        else:
            x0, x1, z0, z1 = kind.get_left(), kind.get_right(), kind.get_bottom(), kind.get_top()
        # OnscreenText keeps its position and scale in the TextNode's own transform.
        matrix = kind.get_transform()
        low, high = matrix.xform_point((x0, 0, z0)), matrix.xform_point((x1, 0, z1))
        return (low.x, high.x, low.z, high.z)
    if isinstance(kind, GeomNode):
        bounds = node.get_tight_bounds(node)
        if bounds is None:
            return None
        low, high = bounds
        return (low.x, high.x, low.z, high.z)
    return None


def _drawn_2d_rects(app) -> list[tuple[str, Rect]]:
    """Every visible 2-D drawing's box in window pixels (origin top-left)."""
    width, height = app.window_size()
    render2d = app.base.render2d
    rects = []
    for node in app.base.aspect2d.find_all_matches("**"):
        if node.is_hidden() or not node.get_hidden_ancestor().is_empty():
            continue
        box = _local_box(node)
        if box is None:
            continue
        x0, x1, z0, z1 = box
        corners = [render2d.get_relative_point(node, (x, 0, z)) for x in (x0, x1) for z in (z0, z1)]
        left = (min(c.x for c in corners) + 1) / 2 * width
        right = (max(c.x for c in corners) + 1) / 2 * width
        top = (1 - max(c.z for c in corners)) / 2 * height
        bottom = (1 - min(c.z for c in corners)) / 2 * height
        rect = Rect(round(left), round(top), round(right - left), round(bottom - top))
        rects.append((str(node), rect))
    return rects


def _overlap(a: Rect, b: Rect) -> int:
    wide = min(a.right, b.right) - max(a.left, b.left)
    tall = min(a.bottom, b.bottom) - max(a.top, b.top)
    return max(wide, 0) * max(tall, 0)


def _grid_corners(app) -> list[Point3]:
    grid = app.grid
    rows, columns = grid.num_of_rows, grid.num_of_columns
    size = grid.grid_cell_size
    x0, y0 = grid.origin
    return [
        Point3(x0 + dx * columns * size, y0 + dy * rows * size, 0.0)
        for dx in (0, 1)
        for dy in (0, 1)
    ]


@pytest.mark.parametrize("window_size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_no_panel_covers_the_viewport(default_scene, window_size):
    app, mouse = default_scene
    _open_everything(app, mouse)
    assert app.inspector_panel.text
    assert app.search_panel.compare_open
    app.save_screenshot(artifact(f"layout-everything-open-{window_size[0]}.png"))
    viewport = app.layout.frame.viewport
    # The toolbar's strip is off the viewport's top (`sim.editor.workspace.TOOLBAR_PX`).
    assert viewport == dock_frame(window_size, toolbar_px=TOOLBAR_PX).viewport
    covering = [(name, rect) for name, rect in _drawn_2d_rects(app) if _overlap(rect, viewport)]
    assert covering == [], "2-D nodes drawn over the viewport"
    for corner in _grid_corners(app):
        seen = app.screen_of_point(corner)
        assert seen is not None, f"the grid's corner {corner} is out of view"
        assert viewport.contains(*seen)


@pytest.mark.parametrize("window_size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_end_cube_shows_in_the_viewport_with_every_panel_open(default_scene, window_size):
    app, mouse = default_scene
    _open_everything(app, mouse)
    end = app.screen_of(app.world.find("end"))
    assert end is not None
    assert app.layout.frame.viewport.contains(*end)
    image = screenshot_rgb(app.base.win)
    x, y = end
    patch = image[y - 2 : y + 3, x - 2 : x + 3]
    assert dominant(patch, 0).sum() >= 20, "End's red does not show where End is"


def test_the_panels_hang_in_their_docks(default_scene):
    app, mouse = default_scene
    _open_everything(app, mouse)
    frame = app.layout.frame
    docks = [frame.left, frame.right, frame.status, frame.toolbar]

    def inside_a_dock(node: NodePath) -> bool:
        rects = [rect for name, rect in _drawn_2d_rects(app) if name.startswith(str(node))]
        return bool(rects) and all(
            any(_overlap(rect, dock) == rect.width * rect.height for dock in docks)
            for rect in rects
        )

    assert inside_a_dock(app.search_panel._root), "the search panel leaves the right dock"
    assert inside_a_dock(app.search_panel._table_root), "the table leaves the right dock"
    assert inside_a_dock(app.layout.left.root), "the HUD or legends leave the left dock"


def _text_stands_on_backdrop(image, rect: Rect) -> tuple[int, int]:
    """(text pixels, pixels neither backdrop nor grey text) inside `rect`, its edges left out."""
    part = image[rect.top + 2 : rect.bottom - 2, rect.left + 2 : rect.right - 3].astype(int)
    off = np.abs(part - BACKDROP).max(axis=2)
    spread = part.max(axis=2) - part.min(axis=2)
    text = (off > 40) & (spread < 30)
    stray = (off > 12) & (spread >= 30)
    return int(text.sum()), int(stray.sum())


@pytest.mark.parametrize("window_size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_hud_and_status_text_stand_on_their_backdrop(default_scene, window_size):
    app, _ = default_scene
    app.notify("saved scenes/default.toml")
    for _ in range(20):
        app.step()
    image = screenshot_rgb(app.base.win)
    frame = app.layout.frame
    # The HUD's status and hint: the top of the left dock, above the hierarchy's own backdrop.
    hud_px = round(app.hud.height / 2 * app.window_size()[1])
    hud = Rect(frame.left.left, frame.left.top, frame.left.width, hud_px)
    for name, rect in (("HUD", hud), ("status bar", frame.status), ("right dock", frame.right)):
        text, stray = _text_stands_on_backdrop(image, rect)
        assert text > 100, f"the {name} shows no text"
        assert stray == 0, f"the {name} shows {stray} pixels of something besides its text"
    assert app.panels.status_bar.text == "saved scenes/default.toml"


def test_h_hides_the_panels_and_gives_the_viewport_the_window(default_scene):
    app, mouse = default_scene
    width, height = app.window_size()
    end_before = app.screen_of(app.world.find("end"))
    mouse.key("h")
    app.step()
    assert not app.layout.visible
    assert not app.hud.visible
    assert app.layout.frame.viewport == Rect(0, 0, width, height)
    assert app.base.camLens.get_aspect_ratio() == pytest.approx(width / height)
    image = screenshot_rgb(app.base.win)
    # The strip the left dock held now shows the scene: no column of it is the backdrop alone.
    strip = image[: height // 2, 5:60].astype(int)
    assert np.abs(strip - BACKDROP).max(axis=2).mean() > 10
    assert app.screen_of(app.world.find("end")) != end_before
    mouse.key("h")
    app.step()
    assert app.layout.visible
    assert app.hud.visible
    assert app.screen_of(app.world.find("end")) == end_before
    viewport = app.layout.frame.viewport
    assert app.base.camLens.get_aspect_ratio() == pytest.approx(viewport.width / viewport.height)


def test_a_click_on_a_dock_picks_nothing_behind_it(default_scene):
    app, _ = default_scene
    picker = app.editor.picker
    frame, (width, height) = app.layout.frame, app.window_size()
    # The right dock's middle, as the mouse watcher reports it: -1..1 across the window.
    x = (frame.right.left + frame.right.width / 2) / width * 2 - 1
    assert picker.pick((x, 0.0)) is None
    assert picker.ground_point((x, 0.0)) is None
    viewport = frame.viewport
    middle = (viewport.left + viewport.width / 2) / width * 2 - 1
    centre = 1 - (viewport.top + viewport.height / 2) / height * 2
    assert picker.in_view((middle, centre)) == pytest.approx((0.0, 0.0), abs=1e-6)


def test_a_toolbar_takes_a_strip_off_the_viewport_top(default_scene):
    app, _ = default_scene
    before = app.layout.frame.viewport
    assert before.top == TOOLBAR_PX  # the app's toolbar holds its strip already
    toolbar = app.layout.reserve_toolbar(40)
    app.step()
    viewport = app.layout.frame.viewport
    assert (viewport.top, viewport.height) == (40, before.height + TOOLBAR_PX - 40)
    assert app.layout.frame.toolbar == Rect(before.left, 0, before.width, 40)
    assert toolbar.shown
    height = app.window_size()[1]
    _, _, bottom, top = app.base.cam.node().get_display_region(0).get_dimensions()
    assert top == pytest.approx(1 - 40 / height)
    assert bottom == pytest.approx(1 - viewport.bottom / height)


def test_the_status_bar_cuts_a_long_line_short_where_it_ends(default_scene):
    app, _ = default_scene
    bar = app.panels.status_bar
    app.notify("saved " + "a-very-long-folder-name/" * 40 + "scene.toml\nsecond line")
    app.step()
    assert bar.text.endswith("...")
    assert "second line" not in bar.text
    image = screenshot_rgb(app.base.win)
    status = app.layout.frame.status
    row = image[status.top + 3 : status.bottom - 3].astype(int)
    ink = np.abs(row - BACKDROP).max(axis=2) > 40
    columns = np.flatnonzero(ink.any(axis=0))
    assert columns.max() < status.right - 10, "the line runs off the bar's end"


def test_the_script_banner_fits_the_top_of_the_viewport(open_app):
    app = open_app(SCENES_DIR / "scripted.toml", trust_scripts=False)
    app.step()
    viewport = app.layout.frame.viewport
    banner = [rect for name, rect in _drawn_2d_rects(app) if "/viewport-top/" in name]
    assert banner, "no banner asks to allow the scripts"
    for rect in banner:
        assert _overlap(rect, viewport) == rect.width * rect.height, "the banner leaves the view"
        assert rect.top < viewport.top + viewport.height // 8


@pytest.mark.parametrize("window_size", [(1280, 720)], ids=["1280x720"])
def test_panels_shrink_with_a_dock_narrowed_under_them(default_scene, window_size):
    app, mouse = default_scene
    _open_everything(app, mouse)
    dock, frame = app.layout.right, app.layout.frame
    laid_out = dock.width
    panel = app.search_panel._root.get_parent()
    before = panel.get_scale()[0]  # panels taller than the dock already shrink together
    # As a window shrunk under a wide layout would have it: the dock loses a third of its width.
    narrower = Rect(frame.right.left + frame.right.width // 3, 0, frame.right.width * 2 // 3, 694)
    dock.place(narrower, app.window_size(), shown=True)
    app.panels.right.arrange()
    assert dock.width < laid_out
    assert panel.get_scale()[0] <= min(before, dock.width / laid_out) + 1e-6
    assert panel.get_scale()[0] < before
