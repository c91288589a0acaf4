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

Scheduling: the process backend submits its tasks longest first (:func:`claim_cost`: the
seconds the result store measured on earlier runs, else the claim's declared estimate), so
that every worker stays busy to the end; side :class:`Job` s (a report's symbolic derivations) share that pool and that order.
``FEDBOUNDS_TIMINGS=1`` prints each task's start and end per worker, and each worker's idle
time, to stderr (:class:`TimingLog`; nothing of it reaches a report's files).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fedbounds.errors import BadInput

from . import store as result_store
from .lifecycle import (
    START_METHOD_ENV,
    register_pids,
    start_method,
    unregister_pids,
    usable_cores,
    worker_pool,
)

BACKENDS = ("serial", "process", "dask")
MAX_WORKERS = 1024
SCHEDULER_TIMEOUT_S = 10
TIMINGS_ENV = "FEDBOUNDS_TIMINGS"

DEFAULT_CLAIM_SECONDS = 0.5  # an id the catalog does not know (the declared default too)


def claim_cost(claim_id: str, measured: Mapping[str, float] | None = None) -> float:
    """A claim's seconds for longest-first scheduling: the median the result store measured
    at the run's profile (``measured``, :meth:`.store.ResultStore.measured_seconds`), else its
    declared estimate (:attr:`~fedbounds.verify.claim.ClaimSpec.seconds`)."""
    if measured and claim_id in measured:
        return measured[claim_id]
    from fedbounds.verify import catalog

    spec = catalog.claims().get(claim_id)
    return DEFAULT_CLAIM_SECONDS if spec is None else spec.seconds


@dataclass(frozen=True)
class Job:
    """A side task run beside the claims (in the process backend, in their pool): ``fn(*args)``
    (importable, picklable), with its estimated seconds ``cost`` for the schedule."""

    key: str
    fn: Callable[..., Any]
    args: tuple = ()
    cost: float = 0.0


@dataclass(frozen=True)
class Timed:
    """A value computed in a worker, with the worker's pid and its start and end (epoch s)."""

    value: Any
    pid: int
    start: float
    end: float


def timed(fn: Callable[..., Any], *args: Any) -> Timed:
    """``fn(*args)`` with where and when it ran (importable in worker processes)."""
    start = time.time()
    value = fn(*args)
    return Timed(value, os.getpid(), start, time.time())


class TimingLog:
    """The opt-in timing log (``FEDBOUNDS_TIMINGS=1``): a line per task and phase on stderr,
    seconds since the log began, and each worker's busy and idle seconds at the end."""

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = (os.environ.get(TIMINGS_ENV, "") not in ("", "0")
                        if enabled is None else enabled)
        self.origin = time.time()
        self.busy: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def task(self, kind: str, key: str, pid: int, start: float, end: float) -> None:
        """A task that ran in worker ``pid`` from ``start`` to ``end`` (epoch seconds)."""
        if not self.enabled:
            return
        self.busy[pid] = self.busy.get(pid, 0.0) + end - start
        self.last[pid] = max(self.last.get(pid, 0.0), end)
        self._print(f"task {kind} {key} worker {pid} start {start - self.origin:.2f} "
                    f"end {end - self.origin:.2f} ({end - start:.2f} s)")

    def phase(self, name: str, start: float) -> None:
        """A phase of this process that began at ``start`` (epoch seconds) and ends now."""
        if self.enabled:
            now = time.time()
            self._print(f"phase {name} start {start - self.origin:.2f} "
                        f"end {now - self.origin:.2f} ({now - start:.2f} s)")

    def workers(self) -> None:
        """Each worker's busy seconds, and its idle seconds up to now (the pool's end)."""
        if not self.enabled:
            return
        span = time.time() - self.origin
        for pid, busy in sorted(self.busy.items()):
            self._print(f"worker {pid} busy {busy:.2f} s, idle {span - busy:.2f} s of "
                        f"{span:.2f} s (last task ended at {self.last[pid] - self.origin:.2f})")

    @staticmethod
    def _print(line: str) -> None:
        print(f"[timings] {line}", file=sys.stderr, flush=True)


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
    pid: int = 0  # the worker, and when it ran (epoch seconds): the timing log's
    start: float = 0.0
    end: float = 0.0


def compute(claim_id: str, profile: str, seed: int, instance_seed: int = 0,
            figures: bool = False) -> Computed:
    """A worker's task: :func:`run_claim`, timestamped, with the worker's environment; with
    ``figures``, the verdict's figure drawn as SVG too (in the worker, beside the claims)."""
    start = time.time()
    started = result_store.now()
    verdict = result_store.normalized(run_claim(claim_id, profile, seed, instance_seed))
    computed = result_store.now()
    svg = None
    if figures and verdict.figure is not None:  # the figure as the report publishes it
        from fedbounds.verify import catalog
        from fedbounds.verify.publication import publish

        from .figures import svg_bytes

        svg = svg_bytes(publish(verdict, catalog.claims()[claim_id].published).figure)
    return Computed(verdict, started, computed, result_store.environment(), svg, os.getpid(),
                    start, time.time())


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
    workers: int | None = None  # processes of the process backend or local dask cluster

    def worker_count(self) -> int:
        """``workers``, else the CPUs this process may use (:func:`.lifecycle.usable_cores`)."""
        return self.workers if self.workers is not None else usable_cores()


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
    return run_with_jobs(plan, progress)[0]


def run_with_jobs(plan: Plan, progress: Callable[[str], None] | None = None,
                  jobs: Sequence[Job] = (), log: TimingLog | None = None
                  ) -> tuple[list[Result], dict[str, Any]]:
    """:func:`run_tasks`, and each of ``jobs`` run beside the claims: its value by its key.
    The process backend runs the jobs in the claims' pool, everything longest first; the dask
    backend runs them in a process pool of its own while the claims run; the serial backend
    runs everything in this process, the jobs after the claims."""
    check_backend(plan.backend, plan.scheduler)
    log = log or TimingLog()
    results: list[Result | None] = [None] * len(plan.tasks)
    values: dict[str, Any] = {}
    keys = _keys(plan)
    db = result_store.open_store(plan.store)
    try:
        todo = []
        for index, (cid, _seed) in enumerate(plan.tasks):
            found = (db.get(keys[index], _spec(cid)) if db is not None and not plan.fresh
                     else None)
            if found is not None:
                results[index] = Result(found, True, keys[index])
                if progress:
                    progress(cid)
            else:
                todo.append(index)

        def finished(index: int, done: Computed) -> None:
            cid, _ = plan.tasks[index]
            log.task("claim", cid, done.pid, done.start, done.end)
            if db is not None and result_store.storable(done.verdict):
                db.put(keys[index], done.verdict, profile=plan.profile, overrides=plan.overrides,
                       started_at=done.started_at, computed_at=done.computed_at,
                       backend=plan.backend, env=done.environment)
            results[index] = Result(done.verdict, False, keys[index], done.svg)
            if progress:
                progress(cid)

        def job_done(job: Job, done: Timed) -> None:
            log.task("job", job.key, done.pid, done.start, done.end)
            values[job.key] = done.value

        if plan.backend == "process" and (todo or jobs):
            measured = db.measured_seconds(plan.profile) if db is not None else {}
            _process_with_jobs(plan, todo, finished, jobs, job_done, measured)
            log.workers()
        elif plan.backend == "serial":  # everything in this process, one after the other
            _serial(plan, todo, finished)
            for job in jobs:
                job_done(job, timed(job.fn, *job.args))
        else:
            with worker_pool(plan.worker_count()) if jobs else contextlib.nullcontext() as pool:
                pending = {pool.submit(timed, job.fn, *job.args): job
                           for job in sorted(jobs, key=lambda job: -job.cost)}
                if todo:
                    _BACKEND_RUNNERS[plan.backend](plan, todo, finished)
                for future, job in pending.items():
                    job_done(job, future.result())
    finally:
        if db is not None:
            db.close()
    return [r for r in results if r is not None], values


def longest_first(plan: Plan, todo: Sequence[int], jobs: Sequence[Job] = (),
                  measured: Mapping[str, float] | None = None) -> list[tuple[str, int]]:
    """The order of submission: ("claim", task index) and ("job", job index) by decreasing
    estimated seconds (:func:`claim_cost` with the store's ``measured`` seconds,
    :attr:`Job.cost`); ties keep claims before jobs, each in its given order."""
    entries = [(claim_cost(plan.tasks[index][0], measured), 0, index) for index in todo]
    entries += [(job.cost, 1, index) for index, job in enumerate(jobs)]
    entries.sort(key=lambda entry: (-entry[0], entry[1], entry[2]))
    return [("job" if kind else "claim", index) for _cost, kind, index in entries]


def check_backend(backend: str, scheduler: str | None = None) -> None:
    """``--backend`` is one of :data:`BACKENDS`; ``--scheduler`` goes with ``dask`` only."""
    if backend not in BACKENDS:
        raise BadInput("--backend", f"{backend!r} is not a backend; allowed: {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise BadInput("--scheduler", "connects to a dask cluster: give --backend dask too")
    try:
        start_method()
    except ValueError as e:
        raise BadInput(START_METHOD_ENV, str(e)) from None


def _spec(claim_id: str) -> Any:
    from fedbounds.verify import catalog

    return catalog.claims()[claim_id]


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
    _process_with_jobs(plan, todo, finished)


def _process_with_jobs(plan: Plan, todo: Sequence[int], finished: Finished,
                       jobs: Sequence[Job] = (),
                       job_done: Callable[[Job, Timed], None] | None = None,
                       measured: Mapping[str, float] | None = None) -> None:
    """Claims and jobs in one pool of the plan's workers, submitted longest first (the pool
    hands them out in that order), taken as they complete."""
    with worker_pool(plan.worker_count()) as pool:
        futures: dict[concurrent.futures.Future, tuple[str, int]] = {}
        for kind, index in longest_first(plan, todo, jobs, measured):
            if kind == "claim":
                future = pool.submit(compute, *_args(plan, index))
            else:
                future = pool.submit(timed, jobs[index].fn, *jobs[index].args)
            futures[future] = (kind, index)
        for future in concurrent.futures.as_completed(futures):
            kind, index = futures[future]
            if kind == "claim":
                finished(index, future.result())
            elif job_done is not None:
                job_done(jobs[index], future.result())


LOOPBACK = "127.0.0.1"


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
    # silence_logs: a Ctrl-C must not end in pages of "task cancelled" warnings; scheduler and
    # workers on loopback and no dashboard (distributed serves one on every interface by
    # default): a run on a shared network listens to nobody else
    with LocalCluster(n_workers=plan.worker_count(), threads_per_worker=1, processes=True,
                      host=LOOPBACK, dashboard_address=None,
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
