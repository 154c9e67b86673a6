"""Gizmos batching: rebuild only on change, hide undrawn keys, static lines (no window)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from numpy.typing import ArrayLike, NDArray
from panda3d.core import (
    GeomLines,
    GeomLinestrips,
    GeomNode,
    GeomTriangles,
    NodePath,
    TransparencyAttrib,
)

from sim.engine import Gizmos

Draw = Callable[[Gizmos], None]
RED = (1.0, 0.0, 0.0, 1.0)
BLUE = (0.0, 0.0, 1.0, 1.0)
SEGMENTS = np.array([[(0, 0, 0.02), (1, 0, 0.02)], [(0, 0, 0.02), (0, 1, 0.02)]], np.float32)
SQUARE = np.array([[(0, 0, 0.01), (1, 0, 0.01), (1, 1, 0.01), (0, 1, 0.01)]], np.float32)


@pytest.fixture
def gizmos() -> Gizmos:
    return Gizmos(NodePath("root"))


def key_node(gizmos: Gizmos, key: str) -> NodePath:
    node = gizmos.node.find(key)
    assert not node.is_empty(), f"no node for {key!r}"
    return node


def geom_node(gizmos: Gizmos, key: str) -> GeomNode:
    node = key_node(gizmos, key).node()
    assert isinstance(node, GeomNode), f"{key!r} is a {type(node).__name__}"
    return node


def vertices_of(gizmos: Gizmos, key: str) -> NDArray[np.float32]:
    geom = geom_node(gizmos, key).get_geom(0)
    # The array exports the buffer protocol at run time; the stubs do not declare __buffer__.
    raw = memoryview(geom.get_vertex_data().get_array(0)).tobytes()  # type: ignore[arg-type]
    return np.frombuffer(raw, np.float32).reshape(-1, 3)


def test_node_is_named_gizmos_with_lighting_off() -> None:
    root = NodePath("root")
    gizmos = Gizmos(root)
    assert gizmos.node.get_parent() == root
    assert gizmos.node.get_name() == "gizmos"
    assert gizmos.node.has_light_off()


def test_unchanged_content_is_built_once_across_frames(gizmos: Gizmos) -> None:
    for _ in range(5):
        gizmos.lines("path", SEGMENTS.tolist(), RED)
        gizmos.flush()
    assert gizmos.rebuild_count("path") == 1
    assert gizmos.keys() == {"path"}


def test_changed_content_is_rebuilt(gizmos: Gizmos) -> None:
    gizmos.lines("path", SEGMENTS, RED)
    gizmos.flush()
    gizmos.lines("path", SEGMENTS + 1.0, RED)
    gizmos.flush()
    assert gizmos.rebuild_count("path") == 2
    np.testing.assert_array_equal(vertices_of(gizmos, "path"), (SEGMENTS + 1.0).reshape(-1, 3))


def test_colour_change_updates_state_without_a_rebuild(gizmos: Gizmos) -> None:
    gizmos.lines("path", SEGMENTS, RED)
    gizmos.flush()
    gizmos.lines("path", SEGMENTS, (0.0, 1.0, 0.0, 0.5))
    gizmos.flush()
    node = key_node(gizmos, "path")
    assert gizmos.rebuild_count("path") == 1
    assert tuple(node.get_color()) == (0.0, 1.0, 0.0, 0.5)
    assert node.get_transparency() == TransparencyAttrib.M_alpha


def test_caller_editing_the_array_later_does_not_leak_in(gizmos: Gizmos) -> None:
    segments = SEGMENTS.copy()
    gizmos.lines("path", segments, RED)
    segments += 5.0
    gizmos.flush()
    np.testing.assert_array_equal(vertices_of(gizmos, "path"), SEGMENTS.reshape(-1, 3))


def test_key_not_drawn_is_hidden_and_comes_back_without_rebuild(gizmos: Gizmos) -> None:
    gizmos.lines("path", SEGMENTS, RED)
    gizmos.flush()
    gizmos.flush()
    assert gizmos.keys() == set()
    assert key_node(gizmos, "path").is_hidden()
    gizmos.lines("path", SEGMENTS, RED)
    gizmos.flush()
    assert gizmos.keys() == {"path"}
    assert not key_node(gizmos, "path").is_hidden()
    assert gizmos.rebuild_count("path") == 1


def test_static_lines_are_built_once_and_kept_until_cleared(gizmos: Gizmos) -> None:
    gizmos.static_lines("grid", SEGMENTS, RED)
    for _ in range(10):
        gizmos.flush()
    assert gizmos.keys() == {"grid"}
    assert gizmos.rebuild_count("grid") == 1
    gizmos.static_lines("grid", SEGMENTS, BLUE)
    assert gizmos.rebuild_count("grid") == 1
    gizmos.clear_static("grid")
    assert gizmos.keys() == set()
    assert gizmos.node.find("grid").is_empty()
    gizmos.clear_static("grid")


def test_static_and_per_frame_keys_do_not_mix(gizmos: Gizmos) -> None:
    gizmos.static_lines("grid", SEGMENTS, RED)
    with pytest.raises(ValueError, match="static lines"):
        gizmos.lines("grid", SEGMENTS, RED)
    gizmos.lines("path", SEGMENTS, RED)
    with pytest.raises(ValueError, match="per-frame drawing"):
        gizmos.static_lines("path", SEGMENTS, RED)


def test_set_visible_is_a_sticky_toggle(gizmos: Gizmos) -> None:
    gizmos.set_visible("path", False)
    gizmos.static_lines("grid", SEGMENTS, RED)
    gizmos.set_visible("grid", False)
    for _ in range(2):
        gizmos.lines("path", SEGMENTS, RED)
        gizmos.flush()
        assert gizmos.keys() == set()
        assert key_node(gizmos, "path").is_hidden()
        assert key_node(gizmos, "grid").is_hidden()
    gizmos.set_visible("grid", True)
    assert gizmos.keys() == {"grid"}
    assert not key_node(gizmos, "grid").is_hidden()


@pytest.mark.parametrize(
    ("draw", "primitive", "vertex_count"),
    [
        (lambda g: g.lines("k", SEGMENTS, RED), GeomLines, 4),
        (lambda g: g.polyline("k", [(0, 0, 0), (1, 0, 0), (1, 1, 0)], RED), GeomLinestrips, 3),
        (lambda g: g.quads("k", np.concatenate([SQUARE, SQUARE + 2]), BLUE), GeomTriangles, 12),
    ],
    ids=["lines", "polyline", "quads"],
)
def test_each_kind_builds_one_geom_of_its_primitive(
    gizmos: Gizmos, draw: Draw, primitive: type, vertex_count: int
) -> None:
    draw(gizmos)
    gizmos.flush()
    node = geom_node(gizmos, "k")
    assert node.get_num_geoms() == 1
    geom = node.get_geom(0)
    assert isinstance(geom.get_primitive(0), primitive)
    assert geom.get_vertex_data().get_num_rows() == vertex_count


def test_quads_are_two_sided_triangle_pairs(gizmos: Gizmos) -> None:
    gizmos.quads("cells", SQUARE, BLUE)
    gizmos.flush()
    assert key_node(gizmos, "cells").get_two_sided()
    np.testing.assert_array_equal(vertices_of(gizmos, "cells"), SQUARE[0][[0, 1, 2, 0, 2, 3]])


@pytest.mark.parametrize(
    "points", [np.zeros((0, 3)), [(1.0, 2.0, 3.0)]], ids=["no-points", "one-point"]
)
def test_polyline_with_fewer_than_two_points_draws_nothing(
    gizmos: Gizmos, points: ArrayLike
) -> None:
    gizmos.polyline("path", points, RED)
    gizmos.flush()
    assert geom_node(gizmos, "path").get_num_geoms() == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda g: g.lines("k", np.zeros((3, 3)), RED), r"segments must have shape \(N, 2, 3\)"),
        (lambda g: g.polyline("k", np.zeros((3, 2)), RED), r"points must have shape \(N, 3\)"),
        (lambda g: g.quads("k", np.zeros((1, 3, 3)), RED), r"corners must have shape \(N, 4, 3\)"),
        (lambda g: g.lines("k", SEGMENTS * np.nan, RED), "NaN or infinite"),
        (lambda g: g.lines("k", SEGMENTS, (1.0, 0.0)), "color must be 3 or 4 numbers"),
        (lambda g: g.lines("k", SEGMENTS, (2.0, 0.0, 0.0)), "color must be 3 or 4 numbers"),
        (lambda g: g.lines("k", SEGMENTS, RED, thickness=0.0), "thickness must be"),
    ],
    ids=[
        "lines-shape",
        "polyline-shape",
        "quads-shape",
        "nan",
        "color-len",
        "color-range",
        "width",
    ],
)
def test_bad_input_is_rejected_naming_the_value(gizmos: Gizmos, call: Draw, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(gizmos)


def test_rgb_colour_gets_full_alpha_and_no_blending(gizmos: Gizmos) -> None:
    gizmos.lines("path", SEGMENTS, (1.0, 0.5, 0.0), thickness=3.0)
    gizmos.flush()
    node = key_node(gizmos, "path")
    assert tuple(node.get_color()) == (1.0, 0.5, 0.0, 1.0)
    assert node.get_transparency() == TransparencyAttrib.M_none
    assert node.get_render_mode_thickness() == 3.0


def test_unknown_key_has_no_rebuilds(gizmos: Gizmos) -> None:
    assert gizmos.rebuild_count("nothing") == 0


def test_on_top_keys_skip_the_depth_test_and_draw_last_in_order(gizmos: Gizmos) -> None:
    gizmos.set_on_top("fill", True)  # before it is drawn
    gizmos.quads("fill", SQUARE, RED)
    gizmos.lines("outline", SEGMENTS, BLUE)
    gizmos.lines("plain", SEGMENTS, BLUE)
    gizmos.flush()
    gizmos.set_on_top("outline", True, order=1)  # after
    fill, outline, plain = (key_node(gizmos, key) for key in ("fill", "outline", "plain"))
    for node in (fill, outline):
        assert node.get_bin_name() == "fixed"
        assert (node.has_depth_test(), node.get_depth_test()) == (True, False)
        assert (node.has_depth_write(), node.get_depth_write()) == (True, False)
    assert outline.get_bin_draw_order() > fill.get_bin_draw_order()
    assert (plain.has_bin(), plain.has_depth_test()) == (False, False)
    gizmos.set_on_top("fill", False)
    assert (fill.has_bin(), fill.has_depth_test(), fill.has_depth_write()) == (False, False, False)
