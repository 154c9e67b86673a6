"""`parallel_env`: K agents on one grid, a PettingZoo ``ParallelEnv`` in POGEMA's manner.

Each agent observes a ``(3, 2R + 1, 2R + 1)`` float32 stack around itself: obstacles (1.0 where
blocked or off the grid), the other agents on the grid, and its own target (its cell, or the
window's edge toward it: `sim.envs.observe.Windows.targets`). Actions are `sim.envs.steps`'; all
agents move at once and `sim.envs.collisions` stops the later mover of a vertex or swap
conflict. Rewards are `sim.envs.rewards`', per agent. An agent that reaches its target
terminates and leaves the grid (POGEMA's ``on_target="finish"``); the others are truncated after
``max_steps`` steps.

At the episode's end every agent's last ``info`` holds ``metrics``, named as POGEMA names them:
``ISR`` (the share of agents that reached their targets), ``CSR`` (1.0 when all did, else 0.0),
``SoC`` (the sum over agents of the step at which each finished, or the episode's length for one
that did not) and ``makespan`` (the last finish, or the episode's length).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import ParallelEnv

from sim.envs.collisions import resolve
from sim.envs.navigate import (
    DEFAULT_RENDER_SIZE,
    RENDER_MODES,
    check_max_steps,
    check_radius,
    check_render_mode,
)
from sim.envs.observe import Windows
from sim.envs.pairs import random_pairs
from sim.envs.rewards import Rewards, grid_distance
from sim.envs.source import EnvError, GridSource, open_source
from sim.envs.steps import StepTable
from sim.navigation import DiagonalRule
from sim.navigation.maps.movingai import MapFormatError, read_scenarios

AgentId = str


# PettingZoo ships no type information, so its base class is Any to mypy.
class GridpathParallelEnv(ParallelEnv[AgentId, NDArray[np.float32], np.int64]):  # type: ignore[misc]
    """K agents on one grid (see the module). Build it with `parallel_env`."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "gridpath_parallel_v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 8,
    }

    def __init__(
        self,
        scene: str | Path | None = None,
        map: str | Path | None = None,
        *,
        agents: int = 8,
        obs_radius: int = 5,
        scen: str | Path | None = None,
        diagonal: str | None = None,
        max_steps: int | None = None,
        goal_reward: float = 1.0,
        progress_weight: float = 0.1,
        step_cost: float = 0.01,
        render_mode: str | None = None,
        render_size: tuple[int, int] = DEFAULT_RENDER_SIZE,
        implementation: str = "auto",
    ) -> None:
        self._kernel = kernel_for(implementation)
        if isinstance(agents, bool) or not isinstance(agents, int | np.integer) or agents < 1:
            raise EnvError(f"agents must be a whole number >= 1, got {agents!r}")
        self.source: GridSource = open_source(scene, map, diagonal=diagonal)
        self.obs_radius = check_radius(obs_radius)
        self.render_mode = check_render_mode(render_mode)
        self.rewards = Rewards(goal_reward, progress_weight, step_cost)
        rows, cols = self.source.shape
        self.max_steps = check_max_steps(max_steps, 4 * (rows + cols))
        free = int(self.source.walkable.sum())
        if agents > free:
            raise EnvError(f"{agents} agents do not fit on {self.source.name}'s {free} free cells")
        self._scen_pairs = _scenario_pairs(self.source, scen, int(agents))
        self.steps = StepTable(self.source.walkable, self.source.costs, self.source.rule)
        self._windows = Windows(self.obs_radius, ~self.source.walkable, self.source.costs)
        self._diagonal = self.source.rule is not DiagonalRule.NEVER
        self.possible_agents = [f"agent_{i}" for i in range(int(agents))]
        self.agents: list[AgentId] = []
        size = 2 * self.obs_radius + 1
        self._observation_space = spaces.Box(0.0, 1.0, (3, size, size), np.float32)
        self._action_space = spaces.Discrete(self.steps.count)
        self._render_size = render_size
        self._view: Any = None
        self._rng = np.random.default_rng()
        count = int(agents)
        self.positions = np.zeros(count, dtype=np.int64)
        self.goals = np.zeros(count, dtype=np.int64)
        self.active = np.zeros(count, dtype=bool)
        self.finished_at = np.zeros(count, dtype=np.int64)
        self._goal_rows, self._goal_cols = np.divmod(self.goals, self.source.shape[1])
        self.elapsed = 0
        self.metrics: dict[str, float] | None = None
        # Where the agents stand, padded like the windows and kept up to date move by move.
        self._occupied = self._windows.pad(np.zeros(self.source.shape, dtype=np.float32))
        self._occupied_views = self._windows.views(self._occupied)
        # The kernel's cell -> agent tables, -1 between steps.
        self._owner = np.full(self.source.walkable.size, -1, dtype=np.int32)
        self._at = np.full(self.source.walkable.size, -1, dtype=np.int32)

    def observation_space(self, agent: AgentId) -> spaces.Box:
        """Every agent's: ``(3, 2R + 1, 2R + 1)`` float32 in [0, 1]."""
        return self._observation_space

    def action_space(self, agent: AgentId) -> spaces.Discrete:
        """Every agent's: `sim.envs.steps`' actions."""
        return self._action_space

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[AgentId, NDArray[np.float32]], dict[AgentId, dict[str, Any]]]:
        """Start an episode: the scenario's pairs, or new random ones from the seeded stream."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if self._scen_pairs is not None:
            self.positions, self.goals = (array.copy() for array in self._scen_pairs)
        else:
            self.positions, self.goals = random_pairs(
                self.source, self._rng, len(self.possible_agents)
            )
        self._goal_rows, self._goal_cols = np.divmod(self.goals, self.source.shape[1])
        self.active = np.ones(len(self.possible_agents), dtype=bool)
        self.finished_at = np.zeros(len(self.possible_agents), dtype=np.int64)
        self.elapsed = 0
        self.metrics = None
        self.agents = list(self.possible_agents)
        self._occupied[:] = 0.0
        self._occupy(self.positions, 1.0)
        if self.render_mode == "human":
            self.render()
        return self._observe(), {agent: {} for agent in self.agents}

    def _occupy(self, cells: NDArray[np.int64], value: float) -> None:
        rows, cols = np.divmod(cells, self.source.shape[1])
        self._occupied[rows + self.obs_radius, cols + self.obs_radius] = value

    def step(
        self, actions: dict[AgentId, Any]
    ) -> tuple[
        dict[AgentId, NDArray[np.float32]],
        dict[AgentId, float],
        dict[AgentId, bool],
        dict[AgentId, bool],
        dict[AgentId, dict[str, Any]],
    ]:
        """Move every live agent at once (missing actions wait); PettingZoo's five dicts."""
        live = np.flatnonzero(self.active)
        names = [self.possible_agents[i] for i in live.tolist()]
        chosen = _actions([actions.get(name, 0) for name in names], self.steps.count)
        here = self.positions[live]
        if self._kernel is not None:
            final, paid, arrived = self._step_c(here, live, chosen)
        else:
            final, paid, arrived = self._step_numpy(here, live, chosen)
        self.positions[live] = final
        self.elapsed += 1
        self.finished_at[live[arrived]] = self.elapsed
        self.active[live[arrived]] = False
        out_of_time = self.elapsed >= self.max_steps
        observations = self._observe(live)
        reached = arrived.tolist()
        rewards = dict(zip(names, paid.tolist(), strict=True))
        terminations = dict(zip(names, reached, strict=True))
        truncations = {
            name: out_of_time and not done for name, done in zip(names, reached, strict=True)
        }
        infos: dict[AgentId, dict[str, Any]] = {name: {} for name in names}
        if out_of_time:
            self.active[:] = False
        if not self.active.any():
            self.metrics = self._metrics()
            for info in infos.values():
                info["metrics"] = self.metrics
        if out_of_time or any(reached):
            self.agents = [self.possible_agents[i] for i in np.flatnonzero(self.active).tolist()]
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _step_c(
        self, here: NDArray[np.int64], live: NDArray[np.int64], chosen: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]]:
        """One step in `_env_kernel`: the same cells, rewards and occupancy as `_step_numpy`."""
        count = len(here)
        final = np.empty(count, dtype=np.int64)
        cost = np.empty(count, dtype=np.float64)
        paid = np.empty(count, dtype=np.float64)
        arrived = np.empty(count, dtype=bool)
        rows, cols = self.source.shape
        rewards = self.rewards
        assert self._kernel is not None
        self._kernel.step(
            self.steps.open_padded,
            self.steps.costs_padded,
            rows,
            cols,
            self.steps.rule_code,
            self.steps.deltas,
            self.steps.lengths,
            here,
            self.goals[live],
            chosen,
            self._occupied,
            self.obs_radius,
            float(rewards.goal_reward),
            float(rewards.progress_weight),
            float(rewards.step_cost),
            int(self._diagonal),
            self._owner,
            self._at,
            final,
            cost,
            paid,
            arrived,
        )
        return final, paid, arrived

    def _step_numpy(
        self, here: NDArray[np.int64], live: NDArray[np.int64], chosen: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]]:
        """One step with numpy: the reference the kernel matches."""
        cols = self.source.shape[1]
        rows, columns = np.divmod(here, cols)
        new_rows, new_cols, _ = self.steps.apply(rows, columns, chosen)
        final = resolve(here, new_rows * cols + new_cols)
        moved = final != here
        cost = self.steps.cost(rows, columns, chosen * moved)
        goal_rows, goal_cols = self._goal_rows[live], self._goal_cols[live]
        end_rows, end_cols = np.divmod(final, cols)
        before = grid_distance(rows, columns, goal_rows, goal_cols, diagonal=self._diagonal)
        after = grid_distance(end_rows, end_cols, goal_rows, goal_cols, diagonal=self._diagonal)
        arrived = final == self.goals[live]
        paid = self.rewards.pay(before, after, cost, arrived)
        if moved.any() or arrived.any():
            self._occupy(here, 0.0)
            self._occupy(final[~arrived], 1.0)  # who arrives leaves the grid
        return final, paid, arrived

    def _observe(
        self, which: NDArray[np.int64] | None = None
    ) -> dict[AgentId, NDArray[np.float32]]:
        """Observations of agents `which` (default: the live ones), on the live agents' grid."""
        which = np.flatnonzero(self.active) if which is None else which
        size = 2 * self.obs_radius + 1
        stack = np.empty((len(which), 3, size, size), dtype=np.float32)
        if self._kernel is not None:
            rows_all, cols_all = self.source.shape
            self._kernel.observe(
                self._windows.blocked_padded,
                self._occupied,
                rows_all,
                cols_all,
                self.obs_radius,
                self.positions[which],
                self.goals[which],
                stack,
            )
            return {self.possible_agents[i]: stack[k] for k, i in enumerate(which.tolist())}
        cols_all = self.source.shape[1]
        rows, cols = np.divmod(self.positions[which], cols_all)
        goal_rows, goal_cols = self._goal_rows[which], self._goal_cols[which]
        stack[:, 0] = self._windows.blocked(rows, cols)
        stack[:, 1] = self._occupied_views[rows, cols]
        stack[:, 1, self.obs_radius, self.obs_radius] = 0.0
        stack[:, 2] = self._windows.targets(rows, cols, goal_rows, goal_cols)
        return {self.possible_agents[i]: stack[k] for k, i in enumerate(which.tolist())}

    def _metrics(self) -> dict[str, float]:
        reached = self.finished_at > 0
        finish = np.where(reached, self.finished_at, self.elapsed)
        return {
            "ISR": float(reached.mean()),
            "CSR": float(reached.all()),
            "SoC": float(finish.sum()),
            "makespan": float(finish.max()),
        }

    def render(self) -> NDArray[np.uint8] | None:
        """The 3D scene with every agent still on the grid and its target."""
        if self.render_mode is None:
            return None
        if self._view is None:
            from sim.envs.view import SceneView

            self._view = SceneView(self.source, self.render_mode, self._render_size)
        cols = self.source.shape[1]
        live = np.flatnonzero(self.active)
        cells = [divmod(int(cell), cols) for cell in self.positions[live]]
        goals = [divmod(int(cell), cols) for cell in self.goals[live]]
        frame: NDArray[np.uint8] = self._view.frame(cells, goals)
        return frame if self.render_mode == "rgb_array" else None

    def close(self) -> None:
        """Close the 3D view if one is open."""
        if self._view is not None:
            self._view.close()
            self._view = None


