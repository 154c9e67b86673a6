"""The bundled UI font (DejaVu Sans), set once as the default of every TextNode and DirectGUI.

Panda3D's built-in font is rasterized small and sampled nearest in the software renderer
(p3tinydisplay), which drops thin strokes: "Ctrl+S" read as "Ctrl-S". DejaVu Sans rasterized at
`PIXELS_PER_UNIT` texels per text unit and sampled linearly (no mipmaps: tinydisplay blends
mipmap levels of glyph pages into smears) keeps every stroke of HUD-sized text in both
renderers. The font's license (Bitstream Vera / DejaVu) ships next to it.
"""

from __future__ import annotations

from direct.gui import DirectGuiGlobals
from panda3d.core import DynamicTextFont, Filename, SamplerState, TextFont, TextNode

from sim.config import MODELS_DIR

FONT_FILE = MODELS_DIR / "fonts" / "DejaVuSans.ttf"
# Texels per text unit: HUD text is 12 to 18 pixels tall at the usual window sizes, so glyphs
# are minified by at most about 2.5, which linear sampling still resolves stroke by stroke.
PIXELS_PER_UNIT = 24
TEXTURE_MARGIN = 2  # texels around each glyph, so linear sampling never bleeds in a neighbour


def load_ui_font() -> TextFont | None:
    """Load the bundled font with our sampling settings; None if its file is missing or bad."""
    font = DynamicTextFont(Filename.from_os_specific(str(FONT_FILE)))
    if not font.is_valid():
        return None
    font.set_pixels_per_unit(PIXELS_PER_UNIT)
    font.set_texture_margin(TEXTURE_MARGIN)
    font.set_minfilter(SamplerState.FT_linear)
    font.set_magfilter(SamplerState.FT_linear)
    return font


def install_ui_font() -> TextFont | None:
    """Make the bundled font the default for TextNodes, OnscreenText and DirectGUI widgets.

    Returns:
        The installed font, or None when it could not be loaded: then Panda3D's built-in font
        stays the default, so a broken install still shows its text.
    """
    font = load_ui_font()
    if font is not None:
        TextNode.set_default_font(font)
        # DirectGUI caches its own default the first time it is asked, so set it too.
        DirectGuiGlobals.setDefaultFont(font)
    return font
