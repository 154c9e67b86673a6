"""The compiled kernels (``_mapf.c``) behind the same calls as the Python references.

`choose` says whether to run them: "c" demands them, "python" refuses them, "auto" takes them
when built. Each wrapper turns a `MapfProblem` into the buffers the kernel reads and its bytes
back into arrays; the kernels draw from the same random stream as the references, so both
return the same plans.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray


class MapfProblem(Protocol):
    """What the kernels read of `sim.mapf.problem.MapfProblem`.

    Named here because problem.py calls in here for its tables: importing it back would close
    a circle.
    """

    @property
    def walkable(self) -> NDArray[np.bool_]:
        """``[row, col]`` True where free."""

    @property
    def height(self) -> int:
        """Rows."""

    @property
    def width(self) -> int:
        """Columns."""

    @property
    def connectivity(self) -> int:
        """4, or 8 with diagonal steps."""

    @property
    def agents(self) -> int:
        """How many agents."""

    @property
    def starts(self) -> tuple[int, ...]:
        """Each agent's start, a flat cell."""

    @property
    def goals(self) -> tuple[int, ...]:
        """Each agent's goal, a flat cell."""


_kernel: Any
try:
    from sim.mapf import _mapf as _kernel
except ImportError:  # not built: the Python references do the work
    _kernel = None

IMPLEMENTATIONS = ("auto", "c", "python")


def available() -> bool:
    """True when the compiled extension is built."""
    return _kernel is not None


def choose(implementation: str) -> bool:
    """True to run the compiled kernel for `implementation` ("auto", "c" or "python").

    Raises:
        ValueError: for another name, or "c" when the extension is not built.

    >>> choose("python")
    False
    """
    if implementation not in IMPLEMENTATIONS:
        raise ValueError(f"implementation must be one of {IMPLEMENTATIONS}, got {implementation!r}")
    if implementation == "c" and _kernel is None:
        raise ValueError("implementation 'c' asked for, but sim.mapf._mapf is not built")
    return implementation != "python" and _kernel is not None


def _grid_args(problem: MapfProblem) -> tuple[bytes, int, int, int]:
    return (
        problem.walkable.astype(np.uint8).tobytes(),
        problem.height,
        problem.width,
        problem.connectivity,
    )


def _cells(cells: tuple[int, ...]) -> bytes:
    return np.asarray(cells, dtype=np.int32).tobytes()


def distance_tables(problem: MapfProblem) -> NDArray[np.int32]:
    """`sim.mapf.problem.distance_tables` by breadth-first search in C."""
    raw = _kernel.distances(*_grid_args(problem), _cells(problem.goals))
    return np.frombuffer(raw, dtype=np.int32).reshape(problem.agents, problem.walkable.size)


def pibt_configs(
    problem: MapfProblem,
    tables: NDArray[np.int32],
    *,
    time_limit_s: float,
    seed: int,
    max_steps: int,
) -> list[list[int]] | None:
    """`sim.mapf.pibt.pibt_configs` in C (`max_steps` its step limit)."""
    solved, raw = _kernel.pibt(
        *_grid_args(problem),
        _cells(problem.starts),
        _cells(problem.goals),
        np.ascontiguousarray(tables, dtype=np.int32),
        seed,
        time_limit_s,
        max_steps,
    )
    if not solved:
        return None
    configs: list[list[int]] = (
        np.frombuffer(raw, dtype=np.int32).reshape(-1, problem.agents).tolist()
    )
    return configs


def lacam_configs(
    problem: MapfProblem,
    tables: NDArray[np.int32],
    *,
    time_limit_s: float,
    seed: int,
    max_nodes: int,
    first_plan: bool = False,
) -> tuple[list[list[int]], bool, int]:
    """`sim.mapf.lacam.lacam` in C: the configurations, whether exhausted, nodes generated."""
    exhausted, nodes, raw = _kernel.lacam(
        *_grid_args(problem),
        _cells(problem.starts),
        _cells(problem.goals),
        np.ascontiguousarray(tables, dtype=np.int32),
        seed,
        time_limit_s,
        max_nodes,
        first_plan,
    )
    configs: list[list[int]] = (
        np.frombuffer(raw, dtype=np.int32).reshape(-1, max(1, problem.agents)).tolist()
    )
    return configs, bool(exhausted), int(nodes)