def kernel_for(implementation: str) -> ModuleType | None:
    """The C kernel for "c" (an EnvError when not built) or "auto" (when built); None: numpy."""
    if implementation not in ("auto", "c", "python"):
        raise EnvError(f"implementation must be auto, c or python, got {implementation!r}")
    if implementation == "python":
        return None
    try:
        from sim.envs import _env_kernel
    except ImportError as error:
        if implementation == "c":
            message = f"implementation='c' but sim.envs._env_kernel is not built: {error}"
            raise EnvError(message) from None
        return None
    return _env_kernel


def parallel_env(
    scene: str | Path | None = None,
    map: str | Path | None = None,
    **options: Any,
) -> GridpathParallelEnv:
    """Make the multi-agent environment (see the module; options as `GridpathParallelEnv`).

    >>> env = parallel_env(agents=2, obs_radius=2)
    >>> observations, infos = env.reset(seed=0)
    >>> sorted(observations), observations["agent_0"].shape
    (['agent_0', 'agent_1'], (3, 5, 5))
    """
    return GridpathParallelEnv(scene, map, **options)


def _actions(values: list[Any], count: int) -> NDArray[np.int64]:
    """The live agents' actions as one array, checked all at once."""
    chosen = np.asarray(values) if values else np.zeros(0, dtype=np.int64)
    if chosen.dtype.kind not in "iu" or ((chosen < 0) | (chosen >= count)).any():
        bad = next(
            value
            for value in values
            if isinstance(value, bool)
            or not isinstance(value, int | np.integer)
            or not 0 <= value < count
        )
        raise EnvError(f"an action must be an integer 0..{count - 1}, got {bad!r}")
    return chosen.astype(np.int64, copy=False)


def _scenario_pairs(
    source: GridSource, scen: str | Path | None, count: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]] | None:
    if scen is None:
        return None
    if not source.map_cells_flipped:
        raise EnvError("scen goes with a map, not a scene")
    try:
        lines = read_scenarios(scen)
    except (MapFormatError, OSError) as error:
        raise EnvError(f"scen {scen}: {error}") from None
    if len(lines) < count:
        raise EnvError(f"scen {scen} has {len(lines)} lines, fewer than {count} agents")
    cols = source.shape[1]
    starts = np.array([line.start_y * cols + line.start_x for line in lines[:count]])
    goals = np.array([line.goal_y * cols + line.goal_x for line in lines[:count]])
    walkable = source.walkable.reshape(-1)
    if not (walkable[starts].all() and walkable[goals].all()):
        raise EnvError(f"scen {scen} puts an agent on a blocked cell of {source.name}")
    if len(set(starts.tolist())) < count or len(set(goals.tolist())) < count:
        raise EnvError(f"scen {scen}: two of the first {count} agents share a start or a goal")
    return starts.astype(np.int64), goals.astype(np.int64)
