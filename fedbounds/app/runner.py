"""Running claims: serial, in local processes, or on a dask.distributed cluster, with a store.

A task is one claim at one noise seed (the instance seed and profile are the run's). With a
result store (:mod:`.store`), a task whose key is stored is not run again (unless ``fresh``):
its verdict comes from the store and is marked cached. Every other task's verdict is written to
the store by this process as soon as it completes (in completion order, one transaction each),
so a run killed part-way keeps everything that finished. A claim that raises becomes an
``inconclusive`` verdict that names the error, so one broken claim cannot take a whole report
down; such a verdict is not stored (it is retried next time).

Workers die with the command (see :mod:`.lifecycle`): the process backend's workers through
``PR_SET_PDEATHSIG`` and the guardian; a local dask cluster's workers watch their parent
themselves (a worker still starting when the parent dies exits within seconds) and, once the
cluster is up, are registered with the guardian too. With ``scheduler`` the tasks go to an
existing dask cluster instead, whose workers are not ours to kill. An interrupted run cancels
what has not started.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fedbounds.errors import BadInput

from . import store as result_store
from .lifecycle import register_pids, unregister_pids, worker_pool

BACKENDS = ("serial", "process", "dask")
PROCESS_WORKERS = 2
SCHEDULER_TIMEOUT_S = 10


def run_claim(claim_id: str, profile: str, seed: int, instance_seed: int = 0):
    """Run one claim by id (importable in worker processes) and time it."""
    from fedbounds.verify import catalog
    from fedbounds.verify.claim import Verdict

    claim = catalog.claims()[claim_id]
    t0 = time.perf_counter()
    try:
        v = claim.run(profile=profile, seed=seed, instance_seed=instance_seed)
    except Exception as e:  # reported in the verdict, not hidden
        v = Verdict(claim_id, "inconclusive", None, None, None,
                    {"error": f"{type(e).__name__}: {e}",
                     "traceback": traceback.format_exc(limit=6)},
                    seed=seed, instance_seed=instance_seed)
    v.seconds = time.perf_counter() - t0
    return v


@dataclass(frozen=True)
class Computed:
    """A verdict computed by a worker, with when and where."""

    verdict: Any
    started_at: str
    computed_at: str
    environment: dict[str, str]
    svg: bytes | None = None  # the verdict's figure, drawn where it was computed (reports)


def compute(claim_id: str, profile: str, seed: int, instance_seed: int = 0,
            figures: bool = False) -> Computed:
    """A worker's task: :func:`run_claim`, timestamped, with the worker's environment; with
    ``figures``, the verdict's figure drawn as SVG too (in the worker, beside the claims)."""
    started = result_store.now()
    verdict = result_store.normalized(run_claim(claim_id, profile, seed, instance_seed))
    computed = result_store.now()
    svg = None
    if figures and verdict.figure is not None:
        from .figures import svg_bytes

        svg = svg_bytes(verdict.figure)
    return Computed(verdict, started, computed, result_store.environment(), svg)


@dataclass
class Result:
    """One task's outcome: the verdict and whether it came from the store."""

    verdict: Any
    cached: bool = False
    key: str | None = None
    svg: bytes | None = None  # the figure drawn by the worker (``Plan.figures``)


@dataclass
class Plan:
    """What a run does: claims × noise seeds at one profile and instance seed."""

    tasks: list[tuple[str, int]]
    profile: str = "quick"
    instance_seed: int = 0
    backend: str = "serial"
    store: Path | None = None
    fresh: bool = False
    scheduler: str | None = None
    overrides: Mapping[str, Any] = field(default_factory=dict)
    figures: bool = False  # draw each computed verdict's figure where it was computed


def run_claims(ids: list[str], profile: str = "quick", seed: int = 0, backend: str = "serial",
               progress: Callable[[str], None] | None = None, *, instance_seed: int = 0,
               store: Path | None = None, fresh: bool = False,
               scheduler: str | None = None) -> list:
    """Verdicts for ``ids`` in the given order (see :func:`run_tasks`)."""
    plan = Plan([(cid, seed) for cid in ids], profile, instance_seed, backend, store, fresh,
                scheduler)
    return [r.verdict for r in run_tasks(plan, progress)]


