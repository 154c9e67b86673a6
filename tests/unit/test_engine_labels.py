"""BillboardLabels on a bare scene graph: which texts show, where, and what is reused."""

from __future__ import annotations

import pytest
from panda3d.core import NodePath

from sim.engine.labels import BillboardLabels


@pytest.fixture
def labels():
    root = NodePath("root")
    return BillboardLabels(root, color=(0, 0, 0, 1), height=0.2)


def visible_children(labels: BillboardLabels) -> list[str]:
    return [child.get_name() for child in labels.node.get_children() if not child.is_hidden()]


def test_show_puts_each_text_at_its_point_facing_the_camera(labels):
    labels.show({3: ((1.0, 2.0, 0.3), "g 1.0\nf 2.0"), 7: ((4.0, 5.0, 0.3), "g 2.0\nf 3.0")})
    assert labels.shown == 2
    assert labels.text_of(3) == "g 1.0\nf 2.0"
    assert sorted(visible_children(labels)) == ["label-3", "label-7"]
    pivot = labels.node.find("label-7")
    assert tuple(pivot.get_pos()) == pytest.approx((4.0, 5.0, 0.3))
    assert pivot.has_billboard(), "it turns to face the camera"


def test_labels_not_shown_again_are_hidden_and_reused(labels):
    labels.show({3: ((0.0, 0.0, 0.0), "a"), 4: ((1.0, 0.0, 0.0), "b")})
    labels.show({4: ((1.0, 0.0, 0.0), "c")})
    assert labels.text_of(3) is None
    assert labels.text_of(4) == "c"
    assert visible_children(labels) == ["label-4"]
    labels.show({3: ((2.0, 0.0, 0.0), "a")})
    assert len(labels.node.get_children()) == 2, "label 3 came back, no new node"
    assert tuple(labels.node.find("label-3").get_pos()) == pytest.approx((2.0, 0.0, 0.0))


def test_a_block_of_lines_is_centred_on_its_point(labels):
    labels.show({1: ((0.0, 0.0, 0.0), "one")})
    one_line = labels.node.find("label-1").get_child(0).get_z()
    labels.show({1: ((0.0, 0.0, 0.0), "one\ntwo\nthree")})
    three_lines = labels.node.find("label-1").get_child(0).get_z()
    assert three_lines - one_line == pytest.approx(1.0), "lifted by half of the two extra lines"


def test_hide_all_and_bad_height(labels):
    labels.show({1: ((0.0, 0.0, 0.0), "x")})
    labels.hide_all()
    assert labels.shown == 0
    assert visible_children(labels) == []
    with pytest.raises(ValueError, match="height must be > 0"):
        BillboardLabels(NodePath("root"), color=(0, 0, 0, 1), height=0.0)


def test_hidden_labels_past_the_keep_limit_are_removed():
    labels = BillboardLabels(NodePath("root"), color=(0, 0, 0, 1), height=0.2, keep=5)
    for first in range(0, 30, 3):
        labels.show({key: ((0.0, 0.0, 0.0), str(key)) for key in range(first, first + 3)})
        assert labels.kept <= 5 + 3
    assert labels.shown == 3
    assert labels.text_of(28) == "28"
    assert len(labels.node.get_children()) == labels.kept
