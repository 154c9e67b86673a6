"""Make torture variants and run them with the suite's measurement; their report and JSON rows.

A variant's time limit is `LIMIT_FACTOR` times its free-flow time (at least `MIN_LIMIT_S`),
longer than the suite's bound of 3x so that a slow run and a jam tell apart: a run that misses
a target says why (`VariantRun.why`): ``jam`` (not every agent arrived, or one stood longer
than the suite allows), ``slow`` (all arrived, past 3x free flow), ``overlap``, ``wall``.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import tomlkit

from sim.bench import crowd_suite
from sim.bench.crowd_suite import CaseRun, CaseSummary
from sim.bench.tables import pipe_table
from sim.bench.variants.cases import PARAMS, build, draw, draw_mix
from sim.bench.variants.draft import Draft, Mix
from sim.errors import SimError
from sim.scene.file import parse_scene
from sim.scene.spec import SceneSpec
from sim.scene.torture import free_flow_seconds

CASES: tuple[str, ...] = tuple(sorted(PARAMS))
"""The cases `bench_variants` runs by default: all nine."""
LIMIT_FACTOR = 5.0
MIN_LIMIT_S = 15.0
EXTRA_WALL_TRIES = 40
"""Places tried for the extra wall before the variant goes without (each must leave a way)."""


@dataclass(frozen=True, slots=True)
class Variant:
    """Variant `index` of torture case `case`: its parameters and its scene document."""

    case: str
    index: int
    params: Mapping[str, Any]
    document: Mapping[str, Any]

    @property
    def name(self) -> str:
        """``case-index``: the variant's name in tables and its scene's stem."""
        return f"{self.case}-{self.index}"

    def scene(self) -> SceneSpec:
        """The variant's scene, validated as a scene file would be."""
        return parse_scene(self.document, source=f"variants/{self.name}.toml")

    def toml(self) -> str:
        """The variant as a scene file (open it in the window with ``sim run``)."""
        return tomlkit.dumps(self.document)


def make_variant(case: str, index: int) -> Variant:
    """Variant `index` of `case`, the same for the same pair on every machine.

    Raises:
        ValueError: for an unknown case or a negative index.
    """
    if case not in PARAMS:
        raise ValueError(f"unknown torture case {case!r}; expected one of {sorted(PARAMS)}")
    if index < 0:
        raise ValueError(f"variant index must be >= 0, got {index}")
    seed = [sorted(PARAMS).index(case), index]  # not CASES: a run may choose fewer cases
    rng = np.random.default_rng(seed)
    params, mix = draw(case, rng), draw_mix(case, rng)
    name = f"{case}-{index}"

    def fresh() -> tuple[Draft, tuple[float, float, float, float] | None]:
        # The same seed every time: a rebuilt draft places its agents as the first did.
        return build(case, name, params, mix, np.random.default_rng([*seed, 1]))

    draft, gate = fresh()
    if mix.extra_wall:
        draft, gate, mix = _with_extra_wall(draft, fresh, mix)
    probe = parse_scene(draft.document(MIN_LIMIT_S, gate=gate), source=f"variants/{name}.toml")
    limit = max(MIN_LIMIT_S, LIMIT_FACTOR * free_flow_seconds(probe))
    return Variant(case, index, {**params, **mix.params()}, draft.document(limit, gate=gate))


def _with_extra_wall(
    draft: Draft,
    fresh: Callable[[], tuple[Draft, tuple[float, float, float, float] | None]],
    mix: Mix,
) -> tuple[Draft, tuple[float, float, float, float] | None, Mix]:
    """The draft with one extra wall that leaves every agent a way; none if no place does."""
    for cells in draft.extra_wall_cells()[:EXTRA_WALL_TRIES]:
        trial, gate = fresh()
        trial.wall("extra-wall", cells[0], cells[-1])
        try:
            free_flow_seconds(parse_scene(trial.document(MIN_LIMIT_S), source="variant.toml"))
        except (ValueError, SimError):
            continue  # it cut an agent off from its goal (or left it no room): try elsewhere
        return trial, gate, mix
    plain, gate = fresh()
    return plain, gate, replace(mix, extra_wall=False)


