"""One meaning per colour: the palette's colours are told apart, and the legend lists each."""

from __future__ import annotations

import itertools
import math
from dataclasses import fields

import pytest

from sim.app.legend_setup import UNLISTED, legend_sections, over_ground
from sim.config import PALETTE, Palette

# Euclidean distance in RGB (0..1) below which two colours read as one on screen: the old
# orange of the agents, their routes and the search frontier were 0.05 apart.
MIN_DISTANCE = 0.2
MEANINGS = [field.name for field in fields(Palette)]


def seen(name: str) -> tuple[float, float, float]:
    """A meaning's colour as it shows: translucent ones over the ground."""
    color = getattr(PALETTE, name)
    return over_ground(color)[:3] if color[3] < 1.0 else color[:3]


@pytest.mark.parametrize(
    ("first", "second"),
    list(itertools.combinations(MEANINGS, 2)),
    ids=[f"{a}-{b}" for a, b in itertools.combinations(MEANINGS, 2)],
)
def test_no_two_meanings_share_a_colour(first: str, second: str) -> None:
    distance = math.dist(seen(first), seen(second))
    assert distance >= MIN_DISTANCE, f"{first} and {second} look alike ({distance:.3f} apart)"


def test_the_legend_lists_every_meaning_but_the_reserved_ones() -> None:
    sections = legend_sections(lambda: True, lambda: True, lambda: True)
    shown = {row.color for section in sections for row in section.rows}
    by_colour = {getattr(PALETTE, name): name for name in MEANINGS}
    listed = {by_colour[color] for color in shown if color in by_colour}
    # Translucent colours are listed as they look over the ground.
    listed |= {
        name
        for name in MEANINGS
        if getattr(PALETTE, name)[3] < 1.0 and over_ground(getattr(PALETTE, name)) in shown
    }
    assert listed == set(MEANINGS) - UNLISTED


def test_each_legend_label_is_said_once() -> None:
    sections = legend_sections(lambda: True, lambda: True, lambda: True)
    labels = [row.label for section in sections for row in section.rows]
    assert len(labels) == len(set(labels))
