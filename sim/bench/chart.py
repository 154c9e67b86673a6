"""A small bar chart of ratios as SVG text, for benchmarks/RESULTS.md (no plotting library).

SVG is text: the chart is written with the standard library alone, diffs in git like the
tables beside it, and renders wherever Markdown shows images.
"""

from __future__ import annotations

import math
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
    """Horizontal grouped bars on a log axis, one group per name in `groups`.

    Ratios read best on a log scale (0.5x and 2x lie as far from 1x), so the axis runs over
    whole decades around every value, every target and 1x; each series' target is a dashed
    line in its colour, named in the legend. A value that is not positive gets no bar.

    >>> svg = ratio_bars_svg("t", ["a"], [Series("x", "#000", (0.5,), target=0.3)])
    >>> svg.startswith("<svg") and "0.50x" in svg and "x (target 0.3x)" in svg
    True
    """
    targets = [s.target for s in series if s.target is not None]
    shown = [v for s in series for v in s.values if v > 0 and math.isfinite(v)]
    low = math.floor(math.log10(min([1.0, *targets, *shown])))
    high = max(math.ceil(math.log10(max([1.0, *targets, *shown]))), low + 1)
    group_h = BAR_H * len(series) + GROUP_GAP
    plot_bottom = TOP + group_h * len(groups)
    height = plot_bottom + BOTTOM
    width = LABEL_W + PLOT_W + RIGHT_PAD

    def x_of(value: float) -> float:
        return LABEL_W + PLOT_W * (math.log10(value) - low) / (high - low)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2:.0f}" y="16" text-anchor="middle" font-size="13">'
        f"{escape(title)}</text>",
    ]
    legend_x = LABEL_W
    for each in series:
        name = each.name if each.target is None else f"{each.name} (target {each.target:g}x)"
        parts.append(
            f'<rect x="{legend_x}" y="25" width="10" height="10" fill="{each.colour}"/>'
            f'<text x="{legend_x + 14}" y="34">{escape(name)}</text>'
        )
        legend_x += 14 + 6 * len(name) + 24
    for decade in range(low, high + 1):
        x = x_of(10.0**decade)
        colour = "#444" if decade == 0 else "#ccc"
        parts.append(
            f'<line x1="{x:.1f}" y1="{TOP - 4}" x2="{x:.1f}" y2="{plot_bottom}" '
            f'stroke="{colour}"/>'
            f'<text x="{x:.1f}" y="{plot_bottom + 14}" text-anchor="middle">'
            f"{10.0**decade:g}x</text>"
        )
    for index, group in enumerate(groups):
        y = TOP + index * group_h
        middle = y + BAR_H * len(series) / 2 + 4
        parts.append(
            f'<text x="{LABEL_W - 6}" y="{middle:.1f}" text-anchor="end">{escape(group)}</text>'
        )
        for offset, each in enumerate(series):
            value = each.values[index]
            bar_y = y + offset * BAR_H
            if not (value > 0 and math.isfinite(value)):
                parts.append(f'<text x="{LABEL_W + 3}" y="{bar_y + BAR_H - 2}">n/a</text>')
                continue
            parts.append(
                f'<rect x="{LABEL_W}" y="{bar_y}" width="{x_of(value) - LABEL_W:.1f}" '
                f'height="{BAR_H - 1}" fill="{each.colour}"/>'
                f'<text x="{x_of(value) + 3:.1f}" y="{bar_y + BAR_H - 2}">{value:.2f}x</text>'
            )
    for each in series:
        if each.target is not None:
            x = x_of(each.target)
            parts.append(
                f'<line x1="{x:.1f}" y1="{TOP - 4}" x2="{x:.1f}" y2="{plot_bottom}" '
                f'stroke="{each.colour}" stroke-width="1.5" stroke-dasharray="4 3"/>'
            )
    parts.append(
        f'<line x1="{LABEL_W}" y1="{TOP - 4}" x2="{LABEL_W}" y2="{plot_bottom}" stroke="#000"/>'
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
