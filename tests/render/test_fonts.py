"""The bundled font draws every glyph whole at the sizes the app uses, in the software renderer.

Panda3D's built-in font, sampled by p3tinydisplay, dropped thin strokes: "Ctrl+S" read as
"Ctrl•S". These tests draw text white on black at each size the app uses and read it back: each
character's box must hold ink, and the "+" must have both its strokes.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from direct.gui import DirectGuiGlobals
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import DynamicTextFont, TextNode

from sim.components.hud import HELP_SCALE, TEXT_SCALE, Hud
from sim.engine.fonts import FONT_FILE, PIXELS_PER_UNIT, load_ui_font
from sim.engine.showbase import DisplaySettings, SimShowBase, open_showbase
from sim.search_view.panel import BUTTON_SCALE
from sim.search_view.panel import HELP_SCALE as PANEL_HELP_SCALE
from sim.ui.layout import LEFT_UNITS, dock_frame
from tests.helpers.pixels import screenshot_rgb

pytestmark = pytest.mark.render

SIZE = (800, 600)
SAMPLE = "Ctrl+S save, 4/8 fps: 60 [g=1.5] x4 |i1 J*"
INK = 60  # a pixel brighter than this (0..255, any channel) belongs to a glyph
# The smallest HUD help text: in the left dock of an 800 x 600 window, scaled to fit it.
FITTED_HELP_SCALE = HELP_SCALE * min(1.0, dock_frame(SIZE).left.width * 2 / SIZE[1] / LEFT_UNITS)


@pytest.fixture
def base() -> Iterator[SimShowBase]:
    showbase = open_showbase(DisplaySettings(headless=True, size=SIZE))
    showbase.set_background_color(0, 0, 0, 1)
    yield showbase
    showbase.destroy()


def _draw(base: SimShowBase, text: str, scale: float) -> tuple[OnscreenText, np.ndarray]:
    label = OnscreenText(
        parent=base.aspect2d,
        text=text,
        pos=(-1.2, 0.0),
        scale=scale,
        fg=(1, 1, 1, 1),
        align=TextNode.A_left,
    )
    base.graphics_engine.render_frame()
    base.graphics_engine.render_frame()
    return label, screenshot_rgb(base.win).max(axis=2)


def _char_boxes(label: OnscreenText, text: str, scale: float) -> list[tuple[str, slice, slice]]:
    """Each character's pixel box: its advance across, and an em's height around the line."""
    width, height = SIZE
    aspect = width / height
    node = label.textNode

    def to_px(x: float) -> int:
        return round((x / aspect + 1) / 2 * width)

    top = round((1 - 0.95 * scale) / 2 * height)
    bottom = round((1 + 0.3 * scale) / 2 * height) + 1
    boxes = []
    for index, char in enumerate(text):
        left = to_px(-1.2 + node.calc_width(text[:index]) * scale)
        right = to_px(-1.2 + node.calc_width(text[: index + 1]) * scale)
        boxes.append((char, slice(top, bottom), slice(left, max(right, left + 1))))
    return boxes


def _longest_run(mask: np.ndarray) -> int:
    """The longest run of True along the last axis, over all rows."""
    best = 0
    for row in mask:
        run = 0
        for value in row:
            run = run + 1 if value else 0
            best = max(best, run)
    return best


def test_the_bundled_font_is_the_default_of_text_and_widgets(base):
    font = TextNode.get_default_font()
    assert FONT_FILE.is_file(), "the bundled font is missing from models/fonts"
    assert (FONT_FILE.parent / "LICENSE").is_file(), "the font ships without its license"
    assert isinstance(font, DynamicTextFont)
    assert font.is_valid()
    assert font.get_pixels_per_unit() == PIXELS_PER_UNIT, "the default is not our font"
    assert DirectGuiGlobals.getDefaultFont() == font
    label = OnscreenText(parent=base.aspect2d, text="x")
    assert label.textNode.get_font() == font


SCALES = {
    "hud": TEXT_SCALE,
    "hud help": HELP_SCALE,
    "hud help fitted": FITTED_HELP_SCALE,
    "panel buttons": BUTTON_SCALE,
    "panel keys": PANEL_HELP_SCALE,
}


@pytest.mark.parametrize("scale", SCALES.values(), ids=SCALES.keys())
def test_every_glyph_has_ink(base, scale):
    label, image = _draw(base, SAMPLE, scale)
    empty = [
        f"{index}:{char!r}"
        for index, (char, rows, cols) in enumerate(_char_boxes(label, SAMPLE, scale))
        if not char.isspace() and (image[rows, cols] > INK).sum() == 0
    ]
    assert empty == [], f"glyphs drawn without ink at scale {scale}: {empty}"


@pytest.mark.parametrize("scale", SCALES.values(), ids=SCALES.keys())
def test_the_plus_in_ctrl_s_has_both_strokes(base, scale):
    text = "Ctrl+S"
    label, image = _draw(base, text, scale)
    _, rows, cols = _char_boxes(label, text, scale)[4]
    ink = image[rows, cols] > INK
    across, down = _longest_run(ink), _longest_run(ink.T)
    # DejaVu's "+" spans some 0.6 em each way; the built-in font's read as a blot ("Ctrl•S") of
    # 2 to 4 pixels at these sizes, under half an em either way.
    half_em_px = 0.5 * scale * SIZE[1] / 2
    assert across >= half_em_px, f"the '+' lost its horizontal stroke (longest {across} px)"
    assert down >= half_em_px, f"the '+' lost its vertical stroke (longest {down} px)"


def test_a_missing_font_file_leaves_the_built_in_font(base, monkeypatch):
    import sim.engine.fonts as fonts

    monkeypatch.setattr(fonts, "FONT_FILE", FONT_FILE.with_name("missing.ttf"))
    assert load_ui_font() is None


# The HUD hangs from a strip (the left dock) this wide, aspect2d units: 240 of 800 pixels.
STRIP_UNITS = 0.8
STRIP_PX = round(STRIP_UNITS * SIZE[1] / 2)


def test_a_help_line_wider_than_its_strip_wraps_inside_it(base):
    long_line = "   ".join(f"{key} does a thing" for key in "ABCDEFGHIJ")
    hud = Hud(top_left=base.a2dTopLeft, width=STRIP_UNITS, help_text=long_line, status=lambda: [])
    base.graphics_engine.render_frame()
    base.graphics_engine.render_frame()
    image = screenshot_rgb(base.win).max(axis=2)
    assert (image[:, :STRIP_PX] > INK).sum() > 300, "the help line is not drawn"
    assert (image[:, STRIP_PX:] > INK).sum() == 0, "the help line runs out of its strip"
    hud.on_destroy()


def test_long_status_lines_wrap_inside_the_strip_and_push_the_help_down(base):
    long_line = "agent: " + ", ".join(f"state {n} of the agent" for n in range(12))
    hud = Hud(top_left=base.a2dTopLeft, width=STRIP_UNITS, help_text="", status=lambda: [])
    base.graphics_engine.render_frame()
    help_alone = hud._help.text_pos[1]
    hud.on_destroy()
    hud = Hud(
        top_left=base.a2dTopLeft, width=STRIP_UNITS, help_text="keys", status=lambda: [long_line]
    )
    hud.refresh()
    base.graphics_engine.render_frame()
    base.graphics_engine.render_frame()
    image = screenshot_rgb(base.win).max(axis=2)
    assert (image[:, :STRIP_PX] > INK).sum() > 300, "the status line is not drawn"
    assert (image[:, STRIP_PX:] > INK).sum() == 0, "the status runs out of its strip"
    assert hud._help.text_pos[1] < help_alone - 0.1, "the help stays under the status block"
    hud.on_destroy()
