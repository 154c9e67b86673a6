"""The run trace (`sim run --trace FILE.jsonl`): where every agent and mover stood, frame by frame.

The record half of record/replay, and a public contract (docs/command-line.md, "The trace"). The
file is JSON Lines: line 1 is the header, then one line per traced frame, agents always in the
header's order::

    {"scene": "scenes/sizes.toml", "dt": 0.016667, "grid": {"origin": [x, y],
     "cell_size": c, "rows": r, "columns": c}, "agents": [{"name": "small", "radius": 0.25}],
     "movers": [{"name": "bar", "scale": [sx, sy, sz], "heading": deg}]}
    {"frame": 1, "t": 0.016667, "pos": [[x, y], ...], "heading": [deg, ...],
     "movers": [[x, y, deg], ...], "speed": [units_per_s, ...],
     "jams": [{"frame": 1, "event": "handoff", "agents": [i, ...]}]}

`movers` lists every object with a mover or a rotator (`[objects.mover]`, `[objects.rotator]`)
in scene order, with its scale and its heading at the start; each line gives where each stands
then, in the header's order (an object removed during the run keeps its last place). `speed` is
how fast each agent moved over its last step, world units per second rounded to 5.

`jams` lists the crowd's hand-offs to a jam's joint plan and hand-backs (`sim.crowd.jams`) since
the line before: the frame each happened in, `handoff` or `handback`, and the agents, as indices
into the header's `agents` (those that left the scene are left out); `[]` when there were none.

Lines are written as the run goes and flushed one by one, so a run killed at any moment leaves
every line but (at most) the last one whole. Positions are world units rounded to 5 decimals,
headings degrees from 0 to 360 rounded to 4, `t` simulated seconds rounded to 6; `dt` is the fixed
time step the world advances by (a headless run's, or 1/60 s in a window whatever it renders; null
only for a loop with variable steps).
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from sim.components.crowd_sim import CROWD_SIM, CrowdSim

if TYPE_CHECKING:
    from sim.components.agent_controller import AgentController
    from sim.components.grid_manager import GridManager
    from sim.crowd.crowd import Crowd
    from sim.engine import GameObject

HEADER_KEYS = ("scene", "dt", "grid", "agents", "movers")
"""The header's keys, in order."""
FRAME_KEYS = ("frame", "t", "pos", "heading", "movers", "speed", "jams")
"""Each frame line's keys, in order."""


def header(
    scene: str,
    dt: float | None,
    grid: GridManager,
    agents: Sequence[AgentController],
    movers: Sequence[GameObject] = (),
) -> dict[str, Any]:
    """The trace's first line: the scene, the time step, the grid, each agent's radius.

    `movers` are the objects that move by themselves, read before the first frame: their
    name, scale and heading at the start.
    """
    return {
        "scene": scene,
        "dt": None if dt is None else round(dt, 9),
        "grid": {
            "origin": list(grid.origin),
            "cell_size": grid.grid_cell_size,
            "rows": grid.num_of_rows,
            "columns": grid.num_of_columns,
        },
        "agents": [
            {"name": agent.game_object.name, "radius": agent.config.radius} for agent in agents
        ],
        "movers": [
            {"name": mover.name, "scale": _scale(mover), "heading": mover_pose(mover)[2]}
            for mover in movers
        ],
    }


def _scale(mover: GameObject) -> list[float]:
    node = mover.node
    return [round(float(value), 5) for value in node.get_scale(node.get_top())]


def mover_pose(mover: GameObject) -> list[float]:
    """`[x, y, heading_deg]` of a mover now: world units to 5 decimals, degrees in [0, 360] to 4."""
    node = mover.node
    x, y = mover.xy
    heading = float(node.get_h(node.get_top())) % 360.0
    return [round(x, 5), round(y, 5), round(heading, 4)]


