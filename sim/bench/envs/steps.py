"""`sim bench --env`: environment steps per second, ours beside POGEMA's, on the same setting.

The setting is POGEMA's usual one: a 64 x 64 random map of density 0.3, observation radius 5,
4-connected moves, 1, 64 and 256 agents taking seeded random actions (drawn before the clock
starts), 300 steps a run, the best of three runs; observations and rewards are built every step,
nothing is rendered. Ours is `sim.envs.parallel_env` on such a map written by our generator;
POGEMA's is its native ``pogema_v0`` environment on its own map of that size and density, run
in its own interpreter (`POGEMA_PYTHON`, by `sim.bench.envs.pogema`), since it pins numpy and
pydantic below ours. Also timed: `reset` of the 512 x 512 Moving AI map that ships in
experiments/maps (8room_000), after its first load.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.config import REPO_ROOT

AGENT_COUNTS = (1, 64, 256)
MAP_SIZE = 64
DENSITY = 0.3
OBS_RADIUS = 5
STEPS = 300
RUNS = 3
SEED = 0
RESET_MAP = REPO_ROOT / "experiments" / "maps" / "8room_000.map"
RESETS = 20
TARGET_RATIO = 2.0
TARGET_RESET_MS = 50.0
POGEMA_SCRIPT = Path(__file__).with_name("pogema.py")


@dataclass(frozen=True, slots=True)
class EnvRow:
    """One agent count's figures; POGEMA's are None when it was not run."""

    agents: int
    ours_steps_per_s: float
    ours_agent_steps_per_s: float
    pogema_steps_per_s: float | None
    pogema_agent_steps_per_s: float | None

    @property
    def ratio(self) -> float | None:
        """Our agent-steps per second over POGEMA's."""
        if self.pogema_agent_steps_per_s is None:
            return None
        return self.ours_agent_steps_per_s / self.pogema_agent_steps_per_s


