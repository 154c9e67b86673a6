"""What `sim bench --dynamic` measured, and how it is shown: table, JSON, chart, targets.

`MapRun` collects one map's rounds (`sim.bench.dynamic` fills it); `DynamicReport` holds every
map's with the settings they shared, and renders them: the terminal table, the JSON of
``--json`` (the contract's keys, then ours), the SVG chart and its section of
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import datetime
import math
import statistics
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sim.bench.chart import Series, ratio_bars_svg
from sim.bench.tables import pipe_table

EXPANDED_TARGET = 0.3
TIME_TARGET = 0.5
"""The targets: median incremental / median A* expansions and time, 512x512 maps."""
TARGET_SIDE = 512
"""The targets hold on the maps of `TARGET_SIDE` x `TARGET_SIDE` cells."""


@dataclass
class MapRun:
    """What both planners did on one map: per replanning round, time, expansions, agreement."""

    name: str
    width: int
    height: int
    implementation: str
    changed: int
    scenarios: int = 0
    astar_ms: list[float] = field(default_factory=list)
    incremental_ms: list[float] = field(default_factory=list)
    astar_expanded: list[int] = field(default_factory=list)
    incremental_expanded: list[int] = field(default_factory=list)
    astar_first_ms: list[float] = field(default_factory=list)
    incremental_first_ms: list[float] = field(default_factory=list)
    unreachable_rounds: int = 0
    repaired_rounds: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def rounds(self) -> int:
        """Replanning rounds measured (first plans not counted)."""
        return len(self.astar_ms)

    @property
    def costs_equal(self) -> bool:
        """Whether every round's two costs were exactly equal and every path legal."""
        return not self.mismatches

    def medians(self) -> tuple[float, float, int, int]:
        """Median ms of A* and incremental, median expanded (the lower median: a real count)."""
        if not self.rounds:
            return math.nan, math.nan, 0, 0
        return (
            statistics.median(self.astar_ms),
            statistics.median(self.incremental_ms),
            statistics.median_low(self.astar_expanded),
            statistics.median_low(self.incremental_expanded),
        )

    def ratios(self) -> tuple[float, float]:
        """Incremental / A*: median expansions, median time (nan when A* was 0)."""
        astar_ms, incremental_ms, astar_expanded, incremental_expanded = self.medians()
        expanded = incremental_expanded / astar_expanded if astar_expanded else math.nan
        ms = incremental_ms / astar_ms if astar_ms else math.nan
        return expanded, ms

    def to_json(self) -> dict[str, Any]:
        """The contract's keys, in their order, then ours (ratios, first plans, counts).

        Times are ms rounded to 4 decimals; a median a run without rounds lacks is null.
        """
        astar_ms, incremental_ms, astar_expanded, incremental_expanded = self.medians()
        expanded_ratio, time_ratio = self.ratios()
        measured = self.rounds > 0
        return {
            "map": self.name,
            "rounds": self.rounds,
            "changed_cells_per_round": self.changed,
            "astar_median_ms": _rounded(astar_ms),
            "incremental_median_ms": _rounded(incremental_ms),
            "astar_median_expanded": astar_expanded if measured else None,
            "incremental_median_expanded": incremental_expanded if measured else None,
            "costs_equal": self.costs_equal,
            "expanded_ratio": _rounded(expanded_ratio),
            "time_ratio": _rounded(time_ratio),
            "first_plan_ms": _rounded(statistics.median(self.incremental_first_ms)),
            "astar_first_plan_ms": _rounded(statistics.median(self.astar_first_ms)),
            "scenarios": self.scenarios,
            "unreachable_rounds": self.unreachable_rounds,
            "repaired_rounds": self.repaired_rounds,
            "width": self.width,
            "height": self.height,
            "implementation": self.implementation,
        }


def _rounded(value: float) -> float | None:
    """`value` to 4 decimals; None (JSON null) for nan, which JSON cannot hold."""
    return None if math.isnan(value) else round(value, 4)


SECTION_TITLE = "Incremental replanning against A* from scratch"
"""The heading of this benchmark's section in benchmarks/RESULTS.md (found by it)."""