def run_tasks(plan: Plan, progress: Callable[[str], None] | None = None) -> list[Result]:
    """A :class:`Result` per task of ``plan``, in its order; ``progress(claim_id)`` after each
    task (stored ones first)."""
    check_backend(plan.backend, plan.scheduler)
    results: list[Result | None] = [None] * len(plan.tasks)
    keys = _keys(plan)
    db = result_store.open_store(plan.store)
    try:
        todo = []
        for index, (cid, _seed) in enumerate(plan.tasks):
            found = db.get(keys[index]) if db is not None and not plan.fresh else None
            if found is not None:
                results[index] = Result(found, True, keys[index])
                if progress:
                    progress(cid)
            else:
                todo.append(index)

        def finished(index: int, done: Computed) -> None:
            cid, _ = plan.tasks[index]
            if db is not None and result_store.storable(done.verdict):
                db.put(keys[index], done.verdict, profile=plan.profile, overrides=plan.overrides,
                       started_at=done.started_at, computed_at=done.computed_at,
                       backend=plan.backend, env=done.environment)
            results[index] = Result(done.verdict, False, keys[index], done.svg)
            if progress:
                progress(cid)

        if todo:
            _BACKEND_RUNNERS[plan.backend](plan, todo, finished)
    finally:
        if db is not None:
            db.close()
    return [r for r in results if r is not None]


def check_backend(backend: str, scheduler: str | None = None) -> None:
    """``--backend`` is one of :data:`BACKENDS`; ``--scheduler`` goes with ``dask`` only."""
    if backend not in BACKENDS:
        raise BadInput("--backend", f"{backend!r} is not a backend; allowed: {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise BadInput("--scheduler", "connects to a dask cluster: give --backend dask too")


def _keys(plan: Plan) -> list[str | None]:
    if plan.store is None:
        return [None] * len(plan.tasks)
    from fedbounds.verify import catalog

    table = catalog.claims()
    return [result_store.result_key(table[cid], plan.profile, seed, plan.instance_seed,
                                    plan.overrides) for cid, seed in plan.tasks]


Finished = Callable[[int, Computed], None]


def _serial(plan: Plan, todo: Sequence[int], finished: Finished) -> None:
    for index in todo:
        finished(index, compute(*_args(plan, index)))


def _process(plan: Plan, todo: Sequence[int], finished: Finished) -> None:
    with worker_pool(PROCESS_WORKERS) as pool:
        futures = {pool.submit(compute, *_args(plan, index)): index for index in todo}
        for future in concurrent.futures.as_completed(futures):
            finished(futures[future], future.result())


def _dask(plan: Plan, todo: Sequence[int], finished: Finished) -> None:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise BadInput("--backend", "dask needs dask.distributed: pip install 'fedbounds[dask]'"
                       ) from None
    if plan.scheduler is not None:
        try:
            client = Client(plan.scheduler, timeout=SCHEDULER_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as e:
            raise BadInput("--scheduler", f"cannot connect to {plan.scheduler}: {e}") from None
        with client:
            _submit_all(client, as_completed, plan, todo, finished)
        return
    # silence_logs: a Ctrl-C must not end in pages of "task cancelled" warnings
    with LocalCluster(n_workers=PROCESS_WORKERS, threads_per_worker=1, processes=True,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        worker_pids = list(client.run(os.getpid).values())
        register_pids(worker_pids)  # distributed's workers watch their parent; this is a fallback
        try:
            _submit_all(client, as_completed, plan, todo, finished)
        finally:
            unregister_pids(worker_pids)


def _submit_all(client: Any, as_completed: Callable, plan: Plan, todo: Sequence[int],
                finished: Finished) -> None:
    """Submit every task, then take results as futures complete (the client writes them)."""
    futures: dict[Any, int] = {}
    try:
        for index in todo:
            futures[client.submit(compute, *_args(plan, index), pure=False)] = index
        for future in as_completed(list(futures)):
            finished(futures[future], future.result())
    except BaseException:
        client.cancel(list(futures))
        raise


def _args(plan: Plan, index: int) -> tuple[str, str, int, int, bool]:
    cid, seed = plan.tasks[index]
    return cid, plan.profile, seed, plan.instance_seed, plan.figures


_BACKEND_RUNNERS: dict[str, Callable[[Plan, Sequence[int], Finished], None]] = {
    "serial": _serial, "process": _process, "dask": _dask}
