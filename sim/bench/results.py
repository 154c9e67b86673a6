"""What `sim bench` concludes: one line per target, and benchmarks/RESULTS.md.

The targets: the maps' (`sim.bench.map_targets`: ours against pyastar2d and tcod, unreachable
queries, every path legal and optimal), the first path of a process within
`FIRST_PATH_BUDGET_MS` of a warm one, and the crowd's (`sim.bench.crowd`).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from sim.bench.dynamic_report import SECTION_TITLE, DynamicReport
from sim.bench.envs.steps import EnvReport
from sim.bench.envs.steps import chart_svg as env_chart_svg
from sim.bench.gppc.scoreboard import GppcReport
from sim.bench.map_report import Contestant, MapReport
from sim.bench.map_targets import (
    CHART,
    SUMMARY_TITLE,
    MapFigures,
    Target,
    chart_svg,
    map_targets,
    summary_section,
)
from sim.bench.maps import movingai_dir
from sim.bench.startup import Startup
from sim.config import REPO_ROOT
from sim.files import write_bytes_atomic

if TYPE_CHECKING:  # the crowd needs Panda3D's core; the maps and their summary do not
    from sim.bench.crowd import CrowdReport

RESULTS_PATH = REPO_ROOT / "benchmarks" / "RESULTS.md"
DYNAMIC_CHART = "dynamic-replanning.svg"
"""The chart of `sim bench --dynamic`, beside RESULTS_PATH, which links to it."""
FIRST_PATH_BUDGET_MS = 50.0


def summary_lines(
    reports: Sequence[MapReport], startup: Startup, crowd: CrowdReport | None = None
) -> list[str]:
    """One line per target, met or not, with the numbers (the crowd's if run).

    The maps' targets (`sim.bench.map_targets`), then the first path of a process, then the
    crowd's.
    """
    ours = reports[0].rows[0].contestant.label
    lines = [f"Targets (ours = {ours}; ratio = median ours / median peer):"]
    lines += [target.text for target in targets_of(reports)]
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


def targets_of(reports: Sequence[MapReport]) -> list[Target]:
    """The maps' targets, read off `reports`."""
    return map_targets([MapFigures.of(report) for report in reports])


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

    The summary across maps comes first, with its chart (`map_targets.CHART`) written beside
    the file; with `dynamic`, its section (`write_dynamic_section`) follows the crowd's. The
    sections this run writes replace their old selves; a section the file has that no run
    writes (a note written by hand, such as "Closing the gap to pyastar2d") is kept as it
    is, after the targets.
    """
    kept = _hand_written_sections()
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
        # The folder's name only: a full path would point outside the repository.
        f"- maps: the Moving AI folder `{movingai_dir().name}` ($MOVINGAI_DIR; Moving AI Lab, "
        "Sturtevant 2012)",
        "",
        "Every planner answers the same seeded scenarios, interleaved per query. Only the query",
        "is timed (peer graphs are built per map beforehand). `legal?` checks every returned path",
        "under the Moving AI rule (8-connected, diagonal sqrt(2), no corner cutting) and against",
        "the published optimum. `ours/peer` is the ratio of medians over the queries that peer",
        "answered, ours being `find_path` with its defaults (auto); `A*/peer` the same for ours",
        'with algorithm="astar". Pure-Python planners (our Python reference, pathfinding,',
        "networkx) answer only --peer-limit queries spread evenly over the sample, on maps up to",
        "256x256; their `expanded` adds ours on the same queries. The unreachable row times",
        "`find_path` on seeded pairs in different regions (islands of the map, or a walled-in",
        "goal on a copy of it): the first query on a fresh array apart, then the repeats on the",
        "same array. scipy has no goal stop: its Dijkstra gets `limit` = the published optimum,",
        "which settles what a goal-stopping Dijkstra would. tcod costs are integers 10000/14142.",
        "",
        *([*notes, ""] if notes else []),
        *_summary_section(reports),
        "",
    ]
    for report in reports:
        lines += ["## " + report.lines()[0], "", *report.lines()[2:], ""]
    lines += [*_crowd_section(crowd, command), ""]
    if dynamic is not None:
        lines += [*_dynamic_section(dynamic, command), ""]
    lines += ["## Targets", "", *summary[1:], ""]
    for section in kept:
        lines += [*section, ""]
    RESULTS_PATH.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines).rstrip("\n") + "\n"
    write_bytes_atomic(RESULTS_PATH, text.encode("utf-8"))
    return RESULTS_PATH


def _summary_section(reports: Sequence[MapReport]) -> list[str]:
    """The section across maps; writes its chart beside `RESULTS_PATH` first."""
    RESULTS_PATH.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(RESULTS_PATH.parent / CHART, chart_svg(reports).encode("utf-8"))
    return summary_section(reports)


def _hand_written_sections() -> list[list[str]]:
    """The ``## `` sections of `RESULTS_PATH` that no part of `sim bench` writes, in order."""
    try:
        lines = RESULTS_PATH.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    starts = [i for i, line in enumerate(lines) if line.startswith("## ")]
    sections = []
    for begin, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        if not _WRITTEN_HEADING.match(lines[begin]):
            body = lines[begin:end]
            while body and not body[-1].strip():
                body.pop()
            sections.append(body)
    return sections


def write_dynamic_section(report: DynamicReport, command: str) -> Path:
    """Put `report`'s section into `RESULTS_PATH`, keeping every other section as it is.

    The section (from its ``## `` heading to the next one) replaces the one already there,
    or goes before ``## Targets`` (at the end when there is none); its chart is rewritten
    beside the file. Both are replaced atomically. Returns `RESULTS_PATH`.
    """
    return _write_section(f"## {SECTION_TITLE}", [*_dynamic_section(report, command), ""])


def write_mapf_section(section: list[str]) -> Path:
    """Put `section` (`sim.bench.mapf.section_lines`) into `RESULTS_PATH`, as the dynamic one."""
    return _write_section(section[0], section)


MAPF_WINDOW_HEADING = "## MAPF plans rendered in a window"


def write_mapf_window_section(lines: list[str], command: str, commit: str) -> Path:
    """Put the rendered MAPF runs (`sim.bench.mapf_window.window_lines`) into `RESULTS_PATH`."""
    how = (
        ": each map's random scenario file 1, its first agents solved by LaCAM* and their plan "
        "played with the plain look in an 800 x 600 window (Xvfb and Mesa's software GL where no "
        "display is set); the frame rate is the report's `window.fps` at the last frame (whole "
        "app frames per wall-clock second over the last second)."
    )
    return _write_run_section(MAPF_WINDOW_HEADING, command, commit, how, lines)


MAP_WINDOW_HEADING = "## Moving AI maps in the window"


def write_map_window_section(lines: list[str], command: str, commit: str) -> Path:
    """Put the maps opened in a window (`sim.bench.window.maps.window_lines`) in `RESULTS_PATH`."""
    how = (
        ": each map opened as `sim run MAP.map` opens it, in a 1024 x 768 window with the default "
        "look (Xvfb and Mesa's software GL where no display is set); the opening is timed to the "
        "first frame drawn, the frame rate over 5 s of whole app frames once the look has "
        "settled, and the CPU time per frame beside it (the machine's load moves the frame rate, "
        "far less that)."
    )
    return _write_run_section(MAP_WINDOW_HEADING, command, commit, how, lines)


ENV_HEADING = "## Learning environments: steps per second beside POGEMA"
ENV_CHART = "env-steps.svg"


def write_env_section(report: EnvReport, command: str, commit: str) -> Path:
    """Put `sim bench --env`'s table, chart and targets into `RESULTS_PATH`."""
    (RESULTS_PATH.parent / ENV_CHART).write_text(env_chart_svg(report), encoding="utf-8")
    version = report.pogema_version or "not run"
    how = (
        f", POGEMA {version} in its own environment. A 64 x 64 random map of density 0.3, "
        "observation radius 5, 4-connected moves, seeded random actions drawn before the clock "
        "starts, 300 steps a run, the best of three; observations and rewards every step, no "
        "rendering. Ours is `sim.envs.parallel_env` (PettingZoo's parallel API, a dict per "
        "step); POGEMA's is its native `pogema_v0` (lists)."
    )
    body = [*report.lines(), "", f"![ours / POGEMA]({ENV_CHART})"]
    return _write_run_section(ENV_HEADING, command, commit, how, body)


GPPC_HEADING = "## GPPC scoreboard"


def write_gppc_section(report: GppcReport, command: str, commit: str) -> Path:
    """Put `sim bench --gppc`'s tables and targets into `RESULTS_PATH`."""
    how = (
        f", {_cpu_model()}: the fields of the grid-pathfinding competition's tables per map set "
        "(sums over the set's maps; mean length and suboptimality per solved query). Ours: "
        "`find_path` auto, jps and astar, each in a process of its own, a timer around each "
        "call; warthog: its own per-query timer (warthog-timed), its setup time (map read and "
        "jump tables) as preprocessing. Every query in three rounds, map by map, each round one "
        "pass of every planner back to back, the fastest round kept (wall and thread CPU time)."
    )
    return _write_run_section(GPPC_HEADING, command, commit, how, report.lines())


CALLS_HEADING = "## The cost of a call"


def write_calls_section(lines: list[str], command: str, commit: str) -> Path:
    """Put `sim bench --calls`'s tables and targets (`lines`) into `RESULTS_PATH`."""
    how = (
        f", {_cpu_model()}: the fixed cost of one `find_path` call (a trivial query, start == "
        "goal: the fastest of 20,000 calls), then every query of the smaller maps' scenario files "
        "answered by `find_paths` (128 queries a call) and by one `find_path` call each, 128 calls "
        "at a time (each chunk's least thread processor time of 10 passes), beside warthog's "
        "per-query times (its own timer, each query's fastest of 3 runs). Jump point search "
        "(auto) runs one C call per pair inside the batch (`_jps` has no batch entry), so its "
        "batch time per query is its search time: the 2x target waits on a faster search, not "
        "on the call; A*, Dijkstra, BFS and greedy run every pair in one C loop."
    )
    return _write_run_section(CALLS_HEADING, command, commit, how, lines)


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


def _write_run_section(
    heading: str, command: str, commit: str, how: str, body: Sequence[str]
) -> Path:
    """Write the section `heading` of one run: the line saying how, `body`, a blank line each.

    The line names `command`, `commit` and today's date, then `how` (from its ``,`` or ``:``
    on); `_write_section` puts the section in place.
    """
    today = datetime.date.today().isoformat()
    section = [heading, "", f"`{command}` at commit `{commit}`, {today}{how}", "", *body, ""]
    return _write_section(heading, section)


NOTES_MARK = "<!-- Notes below are written by hand: a new run replaces only what is above. -->"
"""The line that ends a written run: what follows it in the section is people's, never replaced."""


def _write_section(heading: str, section: list[str]) -> Path:
    """Replace the section whose heading line starts with `heading`, or add it before Targets.

    Only the run above the section's `NOTES_MARK` is replaced: the notes people wrote beneath it
    (dated runs by hand, what a figure means) stay, as the mark itself does.
    """
    try:
        lines = RESULTS_PATH.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = ["# Planner benchmark results", ""]
    begin = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    notes = [NOTES_MARK, ""]
    section = [*section, *([] if section and not section[-1] else [""])]
    if begin is not None:
        end = next(
            (i for i in range(begin + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        old = lines[begin:end]
        if NOTES_MARK in old:
            notes = old[old.index(NOTES_MARK) :]
        lines[begin:end] = [*section, *notes]
    elif "## Targets" in lines:
        at = lines.index("## Targets")
        lines[at:at] = [*section, *notes]
    else:
        lines += ["", *section, *notes] if lines and lines[-1] else [*section, *notes]
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
"""How the crowd section's heading starts (its title follows)."""
_WRITTEN_HEADING = re.compile(
    "^## ("
    + "|".join(
        re.escape(title) for title in (SUMMARY_TITLE, CROWD_HEADING[3:], SECTION_TITLE, "Targets")
    )
    + r"|\S+ \(\d+x\d+\), \d+ quer)"
)
"""The heading of a section `write_results` writes: summary, crowd, dynamic, targets, a map."""
_CROWD_TARGET = re.compile(r"^- (\d+ agents (at|on the) |\d+ goal groups x |overlap_max )")
"""A crowd target's line in ``## Targets`` (`CrowdReport.target_lines`)."""

_CROWD_NOTE = """N agents of scenes/crowd.toml, one to a free cell nearest the scene's own
crowd, chase one End: a `CrowdSim` moves them all with numpy and C (one shared distance field,
each cell's aim down it, ORCA avoidance every frame, walls and parting in C, arrival). The goal
groups split as many agents among goals on a ring round the field's middle (agent i chases
goal i mod the groups), one field per goal. `planning ms / sim s` is the time spent on fields
and aims per simulated second; `sim fps` counts simulated frames per wall-clock second of the
whole sim step (grid sync, fields, steering, avoidance), without rendering, and `sim fps (cpu)`
per second of the process's CPU time (every thread's), which other users of the machine slow
less; `arrived` is how many agents reached their goal (at it, or standing in the cluster round
it), `fields` how many fields were computed; `overlap max` is the deepest two agents ever
overlapped, as a fraction of their radii's sum; `render fps` the frames per second of the
same crowd drawn in an 800x600 window (n/a: not measured)."""


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
