"""A small bar chart of ratios as SVG text, for benchmarks/RESULTS.md (no plotting library).

SVG is text: the chart is written with the standard library alone, diffs in git like the
tables beside it, and renders wherever Markdown shows images.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

LABEL_W = 150
PLOT_W = 440
RIGHT_PAD = 60
BAR_H = 11
GROUP_GAP = 10
TOP = 44
BOTTOM = 34


@dataclass(frozen=True, slots=True)
class Series:
    """One bar per group: its name, colour, values (one per group) and a target to mark."""

    name: str
    colour: str
    values: tuple[float, ...]
    target: float | None = None


def ratio_bars_svg(title: str, groups: Sequence[str], series: Sequence[Series]) -> str:
    """Horizontal grouped bars, one group per name in `groups`, a dashed line per target.

    The axis runs from 0 to the largest value or target, at least 1 (the break-even line).

    >>> svg = ratio_bars_svg("t", ["a"], [Series("x", "#000", (0.5,), target=0.3)])
    >>> svg.startswith("<svg") and "0.50x" in svg and "target 0.3x" in svg
    True
    """
    targets = [s.target for s in series if s.target is not None]
    top_value = max([1.0, *targets, *(v for s in series for v in s.values)])
    group_h = BAR_H * len(series) + GROUP_GAP
    height = TOP + group_h * len(groups) + BOTTOM
    width = LABEL_W + PLOT_W + RIGHT_PAD

    def x_of(value: float) -> float:
        return LABEL_W + PLOT_W * min(value, top_value) / top_value

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2:.0f}" y="16" text-anchor="middle" font-size="13">'
        f"{escape(title)}</text>",
    ]
    legend_x = LABEL_W
    for each in series:
        parts.append(
            f'<rect x="{legend_x}" y="25" width="10" height="10" fill="{each.colour}"/>'
            f'<text x="{legend_x + 14}" y="34">{escape(each.name)}</text>'
        )
        legend_x += 14 + 7 * len(each.name) + 20
    for index, group in enumerate(groups):
        y = TOP + index * group_h
        middle = y + BAR_H * len(series) / 2 + 4
        parts.append(
            f'<text x="{LABEL_W - 6}" y="{middle:.1f}" text-anchor="end">{escape(group)}</text>'
        )
        for offset, each in enumerate(series):
            value = each.values[index]
            bar_y = y + offset * BAR_H
            parts.append(
                f'<rect x="{LABEL_W}" y="{bar_y}" width="{x_of(value) - LABEL_W:.1f}" '
                f'height="{BAR_H - 1}" fill="{each.colour}"/>'
                f'<text x="{x_of(value) + 3:.1f}" y="{bar_y + BAR_H - 2}">{value:.2f}x</text>'
            )
    plot_bottom = TOP + group_h * len(groups)
    for value, label, colour in [
        (1.0, "1x", "#444"),
        *((s.target, f"target {s.target:g}x", s.colour) for s in series if s.target is not None),
    ]:
        x = x_of(value)
        parts.append(
            f'<line x1="{x:.1f}" y1="{TOP - 4}" x2="{x:.1f}" y2="{plot_bottom}" '
            f'stroke="{colour}" stroke-dasharray="4 3"/>'
            f'<text x="{x:.1f}" y="{plot_bottom + 14}" text-anchor="middle" '
            f'fill="{colour}">{escape(label)}</text>'
        )
    parts.append(
        f'<line x1="{LABEL_W}" y1="{TOP - 4}" x2="{LABEL_W}" y2="{plot_bottom}" stroke="#000"/>'
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