@dataclass(frozen=True, slots=True)
class DynamicReport:
    """Every map's run, with the settings they shared (see `sim.bench.dynamic`).

    Attributes:
        runs: one per map, in the order run.
        scenarios: scenarios per map; rounds: replanning rounds per scenario, at most.
        changed: K, cells changed per round; step_cells: cells the agent walks per round;
            near_cells: how far from the remaining path a changed cell may lie.
        seed: the seed of the scenario sample and the changes.
        implementation: "c" or "python", for both planners.
    """

    runs: tuple[MapRun, ...]
    scenarios: int
    rounds: int
    changed: int
    step_cells: int
    near_cells: int
    seed: int
    implementation: str

    @property
    def costs_equal(self) -> bool:
        """Whether every round of every map agreed (see `MapRun.costs_equal`)."""
        return all(run.costs_equal for run in self.runs)

    def to_json(self) -> dict[str, Any]:
        """``{"maps": [...]}``, one `MapRun.to_json` per map."""
        return {"maps": [run.to_json() for run in self.runs]}

    def title(self) -> str:
        """One line: the settings every map ran with."""
        language = "C kernels" if self.implementation == "c" else "Python reference"
        return (
            f"K = {self.changed} cells changed per round, {self.scenarios} scenarios x up to "
            f"{self.rounds} rounds per map, agent walks {self.step_cells} cells per round, "
            f"seed {self.seed}, {language}"
        )

    def table(self) -> list[list[str]]:
        """Header and one line per map, as strings."""
        lines = [
            [
                "map",
                "rounds",
                "A* median ms",
                "incremental median ms",
                "time ratio",
                "A* median expanded",
                "incremental median expanded",
                "expanded ratio",
                "first plan ms (incr / A*)",
                "no-path rounds",
                "costs equal",
            ]
        ]
        for run in self.runs:
            astar_ms, incremental_ms, astar_expanded, incremental_expanded = run.medians()
            expanded_ratio, time_ratio = run.ratios()
            first = statistics.median(run.incremental_first_ms)
            astar_first = statistics.median(run.astar_first_ms)
            lines.append(
                [
                    f"{run.name} ({run.width}x{run.height})",
                    str(run.rounds),
                    f"{astar_ms:.3f}",
                    f"{incremental_ms:.3f}",
                    f"{time_ratio:.3f}x",
                    str(astar_expanded),
                    str(incremental_expanded),
                    f"{expanded_ratio:.3f}x",
                    f"{first:.2f} / {astar_first:.2f}",
                    str(run.unreachable_rounds),
                    "yes" if run.costs_equal else f"NO ({len(run.mismatches)})",
                ]
            )
        return lines

    def lines(self) -> list[str]:
        """The title and the table (valid Markdown)."""
        return [f"{SECTION_TITLE}: {self.title()}", "", *pipe_table(self.table())]

    def target_lines(self) -> list[str]:
        """The targets on the 512x512 maps, met or not per map (Markdown list)."""
        square = [r for r in self.runs if (r.width, r.height) == (TARGET_SIDE, TARGET_SIDE)]
        target = (
            f"median incremental expansions <= {EXPANDED_TARGET}x and median time <= "
            f"{TIME_TARGET}x of A* from scratch on the {TARGET_SIDE}x{TARGET_SIDE} maps"
        )
        if not square:
            lines = [f"- {target}: not measured (no {TARGET_SIDE}x{TARGET_SIDE} map selected)"]
        else:
            searched = [r for r in square if not _all_answered_at_once(r)]
            met = [r for r in searched if _meets(r)]
            lines = [
                f"- {target}: met on {len(met)} of {len(searched)} maps"
                + (
                    f" ({len(square) - len(searched)} with nothing to search)"
                    if searched != square
                    else ""
                ),
                _pooled_line(square),
            ]
            for run in square:
                expanded_ratio, time_ratio = run.ratios()
                if _all_answered_at_once(run):
                    lines.append(
                        f"  - {run.name}: every median round unreachable, answered by both "
                        f"from the regions with 0 expansions (time {time_ratio:.3f}x): "
                        "nothing to compare"
                    )
                    continue
                verdict = "met" if _meets(run) else "NOT met"
                lines.append(
                    f"  - {run.name}: expansions {expanded_ratio:.3f}x, time "
                    f"{time_ratio:.3f}x: {verdict}"
                )
        mismatches = [m for run in self.runs for m in run.mismatches]
        if mismatches:
            lines.append(f"- costs always equal: NOT met ({len(mismatches)}: {mismatches[0]})")
        else:
            rounds = sum(run.rounds + run.scenarios for run in self.runs)
            lines.append(f"- costs always equal: met ({rounds} plans, first plans included)")
        return lines

    def chart_svg(self) -> str:
        """Both ratios per map as bars, with the targets marked."""
        ratios = [run.ratios() for run in self.runs]
        return ratio_bars_svg(
            f"Incremental / A* from scratch (medians, K = {self.changed})",
            [run.name for run in self.runs],
            [
                Series(
                    "expansions", "#3b78c4", tuple(e for e, _ in ratios), target=EXPANDED_TARGET
                ),
                Series("time", "#e0882a", tuple(t for _, t in ratios), target=TIME_TARGET),
            ],
        )

    def section_lines(self, chart_name: str, command: str) -> list[str]:
        """This benchmark's part of RESULTS.md: heading, how, table, chart and targets."""
        return [
            f"## {SECTION_TITLE}",
            "",
            *_wrapped(
                f"Written by `{command}` on {datetime.date.today().isoformat()}; {self.title()}."
            ),
            "",
            *_wrapped(
                _SECTION_NOTE.format(
                    step=self.step_cells, near=self.near_cells, changed=self.changed
                )
            ),
            "",
            *pipe_table(self.table()),
            "",
            f"![incremental / A* ratios per map]({chart_name})",
            "",
            "Targets:",
            "",
            *self.target_lines(),
        ]


