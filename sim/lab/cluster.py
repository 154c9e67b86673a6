# mypy: disallow-untyped-calls=False
# (distributed's Client, LocalCluster and futures are not annotated.)
"""Run chunks on Dask: a local cluster of worker processes, or a cluster the user already has.

By default a `distributed.LocalCluster` starts one single-threaded worker process per core
(the searches hold the GIL, so processes, not threads, run them side by side); with
``--scheduler tcp://HOST:PORT`` a `Client` joins an existing cluster (``dask scheduler`` and
``dask worker`` on the user's machines), whose workers need this project installed and the
maps at the same paths. Each chunk is one task (`sim.lab.task.run_chunk`); a task that raises
is retried `RETRIES` times, and the tasks of a worker that dies go to another worker, as Dask
does. Results are handed back as each task finishes, in whatever order that is.

This module imports Dask; `sim sweep` imports it only once it knows the `lab` extra is there.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from distributed import Client, LocalCluster, as_completed

from sim.errors import SimError
from sim.lab.chunks import Chunk
from sim.lab.rows import Row
from sim.lab.task import run_chunk

T = TypeVar("T")
R = TypeVar("R")
RETRIES: Final = 2
CONNECT_TIMEOUT_S: Final = 15
WORKERS_TIMEOUT_S: Final = 60
"""How long a sweep waits for the first worker of an existing cluster to be there."""


class ChunkFailedError(Exception):
    """A chunk's task failed on every try; the message names the chunk and the error."""


@dataclass(frozen=True, slots=True)
class ClusterInfo:
    """What ran the sweep, for the summary.

    Attributes:
        scheduler: the scheduler's address (a local cluster's too).
        local: whether `sim sweep` started the cluster itself.
        workers: workers connected when the sweep started.
        threads: their threads in all.
    """

    scheduler: str
    local: bool
    workers: int
    threads: int


@contextlib.contextmanager
def open_client(*, workers: int, scheduler: str | None) -> Iterator[tuple[Client, ClusterInfo]]:
    """A Client on a new local cluster of `workers` processes, or on `scheduler`'s cluster.

    Raises:
        SimError: the scheduler cannot be reached, or no worker joins it in time.
    """
    if scheduler is None:
        with _ctrl_c_for_this_process_only():
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,  # no fixed port to collide with another sweep's
                silence_logs=logging.CRITICAL,  # a failed chunk is reported once, in one line
            )
        with cluster, Client(cluster) as client:
            client.wait_for_workers(workers)
            yield client, _info(client, local=True)
        return
    try:
        client = Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s")
    except (OSError, ValueError) as error:  # refused, timed out, or not an address
        raise SimError(f"--scheduler {scheduler}: cannot connect: {error}") from None
    with client:
        try:
            client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
        except TimeoutError:
            raise SimError(
                f"--scheduler {scheduler}: no worker joined within {WORKERS_TIMEOUT_S} s "
                "(start some with: dask worker " + scheduler + ")"
            ) from None
        yield client, _info(client, local=False)


@contextlib.contextmanager
def _ctrl_c_for_this_process_only() -> Iterator[None]:
    """Start the cluster's processes with SIGINT ignored, which they keep (across exec too).

    Ctrl+C reaches every process of the terminal's group: workers that took it died with a
    traceback each and left their semaphores behind ("leaked semaphore objects"). Started
    with it ignored, Python installs no KeyboardInterrupt in them, so Ctrl+C reaches this
    process alone, whose guards stop the sweep and close the cluster in order. Only while the
    workers start (a second or two) does this process ignore it too.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


def run_chunks(
    client: Client, chunks: list[Chunk], on_done: Callable[[Chunk, list[Row]], None]
) -> None:
    """Run every chunk on `client`'s cluster, calling ``on_done(chunk, rows)`` as each ends.

    Raises:
        ChunkFailedError: a chunk failed `RETRIES` + 1 times; the others are cancelled.
    """
    run = uuid.uuid4().hex[:8]  # keys unique per run: another client may share the cluster
    futures = {
        client.submit(run_chunk, chunk, key=f"sim-sweep-{run}-{chunk.key}", retries=RETRIES): chunk
        for chunk in chunks
    }
    try:
        for future in as_completed(futures):
            chunk = futures[future]
            try:
                rows: list[Row] = future.result()
            except Exception as error:
                raise ChunkFailedError(
                    f"chunk {chunk.key} ({chunk.map_name}, {chunk.search.label}) failed: "
                    f"{type(error).__name__}: {error}"
                ) from error
            on_done(chunk, rows)
            future.release()
    finally:
        client.cancel([future for future in futures if not future.done()])


def run_each(
    client: Client,
    function: Callable[[T], R],
    items: Sequence[T],
    name: Callable[[T], str],
    on_done: Callable[[T, R], None],
) -> None:
    """Run ``function(item)`` for every item on `client`'s cluster, one task each.

    As `run_chunks` runs chunks: ``on_done(item, result)`` as each ends, `RETRIES` retries.

    Raises:
        ChunkFailedError: a task failed every try (the message starts with ``name(item)``);
            the others are cancelled.
    """
    run = uuid.uuid4().hex[:8]
    futures = {
        client.submit(function, item, key=f"sim-sweep-{run}-{name(item)}", retries=RETRIES): item
        for item in items
    }
    try:
        for future in as_completed(futures):
            item = futures[future]
            try:
                result: R = future.result()
            except Exception as error:
                raise ChunkFailedError(
                    f"{name(item)} failed: {type(error).__name__}: {error}"
                ) from error
            on_done(item, result)
            future.release()
    finally:
        client.cancel([future for future in futures if not future.done()])


def _info(client: Client, *, local: bool) -> ClusterInfo:
    threads = client.nthreads()
    address = str(client.scheduler_info(n_workers=0)["address"])
    return ClusterInfo(address, local, len(threads), sum(threads.values()))
