"""ReplanGate: interval, request, change, the drag gap and the drop (no window)."""

from __future__ import annotations

import doctest
import math

import pytest

from sim.engine import ReplanGate, replan_gate
from sim.engine.replan_gate import CHANGED, DRAG_GAP_S, DROPPED, INTERVAL, REQUESTED

DT_60 = 1 / 60


class Drag:
    """A drag fact the test flips by hand."""

    def __init__(self) -> None:
        self.held = False

    def __call__(self) -> bool:
        return self.held


def fires(gate: ReplanGate, keys: list[object], dt: float = DT_60) -> list[int]:
    """The frames (from 1) on which `gate` fires while it is ticked with `keys`, one a frame."""
    return [frame for frame, key in enumerate(keys, start=1) if gate.tick(dt, key)]


def test_fires_on_the_first_tick_then_only_on_change() -> None:
    assert fires(ReplanGate(), ["a", "a", "b", "b", "a"]) == [1, 3, 5]


def test_without_a_drag_every_change_fires_at_once() -> None:
    assert fires(ReplanGate(), list(range(10))) == list(range(1, 11))


def test_the_interval_fires_whatever_changed() -> None:
    assert fires(ReplanGate(interval_s=1.0), ["same"] * 130) == [1, 60, 120]


def test_a_request_fires_the_next_tick_once() -> None:
    gate = ReplanGate()
    gate.tick(DT_60, "a")
    gate.request()
    assert fires(gate, ["a", "a"]) == [1]


def test_while_dragging_changes_fire_at_most_every_gap() -> None:
    drag = Drag()
    gate = ReplanGate(dragging=drag)
    gate.tick(DT_60, -1)
    drag.held = True
    # A new key every frame for half a second: one firing per 0.1 s (6 frames at 60 fps).
    assert fires(gate, list(range(30))) == [6, 12, 18, 24, 30]
    assert math.isclose(DRAG_GAP_S, 0.1)


def test_the_drop_fires_even_when_nothing_changed_cells() -> None:
    drag = Drag()
    gate = ReplanGate(dragging=drag)
    gate.tick(DT_60, "a")
    drag.held = True
    assert fires(gate, ["a"] * 10) == []
    drag.held = False
    assert fires(gate, ["a", "a"]) == [1], "the drop, once"


def test_an_infinite_gap_waits_for_the_drop() -> None:
    drag = Drag()
    gate = ReplanGate(dragging=drag, drag_gap_s=math.inf)
    gate.tick(DT_60, -1)
    drag.held = True
    assert fires(gate, list(range(120))) == []
    drag.held = False
    assert fires(gate, [119, 119]) == [1]


def test_rejects_a_bad_dt_or_gap() -> None:
    with pytest.raises(ValueError, match="dt must be"):
        ReplanGate().tick(-1.0, "a")
    with pytest.raises(ValueError, match="drag_gap_s"):
        ReplanGate(drag_gap_s=-0.1)


def causes(gate: ReplanGate, keys: list[object], dt: float = DT_60) -> list[str | None]:
    """`gate.cause` on each frame it fires while ticked with `keys`, None on the others."""
    return [gate.cause if gate.tick(dt, key) else None for key in keys]


def test_the_first_tick_and_a_new_key_fire_as_changed() -> None:
    assert causes(ReplanGate(), ["a", "a", "b"]) == [CHANGED, None, CHANGED]


def test_a_request_fires_with_its_cause_before_a_change() -> None:
    gate = ReplanGate()
    gate.tick(DT_60, "a")
    gate.request("cut")
    assert causes(gate, ["b", "c"]) == ["cut", CHANGED]


def test_the_first_cause_requested_wins() -> None:
    gate = ReplanGate()
    gate.tick(DT_60, "a")
    gate.request("cut")
    gate.request("goal")
    assert causes(gate, ["a", "a"]) == ["cut", None]


def test_a_request_without_a_cause_says_requested() -> None:
    gate = ReplanGate()
    gate.tick(DT_60, "a")
    gate.request()
    assert causes(gate, ["a"]) == [REQUESTED]


def test_the_interval_and_the_drop_name_themselves() -> None:
    drag = Drag()
    gate = ReplanGate(interval_s=1.0, dragging=drag)
    assert causes(gate, ["a"] * 60)[59] == INTERVAL
    drag.held = True
    gate.tick(DT_60, "a")
    drag.held = False
    assert causes(gate, ["a"]) == [DROPPED]


def test_a_held_request_waits_out_the_drag_gap_as_a_change_does() -> None:
    drag = Drag()
    gate = ReplanGate(dragging=drag)
    gate.tick(DT_60, "a")
    drag.held = True
    gate.request("cut", held=True)
    assert causes(gate, ["a"] * 6) == [None] * 5 + ["cut"]


def test_a_plain_request_fires_at_once_during_a_drag() -> None:
    drag = Drag()
    gate = ReplanGate(dragging=drag)
    gate.tick(DT_60, "a")
    drag.held = True
    gate.request("push")
    assert causes(gate, ["a", "a"]) == ["push", None]


def test_docstring_examples_run() -> None:
    result = doctest.testmod(replan_gate)
    assert (result.attempted, result.failed) == (6, 0)
