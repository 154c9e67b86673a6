"""What `sim bench` concludes over the maps: the targets, a table across maps, chart and JSON.

The targets, all of ratios of medians measured side by side in one run, with
ours = `find_path` with its defaults (``auto``):

- the geometric mean over the 512x512 maps of ours / pyastar2d <= `GEOMEAN_PYASTAR2D_TARGET`;
- ours / pyastar2d <= `PYASTAR2D_TARGET` on every map of `PYASTAR2D_MIN_SIDE` cells a side
  or more;
- ours / tcod <= `TCOD_TARGET` on every map;
- the median unreachable query <= `UNREACHABLE_TARGET` x the median reachable query on every
  512x512 map;
- every path ours returned legal and optimal, every unreachable query answered unreachable.

`MapFigures` holds the few numbers of one map the targets read, so the verdicts can be checked
from given numbers (`map_targets`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.bench.chart import Series, ratio_bars_svg
from sim.bench.map_report import OURS_ASTAR, OURS_AUTO, MapReport
from sim.bench.tables import pipe_table

GEOMEAN_PYASTAR2D_TARGET = 0.5
PYASTAR2D_TARGET = 0.8
PYASTAR2D_MIN_SIDE = 256
TCOD_TARGET = 0.15
UNREACHABLE_TARGET = 0.02
SQUARE_SIDE = 512
"""The geometric mean and the unreachable target are over the maps of this side, square."""
CHART = "maps-vs-peers.svg"
"""The chart of ours / pyastar2d and ours / tcod per map, beside benchmarks/RESULTS.md."""
SUMMARY_TITLE = "Ours against the peers, every map"


@dataclass(frozen=True, slots=True)
class MapFigures:
    """One map's numbers the targets read.

    Attributes:
        name: the map.
        width: its width in cells.
        height: its height in cells.
        vs_pyastar2d: median ours (auto) / median pyastar2d, or None if not run.
        vs_tcod: median ours (auto) / median tcod, or None if not run.
        unreachable: median unreachable repeat / median reachable query, or None.
        paths: queries our rows answered on scenarios with a path (every row of ours).
        good_paths: of those, legal paths as short as the published optimum.
        unreachable_queries: unreachable queries asked (first included).
        unreachable_right: of those, answered ``found=False, reason=unreachable``.
        unreachable_searched: repeats (the queries after the first) that expanded a cell.
    """

    name: str
    width: int
    height: int
    vs_pyastar2d: float | None = None
    vs_tcod: float | None = None
    unreachable: float | None = None
    paths: int = 0
    good_paths: int = 0
    unreachable_queries: int = 0
    unreachable_right: int = 0
    unreachable_searched: int = 0

    @classmethod
    def of(cls, report: MapReport) -> MapFigures:
        """Read the figures off one map's report."""
        ours = [row for row in report.rows if row.contestant.ours]
        unreachable = report.unreachable
        return cls(
            report.name,
            report.width,
            report.height,
            report.peer_ratio("pyastar2d"),
            report.peer_ratio("tcod"),
            report.unreachable_ratio(),
            sum(len(row.ms) for row in ours),
            sum(row.good_paths for row in ours),
            0 if unreachable is None else unreachable.queries,
            0 if unreachable is None else unreachable.answered_right,
            0 if unreachable is None else unreachable.searched,
        )

    @property
    def square(self) -> bool:
        """Whether the map is `SQUARE_SIDE` x `SQUARE_SIDE`."""
        return self.width == self.height == SQUARE_SIDE


