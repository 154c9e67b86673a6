"""Headless runs keep the plain look: the software renderer runs no shaders and has no samples."""

from __future__ import annotations

import pytest
from panda3d.core import DirectionalLight, ShaderAttrib

from sim.engine.lighting import Look
from tests.helpers.paths import DEFAULT_SCENE

pytestmark = pytest.mark.render


def test_the_offscreen_renderer_keeps_the_plain_look(open_app):
    app = open_app(DEFAULT_SCENE, size=(320, 240))
    app.step()
    assert app.base.win.get_gsg().get_supports_basic_shaders() is False
    assert app.look == Look(shadows=False, multisamples=0)
    assert app.base.render.get_attrib(ShaderAttrib) is None
    sun = app.base.render.find("**/+DirectionalLight").node()
    assert isinstance(sun, DirectionalLight)
    assert not sun.is_shadow_caster()
    window = app.report()["window"]
    assert (window["shadows"], window["multisamples"]) == (False, 0)
