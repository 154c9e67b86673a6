"""What `sim bench` concludes: one line per target of the issue, and benchmarks/RESULTS.md.

The targets: our median query at most `TCOD_TARGET` x tcod's on every map and `PYASTAR2D_TARGET`
x pyastar2d's (geometric mean over the 512x512 maps), the first path of a process within
`FIRST_PATH_BUDGET_MS` of a warm one, and the crowd's (`sim.bench.crowd`).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import math
import os
import platform
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from sim.app.report import write_bytes_atomic
from sim.bench.dynamic_report import SECTION_TITLE, DynamicReport
from sim.bench.maps import Contestant, MapReport, movingai_dir
from sim.bench.peers import PEERS
from sim.bench.startup import Startup
from sim.config import REPO_ROOT

if TYPE_CHECKING:  # the crowd needs Panda3D's core; the maps and their summary do not
    from sim.bench.crowd import CrowdReport

RESULTS_PATH = REPO_ROOT / "benchmarks" / "RESULTS.md"
DYNAMIC_CHART = "dynamic-replanning.svg"
"""The chart of `sim bench --dynamic`, beside RESULTS_PATH, which links to it."""
TCOD_TARGET = 1.0
PYASTAR2D_TARGET = 2.0
FIRST_PATH_BUDGET_MS = 50.0


def summary_lines(
    reports: Sequence[MapReport], startup: Startup, crowd: CrowdReport | None = None
) -> list[str]:
    """One line per target of the issue, met or not, with the numbers (the crowd's if run)."""
    ours = reports[0].rows[0].contestant.label
    lines = [f"Targets (ours = {ours}; ratio = median ours / median peer):"]
    tcod = [(report, report.row(_peer_label("tcod"))) for report in reports]
    if any(row for _, row in tcod):
        lines.append(f"- median per query <= {TCOD_TARGET:.1f}x tcod on every map:")
        for report, row in tcod:
            if row is not None:
                ratio = report.ratio(row)
                assert ratio is not None  # a peer row with queries always has a ratio
                verdict = "met" if ratio <= TCOD_TARGET else "NOT met"
                lines.append(f"  - {report.name}: {ratio:.2f}x, {verdict}")
    else:
        lines.append(f"- median per query <= {TCOD_TARGET:.1f}x tcod: not measured (tcod not run)")
    square = [
        (report, report.row(_peer_label("pyastar2d")))
        for report in reports
        if (report.width, report.height) == (512, 512)
    ]
    ratios = [report.ratio(row) for report, row in square if row is not None]
    if ratios:
        mean = math.exp(sum(math.log(r) for r in ratios if r is not None) / len(ratios))
        verdict = "met" if mean <= PYASTAR2D_TARGET else "NOT met"
        names = ", ".join(report.name for report, _ in square)
        lines.append(
            f"- geometric mean over the 512x512 maps ({names}) <= {PYASTAR2D_TARGET:.1f}x "
            f"pyastar2d: {mean:.2f}x, {verdict} (pyastar2d cuts corners and charges 1 per "
            "diagonal: a different, easier rule)"
        )
    else:
        lines.append(
            f"- geometric mean over the 512x512 maps <= {PYASTAR2D_TARGET:.1f}x pyastar2d: "
            "not measured (no 512x512 map selected, or pyastar2d not run)"
        )
    extra = startup.extra_ms
    verdict = "met" if extra <= FIRST_PATH_BUDGET_MS else "NOT met"
    lines.append(
        f"- first planned path of a process <= {FIRST_PATH_BUDGET_MS:.0f} ms beyond a warm "
        f"query ({startup.map_name}, fresh interpreter, numpy already imported, bytecode "
        f"cached as on every launch after the first; the median of {startup.runs}): first "
        f"{startup.first_ms:.1f} ms (import {startup.import_ms:.1f} ms), warm "
        f"{startup.warm_ms:.2f} ms, {extra:.1f} ms beyond: {verdict}"
    )
    if startup.cold_first_ms is not None:
        lines.append(
            f"  - the very first launch, which also compiles our modules to bytecode: first "
            f"{startup.cold_first_ms:.1f} ms"
        )
    if crowd is not None:
        lines += crowd.target_lines()
    return lines


def _peer_label(name: str) -> str:
    return f"{name} {PEERS[name].version()}"


def write_results(
    command: str,
    reports: Sequence[MapReport],
    summary: Sequence[str],
    notes: Sequence[str],
    contestants: Sequence[Contestant],
    crowd: CrowdReport,
    dynamic: DynamicReport | None = None,
) -> Path:
    """Write `RESULTS_PATH`: when, where, `command`, the tables and the targets; return it.

    With `dynamic`, its section (`write_dynamic_section`) follows the crowd's, and its chart
    is written beside the file.
    """
    versions = [c.label for c in contestants if not c.ours]
    lines = [
        "# Planner benchmark results",
        "",
        f"Written by `sim bench --write-results` on {datetime.date.today().isoformat()}.",
        "",
        f"- command (defaults spelled out): `{command}`",
        f"- machine: {os.cpu_count()} CPUs (nproc), {_cpu_model()}, {platform.system()} "
        f"{platform.release()}",
        f"- Python {platform.python_version()}, numpy {np.__version__}, panda3d "
        f"{_version('panda3d')}; peers: " + (", ".join(versions) or "none"),
        f"- maps: {movingai_dir()} (Moving AI Lab, Sturtevant 2012)",
        "",
        "Every planner answers the same seeded scenarios, interleaved per query. Only the query",
        "is timed (peer graphs are built per map beforehand). `legal?` checks every returned path",
        "under the Moving AI rule (8-connected, diagonal sqrt(2), no corner cutting) and against",
        "the published optimum. `ours/peer` is the ratio of medians over the queries that peer",
        "answered (pure-Python peers answer only --peer-limit queries spread evenly over the",
        "sample, on maps up to 256x256; their `expanded` adds ours on the same queries).",
        "scipy has no goal stop: its Dijkstra gets `limit` = the published optimum,",
        "which settles what a goal-stopping Dijkstra would. tcod costs are integers 10000/14142.",
        "",
        *[f"{note}" for note in notes],
        "",
    ]
    for report in reports:
        lines += ["## " + report.lines()[0], "", *report.lines()[2:], ""]
    lines += [*_crowd_section(crowd, command), ""]
    if dynamic is not None:
        lines += [*_dynamic_section(dynamic, command), ""]
    lines += ["## Targets", "", *summary[1:], "", _GAP_NOTE]
    RESULTS_PATH.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_PATH.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return RESULTS_PATH


def write_dynamic_section(report: DynamicReport, command: str) -> Path:
    """Put `report`'s section into `RESULTS_PATH`, keeping every other section as it is.

    The section (from its ``## `` heading to the next one) replaces the one already there,
    or goes before ``## Targets`` (at the end when there is none); its chart is rewritten
    beside the file. Both are replaced atomically. Returns `RESULTS_PATH`.
    """
    return _write_section(f"## {SECTION_TITLE}", [*_dynamic_section(report, command), ""])


def write_crowd_section(report: CrowdReport, command: str) -> Path:
    """Put the crowd's section (and chart) into `RESULTS_PATH`, as `write_dynamic_section`.

    The section already there is the one whose heading starts ``## Crowd throughput``.
    """
    written = _write_section(CROWD_HEADING, [*_crowd_section(report, command), ""])
    _replace_crowd_targets(report.target_lines())
    return written


def _replace_crowd_targets(targets: list[str]) -> None:
    """Swap the crowd's lines in ``## Targets`` (if the file has that section) for `targets`."""
    lines = RESULTS_PATH.read_text(encoding="utf-8").splitlines()
    if "## Targets" not in lines:
        return
    begin = lines.index("## Targets")
    end = next((i for i in range(begin + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    kept = [i for i in range(begin, end) if not _CROWD_TARGET.match(lines[i])]
    dropped = [i for i in range(begin, end) if _CROWD_TARGET.match(lines[i])]
    at = dropped[0] if dropped else max(i for i in kept if lines[i].strip()) + 1
    body = [lines[i] for i in range(begin, at) if i in kept]
    rest = [lines[i] for i in range(at, end) if i in kept]
    lines[begin:end] = [*body, *targets, *rest]
    write_bytes_atomic(RESULTS_PATH, ("\n".join(lines).rstrip("\n") + "\n").encode("utf-8"))


def _write_section(heading: str, section: list[str]) -> Path:
    """Replace the section whose heading line starts with `heading`, or add it before Targets."""
    try:
        lines = RESULTS_PATH.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = ["# Planner benchmark results", ""]
    begin = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    if begin is not None:
        end = next(
            (i for i in range(begin + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        lines[begin:end] = section
    elif "## Targets" in lines:
        at = lines.index("## Targets")
        lines[at:at] = section
    else:
        lines += ["", *section] if lines and lines[-1] else section
    RESULTS_PATH.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(RESULTS_PATH, ("\n".join(lines).rstrip("\n") + "\n").encode("utf-8"))
    return RESULTS_PATH


def _crowd_section(report: CrowdReport, command: str) -> list[str]:
    """The crowd's part of RESULTS.md; writes its chart beside `RESULTS_PATH` first."""
    from sim.bench.crowd import CHART  # the crowd needs Panda3D's core; the maps do not

    RESULTS_PATH.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(RESULTS_PATH.parent / CHART, report.chart_svg().encode("utf-8"))
    return [
        "## " + report.title(),
        "",
        f"Command: `{command}`",
        "",
        _CROWD_NOTE,
        "",
        *report.lines()[2:],
        "",
        f"![simulated fps against the targets]({CHART})",
        "",
        "Targets:",
        "",
        *report.target_lines(),
    ]


def _dynamic_section(report: DynamicReport, command: str) -> list[str]:
    """The section's lines; writes its chart beside `RESULTS_PATH` first."""
    RESULTS_PATH.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(RESULTS_PATH.parent / DYNAMIC_CHART, report.chart_svg().encode("utf-8"))
    return report.section_lines(DYNAMIC_CHART, command)


CROWD_HEADING = "## Crowd throughput"
_CROWD_TARGET = re.compile(r"^- (\d+ agents (at|on the) |overlap_max )")
"""A crowd target's line in ``## Targets`` (`CrowdReport.target_lines`)."""
"""How the crowd section's heading starts (its title follows)."""

_CROWD_NOTE = """N agents of scenes/crowd.toml, one to a free cell nearest the scene's own
crowd, chase one End: a `CrowdSim` moves them all with numpy (one shared distance field, each
cell's aim down it, ORCA avoidance in C, walls, arrival). `planning ms / sim s` is the time
spent on fields and aims per simulated second; `sim fps` counts simulated frames per
wall-clock second of the whole sim step (grid sync, fields, steering, avoidance), without
rendering; `arrived` is how many agents reached End (at it, or standing in the cluster round
it), `fields` how many fields were computed; `overlap max` is the deepest two agents ever
overlapped, as a fraction of their radii's sum; `render fps` the frames per second of the
same crowd drawn in an 800x600 window (n/a: not measured)."""

_GAP_NOTE = """## Closing the gap to pyastar2d

pyastar2d solves an easier problem (corners may be cut, every move costs 1, so many more
equal-cost paths and a tighter Chebyshev heuristic), so it is not a like-for-like peer. The
kernel already has the memory-side work of PERFORMANCE-NOTES (one flat 16-byte state record
per cell, int32 indices, a 4-ary heap, buffers reused across queries with only touched cells
reset) plus decrease-key instead of stale heap entries. What would close the remaining gap on
the Moving AI rule: jump point search (Harabor & Grastien 2011) on uniform-cost grids, which
expands only jump points instead of every cell on a straight run (typically 10-30x fewer
expansions on these maps), and connected-region labels so unreachable goals cost no search
at all."""


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return platform.processor() or "unknown CPU"
    for line in text.splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return "unknown CPU"
