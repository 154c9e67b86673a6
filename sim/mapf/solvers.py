"""One interface to every solver: a problem, a time limit and a seed in, a `MapfResult` out.

``pibt`` runs PIBT once (fast, may fail), ``lacam`` LaCAM* (complete and anytime: it keeps
improving its plan until the time limit, and says when it proved it optimal; with
``first_plan`` it returns its first plan instead), ``cbs``
Conflict-Based Search (optimal sum of costs, for small instances). PIBT and LaCAM* run in C
when the extension is built (``implementation="auto"``); their Python references give the
same plans for the same seed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.mapf import native
from sim.mapf.cbs import cbs
from sim.mapf.lacam import lacam, max_nodes, sum_of_loss
from sim.mapf.pibt import MAX_STEPS_PER_CELL, pibt_configs
from sim.mapf.problem import MapfProblem, distance_tables, paths_from_configs, plan_costs

SOLVERS = ("lacam", "pibt", "cbs")


@dataclass(frozen=True, slots=True)
class MapfResult:
    """A solver's answer.

    Attributes:
        solver: its name.
        solved: a plan was found within the limit.
        paths: per agent, one cell per time step from time 0, all the same length; empty
            when not solved.
        soc: sum of costs (each agent's last arrival at its goal); 0 when not solved.
        makespan: the largest of those costs; 0 when not solved.
        time_s: wall-clock seconds spent, distance tables included.
        optimal: the solver proved `soc` optimal (cbs always when solved; lacam when its
            search space ran out, see `sim.mapf.lacam`).
    """

    solver: str
    solved: bool
    paths: tuple[tuple[int, ...], ...]
    soc: int
    makespan: int
    time_s: float
    optimal: bool = False


def solve(
    problem: MapfProblem,
    solver: str = "lacam",
    *,
    time_limit_s: float = 10.0,
    seed: int = 0,
    implementation: str = "auto",
    tables: NDArray[np.int32] | None = None,
    first_plan: bool = False,
) -> MapfResult:
    """Run `solver` on `problem` for at most about `time_limit_s` seconds.

    Args:
        problem: the instance.
        solver: one of `SOLVERS`.
        time_limit_s: seconds, > 0.
        seed: the random stream's seed; the same seed gives the same plan (time permitting).
        implementation: "auto", "c" or "python" for pibt and lacam (cbs is Python only).
        tables: `distance_tables(problem)` when the caller has them already.
        first_plan: lacam stops at its first plan rather than improving it until the time
            limit (pibt and cbs always stop at theirs).

    Raises:
        ValueError: for an unknown solver or implementation, or a time limit that is not > 0.

    >>> problem = MapfProblem.from_cells(np.ones((1, 4), bool), [(0, 0)], [(0, 3)])
    >>> result = solve(problem, "lacam", time_limit_s=1.0)
    >>> result.solved, result.paths, result.soc, result.optimal
    (True, ((0, 1, 2, 3),), 3, True)
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    if not time_limit_s > 0:
        raise ValueError(f"time limit must be > 0 seconds, got {time_limit_s}")
    use_c = native.choose(implementation)
    if problem.links:
        if implementation == "c":
            raise ValueError("the compiled solvers know no links; use implementation='python'")
        use_c = False
    began = time.perf_counter()
    if tables is None:
        tables = distance_tables(problem, implementation=implementation)
    left_s = max(0.0, time_limit_s - (time.perf_counter() - began))
    optimal = False
    configs: Sequence[Sequence[int]] | None
    if solver == "pibt":
        if use_c:
            steps = MAX_STEPS_PER_CELL * int(problem.walkable.sum())
            configs = native.pibt_configs(
                problem, tables, time_limit_s=left_s, seed=seed, max_steps=steps
            )
        else:
            configs = pibt_configs(problem, tables, time_limit_s=left_s, seed=seed)
        paths = () if configs is None else paths_from_configs(configs)
    elif solver == "lacam":
        if use_c:
            configs, exhausted, _ = native.lacam_configs(
                problem,
                tables,
                time_limit_s=left_s,
                seed=seed,
                max_nodes=max_nodes(problem.agents),
                first_plan=first_plan,
            )
        else:
            outcome = lacam(problem, tables, time_limit_s=left_s, seed=seed, first_plan=first_plan)
            configs, exhausted = outcome.configs, outcome.exhausted
        paths = paths_from_configs(configs)
        # Optimal for the sum of loss, and so for the sum of costs when the two agree.
        optimal = (
            bool(paths)
            and exhausted
            and sum_of_loss(configs, problem.goals) == plan_costs(problem, paths)[0]
        )
    else:
        paths = _padded(cbs(problem, tables, time_limit_s=left_s).paths)
        optimal = bool(paths)
    elapsed = time.perf_counter() - began
    if not paths:
        return MapfResult(solver, False, (), 0, 0, elapsed)
    soc, makespan = plan_costs(problem, paths)
    return MapfResult(solver, True, paths, soc, makespan, elapsed, optimal)


def _padded(paths: Sequence[tuple[int, ...]]) -> tuple[tuple[int, ...], ...]:
    """Paths of one length: each agent waits at its last cell until the longest ends."""
    length = max((len(path) for path in paths), default=0)
    return tuple(path + (path[-1],) * (length - len(path)) for path in paths)
