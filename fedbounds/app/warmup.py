"""Compile the executor's numba kernels once per installation, before the first report or
test run needs them, and leave the quick catalog's verdicts in the result store.

numba compiles a kernel the first time it is called with a new signature and keeps the machine
code in its on-disk cache (``cache=True``; a later process loads it in milliseconds). On a new
machine the first report would otherwise compile about 20 s of kernels inside its claims, and
the test suite's workers theirs inside their tests. ``python -m fedbounds.app.warmup`` (run by
``make`` right after installing) runs the whole quick catalog at seed 0 in the process pool
(every core): every kernel is compiled with exactly the signatures the catalog uses, found by
running it, not by a list of claims. The verdicts go to the result store (``$FEDBOUNDS_STORE``,
else ``.fedbounds/results.sqlite``; ``off`` for none), so the first ``make report`` reuses them
instead of running the catalog a second time. A claim that fails is named on stderr and the
warm-up goes on (its tests report the failure; its kernels compile on first use).
"""

from __future__ import annotations

import sys
import time


def main() -> int:
    """Run the quick catalog once (process backend, default store); say how long it took."""
    from fedbounds.verify import catalog

    from .runner import Plan, run_tasks
    from .store import store_path

    start = time.perf_counter()
    plan = Plan([(cid, 0) for cid in catalog.claims()], "quick", 0, "process", store_path())
    results = run_tasks(plan)
    for result in results:
        error = result.verdict.evidence.get("error")
        if error:
            print(f"warm-up: {result.verdict.id} failed ({error}); its kernels will be "
                  "compiled by their first run", file=sys.stderr)
    stored = sum(r.cached for r in results)
    print(f"numba kernels compiled or loaded in {time.perf_counter() - start:.1f} s "
          f"({len(results)} quick claims, {stored} already stored)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
