from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from direct.showbase.ShowBase import ShowBase
from panda3d.core import Filename, LNormald, NodePath, load_prc_file_data, unload_prc_file
from panda3d.egg import EggData, EggGroupNode, EggNode, EggPolygon

from sim.config import MODELS_DIR

MODELS = sorted(MODELS_DIR.glob("*.egg"))
MODEL_IDS = [path.stem for path in MODELS]


@pytest.fixture
def base() -> Iterator[ShowBase]:
    # No window at all: loading models needs only the loader. The page is removed afterwards so
    # `window-type none` cannot leak into render tests that run later in the same process.
    page = load_prc_file_data(
        "test_models",
        "window-type none\naudio-library-name null\nmodel-cache-dir\nnotify-level-device fatal",
    )
    showbase = ShowBase()
    yield showbase
    showbase.destroy()
    unload_prc_file(page)


def load(base: ShowBase, name: str) -> NodePath:
    path = MODELS_DIR / f"{name}.egg"
    return base.loader.load_model(
        Filename.from_os_specific(str(path)).get_fullpath(), okMissing=False
    )


def bounds(node: NodePath, other: NodePath | None = None) -> tuple[tuple[float, ...], ...]:
    corners = node.get_tight_bounds(other or node)
    assert corners is not None, "the model has no geometry"
    low, high = corners
    return tuple(round(v, 6) for v in low), tuple(round(v, 6) for v in high)


def polygons(node: EggNode) -> Iterator[EggPolygon]:
    if isinstance(node, EggPolygon):
        yield node
    elif isinstance(node, EggGroupNode):
        for child in node.get_children():
            yield from polygons(child)


def test_the_three_models_exist():
    assert {"cube", "plane", "agent"} <= set(MODEL_IDS)


@pytest.mark.parametrize("path", MODELS, ids=MODEL_IDS)
def test_model_loads_with_geometry_and_no_tags(base: ShowBase, path: Path):
    model = load(base, path.stem)
    assert not model.is_empty()
    assert model.find_all_matches("**/+GeomNode").get_num_paths() >= 1
    assert model.find("**/=tag").is_empty(), "the app tags objects; models carry no tag"


@pytest.mark.parametrize("path", MODELS, ids=MODEL_IDS)
def test_model_faces_wind_counter_clockwise_seen_from_outside(path: Path):
    egg = EggData()
    assert egg.read(Filename.from_os_specific(str(path)))
    faces = list(polygons(egg))
    assert faces
    for face in faces:
        from_winding = LNormald()
        assert face.calculate_normal(from_winding)
        stated = face.get_normal() if face.has_normal() else face.get_vertex(0).get_normal()
        assert from_winding.almost_equal(stated, 1e-6), f"{face.get_parent().get_name()}: {stated}"


@pytest.mark.parametrize("path", MODELS, ids=MODEL_IDS)
def test_model_is_white_so_set_color_tints_it(path: Path):
    egg = EggData()
    assert egg.read(Filename.from_os_specific(str(path)))
    assert all(tuple(face.get_color()) == (1, 1, 1, 1) for face in polygons(egg))


def test_cube_is_a_unit_cube_standing_on_its_origin(base: ShowBase):
    assert bounds(load(base, "cube")) == ((-0.5, -0.5, 0.0), (0.5, 0.5, 1.0))


def test_plane_spans_the_unit_square_at_ground_level(base: ShowBase):
    assert bounds(load(base, "plane")) == ((0.0, 0.0, 0.0), (1.0, 1.0, 0.0))


def test_agent_stands_on_its_origin_with_a_small_footprint(base: ShowBase):
    (low_x, low_y, low_z), (high_x, high_y, high_z) = bounds(load(base, "agent"))
    assert low_z == 0.0
    assert 0.6 <= high_x - low_x <= 1.0
    assert 0.6 <= high_y - low_y <= 1.0
    assert 0.3 <= high_z <= 0.7
    assert low_x == -high_x, "centred on x"


def test_agent_nose_is_its_own_group_pointing_at_plus_y(base: ShowBase):
    model = load(base, "agent")
    nose, body = model.find("**/nose"), model.find("**/body")
    assert not nose.is_empty()
    assert not body.is_empty()
    (nose_low_x, nose_low_y, _), (nose_high_x, nose_high_y, _) = bounds(nose, model)
    (_, body_low_y, _), (_, body_high_y, _) = bounds(body, model)
    assert nose_low_y >= body_high_y > 0 > body_low_y, "nose in front of the body along +Y"
    assert nose_high_y == bounds(model)[1][1], "the nose is the front-most part"
    assert nose_low_x == -nose_high_x, "the nose is centred"