@dataclass(frozen=True, slots=True)
class EnvReport:
    """The rows, the reset time and what was said about the peer."""

    rows: tuple[EnvRow, ...]
    reset_ms: float
    pogema_version: str | None
    notes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"rows": [...], "reset_512_ms", "pogema_version"}`` (the rows' keys as `EnvRow`)."""
        return {
            "rows": [asdict(row) for row in self.rows],
            "reset_512_ms": self.reset_ms,
            "pogema_version": self.pogema_version,
        }

    def lines(self) -> list[str]:
        """The table, then the targets met or missed."""
        header = (
            "| agents | ours steps/s | ours agent-steps/s | POGEMA agent-steps/s | ours / POGEMA |"
        )
        table = [
            header,
            "|--------|--------------|--------------------|----------------------|---------------|",
        ]
        for row in self.rows:
            peer = (
                "n/a"
                if row.pogema_agent_steps_per_s is None
                else f"{row.pogema_agent_steps_per_s:,.0f}"
            )
            ratio = "n/a" if row.ratio is None else f"{row.ratio:.2f}x"
            table.append(
                f"| {row.agents} | {row.ours_steps_per_s:,.0f} | {row.ours_agent_steps_per_s:,.0f} "
                f"| {peer} | {ratio} |"
            )
        return [*self.notes, *table, "", *self.target_lines()]

    def target_lines(self) -> list[str]:
        """One line per target: the figure and met, missed or not measured."""
        lines = []
        for row in self.rows:
            if row.agents == 1:
                continue
            figure = "not measured" if row.ratio is None else f"{row.ratio:.2f}x"
            verdict = (
                "" if row.ratio is None else (", met" if row.ratio >= TARGET_RATIO else ", missed")
            )
            lines.append(
                f"- agent-steps per second >= {TARGET_RATIO:g}x POGEMA's at {row.agents} agents: "
                f"{figure}{verdict}"
            )
        met = "met" if self.reset_ms <= TARGET_RESET_MS else "missed"
        lines.append(
            f"- reset of a 512x512 Moving AI map <= {TARGET_RESET_MS:g} ms after its first load: "
            f"{self.reset_ms:.1f} ms, {met}"
        )
        return lines


def run(
    *,
    pogema_python: str | None = None,
    counts: Sequence[int] | None = None,
    steps: int | None = None,
    on_run: Callable[[str], object] | None = None,
) -> EnvReport:
    """Time every agent count, ours and POGEMA's (when `pogema_python` is given), and reset.

    `counts` and `steps` default to `AGENT_COUNTS` and `STEPS`.
    """
    counts = AGENT_COUNTS if counts is None else counts
    steps = STEPS if steps is None else steps
    notes: list[str] = []
    version: str | None = None
    if pogema_python is None:
        notes.append("POGEMA not run: set POGEMA_PYTHON to a Python with pogema installed")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        map_path = _random_map(Path(folder))
        for count in counts:
            ours = min(_ours(map_path, count, steps) for _ in range(RUNS))
            if on_run is not None:
                on_run(f"ours {count}")
            theirs = None
            if pogema_python is not None:
                found = [_pogema(pogema_python, count, steps) for _ in range(RUNS)]
                theirs = min(seconds for seconds, _ in found)
                version = found[0][1]
            if on_run is not None:
                on_run(f"POGEMA {count}")
            rows.append(
                EnvRow(
                    count,
                    steps / ours,
                    count * steps / ours,
                    None if theirs is None else steps / theirs,
                    None if theirs is None else count * steps / theirs,
                )
            )
    return EnvReport(tuple(rows), _reset_ms(), version, tuple(notes))


def _random_map(folder: Path) -> Path:
    from sim.navigation.maps.generators import generate_layout
    from sim.navigation.maps.movingai_files import write_map

    path = folder / f"random-{MAP_SIZE}-{MAP_SIZE}.map"
    write_map(path, generate_layout("random", MAP_SIZE, MAP_SIZE, seed=SEED, density=DENSITY))
    return path


def _ours(map_path: Path, count: int, steps: int) -> float:
    """Seconds for `steps` steps of our parallel env with seeded random actions."""
    from sim.envs import parallel_env

    env = parallel_env(
        map=map_path, agents=count, obs_radius=OBS_RADIUS, diagonal="never", max_steps=steps + 1
    )
    env.reset(seed=SEED)
    rng = np.random.default_rng(SEED)
    names = env.possible_agents
    actions = [
        dict(zip(names, rng.integers(0, 5, count).tolist(), strict=True)) for _ in range(steps)
    ]
    began = time.perf_counter()
    for chosen in actions:
        env.step(chosen)
    return time.perf_counter() - began


def _pogema(python: str, count: int, steps: int) -> tuple[float, str]:
    """Seconds for POGEMA's `steps` steps, and its version, from its own interpreter."""
    arguments = [str(value) for value in (count, steps, OBS_RADIUS, MAP_SIZE, DENSITY, SEED)]
    done = subprocess.run(
        [python, str(POGEMA_SCRIPT), *arguments],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"POGEMA ({python}) failed: {last}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return float(found["seconds"]), str(found["version"])


def _reset_ms() -> float:
    """Milliseconds of `reset` on the 512 x 512 map, the median after its first load."""
    import gymnasium

    import sim.envs

    env = gymnasium.make(sim.envs.NAVIGATE_ID, map=RESET_MAP, random_pairs=True)
    env.reset(seed=0)
    times = []
    for seed in range(1, RESETS + 1):
        began = time.perf_counter()
        env.reset(seed=seed)
        times.append((time.perf_counter() - began) * 1000.0)
    return float(np.median(times))


def pogema_python() -> str | None:
    """`$POGEMA_PYTHON` when set (an interpreter with pogema installed), else None."""
    found = os.environ.get("POGEMA_PYTHON")
    return found or None


def chart_svg(report: EnvReport) -> str:
    """Our agent-steps per second over POGEMA's, per agent count, against the 2x target."""
    from sim.bench.chart import Series, ratio_bars_svg

    shown = [row for row in report.rows if row.ratio is not None]
    return ratio_bars_svg(
        "agent-steps per second, ours / POGEMA (higher is faster)",
        [f"{row.agents} agents" for row in shown],
        [
            Series(
                "ours / POGEMA", "#2b6cb0", tuple(row.ratio or 0.0 for row in shown), TARGET_RATIO
            )
        ],
    )
