"""`sim sweep`'s work: read the experiment, run its chunks on Dask, write the outputs.

In order: the experiment file and every map are checked; the output folder must be new or
empty, or, when resuming, one a sweep made (`sim.lab.store.is_sweep_folder`); the cluster is
reached (nothing is written before all that passed); generated maps are written to
``OUT/maps``; the chunks not already in ``OUT/partial`` run on the cluster, each saved there as
it finishes; then ``OUT/results.csv`` (rows sorted by map, search and scenario, in the
experiment's order, so two runs differ only in their times), ``OUT/summary.md`` and
``OUT/plots/*.png`` are written from the chunks.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sim.bench.progress import Progress
from sim.errors import SimError
from sim.lab.chunks import Chunk, make_chunks
from sim.lab.experiment import experiment_kind, parse_experiment, read_document
from sim.lab.mapf_experiment import parse_mapf_experiment
from sim.lab.maps import PreparedMap, prepare_maps, write_generated
from sim.lab.rows import Row, format_rows
from sim.lab.store import (
    PARTIAL_DIR,
    ChunkStore,
    is_sweep_folder,
    mark_sweep_folder,
    write_atomic,
)
from sim.lab.summary import RunFacts, format_summary

MAPS_DIR: Final = "maps"
RESULTS: Final = "results.csv"
SUMMARY: Final = "summary.md"
PLOTS_DIR: Final = "plots"


@dataclass(frozen=True, slots=True)
class SweepSettings:
    """How to run a sweep (the command line's options).

    Attributes:
        experiment: the experiment file.
        out: the output folder.
        workers: worker processes of the local cluster.
        scheduler: an existing cluster's scheduler address, or None for a local cluster.
        resume: whether to keep the finished chunks of an earlier run in `out`.
        block: scenarios per chunk, or None for the rule in `sim.lab.chunks`.
        note: told, in one line, when the local cluster gets fewer workers than `workers`
            because fewer chunks are left to run (a worker without one would only start).
    """

    experiment: Path
    out: Path
    workers: int
    scheduler: str | None = None
    resume: bool = False
    block: int | None = None
    note: Callable[[str], object] | None = None


@dataclass(frozen=True, slots=True)
class SweepOutcome:
    """What a sweep did: rows written, chunks run and reused, the files written."""

    rows: int
    chunks_run: int
    chunks_reused: int
    files: tuple[Path, ...]


def run_sweep(settings: SweepSettings) -> SweepOutcome:
    """Run the sweep `settings` describe and write its outputs.

    Raises:
        SimError: a bad experiment file, map or output folder (one line), or a cluster that
            cannot be reached.
        sim.lab.cluster.ChunkFailedError: a chunk failed on every try.
    """
    began = time.perf_counter()
    document = read_document(settings.experiment)
    if experiment_kind(document, settings.experiment) == "mapf":
        from sim.lab.mapf_sweep import run_mapf_sweep  # its own rows, plots and summary

        runs, files = run_mapf_sweep(
            parse_mapf_experiment(document, settings.experiment),
            settings.out,
            workers=settings.workers,
            scheduler=settings.scheduler,
            resume=settings.resume,
        )
        return SweepOutcome(runs, runs, 0, files)
    experiment = parse_experiment(document, settings.experiment)
    out = settings.out
    maps = prepare_maps(experiment, Path(os.path.abspath(out / MAPS_DIR)))
    _check_out(out, resume=settings.resume)
    chunks = make_chunks(maps, experiment.searches, block=settings.block)
    store = ChunkStore(out)
    finished: dict[str, list[Row]] = {}
    if settings.resume:
        for chunk in chunks:
            rows = store.load(chunk.key, len(chunk.scenarios))
            if rows is not None:
                finished[chunk.key] = rows
    reused = len(finished)
    pending = [chunk for chunk in chunks if chunk.key not in finished]
    if pending:
        workers = _run(settings, maps, pending, store, finished)
    else:
        _start_output(out, maps)
        workers = "none needed: every chunk was done before"
    # Chunks are in map, search, scenario order, and so their rows.
    rows = [row for chunk in chunks for row in finished[chunk.key]]
    facts = RunFacts(
        experiment.name,
        str(settings.experiment),
        workers,
        len(pending),
        reused,
        time.perf_counter() - began,
    )
    return SweepOutcome(len(rows), len(pending), reused, _write_outputs(out, rows, facts))


def _run(
    settings: SweepSettings,
    maps: list[PreparedMap],
    pending: list[Chunk],
    store: ChunkStore,
    finished: dict[str, list[Row]],
) -> str:
    """Run `pending` on the cluster, saving each chunk as it ends; describe the workers."""
    from sim.lab.cluster import open_client, run_chunks  # Dask: imported only to run

    workers = settings.workers
    if settings.scheduler is None and len(pending) < workers:
        workers = len(pending)
        if settings.note is not None:
            settings.note(
                f"sweep: {settings.workers} workers asked, {workers} started: only "
                f"{len(pending)} chunk{'s' if len(pending) != 1 else ''} to run"
            )
    with open_client(workers=workers, scheduler=settings.scheduler) as (client, info):
        # Only now: a cluster that cannot be reached leaves no output folder behind.
        _start_output(settings.out, maps)
        # The clock of the ETA starts once the workers are up: their start is no searching.
        progress = Progress(sum(len(chunk.scenarios) for chunk in pending), "sweep")

        def done(chunk: Chunk, rows: list[Row]) -> None:
            store.save(chunk.key, rows)
            finished[chunk.key] = rows
            progress.advance(len(rows), f"{chunk.map_name} / {chunk.search.label}")

        try:
            run_chunks(client, pending, done)
        finally:
            progress.close()
    where = "local worker processes" if info.local else f"workers of {info.scheduler}"
    return f"{info.workers} {where} ({info.threads} threads)"


def _start_output(out: Path, maps: list[PreparedMap]) -> None:
    """Make the output folder, mark it as a sweep's, write the generated maps the workers read."""
    out.mkdir(parents=True, exist_ok=True)
    mark_sweep_folder(out)
    write_generated(maps)


def _write_outputs(out: Path, rows: list[Row], facts: RunFacts) -> tuple[Path, ...]:
    from sim.lab.plots import write_plots  # matplotlib: imported only to draw

    write_atomic(out / RESULTS, format_rows(rows))
    write_atomic(out / SUMMARY, format_summary(rows, facts))
    plots = write_plots(rows, out / PLOTS_DIR, facts.experiment)
    return (out / RESULTS, out / SUMMARY, *plots)


def _check_out(out: Path, *, resume: bool) -> None:
    """Refuse an output folder that is a file, or holds files a sweep may not replace.

    Without `resume` the folder must be new or empty; with it, new, empty, or made by a sweep
    (`is_sweep_folder`), whose results, summary and plots are then the sweep's own to replace.
    """
    if out.exists() and not out.is_dir():
        raise SimError(f"--out {out}: not a folder")
    if not (out.is_dir() and any(out.iterdir())):
        return
    if not resume:
        raise SimError(
            f"--out {out}: the folder is not empty; add --resume to finish the run it holds, "
            "or choose another folder"
        )
    if not is_sweep_folder(out):
        raise SimError(
            f"--out {out}: --resume finishes a folder a sweep made, and no sweep made this one"
            f" (it has no {PARTIAL_DIR}/ folder); refusing to replace what it holds"
        )