def frame_line(
    frame: int,
    time_s: float,
    agents: Sequence[AgentController],
    movers: Sequence[Sequence[float]] = (),
    jams: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """One traced frame: its number (the first frame is 1), its simulated time, every agent.

    `movers` are the movers' `mover_pose`s, in the header's order; `jams` the hand-offs and
    hand-backs since the line before (`JamTracker`).
    """
    return {
        "frame": frame,
        "t": round(time_s, 6),
        "pos": [[round(agent.position[0], 5), round(agent.position[1], 5)] for agent in agents],
        "heading": [round(agent.heading_deg, 4) for agent in agents],
        "movers": [list(pose) for pose in movers],
        "speed": [round(agent.speed, 5) for agent in agents],
        "jams": list(jams),
    }


class JamTracker:
    """The crowd's hand-offs and hand-backs as trace entries, gathered frame by frame.

    Args:
        crowd: The scene's crowd; None: a scene without one (no entries).
    """

    def __init__(self, crowd: Crowd | None) -> None:
        self._crowd = crowd
        log = None if crowd is None else crowd.jam_log
        self._seen = 0 if log is None else log.count
        self._pending: list[dict[str, Any]] = []

    def gather(self, frame: int, agents: Sequence[AgentController]) -> None:
        """Note the events since the last call as frame `frame`'s, agents in `agents`' order."""
        crowd = self._crowd
        log = None if crowd is None else crowd.jam_log
        if crowd is None or log is None or log.count == self._seen:
            return
        order = {id(agent): at for at, agent in enumerate(agents)}
        for event in log.since(self._seen):
            owners = (id(crowd.owner(index)) for index in event.agents if index in crowd)
            traced = sorted(order[owner] for owner in owners if owner in order)
            self._pending.append({"frame": frame, "event": str(event.kind), "agents": traced})
        self._seen = log.count

    def take(self) -> list[dict[str, Any]]:
        """The entries gathered since the last `take`."""
        taken, self._pending = self._pending, []
        return taken


class TraceWriter:
    """Writes a trace line by line; the first failure stops it and is handed to `on_failure`.

    Args:
        path: The `.jsonl` file, created or truncated when the writer opens.
        every: Trace frames ``every, 2 * every, ...`` (1: every frame).
        on_failure: Told the reason (e.g. "No space left on device") once, when a write fails.
        movers: The header's movers, in its order; each line gives where they stand.
        crowd: The scene's crowd, whose hand-offs to joint plans each line lists.
    """

    def __init__(
        self,
        path: Path,
        *,
        every: int,
        on_failure: Callable[[str], None],
        movers: Sequence[GameObject] = (),
        crowd: Crowd | None = None,
    ) -> None:
        self.path = path
        self.every = every
        self._jams = JamTracker(crowd)
        self._movers = tuple(movers)
        # The last place of each: a mover removed during the run keeps it, so columns stay put.
        self._poses = [mover_pose(mover) for mover in self._movers]
        self.lines = 0
        self._on_failure = on_failure
        self._file: IO[str] | None = None
        try:
            self._file = path.open("w", encoding="utf-8")
        except OSError as error:
            self._fail(error)

    def write_header(self, line: dict[str, Any]) -> None:
        """Write the header (call once, first)."""
        self._write(line)

    def record(self, frame: int, time_s: float, agents: Sequence[AgentController]) -> None:
        """Write frame `frame` if it is one of the traced frames (call it every frame)."""
        self._jams.gather(frame, agents)
        if frame % self.every == 0:
            for index, mover in enumerate(self._movers):
                if mover.alive:
                    self._poses[index] = mover_pose(mover)
            self._write(frame_line(frame, time_s, agents, self._poses, self._jams.take()))

    def close(self) -> None:
        """Close the file; a failure to close counts as a failed write."""
        if self._file is not None:
            try:
                self._file.close()
            except OSError as error:
                self._fail(error)
            self._file = None

    def _write(self, line: dict[str, Any]) -> None:
        if self._file is None:
            return
        try:
            self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
            self._file.flush()
        except OSError as error:
            self._fail(error)
        else:
            self.lines += 1

    def _fail(self, error: OSError) -> None:
        if self._file is not None:
            # Closing flushes what is buffered, which may fail again for the same reason.
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        self._on_failure(error.strerror or str(error))


def open_trace(
    path: Path | None,
    *,
    every: int,
    failed: Callable[..., None],
    scene: str,
    dt: float | None,
    grid: GridManager,
    agents: Sequence[AgentController],
    movers: Sequence[GameObject] = (),
) -> TraceWriter | None:
    """Open `--trace` at `path` (None: no trace) and write its header (`header`).

    The lines list the hand-offs of the scene's crowd (the `CrowdSim` object in the grid's
    world, if any). A failure to write is handed to `failed(path, reason, kind="trace")`,
    never raised.
    """
    if path is None:
        return None
    on_failure = functools.partial(failed, path, kind="trace")
    world = grid.world
    found = None if world is None else world.find(CROWD_SIM)
    sim = None if found is None else found.get_component(CrowdSim)
    crowd = None if sim is None else sim.crowd
    writer = TraceWriter(path, every=every, on_failure=on_failure, movers=movers, crowd=crowd)
    writer.write_header(header(scene, dt, grid, agents, movers))
    return writer