def _wrapped(text: str) -> list[str]:
    """`text` as one paragraph of Markdown lines up to 100 characters."""
    return textwrap.wrap(" ".join(text.split()), width=100, break_on_hyphens=False)


def _pooled_line(runs: Sequence[MapRun]) -> str:
    """The same medians over every round of `runs` together, one line of the target list.

    A map's own median hides how the rounds spread; pooled, a reader sees the typical replan
    across the maps, which is what an agent in a changing world meets.
    """
    astar_ms = [ms for run in runs for ms in run.astar_ms]
    incremental_ms = [ms for run in runs for ms in run.incremental_ms]
    astar_expanded = [n for run in runs for n in run.astar_expanded]
    incremental_expanded = [n for run in runs for n in run.incremental_expanded]
    if not astar_ms or not statistics.median_low(astar_expanded):
        return "  - all these maps' rounds pooled: no rounds"
    expanded_ratio = statistics.median_low(incremental_expanded) / statistics.median_low(
        astar_expanded
    )
    time_ratio = statistics.median(incremental_ms) / statistics.median(astar_ms)
    verdict = (
        "met" if expanded_ratio <= EXPANDED_TARGET and time_ratio <= TIME_TARGET else ("NOT met")
    )
    return (
        f"  - all {len(astar_ms)} rounds of these maps pooled: expansions {expanded_ratio:.3f}x, "
        f"time {time_ratio:.3f}x: {verdict}"
    )


def _all_answered_at_once(run: MapRun) -> bool:
    """Whether both medians are 0 expansions: no path, known from the regions without a search.

    Both planners answer an unreachable round from the connected regions
    (`sim.navigation.regions.cache`), so a map whose median round is unreachable has nothing
    to compare.
    """
    _, _, astar_expanded, incremental_expanded = run.medians()
    return run.rounds > 0 and astar_expanded == 0 and incremental_expanded == 0


def _meets(run: MapRun) -> bool:
    expanded_ratio, time_ratio = run.ratios()
    return expanded_ratio <= EXPANDED_TARGET and time_ratio <= TIME_TARGET


_SECTION_NOTE = """Per map, seeded scenarios from the longest quarter of its .scen file. Each
round the agent walks {step} cells along its path, then K cells within {near} cells of the rest
of its path change (up to half of them cells an earlier round blocked, now free again, the rest
free cells, now blocked; never the agent's cell or the goal), then both planners answer the
same grid: the incremental search (D* Lite, `IncrementalSearch`) repairs the search it kept
(the goal stays), A* (`find_path`) starts from scratch; 8-connected, octile, no corner cutting,
interleaved in one process (the order alternates each round), each timed around its public
call (the incremental search's call includes finding the cells that changed). Medians over
every replanning round of the map; `expanded` counts cells taken off the queue and expanded,
for both; the ratios are incremental / A* of those medians. Costs are compared exactly (the
fsum of the step lengths) and every incremental path is checked legal. K = {changed} stands
for a few moving blocks or doors near the route per replan. `no-path rounds`: the changes
closed every way to the goal (the agent waits), and both searches exhaust what they can
reach. The first plan of each scenario is a fresh search for both (`first plan ms`)."""
"""The section's explanation, one paragraph (wrapped when written)."""