@dataclass(frozen=True, slots=True)
class Target:
    """One target's verdict.

    Attributes:
        key: a stable name for JSON.
        text: the line for the terminal and RESULTS.md (starts with ``- ``).
        value: the measured value (a ratio, or a count of wrong answers), None if not measured.
        met: whether the target holds; None when not measured.
        worst: the map with the worst value, where the target is over maps.
    """

    key: str
    text: str
    value: float | None
    met: bool | None
    worst: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The target as JSON: key, text, value, met, worst."""
        value = None if self.value is None else round(self.value, 6)
        return {
            "key": self.key,
            "text": self.text,
            "value": value,
            "met": self.met,
            "worst": self.worst,
        }


def map_targets(figures: Sequence[MapFigures]) -> list[Target]:
    """Every map target, met or not, from the maps' figures.

    >>> ok = MapFigures("a", 512, 512, 0.4, 0.1, 0.001, 100, 100, 51, 51)
    >>> [t.met for t in map_targets([ok, MapFigures("b", 64, 64, 0.9, 0.2)])]
    [True, True, False, True, True, True]
    """
    return [
        _geomean_target(figures),
        _every_map_target(
            "pyastar2d_every_map",
            f"ours / pyastar2d <= {PYASTAR2D_TARGET}x on every map of "
            f"{PYASTAR2D_MIN_SIDE}x{PYASTAR2D_MIN_SIDE} or more",
            [
                (f.name, f.vs_pyastar2d)
                for f in figures
                if min(f.width, f.height) >= PYASTAR2D_MIN_SIDE
            ],
            PYASTAR2D_TARGET,
            digits=3,
        ),
        _every_map_target(
            "tcod_every_map",
            f"ours / tcod <= {TCOD_TARGET}x on every map",
            [(f.name, f.vs_tcod) for f in figures],
            TCOD_TARGET,
            digits=3,
        ),
        _every_map_target(
            "unreachable_every_512",
            f"an unreachable query (median of the repeats on one array) <= {UNREACHABLE_TARGET}x "
            f"the median reachable query on every {SQUARE_SIDE}x{SQUARE_SIDE} map",
            [(f.name, f.unreachable) for f in figures if f.square],
            UNREACHABLE_TARGET,
            digits=4,
        ),
        _count_target(
            "paths_legal_and_optimal",
            "every path ours returned legal and optimal (Moving AI rule, published optimum "
            "within the file's precision; auto, A* and Python rows)",
            sum(f.good_paths for f in figures),
            sum(f.paths for f in figures),
        ),
        _unreachable_answers_target(figures),
    ]


def _geomean_target(figures: Sequence[MapFigures]) -> Target:
    """The geometric mean over the square 512 maps of ours / pyastar2d.

    >>> target = _geomean_target([MapFigures("a", 512, 512, 0.25), MapFigures("b", 512, 512, 1)])
    >>> target.text.split(": ")[-1], target.met
    ('0.500x, met', True)
    """
    square = [f for f in figures if f.square]
    measured = [f for f in square if f.vs_pyastar2d is not None and f.vs_pyastar2d > 0]
    which = f"{len(square)} " if square else ""
    names = f" ({', '.join(f.name for f in square)})" if square else ""
    head = (
        f"- median per query, geometric mean over the {which}{SQUARE_SIDE}x{SQUARE_SIDE} maps"
        f"{names} of ours / pyastar2d <= {GEOMEAN_PYASTAR2D_TARGET}x"
    )
    if not square or len(measured) < len(square):
        missing = "no such map run" if not square else "pyastar2d not run on every one"
        return Target("pyastar2d_geomean_512", f"{head}: not measured ({missing})", None, None)
    mean = math.exp(sum(math.log(f.vs_pyastar2d or 1.0) for f in measured) / len(measured))
    met = mean <= GEOMEAN_PYASTAR2D_TARGET
    text = f"{head}: {mean:.3f}x, {_verdict(met)}"
    return Target("pyastar2d_geomean_512", text, mean, met)


def _every_map_target(
    key: str, what: str, values: Sequence[tuple[str, float | None]], limit: float, digits: int
) -> Target:
    """A target that must hold on every map listed in `values` (name, measured value).

    >>> _every_map_target("k", "x <= 1", [("a", 0.5), ("b", 2.0), ("c", None)], 1.0, 2).text
    '- x <= 1: worst b at 2.00x; 1 of 3 maps within, 1 not measured (c): NOT met'
    """
    if not values:
        return Target(key, f"- {what}: not measured (no such map run)", None, None)
    measured = [(name, value) for name, value in values if value is not None]
    missing = [name for name, value in values if value is None]
    if not measured:
        return Target(key, f"- {what}: not measured ({', '.join(missing)})", None, None)
    worst, value = max(measured, key=lambda pair: pair[1])
    within = sum(1 for _, each in measured if each <= limit)
    met = within == len(values)
    text = f"- {what}: worst {worst} at {value:.{digits}f}x; {within} of {len(values)} maps within"
    if missing:
        text += f", {len(missing)} not measured ({', '.join(missing)})"
    return Target(key, f"{text}: {_verdict(met)}", value, met, worst)


def _count_target(key: str, what: str, right: int, asked: int) -> Target:
    """A correctness target: `right` of `asked` answers must be right.

    >>> _count_target("k", "all good", 9, 10).text
    '- all good: 9 of 10, NOT met'
    """
    if not asked:
        return Target(key, f"- {what}: not measured (no query run)", None, None)
    met = right == asked
    return Target(key, f"- {what}: {right} of {asked}, {_verdict(met)}", asked - right, met)


def _unreachable_answers_target(figures: Sequence[MapFigures]) -> Target:
    """Every unreachable answer right, and every repeat answered without a search.

    >>> figures = [MapFigures("a", 8, 8, unreachable_queries=5, unreachable_right=5,
    ...                       unreachable_searched=1)]
    >>> _unreachable_answers_target(figures).text.split(": ")[-1]
    '5 of 5 answers, 3 of 4 repeats with expanded 0, NOT met'
    """
    key = "unreachable_answered_unreachable"
    what = (
        "- every unreachable query answered found=False, reason=unreachable, every repeat "
        "on the same array with expanded 0"
    )
    asked = sum(f.unreachable_queries for f in figures)
    if not asked:
        return Target(key, f"{what}: not measured (no unreachable query run)", None, None)
    right = sum(f.unreachable_right for f in figures)
    searched = sum(f.unreachable_searched for f in figures)
    repeats = sum(f.unreachable_queries - 1 for f in figures if f.unreachable_queries)
    met = right == asked and not searched
    text = (
        f"{what}: {right} of {asked} answers, {repeats - searched} of {repeats} repeats with "
        f"expanded 0, {_verdict(met)}"
    )
    return Target(key, text, asked - right + searched, met)


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def summary_table(reports: Sequence[MapReport]) -> list[str]:
    """Every map on one line: medians of ours and the two fast peers, ratios, unreachable."""
    lines = [
        [
            "map",
            "size",
            "ours (auto) ms",
            "ours A* ms",
            "pyastar2d ms",
            "tcod ms",
            "auto/pyastar2d",
            "auto/tcod",
            "A*/pyastar2d",
            "unreachable ms (first)",
            "unreachable/reachable",
        ]
    ]
    for report in reports:
        medians = [report.row_by_key(key) for key in (OURS_AUTO, OURS_ASTAR, "pyastar2d", "tcod")]
        unreachable = report.unreachable
        reach = report.unreachable_ratio()
        lines.append(
            [
                report.name,
                f"{report.width}x{report.height}",
                *["-" if row is None else f"{report.median_ms(row):.3f}" for row in medians],
                _ratio(report.peer_ratio("pyastar2d"), 3),
                _ratio(report.peer_ratio("tcod"), 3),
                _ratio(report.peer_ratio("pyastar2d", OURS_ASTAR), 3),
                "-"
                if unreachable is None
                else f"{unreachable.median_ms:.4f} ({unreachable.first_ms:.2f})",
                _ratio(reach, 4),
            ]
        )
    return pipe_table(lines)


def _ratio(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}x"


def chart_svg(reports: Sequence[MapReport]) -> str:
    """Ours (auto) / pyastar2d and ours / tcod per map, with the per-map targets dashed."""
    names = [f"{report.name} ({report.width})" for report in reports]

    def values(peer: str) -> tuple[float, ...]:
        return tuple(report.peer_ratio(peer) or math.nan for report in reports)

    return ratio_bars_svg(
        "ours (auto) / peer, median ms per query (lower is faster)",
        names,
        [
            Series("ours / pyastar2d", "#1f77b4", values("pyastar2d"), PYASTAR2D_TARGET),
            Series("ours / tcod", "#d62728", values("tcod"), TCOD_TARGET),
        ],
    )


def summary_section(reports: Sequence[MapReport]) -> list[str]:
    """The RESULTS.md section across maps: what the columns mean, the table, the chart."""
    return [
        f"## {SUMMARY_TITLE}",
        "",
        "Medians per query over each map's sampled scenarios (the tables below), ours (auto) =",
        '`find_path(walkable, start, goal)` with its defaults, ours A* = `algorithm="astar"`;',
        "ratios of medians over the same queries. `unreachable`: the median of the repeated",
        "unreachable queries on one array (the first query on a fresh array in brackets), and",
        f"that median over the median reachable query. The {PYASTAR2D_TARGET}x pyastar2d target",
        f"holds on maps of {PYASTAR2D_MIN_SIDE}x{PYASTAR2D_MIN_SIDE} or more, the {TCOD_TARGET}x "
        "tcod one on every map.",
        "",
        *summary_table(reports),
        "",
        f"![ours / pyastar2d and ours / tcod per map]({CHART})",
    ]


def maps_json(
    reports: Sequence[MapReport], targets: Sequence[Target], auto_algorithm: str
) -> dict[str, Any]:
    """``sim bench --json``: what auto ran, every map (`MapReport.to_json`), the targets."""
    return {
        "auto_algorithm": auto_algorithm,
        "maps": [report.to_json() for report in reports],
        "targets": [target.to_json() for target in targets],
    }
