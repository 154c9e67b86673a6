"""The hierarchy's rows from a list of objects (no window): order, tags, crowds, motion."""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import NodePath

from sim.editor.handles import distance_to_polyline
from sim.editor.hierarchy import crowd_members, entries
from sim.engine import GameObject


def obj(name: str, tag: str = "Obstacle") -> GameObject:
    return GameObject(NodePath(name), tag=tag)


def test_rows_keep_the_order_and_a_crowd_stands_where_its_first_agent_does():
    objects = [
        obj("start", "Start"),
        obj("walkers-1", "Agent"),
        obj("wall"),
        obj("walkers-2", "Agent"),
        obj("solo", "Agent"),
    ]
    crowds = crowd_members([("walkers", ["walkers-1", "walkers-2"])])
    rows = entries(objects, crowds)
    assert [row.label for row in rows] == [
        "start · Start",
        "walkers · crowd of 2 agents",
        "wall · Obstacle",
        "solo · Agent",
    ]
    assert rows[1].names == ("walkers-1", "walkers-2")


def test_a_destroyed_object_has_no_row_and_a_crowd_counts_the_living():
    gone, kept = obj("walkers-1", "Agent"), obj("walkers-2", "Agent")
    gone.destroy()
    rows = entries([gone, kept], {"walkers-1": "walkers", "walkers-2": "walkers"})
    assert [row.label for row in rows] == ["walkers · crowd of 1 agent"]


def test_what_moves_an_object_follows_its_tag():
    rows = entries(
        [obj("gate"), obj("wall")], {}, kind=lambda o: "door" if o.name == "gate" else None
    )
    assert [row.label for row in rows] == ["gate · Obstacle, door", "wall · Obstacle"]


@pytest.mark.parametrize(
    ("point", "distance"),
    [((0.5, 0.0), 0.0), ((2.0, 0.0), 1.0), ((0.5, -0.25), 0.25), ((-3.0, 4.0), 5.0)],
    ids=["on", "past-the-end", "beside", "before-the-start"],
)
def test_the_distance_to_a_handles_outline(point, distance):
    line = np.array([(0.0, 0.0), (1.0, 0.0)])
    assert distance_to_polyline(point, line) == pytest.approx(distance)
