"""The window's look is chosen from what the GSG and the framebuffer report, never crashes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import pytest
from panda3d.core import (
    AntialiasAttrib,
    DirectionalLight,
    FrameBufferProperties,
    GraphicsOutput,
    LineSegs,
    NodePath,
    OrthographicLens,
    Point3,
    ShaderAttrib,
)

from sim.engine.lighting import (
    MULTISAMPLES,
    SHADOW_MAP_SIZE,
    Look,
    LookFallback,
    apply_look,
    drop_look,
    look_prc,
)


@dataclass
class FakeGsg:
    shaders: bool
    depth: bool = True

    def get_supports_basic_shaders(self) -> bool:
        return self.shaders

    def get_supports_depth_texture(self) -> bool:
        return self.depth


@dataclass
class _Window:
    gsg: FakeGsg | None
    multisamples: int

    def get_gsg(self) -> FakeGsg | None:
        return self.gsg

    def get_fb_properties(self) -> FrameBufferProperties:
        properties = FrameBufferProperties()
        properties.set_multisamples(self.multisamples)
        return properties


def fake_window(gsg: FakeGsg | None, multisamples: int = 0) -> GraphicsOutput:
    """A stand-in for the window, typed as one: `apply_look` reads only these two methods."""
    return cast(GraphicsOutput, _Window(gsg, multisamples))


def _scene() -> tuple[NodePath, NodePath]:
    root = NodePath("scene")
    sun = root.attach_new_node(DirectionalLight("sun"))
    sun.set_hpr(35, -55, 0)
    root.set_light(sun)
    # Tight bounds come from geometry: a line across the box from the ground to 3 units up.
    lines = LineSegs("extent")
    lines.move_to(-10, -10, 0)
    lines.draw_to(10, 10, 3)
    root.attach_new_node(lines.create())
    return root, sun


def test_a_window_with_shaders_gets_shadows_and_antialiasing():
    root, sun = _scene()
    look = apply_look(fake_window(FakeGsg(shaders=True), multisamples=4), root)
    assert look == Look(shadows=True, multisamples=4)
    light = sun.node()
    assert isinstance(light, DirectionalLight)
    assert light.is_shadow_caster()
    assert light.get_shadow_buffer_size() == (SHADOW_MAP_SIZE, SHADOW_MAP_SIZE)
    attrib = root.get_attrib(ShaderAttrib)
    assert isinstance(attrib, ShaderAttrib)
    assert attrib.auto_shader()
    assert root.get_antialias() & AntialiasAttrib.M_multisample


def test_the_shadow_camera_sees_the_whole_scene():
    root, sun = _scene()
    apply_look(fake_window(FakeGsg(shaders=True)), root)
    light = sun.node()
    assert isinstance(light, DirectionalLight)
    lens = light.get_lens()
    assert isinstance(lens, OrthographicLens)
    for corner in ((-10, -10, 0), (10, 10, 3), (-10, 10, 0), (10, -10, 3)):
        film = Point3()
        assert lens.project(sun.get_relative_point(root, corner), film), corner
        assert max(abs(film.x), abs(film.y)) <= 1.0, corner


@pytest.mark.parametrize(
    "gsg",
    [FakeGsg(shaders=False), FakeGsg(shaders=True, depth=False), None],
    ids=["no shaders", "no depth textures", "no gsg"],
)
def test_without_shader_support_the_plain_look_stays(gsg):
    root, sun = _scene()
    look = apply_look(fake_window(gsg), root)
    assert look == Look(shadows=False, multisamples=0)
    light = sun.node()
    assert isinstance(light, DirectionalLight)
    assert not light.is_shadow_caster()
    assert root.get_attrib(ShaderAttrib) is None
    assert not root.has_antialias()


def test_a_scene_without_a_directional_light_gets_no_shadows():
    root = NodePath("scene")
    assert apply_look(fake_window(FakeGsg(shaders=True), multisamples=2), root) == Look(
        shadows=False, multisamples=2
    )


def test_only_a_full_looks_window_asks_for_multisampling():
    assert look_prc(headless=True, look="full") == []
    assert f"multisamples {MULTISAMPLES}" in look_prc(headless=False, look="full")


def test_an_auto_look_holds_no_multisampled_framebuffer_it_could_not_let_go_of():
    # A window keeps its framebuffer: after the fallback to plain it must cost what plain does.
    assert look_prc(headless=False, look="auto") == []


def test_the_shadow_camera_spans_only_what_it_is_told_to_cover():
    root, sun = _scene()
    cover = LineSegs("ground")
    cover.move_to(-4, -4, 0)
    cover.draw_to(4, 4, 0)
    ground = root.attach_new_node(cover.create())
    apply_look(fake_window(FakeGsg(shaders=True)), root, cover=ground)
    light = sun.node()
    assert isinstance(light, DirectionalLight)
    side = light.get_lens().get_film_size()
    whole_scene, _ = _scene()
    apply_look(fake_window(FakeGsg(shaders=True)), whole_scene)
    whole_light = whole_scene.find("**/+DirectionalLight").node()
    assert isinstance(whole_light, DirectionalLight)
    assert side.x < 0.7 * whole_light.get_lens().get_film_size().x


def test_a_plain_look_turns_nothing_on_and_asks_for_no_samples():
    root, sun = _scene()
    look = apply_look(fake_window(FakeGsg(shaders=True), multisamples=4), root, look="plain")
    assert look == Look(shadows=False, multisamples=0)
    light = sun.node()
    assert isinstance(light, DirectionalLight)
    assert not light.is_shadow_caster()
    assert root.get_attrib(ShaderAttrib) is None
    assert look_prc(headless=False, look="plain") == []


def test_dropping_the_look_undoes_shadows_and_antialiasing():
    root, sun = _scene()
    apply_look(fake_window(FakeGsg(shaders=True), multisamples=4), root)
    assert drop_look(root) == Look(shadows=False, multisamples=0)
    light = sun.node()
    assert isinstance(light, DirectionalLight)
    assert not light.is_shadow_caster()
    attrib = root.get_attrib(ShaderAttrib)
    assert attrib is None or (isinstance(attrib, ShaderAttrib) and not attrib.auto_shader())
    assert not root.get_antialias() & AntialiasAttrib.M_multisample


def frames(fallback: LookFallback, fps: float, seconds: float, start: float) -> list[float]:
    """Tick `fallback` at `fps` for `seconds` from real time `start`; the verdicts given."""
    verdicts = []
    count = round(fps * seconds)
    for frame in range(count):
        verdict = fallback.tick(start + frame / fps)
        if verdict is not None:
            verdicts.append(verdict)
    return verdicts


def test_a_frame_rate_that_stays_low_drops_the_look_once():
    fallback = LookFallback(floor_fps=20.0, window_s=2.0, windows=2)
    # The first sample (loading) never counts; two slow samples after it give the verdict.
    verdicts = frames(fallback, 12.0, 7.0, 0.0)
    assert len(verdicts) == 1
    assert verdicts[0] == pytest.approx(12.0, rel=0.1)
    assert fallback.done
    assert frames(fallback, 5.0, 10.0, 7.0) == []


def test_a_fast_frame_rate_or_one_slow_sample_keeps_the_look():
    fallback = LookFallback(floor_fps=20.0, window_s=2.0, windows=2)
    assert frames(fallback, 5.0, 2.5, 0.0) == []  # the first sample: startup
    assert frames(fallback, 40.0, 20.0, 2.5) == []
    assert frames(fallback, 12.0, 2.1, 22.5) == []  # one slow sample alone
    assert frames(fallback, 40.0, 4.0, 24.6) == []
    assert not fallback.done
