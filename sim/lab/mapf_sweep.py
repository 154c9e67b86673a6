"""A ``kind = "mapf"`` sweep: every solver run on Dask, then results.csv, summary.md and plots.

Each run of the experiment (`MapfTask`: a map, a scenario file, an agent count, a solver) is
one Dask task (`run_task`); a worker reads the files itself, solves, checks the plan with
`sim.mapf.checker` and returns one `MapfLabRow`. The output folder must be new or empty (a
MAPF sweep has no ``--resume``: its runs are short and are run again). ``results.csv`` lists
the rows by map, scenario file, agents and solver, in the experiment's order.
The columns are `sim.lab.mapf_rows`'s.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from sim.bench.progress import Progress
from sim.errors import SimError
from sim.lab.mapf_experiment import MapfExperiment, MapfTask
from sim.lab.mapf_rows import MapfLabRow, format_rows, soc_ratio
from sim.lab.store import mark_sweep_folder, write_atomic
from sim.mapf import distance_tables, lower_bounds, solve
from sim.mapf.checker import check_plan, flat_to_pairs
from sim.mapf.scenario import load_problem

RESULTS: Final = "results.csv"
SUMMARY: Final = "summary.md"
PLOTS_DIR: Final = "plots"


def run_task(task: MapfTask) -> MapfLabRow:
    """Solve one run of the experiment on a worker; its row."""
    problem = load_problem(task.map_path, task.scen_path, task.agents)
    tables = distance_tables(problem)
    bounds = lower_bounds(problem, tables)
    result = solve(
        problem, task.solver, time_limit_s=task.time_limit_s, seed=task.seed, tables=tables
    )
    valid = not check_plan(problem, flat_to_pairs(problem, result.paths)) if result.solved else None
    return MapfLabRow(
        map=Path(task.map_path).name.removesuffix(".map"),
        scen=Path(task.scen_path).name,
        agents=task.agents,
        solver=task.solver,
        seed=task.seed,
        time_limit_s=task.time_limit_s,
        solved=result.solved,
        valid=valid,
        optimal=result.optimal,
        sum_of_costs=result.soc if result.solved else None,
        makespan=result.makespan if result.solved else None,
        soc_lower_bound=bounds.sum_of_costs,
        makespan_lower_bound=bounds.makespan,
        time_s=result.time_s,
    )


def run_mapf_sweep(
    experiment: MapfExperiment, out: Path, *, workers: int, scheduler: str | None, resume: bool
) -> tuple[int, tuple[Path, ...]]:
    """Run `experiment` on Dask (as `sim.lab.sweep.run_sweep`) and write its outputs into `out`.

    Returns the number of runs and the files written.

    Raises:
        SimError: a non-empty output folder or ``--resume`` (one line), or a cluster that
            cannot be reached.
        sim.lab.cluster.ChunkFailedError: a run failed on every try.
    """
    began = time.perf_counter()
    if resume:
        raise SimError("--resume: a 'mapf' experiment has no partial results; run it anew")
    if out.exists() and not out.is_dir():
        raise SimError(f"--out {out}: not a folder")
    if out.is_dir() and any(out.iterdir()):
        raise SimError(f"--out {out}: the folder is not empty; choose another folder")
    tasks = experiment.tasks()
    rows, story = _run(tasks, out, workers=workers, scheduler=scheduler)
    order = {task.key: index for index, task in enumerate(tasks)}
    rows.sort(key=lambda row: order[f"{Path(row.scen).stem}-{row.agents}-{row.solver}"])
    elapsed = time.perf_counter() - began
    return len(rows), _write_outputs(out, rows, experiment, story, elapsed)


def _run(
    tasks: list[MapfTask], out: Path, *, workers: int, scheduler: str | None
) -> tuple[list[MapfLabRow], str]:
    """Run `tasks` on the cluster; their rows (in finishing order) and the workers' story."""
    from sim.lab.cluster import open_client, run_each  # Dask: imported only to run

    rows: list[MapfLabRow] = []
    with open_client(workers=workers, scheduler=scheduler) as (client, info):
        # Only now: a cluster that cannot be reached leaves no output folder behind.
        out.mkdir(parents=True, exist_ok=True)
        mark_sweep_folder(out)
        progress = Progress(len(tasks), "sweep")

        def done(task: MapfTask, row: MapfLabRow) -> None:
            rows.append(row)
            progress.advance(1, task.key)

        try:
            run_each(client, run_task, tasks, lambda task: f"run {task.key}", done)
        finally:
            progress.close()
    where = "local worker processes" if info.local else f"workers of {info.scheduler}"
    return rows, f"{info.workers} {where} ({info.threads} threads)"


def _write_outputs(
    out: Path, rows: list[MapfLabRow], experiment: MapfExperiment, workers: str, elapsed: float
) -> tuple[Path, ...]:
    from sim.lab.mapf_plots import write_mapf_plots  # matplotlib: imported only to draw

    write_atomic(out / RESULTS, format_rows(rows))
    write_atomic(out / SUMMARY, format_summary(rows, experiment, workers, elapsed))
    plots = write_mapf_plots(rows, out / PLOTS_DIR, experiment.name)
    return (out / RESULTS, out / SUMMARY, *plots)


def format_summary(
    rows: Sequence[MapfLabRow], experiment: MapfExperiment, workers: str, elapsed_s: float
) -> str:
    """summary.md: how it ran, then per map, solver and agents: solved, time, cost / bound."""
    lines = [
        f"# Sweep {experiment.name} (MAPF)",
        "",
        f"Experiment file `{os.fspath(experiment.source)}`; {len(rows)} solver runs on {workers}"
        f" in {elapsed_s:.1f} s; time limit {experiment.time_limit_s:g} s per run, seed "
        f"{experiment.seed}.",
        "",
        "| map | solver | agents | runs | solved | invalid | median time s | mean SoC / bound |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    groups: dict[tuple[str, str, int], list[MapfLabRow]] = {}
    for row in rows:
        groups.setdefault((row.map, row.solver, row.agents), []).append(row)
    for (map_name, solver, agents), group in groups.items():
        solved = [row for row in group if row.solved]
        median = f"{statistics.median([r.time_s for r in solved]):.4f}" if solved else "-"
        ratios = [soc_ratio(row) for row in solved]
        mean = f"{sum(ratios) / len(ratios):.3f}" if ratios else "-"
        invalid = sum(1 for row in group if row.valid is False)
        lines.append(
            f"| {map_name} | {solver} | {agents} | {len(group)} | "
            f"{len(solved) / len(group):.0%} | {invalid} | {median} | {mean} |"
        )
    return "\n".join(lines) + "\n"
