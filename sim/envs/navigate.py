"""``gridpath/Navigate-v0``: one agent walks a scene's or a map's grid to its goal.

Observations are a dict: ``obstacles`` and ``costs``, the ``(2R + 1) x (2R + 1)`` window around
the agent (`sim.envs.observe`: 1.0 where blocked or off the grid; each cell's entry cost, 0 where
blocked), ``goal``, the goal's offset ``(d_row, d_col)`` from the agent, and with
``full_grid=True`` ``grid``, the whole grid's blocked cells. Actions are `sim.envs.steps`' (0
waits). The reward is `sim.envs.rewards`'. An episode terminates at the goal and is truncated
after ``max_steps`` steps (default: four times the grid's rows plus columns). ``info`` carries
``action_mask`` (which actions the cell allows), ``cell`` and ``cost`` (the path's cost so far,
in `find_path`'s units).

Start and goal: ``start=`` and ``goal=`` if given; else the scene's Start and End (or the
scenario line of ``scen=``, ``index=``); else a random pair from the seeded generator on every
reset (`sim.envs.pairs`), as also with ``random_pairs=True``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from sim.envs.observe import Windows
from sim.envs.pairs import random_pairs
from sim.envs.rewards import Rewards, grid_distance
from sim.envs.source import EnvError, GridSource, open_source
from sim.envs.steps import StepTable
from sim.navigation import Cell, DiagonalRule

RENDER_MODES = ("rgb_array", "human")
DEFAULT_RENDER_SIZE = (480, 360)


class NavigateEnv(gym.Env[dict[str, NDArray[Any]], np.int64]):
    """One agent on one grid (see the module for observations, actions and rewards).

    Args:
        scene: a scene TOML file, or None.
        map: a Moving AI ``.map`` file, or None (neither: the default scene).
        scen: with `map`, a scenario file fixing the pair on line `index`.
        index: that line, from 0.
        diagonal: a diagonal rule name overriding the source's ("never": axis steps only).
        obs_radius: R, the window's radius, >= 1.
        full_grid: also observe the whole grid.
        start: a fixed start cell ``(row, col)``, or None.
        goal: a fixed goal cell, or None.
        random_pairs: draw a new pair every reset even when the source fixes one.
        max_steps: steps before truncation (default ``4 * (rows + cols)``).
        goal_reward: see `sim.envs.rewards`.
        progress_weight: see `sim.envs.rewards`.
        step_cost: see `sim.envs.rewards`.
        render_mode: None, "rgb_array" (the 3D scene as an array) or "human" (a window).
        render_size: the rendered image's ``(width, height)`` in pixels.

    Raises:
        EnvError: naming the argument, for anything that cannot make the environment.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 8}  # noqa: RUF012 - gymnasium's

    def __init__(
        self,
        scene: str | Path | None = None,
        map: str | Path | None = None,
        *,
        scen: str | Path | None = None,
        index: int = 0,
        diagonal: str | None = None,
        obs_radius: int = 5,
        full_grid: bool = False,
        start: Cell | None = None,
        goal: Cell | None = None,
        random_pairs: bool = False,
        max_steps: int | None = None,
        goal_reward: float = 1.0,
        progress_weight: float = 0.1,
        step_cost: float = 0.01,
        render_mode: str | None = None,
        render_size: tuple[int, int] = DEFAULT_RENDER_SIZE,
    ) -> None:
        self.source: GridSource = open_source(scene, map, scen=scen, index=index, diagonal=diagonal)
        self.obs_radius = check_radius(obs_radius)
        self.render_mode = check_render_mode(render_mode)
        self.rewards = Rewards(goal_reward, progress_weight, step_cost)
        rows, cols = self.source.shape
        self.max_steps = check_max_steps(max_steps, 4 * (rows + cols))
        self._fixed = self._fixed_pair(start, goal, random_pairs)
        self.steps = StepTable(self.source.walkable, self.source.costs, self.source.rule)
        self._windows = Windows(self.obs_radius, ~self.source.walkable, self.source.costs)
        self._diagonal = self.source.rule is not DiagonalRule.NEVER
        self._full_grid = full_grid
        self.action_space = spaces.Discrete(self.steps.count)
        # A Dict space is a Space of dicts; gymnasium's stubs do not say so.
        self.observation_space = cast(
            spaces.Space[dict[str, NDArray[Any]]],
            observation_space(self.obs_radius, rows, cols, full_grid),
        )
        self._render_size = render_size
        self._view: Any = None
        self.position: Cell = (0, 0)
        self.goal: Cell = (0, 0)
        self.elapsed = 0
        self.path_cost = 0.0

    def _fixed_pair(
        self, start: Cell | None, goal: Cell | None, random_pairs: bool
    ) -> tuple[Cell, Cell] | None:
        if (start is None) != (goal is None):
            raise EnvError("give both start and goal, or neither")
        if start is not None and goal is not None:
            pair = (check_cell(self.source, "start", start), check_cell(self.source, "goal", goal))
            if self.source.regions[pair[0]] != self.source.regions[pair[1]]:
                raise EnvError(f"goal {pair[1]} cannot be reached from start {pair[0]}")
            return pair
        if random_pairs:
            return None
        return self.source.fixed_pair

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        """Start an episode: a new pair unless the source or the arguments fix it."""
        super().reset(seed=seed)
        if self._fixed is not None:
            self.position, self.goal = self._fixed
        else:
            starts, goals = random_pairs(self.source, self.np_random, 1)
            cols = self.source.shape[1]
            self.position = divmod(int(starts[0]), cols)
            self.goal = divmod(int(goals[0]), cols)
        self.elapsed = 0
        self.path_cost = 0.0
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[dict[str, NDArray[Any]], float, bool, bool, dict[str, Any]]:
        """Take one action; returns ``(observation, reward, terminated, truncated, info)``."""
        if not self.action_space.contains(np.int64(action)):
            raise EnvError(f"action must be an integer 0..{self.steps.count - 1}, got {action!r}")
        rows, cols, actions = self._arrays(int(action))
        new_rows, new_cols, legal = self.steps.apply(rows, cols, actions)
        cost = self.steps.cost(rows, cols, np.where(legal, actions, 0))
        goal_rows, goal_cols = np.array([self.goal[0]]), np.array([self.goal[1]])
        before = grid_distance(rows, cols, goal_rows, goal_cols, diagonal=self._diagonal)
        after = grid_distance(new_rows, new_cols, goal_rows, goal_cols, diagonal=self._diagonal)
        self.position = (int(new_rows[0]), int(new_cols[0]))
        arrived = self.position == self.goal
        reward = self.rewards.pay(before, after, cost, np.array([arrived]))
        self.elapsed += 1
        self.path_cost += float(cost[0])
        truncated = not arrived and self.elapsed >= self.max_steps
        if self.render_mode == "human":
            self.render()
        return self._observe(), float(reward[0]), arrived, truncated, self._info()

    def _arrays(
        self, action: int
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        return (
            np.array([self.position[0]], dtype=np.int64),
            np.array([self.position[1]], dtype=np.int64),
            np.array([action], dtype=np.int64),
        )

    def _observe(self) -> dict[str, NDArray[Any]]:
        rows, cols, _ = self._arrays(0)
        observation = {
            "obstacles": self._windows.blocked(rows, cols)[0],
            "costs": self._windows.costs(rows, cols)[0],
            "goal": np.array(
                [self.goal[0] - self.position[0], self.goal[1] - self.position[1]],
                dtype=np.float32,
            ),
        }
        if self._full_grid:
            observation["grid"] = (~self.source.walkable).astype(np.float32)
        return observation

    def _info(self) -> dict[str, Any]:
        rows, cols, _ = self._arrays(0)
        return {
            "action_mask": self.steps.allowed(rows, cols)[0].astype(np.int8),
            "cell": self.position,
            "cost": self.path_cost,
        }

    def render(self) -> NDArray[np.uint8] | None:
        """The 3D scene with the agent and its goal: an array ("rgb_array") or a window frame."""
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: make the env with render_mode=...")
            return None
        if self._view is None:
            from sim.envs.view import SceneView

            self._view = SceneView(self.source, self.render_mode, self._render_size)
        frame: NDArray[np.uint8] = self._view.frame([self.position], [self.goal])
        return frame if self.render_mode == "rgb_array" else None

    def close(self) -> None:
        """Close the 3D view if one is open."""
        if self._view is not None:
            self._view.close()
            self._view = None


def observation_space(radius: int, rows: int, cols: int, full_grid: bool) -> spaces.Dict:
    """The Navigate observation's space (see the module)."""
    size = 2 * radius + 1
    parts: dict[str, spaces.Space[Any]] = {
        "obstacles": spaces.Box(0.0, 1.0, (size, size), np.float32),
        "costs": spaces.Box(0.0, 100.0, (size, size), np.float32),
        "goal": spaces.Box(
            np.array([-(rows - 1), -(cols - 1)], dtype=np.float32),
            np.array([rows - 1, cols - 1], dtype=np.float32),
            dtype=np.float32,
        ),
    }
    if full_grid:
        parts["grid"] = spaces.Box(0.0, 1.0, (rows, cols), np.float32)
    return spaces.Dict(parts)


def check_radius(radius: object) -> int:
    """`radius` if it is a whole number >= 1, else an EnvError."""
    if isinstance(radius, bool) or not isinstance(radius, int | np.integer) or radius < 1:
        raise EnvError(f"obs_radius must be a whole number >= 1, got {radius!r}")
    return int(radius)


def check_render_mode(mode: str | None) -> str | None:
    """`mode` if None or one of `RENDER_MODES`, else an EnvError."""
    if mode is not None and mode not in RENDER_MODES:
        raise EnvError(
            f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {mode!r}"
        )
    return mode


def check_max_steps(value: object, default: int) -> int:
    """`value` (or `default` when None) if a whole number >= 1, else an EnvError."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise EnvError(f"max_steps must be a whole number >= 1, got {value!r}")
    return int(value)


def check_cell(source: GridSource, name: str, cell: object) -> Cell:
    """`cell` as ``(row, col)`` if it is a walkable cell of `source`, else an EnvError."""
    if not (isinstance(cell, tuple | list) and len(cell) == 2):
        raise EnvError(f"{name} must be a cell (row, col), got {cell!r}")
    row, col = (int(value) for value in cell)
    rows, cols = source.shape
    if not (0 <= row < rows and 0 <= col < cols) or not source.walkable[row, col]:
        raise EnvError(f"{name} {cell!r} is not a walkable cell of {source.name}")
    return row, col
