"""The window's look: shadows from the sun and multisample anti-aliasing, where the GSG has them.

Multisampling is the full look's alone (`look_prc`): the auto look has the shadows until it falls
back to plain, and then runs as fast as the plain look.

A window on pandagl (Mesa's llvmpipe included) gets per-pixel lighting from Panda3D's shader
generator, a shadow map from the scene's directional light and, when the framebuffer came with
samples, multisampling. The offscreen software renderer (p3tinydisplay) runs no shaders: it keeps
the plain fixed-function look, which is also what makes headless screenshots exact and
repeatable. The choice is made from what the GSG and the framebuffer report, never from the pipe's
name, so a driver without shaders gets the plain look instead of an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from panda3d.core import (
    AntialiasAttrib,
    CullFaceAttrib,
    DirectionalLight,
    GraphicsOutput,
    NodePath,
    OrthographicLens,
    Point3,
    RenderState,
)

from sim.config import LOOK_FALLBACK_FPS

FALLBACK_WINDOW_S = 2.0  # real seconds a frame-rate sample spans
FALLBACK_WINDOWS = 2  # slow samples in a row that drop the look; the first sample never counts
SHADOW_MAP_SIZE = 1024  # texels a side; llvmpipe draws a 2048 map in twice the time
SHADOW_MARGIN = 2.0  # world units the shadow camera sees past the scene's bounds
SHADOW_PASS_OVERRIDE = 100  # beats any node's own face culling in the shadow pass
MULTISAMPLES = 4  # what the window asks for; drivers without multisampling give none


@dataclass(frozen=True, slots=True)
class Look:
    """What the window's look turned out to be.

    Attributes:
        shadows: The sun casts shadows through the shader generator.
        multisamples: Samples per pixel the framebuffer has (0: no anti-aliasing).
    """

    shadows: bool
    multisamples: int


def look_prc(*, headless: bool, look: str = "auto") -> list[str]:
    """PRC lines that ask a window for a multisampled framebuffer: the full look's only.

    A window keeps the framebuffer it opened with, and on a software renderer a multisampled
    one costs two thirds of every frame whatever is drawn into it (the plain look ran 11 fps in
    one against 35 without, Mesa's llvmpipe at 1024x768): an auto look, which may drop to plain,
    must not hold one, or it would never reach plain speed after the fallback.
    """
    if headless or look != "full":
        return []
    return ["framebuffer-multisample 1", f"multisamples {MULTISAMPLES}"]


def apply_look(
    win: GraphicsOutput, scene: NodePath, *, cover: NodePath | None = None, look: str = "auto"
) -> Look:
    """Turn on shadows and anti-aliasing under `scene` where `win`'s GSG supports them.

    Call once the scene's lights and geometry are in place: the shadow camera is fitted to the
    scene's bounds as they are now (the grid and what stands on it, which do not grow).

    Args:
        win: The window (or buffer) the scene is drawn into.
        scene: The root whose directional light casts the shadows and whose nodes receive them.
        cover: Where shadows can fall (the ground under the grid): the shadow map spans it,
            from the ground to the scene's top, and nothing outside it (a backdrop twice as
            wide would halve the map's detail). None or empty: the whole scene.
        look: One of `sim.config.LOOKS`; "plain" turns nothing on.

    Returns:
        What was turned on; a GSG without shaders or depth textures gets neither shadows nor
        the shader generator.
    """
    if look == "plain":
        return Look(shadows=False, multisamples=0)
    gsg = win.get_gsg()
    multisamples = win.get_fb_properties().get_multisamples()
    if multisamples > 0:
        scene.set_antialias(AntialiasAttrib.M_multisample)
    sun = scene.find("**/+DirectionalLight")
    shaders = gsg is not None and gsg.get_supports_basic_shaders()
    depth = gsg is not None and gsg.get_supports_depth_texture()
    if not (shaders and depth) or sun.is_empty():
        return Look(shadows=False, multisamples=multisamples)
    _fit_shadow_camera(sun, scene, cover)
    scene.set_shader_auto()
    return Look(shadows=True, multisamples=multisamples)


def _fit_shadow_camera(sun: NodePath, scene: NodePath, cover: NodePath | None) -> None:
    """Make the sun a shadow caster whose orthographic camera covers `cover` (or the scene).

    A directional light's shadow camera sits where its node is; the node is moved to the
    scene's centre, backed off along the light's direction, which leaves the lighting (a
    direction only) as it was.
    """
    bounds = scene.get_tight_bounds()
    light = sun.node()
    assert isinstance(light, DirectionalLight)
    light.set_shadow_caster(True, SHADOW_MAP_SIZE, SHADOW_MAP_SIZE)
    if bounds is None:
        return
    low, high = bounds
    covered = None if cover is None or cover.is_empty() else cover.get_tight_bounds(scene)
    if covered is not None:
        (low_x, low_y, _), (high_x, high_y, _) = covered
        low, high = Point3(low_x, low_y, low.z), Point3(high_x, high_y, high.z)
    center = (low + high) / 2
    radius = (high - low).length() / 2 + SHADOW_MARGIN
    direction = scene.get_relative_vector(sun, (0, 1, 0))
    sun.set_pos(scene, center - direction * 2 * radius)
    lens = light.get_lens()
    assert isinstance(lens, OrthographicLens)
    side = 2 * radius
    lens.set_film_size(side, side)
    lens.set_near_far(radius, 3 * radius)
    # The shadow map keeps only the faces turned away from the sun: a lit face never shadows
    # itself (no acne), and the ground and the flat overlays lying on it (blocked cells, search
    # cells), facing the sun, cast nothing. The override beats the overlays' own two-sidedness,
    # which would otherwise stripe the ground with the shadow of a quad 0.02 units above it.
    light.set_initial_state(RenderState.make(CullFaceAttrib.make_reverse(), SHADOW_PASS_OVERRIDE))


def drop_look(scene: NodePath) -> Look:
    """Turn `apply_look`'s shadows and anti-aliasing off again: the plain look, at once."""
    scene.clear_shader()
    scene.set_antialias(AntialiasAttrib.M_none)
    sun = scene.find("**/+DirectionalLight")
    if not sun.is_empty():
        light = sun.node()
        assert isinstance(light, DirectionalLight)
        light.set_shadow_caster(False)
    return Look(shadows=False, multisamples=0)


class LookFallback:
    """Tells when an "auto" look should drop to plain: the frame rate stayed under a floor.

    On a software renderer (Mesa's llvmpipe) per-pixel lighting, the shadow map and
    multisampling cost most of a frame: the default scene runs about 25 fps with them and 78
    without, 1,000 agents 15 against 45. A user who did not ask for the look keeps a scene
    that moves instead. `drop_look` releases the shadow map's buffer and the shaders; the auto
    look never opened a multisampled framebuffer (`look_prc`), so what is left is the plain
    look's cost. Fed the real time once a frame (`tick`), it samples the frame rate over
    `window_s`; the first sample (models loading, fields being built) never counts, and
    `windows` slow samples in a row give the verdict, once.
    """

    def __init__(
        self,
        *,
        floor_fps: float = LOOK_FALLBACK_FPS,
        window_s: float = FALLBACK_WINDOW_S,
        windows: int = FALLBACK_WINDOWS,
    ) -> None:
        self._floor, self._window_s, self._windows = floor_fps, window_s, windows
        self._began: float | None = None
        self._frames = 0
        self._samples = 0
        self._slow = 0
        self.done = False

    def tick(self, now_s: float) -> float | None:
        """Count one frame at real time `now_s`; the slow frame rate once the look should go."""
        if self.done:
            return None
        if self._began is None:
            self._began = now_s
            return None
        self._frames += 1
        elapsed = now_s - self._began
        if elapsed < self._window_s:
            return None
        fps = self._frames / elapsed
        self._began, self._frames = now_s, 0
        self._samples += 1
        if self._samples == 1:
            return None
        self._slow = self._slow + 1 if fps < self._floor else 0
        if self._slow < self._windows:
            return None
        self.done = True
        return fps