@dataclass(frozen=True, slots=True)
class VariantRun:
    """One variant and its run (seed 0: the variant as generated)."""

    variant: Variant
    run: CaseRun

    @property
    def why(self) -> tuple[str, ...]:
        """The targets it missed: jam, slow, overlap, wall (empty: clean)."""
        run = self.run
        jam = run.done_s is None or run.stalled_max_s > crowd_suite.STALL_TARGET_S
        reasons = [
            ("jam", jam),
            ("slow", not jam and run.time_ratio > crowd_suite.TIME_RATIO_TARGET),
            ("overlap", run.overlap_max > crowd_suite.OVERLAP_TARGET),
            ("wall", run.wall_frames > 0),
        ]
        return tuple(name for name, missed in reasons if missed)

    def to_json(self) -> dict[str, Any]:
        """The suite's per-case keys for this one run, plus the variant's case and parameters."""
        row = CaseSummary(self.variant.name, (self.run,)).to_json()
        row.update(
            case=self.variant.case,
            variant=self.variant.index,
            params=dict(self.variant.params),
            clean=self.run.clean,
            why=list(self.why),
        )
        return row


def run_variant(variant: Variant) -> VariantRun:
    """Run `variant` headless from its scene, as the suite runs a case's seed 0."""
    return VariantRun(variant, crowd_suite.run_scene(variant.scene(), 0))


@dataclass(frozen=True, slots=True)
class VariantReport:
    """Every variant run, case by case."""

    runs: tuple[VariantRun, ...]

    def table(self) -> list[list[str]]:
        """Header and one line per case: how many variants ran clean, the worst measures."""
        lines = [
            [
                "case",
                "variants",
                "clean",
                "arrived %",
                "time / free flow",
                "overlap max",
                "stalled max s",
                "missed (variant: why)",
            ]
        ]
        for case in dict.fromkeys(run.variant.case for run in self.runs):
            runs = [run for run in self.runs if run.variant.case == case]
            agents = sum(run.run.agents for run in runs)
            missed = [f"{run.variant.index}: {'+'.join(run.why)}" for run in runs if run.why]
            lines.append(
                [
                    case,
                    str(len(runs)),
                    str(len(runs) - len(missed)),
                    f"{100.0 * sum(run.run.arrived for run in runs) / agents:.1f}",
                    f"{max(run.run.time_ratio for run in runs):.2f}",
                    f"{max(run.run.overlap_max for run in runs):.3f}",
                    f"{max(run.run.stalled_max_s for run in runs):.2f}",
                    ", ".join(missed) or "none",
                ]
            )
        return lines

    def lines(self) -> list[str]:
        """A title and the table (valid Markdown)."""
        clean = sum(not run.why for run in self.runs)
        title = (
            f"Torture variants: {clean} of {len(self.runs)} clean (worst per case; "
            "jam: not all arrived or a stand over 2 s; slow: past 3x free flow)"
        )
        return [title, "", *pipe_table(self.table())]

    def to_json(self) -> list[dict[str, Any]]:
        """The ``variants`` list of the suite's JSON, one row per variant."""
        return [run.to_json() for run in self.runs]


def bench_variants(
    count: int,
    *,
    cases: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> VariantReport:
    """Run variants ``0 .. count - 1`` of every case in `cases` (default `CASES`).

    `progress` is told each variant as it finishes (``"case variant k"``).

    Raises:
        ValueError: for fewer than 1 variant or an unknown case.
    """
    if count < 1:
        raise ValueError(f"variants must be >= 1, got {count!r}")
    runs = []
    for case in CASES if cases is None else cases:
        for index in range(count):
            runs.append(run_variant(make_variant(case, index)))
            if progress is not None:
                progress(f"{case} variant {index}")
    return VariantReport(tuple(runs))


SECTION_HEADING = "## Torture variants"


def section_lines(report: VariantReport, command: str, commit: str) -> list[str]:
    """The variants' part of RESULTS.md: how they were run, and the report's table."""
    return [
        SECTION_HEADING,
        "",
        f"`{command}` at commit `{commit}`, {datetime.date.today().isoformat()}: variants "
        "0 .. N-1 of every case, each generated from (case, index) alone "
        "(`sim.bench.variants.make_variant`) and run once headless with the suite's "
        f"measurement, its time limit {LIMIT_FACTOR:g}x its free-flow time (at least "
        f"{MIN_LIMIT_S:g} s).",
        "",
        *report.lines(),
        "",
    ]
