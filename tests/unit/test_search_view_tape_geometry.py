"""The search view's geometry for the new searches: bidirectional's layers, Theta*'s ribbons."""

from __future__ import annotations

import numpy as np

from sim.navigation.replay.tape import SearchTape, TapeReplay
from sim.search_view.geometry import layer_cells, segment_ribbons, tape_layers


def test_backward_cells_leave_the_forward_layers_and_the_meeting_cell_stands_alone():
    replay = TapeReplay(
        SearchTape(np.ones((1, 7), dtype=bool), (0, 0), (0, 6), algorithm="bidirectional")
    )
    replay.seek(99)
    layers = layer_cells(replay)
    split = tape_layers(replay, layers)
    meeting = replay.meeting_cell
    assert meeting is not None
    flat_meeting = meeting[1]
    assert split["search-meeting"].tolist() == [flat_meeting]
    for key in ("search-open", "search-closed", "search-path", "search-current"):
        assert flat_meeting not in split.get(key, layers[key]).tolist()
    backward = set(np.flatnonzero(replay.side.ravel() == 2).tolist())
    assert not backward & set(split["search-closed"].tolist())
    assert set(split["search-closed-back"].tolist()) <= backward


def test_ribbons_follow_each_segment_at_the_asked_width():
    points = np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 0.0]])
    quads = segment_ribbons(points, 0.5, 0.1)
    assert quads.shape == (2, 4, 3)
    assert np.allclose(quads[:, :, 2], 0.1)
    # Each quad's short side is the width, its long side the segment.
    assert np.isclose(np.linalg.norm(quads[0, 3, :2] - quads[0, 0, :2]), 0.5)
    assert np.isclose(np.linalg.norm(quads[0, 1, :2] - quads[0, 0, :2]), 5.0)
    assert segment_ribbons(points[:1], 0.5, 0.1).shape == (0, 4, 3)
