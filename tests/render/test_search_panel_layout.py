"""The search panel's status text stays above its buttons, however long it gets."""

from __future__ import annotations

import pytest

from sim.navigation.catalogue import SearchKind
from sim.search_view.panel import STATUS_LINES, TEXT_SCALE
from tests.helpers.paths import DEFAULT_SCENE, artifact

pytestmark = pytest.mark.render


def box(app, node):
    bounds = node.get_tight_bounds(app.base.aspect2d)
    assert bounds is not None, "the node draws nothing"
    low, high = bounds
    return low.x, high.x, low.z, high.z


def button_box(app, button):
    """A DirectButton's frame in aspect2d (its frame is drawn by the button, not as geometry)."""
    left, right, bottom, top = button.getBounds()
    low = app.base.aspect2d.get_relative_point(button, (left, 0.0, bottom))
    high = app.base.aspect2d.get_relative_point(button, (right, 0.0, top))
    return low.x, high.x, low.z, high.z


def overlap(first, second) -> bool:
    left, right, bottom, top = first
    other_left, other_right, other_bottom, other_top = second
    return left < other_right and other_left < right and bottom < other_top and other_bottom < top


@pytest.mark.parametrize("size", [(800, 600), (1024, 768)], ids=["800x600", "1024x768"])
def test_a_long_status_stays_clear_of_the_reset_button(open_app, size) -> None:
    app = open_app(DEFAULT_SCENE, size=size)
    app.step()  # the first frame puts the obstacles in the grid: a view opened before restarts
    view = app.search_view
    view.open()
    view.set_choice(SearchKind.BIDIRECTIONAL)
    view.replay.seek(10_000)
    app.step()
    status = app.search_panel.status_node
    text = view.status_text()
    assert "the halves meet" in text
    assert "path cost" in text
    # The bidirectional's last line wraps: more rows than the room above the buttons.
    assert status.textNode.get_num_rows() <= STATUS_LINES
    app.save_screenshot(artifact(f"search-panel-status-{size[0]}.png"))
    for key in ("reset", "back", "play", "faster"):
        button = app.search_panel.buttons[key]
        assert not overlap(box(app, status), button_box(app, button)), f"status runs over {key}"


def test_a_short_status_keeps_its_full_size(default_scene) -> None:
    app, _ = default_scene
    app.search_view.open()
    app.step()
    assert app.search_panel.status_scale == pytest.approx(TEXT_SCALE)
