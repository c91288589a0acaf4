"""Running claims: serial, in local processes, or on a dask.distributed cluster.

A claim's verdict is computed from its run every time; nothing here stores verdicts. An
exception inside a claim becomes an ``inconclusive`` verdict that names the error, so one broken
claim cannot take a whole report down, and the report shows it.

Workers die with the command (see :mod:`.lifecycle`): the process backend's workers through
``PR_SET_PDEATHSIG`` and the guardian; dask's workers watch their parent themselves (a worker
still starting when the parent dies exits within seconds) and, once the cluster is up, are
registered with the guardian too. An interrupted run cancels what has not started.
"""

from __future__ import annotations

import logging
import os
import time
import traceback
from collections.abc import Callable, Iterable

from fedbounds.errors import BadInput

from .lifecycle import register_pids, unregister_pids, worker_pool

BACKENDS = ("serial", "process", "dask")


def run_claim(claim_id: str, profile: str, seed: int):
    """Run one claim by id (importable in worker processes) and time it."""
    from fedbounds.verify import catalog
    from fedbounds.verify.claim import Verdict

    claim = catalog.claims()[claim_id]
    t0 = time.perf_counter()
    try:
        v = claim.run(profile=profile, seed=seed)
    except Exception as e:  # reported in the verdict, not hidden
        v = Verdict(claim_id, "inconclusive", None, None, None,
                    {"error": f"{type(e).__name__}: {e}",
                     "traceback": traceback.format_exc(limit=6)})
    v.seconds = time.perf_counter() - t0
    return v


def run_claims(ids: list[str], profile: str = "quick", seed: int = 0, backend: str = "serial",
               progress: Callable[[str], None] | None = None) -> list:
    """Verdicts for ``ids`` in the given order."""
    if backend not in BACKENDS:
        raise BadInput("--backend", f"{backend!r} is not a backend; allowed: {', '.join(BACKENDS)}")
    if backend == "serial":
        out = []
        for cid in ids:
            out.append(run_claim(cid, profile, seed))
            if progress:
                progress(cid)
        return out
    if backend == "process":
        with worker_pool(2) as pool:
            futures = [pool.submit(run_claim, cid, profile, seed) for cid in ids]
            return _collect(zip(ids, futures, strict=True), progress)
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise BadInput("--backend", "dask needs dask.distributed: pip install 'fedbounds[dask]'") from None
    # silence_logs: a Ctrl-C must not end in pages of "task cancelled" warnings
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        worker_pids = list(client.run(os.getpid).values())
        register_pids(worker_pids)  # distributed's workers watch their parent; this is a fallback
        futures = []
        try:
            futures = [client.submit(run_claim, cid, profile, seed, pure=False) for cid in ids]
            return _collect(zip(ids, futures, strict=True), progress)
        except BaseException:
            client.cancel(futures)
            raise
        finally:
            unregister_pids(worker_pids)


def _collect(pairs: Iterable, progress) -> list:
    out = []
    for cid, fut in pairs:
        out.append(fut.result())
        if progress:
            progress(cid)
    return out
