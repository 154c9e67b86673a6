"""`sim soak`: run a scene headless for simulated minutes while cubes jump to random places.

Every `SHUFFLE_EVERY_S` simulated seconds Start, End and a few obstacles are put somewhere
random (seeded): on free ground, inside another obstacle, or off the grid altogether. A
programmatic move is not clamped to the grid as a mouse drag is, so this checks that the grid,
the planners and the agents cope with anything. The search view is open and playing most of the
time, and at each shuffle it is poked as a restless user would (closed or opened, another
algorithm, heuristic, weight or connectivity, steps back, a jump to the end, the comparison
table on or off).

The JSON report is rewritten every simulated second, as with `sim run --report`, and re-read
and validated (`sim.app.report.validate_report`) after every rewrite; the soak fails when the
rewrites do not happen (fewer than 9 in 10 simulated seconds) or the report lists errors.
Resident memory is read from `/proc/self/statm` (current RSS, not the peak that
`resource.getrusage` gives). A soak shorter than 0.1 simulated minutes is refused: too short to
measure anything.

A scene's scripts run only with --trust-scripts or from a trusted folder, as with `sim run`;
otherwise the soak runs the scene without them and says so in one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.app.process import warn
from sim.app.report import validate_report
from sim.commands.args import Output, OutputKind, check_outputs, positive_float
from sim.config import DEFAULT_SCENE, Tag
from sim.errors import Interrupted, SimError
from sim.scene.file import load_scene
from sim.scene.script_trust import decide, script_count, skipped_line
from sim.scene.spec import SceneSpec

if TYPE_CHECKING:
    from sim.components.grid_manager import GridManager
    from sim.engine import GameObject, World
    from sim.search_view.panel import SearchPanel
    from sim.search_view.view import SearchView

SOAK_SIZE = (160, 120)  # pixels: rendering is not what a soak measures
SHUFFLE_EVERY_S = 2.0
OBSTACLES_PER_SHUFFLE = 3
BASELINE_MINUTE = 2.0  # memory growth is measured from here, after caches have warmed up
MAX_RSS_GROWTH_MB = 20.0
MAX_EXCEPTIONS = 100  # stop early: past this the run says nothing new
# Shorter, and memory is compared between two moments a second apart, and hardly anything moves.
MIN_MINUTES = 0.1
# Of the report rewrites due (one per simulated second), how many must be seen: the app's
# schedule restarts from each write's frame, so a rewrite can come a frame late.
MIN_REWRITE_SHARE = 0.9
# Where a moved cube lands: free ground (most often), inside an obstacle, or off the grid.
PLACES = ("anywhere", "inside-obstacle", "off-grid")
PLACE_WEIGHTS = (6, 2, 2)
SEARCH_VIEW_SPEED = 200  # expansions per second: most searches reach their end between shuffles
MB = 1024 * 1024


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Register `sim soak`."""
    parser = subparsers.add_parser(
        "soak",
        help="run a scene headless for simulated minutes while cubes jump around",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "scene", nargs="?", type=Path, default=DEFAULT_SCENE, help="scene file (.toml)"
    )
    parser.add_argument(
        "--minutes",
        type=soak_minutes,
        default=30.0,
        metavar="M",
        help=f"simulated minutes to run, at least {MIN_MINUTES:g} (default 30)",
    )
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="random seed (default 1)")
    parser.add_argument(
        "--report",
        type=Path,
        metavar="JSON",
        help="keep the JSON report here (default: a temporary file, deleted afterwards)",
    )
    parser.add_argument(
        "--trust-scripts",
        action="store_true",
        help="run the scene's scripts (Python code) even if it is not in a trusted folder",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the soak; 0 when it stayed clean, 1 when anything went wrong (see `SoakResult`)."""
    scene = load_scene(args.scene)
    asked = {"minutes": args.minutes, "seed": args.seed, "trust_scripts": args.trust_scripts}
    if args.report is not None:
        check_outputs(args.scene, [Output("--report", args.report, OutputKind.JSON)])
        # Absolute before any script runs: a script's os.chdir must not send it elsewhere.
        return soak(scene, report=args.report.absolute(), **asked).exit_status()
    with tempfile.TemporaryDirectory(prefix="sim-soak-") as folder:
        report = Path(folder).absolute() / "report.json"
        return soak(scene, report=report, **asked).exit_status()


def soak_minutes(text: str) -> float:
    """Parse `--minutes`: a finite number of at least `MIN_MINUTES` (argparse type)."""
    minutes = positive_float(text)
    if minutes < MIN_MINUTES:
        raise argparse.ArgumentTypeError(
            f"a soak under {MIN_MINUTES:g} simulated minutes is too short to measure, got {text}"
        )
    return minutes


@dataclass(slots=True)
class SoakResult:
    """What a soak saw.

    Attributes:
        minutes: Simulated minutes run.
        frames: Frames stepped.
        exceptions: Exceptions raised by a frame (each caught, counted, the run goes on).
        first_traceback: The first exception's traceback, or "".
        blocked_cell_frames: Frames any agent spent in a blocked cell, summed over agents.
        reports_checked: Report rewrites re-read and found valid (`validate_report`).
        bad_reports: One line per rewrite that was not JSON or not a valid report.
        reports_due: Rewrites the run had to make at the least (see `MIN_REWRITE_SHARE`).
        report_errors: What the report lists in `errors` at the end (a rewrite that failed).
        baseline_minute: When the first memory reading was taken.
        rss_baseline_mb: Resident memory then, in MB (2**20 bytes).
        rss_end_mb: Resident memory at the end, in MB.
    """

    minutes: float = 0.0
    frames: int = 0
    exceptions: int = 0
    first_traceback: str = ""
    blocked_cell_frames: int = 0
    reports_checked: int = 0
    bad_reports: list[str] = field(default_factory=list)
    reports_due: int = 0
    report_errors: list[str] = field(default_factory=list)
    baseline_minute: float = 0.0
    rss_baseline_mb: float = 0.0
    rss_end_mb: float = 0.0

    @property
    def rss_growth_mb(self) -> float:
        """Resident memory growth from the baseline to the end, in MB."""
        return self.rss_end_mb - self.rss_baseline_mb

    @property
    def reports_written(self) -> int:
        """Report rewrites seen (each re-read), valid or not."""
        return self.reports_checked + len(self.bad_reports)

    def summary(self) -> str:
        """The one-line summary `sim soak` prints."""
        return (
            f"soak: {self.minutes:.1f} simulated minutes, {self.frames} frames, "
            f"{self.exceptions} exceptions, blocked_cell_frames {self.blocked_cell_frames}, "
            f"{self.reports_checked} reports valid of {self.reports_written}, "
            f"RSS {self.rss_baseline_mb:.1f} MB at minute {self.baseline_minute:g} -> "
            f"{self.rss_end_mb:.1f} MB at the end ({self.rss_growth_mb:+.1f} MB)"
        )

    def failures(self) -> list[str]:
        """Why the soak failed, one line each; empty when it passed."""
        problems = []
        if self.exceptions:
            problems.append(f"{self.exceptions} exceptions")
        if self.blocked_cell_frames:
            problems.append(f"agents spent {self.blocked_cell_frames} frames in blocked cells")
        problems += self.bad_reports[:5]
        if self.reports_written < self.reports_due:
            problems.append(
                f"the report was rewritten {self.reports_written} times, expected at least "
                f"{self.reports_due} in {self.minutes * 60:g} simulated seconds"
            )
        if self.report_errors:
            more = len(self.report_errors) - 1
            problems.append(
                f"the report lists errors: {self.report_errors[0]}"
                + (f" (and {more} more)" if more else "")
            )
        if self.rss_growth_mb >= MAX_RSS_GROWTH_MB:
            problems.append(
                f"resident memory grew {self.rss_growth_mb:.1f} MB (limit {MAX_RSS_GROWTH_MB:g} MB)"
            )
        return problems

    def exit_status(self) -> int:
        """Print the summary (and the first traceback and failures); 0 if clean, else 1."""
        if self.first_traceback:
            print(self.first_traceback, end="", flush=True)
        print(self.summary(), flush=True)
        for problem in self.failures():
            print(f"soak: FAILED: {problem}", flush=True)
        return 1 if self.failures() else 0


def soak(
    scene: SceneSpec, *, minutes: float, seed: int, report: Path, trust_scripts: bool = False
) -> SoakResult:
    """Open `scene` headless and run it for `minutes` simulated minutes, shuffling cubes.

    Args:
        scene: The loaded scene.
        minutes: Simulated minutes; frames are `minutes * 60` times the headless frame rate.
        seed: Seeds every random move, so a soak repeats exactly.
        report: Where the app keeps its JSON report (it must be writable).
        trust_scripts: Run the scene's scripts wherever it lies (else only from a trusted
            folder, `sim.scene.script_trust`).

    Returns:
        What was seen; the caller decides what counts as failure (`SoakResult.failures`).
    """
    # Panda3D is imported only now, like `sim run`.
    from sim.app.composition import REPORT_EVERY_S, RunOptions, SimApp
    from sim.engine.showbase import DisplaySettings

    display = DisplaySettings(headless=True, size=SOAK_SIZE, title=f"soak: {scene.name}")
    trust = decide(scene, asked=trust_scripts)
    if not trust.allowed and script_count(scene):
        warn(f"sim: {skipped_line(scene)}")
    try:
        app = SimApp(RunOptions(scene=scene, display=display, report=report, scripts=trust))
    except RuntimeError as error:
        raise SimError(str(error)) from error
    try:
        shuffler = _Shuffler(
            world=app.world,
            grid=app.grid,
            view=app.search_view,
            panel=app.search_panel,
            rng=random.Random(seed),
        )
        app.search_view.open()
        app.search_view.speed = SEARCH_VIEW_SPEED
        app.search_view.play_pause()

        def step() -> None:
            app.step()
            if app.scripts.interrupted:
                # The user's signal struck inside a script, whose runner took it so that
                # Panda3D would not print it as a crash: it ends the soak all the same.
                raise Interrupted

        result = _drive(
            step,
            lambda: app.outputs.reports_written,
            shuffler,
            fps=display.fixed_fps,
            minutes=minutes,
            report=report,
            report_every_s=REPORT_EVERY_S,
        )
        result.blocked_cell_frames = sum(agent.blocked_cell_frames for agent in app.agents)
        result.report_errors = list(app.errors)
        return result
    finally:
        app.destroy()


def _drive(
    step: Callable[[], None],
    reports_written: Callable[[], int],
    shuffler: _Shuffler,
    *,
    fps: int,
    minutes: float,
    report: Path,
    report_every_s: float,
) -> SoakResult:
    """Run the frames, shuffling the scene now and then and checking each report rewritten."""
    total = round(minutes * 60 * fps)
    shuffle_every = round(SHUFFLE_EVERY_S * fps)
    baseline_minute = min(BASELINE_MINUTE, minutes / 2)
    baseline_frame = round(baseline_minute * 60 * fps)
    result = SoakResult(
        minutes=minutes,
        baseline_minute=round(baseline_minute, 3),
        reports_due=int(total / fps / report_every_s * MIN_REWRITE_SHARE),
    )
    seen_writes = reports_written()
    for frame in range(total):
        if frame and frame % shuffle_every == 0:
            shuffler.shuffle()
        try:
            step()
        except Exception:  # a soak counts every failure and carries on
            result.exceptions += 1
            if not result.first_traceback:
                result.first_traceback = traceback.format_exc()
            if result.exceptions >= MAX_EXCEPTIONS:
                break
        result.frames += 1
        # Read back only what the app says it wrote: a stale file from an earlier run must not
        # pass for a rewrite.
        if reports_written() != seen_writes:
            seen_writes = reports_written()
            _check_report(report, result)
        if result.frames == baseline_frame:
            result.rss_baseline_mb = resident_mb()
    result.rss_end_mb = resident_mb()
    if result.frames < baseline_frame:
        result.rss_baseline_mb = result.rss_end_mb
    return result


def _check_report(report: Path, result: SoakResult) -> None:
    """Re-read the report just rewritten; count it, or record why it is bad.

    A report is bad when it is not JSON or not what `validate_report` expects; one line each,
    with the first problem (and how many more there are).
    """
    try:
        problems = validate_report(json.loads(report.read_text(encoding="utf-8")))
    except (OSError, ValueError) as error:
        problems = [str(error)]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        result.bad_reports.append(f"report at frame {result.frames}: {problems[0]}{more}")
    else:
        result.reports_checked += 1


class _Shuffler:
    """Moves Start, End and some obstacles to random places, as a careless user might."""

    def __init__(
        self,
        *,
        world: World,
        grid: GridManager,
        view: SearchView,
        panel: SearchPanel,
        rng: random.Random,
    ) -> None:
        self._world, self._view, self._panel, self._rng = world, view, panel, rng
        self._low = grid.origin
        self._size = (
            grid.num_of_columns * grid.grid_cell_size,
            grid.num_of_rows * grid.grid_cell_size,
        )

    def shuffle(self) -> None:
        world = self._world
        movers = [world.find_with_tag(tag) for tag in (Tag.START, Tag.END)]
        obstacles = [obj for obj in world.find_all_with_tag(Tag.OBSTACLE) if obj.alive]
        count = min(OBSTACLES_PER_SHUFFLE, len(obstacles))
        movers += self._rng.sample(obstacles, count)
        for obj in movers:
            if obj is not None and obj.alive:
                x, y = self._place(obstacles, obj)
                obj.pos = (x, y, float(obj.pos.z))
        self._poke_search_view()

    def _poke_search_view(self) -> None:
        """Do one random thing to the search view; while it is open, keep it playing."""
        # Imported here: the view's module pulls in Panda3D, which `sim soak` loads late.
        from sim.navigation.catalogue import SearchKind
        from sim.search_view.settings import HEURISTICS

        rng, view = self._rng, self._view
        action = rng.randrange(8)
        if action == 7:
            view.toggle()  # closed for a while, or opened afresh
            return
        if not view.opened:
            return
        if action == 0:
            view.set_choice(rng.choice(list(SearchKind)))
        elif action == 1:
            view.set_heuristic(rng.choice(HEURISTICS))
        elif action == 2:
            view.set_diagonal(not view.settings.diagonal)
        elif action == 3:
            view.change_weight(rng.choice((-1.0, 1.0)))
        elif action == 4:
            for _ in range(rng.randrange(1, 30)):
                view.step_back()
        elif action == 5:
            view.to_end()
        else:
            self._panel.toggle_compare()
        if not view.playing:
            view.play_pause()

    def _place(self, obstacles: list[GameObject], moving: GameObject) -> tuple[float, float]:
        rng = self._rng
        (x0, y0), (width, height) = self._low, self._size
        place = rng.choices(PLACES, PLACE_WEIGHTS)[0]
        others = [obj for obj in obstacles if obj is not moving]
        if place == "inside-obstacle" and others:
            return rng.choice(others).xy
        if place == "off-grid":
            # Up to one grid size beyond a random edge, anywhere along it (corners included).
            x = rng.uniform(x0 - width, x0 + 2 * width)
            y = rng.uniform(y0 - height, y0 + 2 * height)
            side = rng.choice("nsew")
            if side in "ns":
                beyond = rng.uniform(0.0, height)
                return (x, y0 + height + beyond if side == "n" else y0 - beyond)
            beyond = rng.uniform(0.0, width)
            return (x0 + width + beyond if side == "e" else x0 - beyond, y)
        return (rng.uniform(x0, x0 + width), rng.uniform(y0, y0 + height))


def resident_mb() -> float:
    """This process's resident memory now, in MB, from `/proc/self/statm` (0 if unavailable)."""
    try:
        fields = Path("/proc/self/statm").read_text().split()
    except OSError:
        return 0.0
    return int(fields[1]) * os.sysconf("SC_PAGE_SIZE") / MB
