"""Compile the executor's numba kernels once per installation, before the first report or
test run needs them.

numba compiles a kernel the first time it is called with a new signature and keeps the machine
code in its on-disk cache (``cache=True``; a later process loads it in milliseconds). On a new
machine the first report would otherwise compile about 20 s of kernels inside its claims
(about 12 s of its wall time on two cores), and the test suite's workers theirs inside their
tests. ``python -m fedbounds.app.warmup`` (run by ``make`` right after installing) runs the
quick profile of the few claims that call every kernel with the signatures the catalog uses,
split over two processes, so every later process loads them.

The list is declared, not discovered: a claim that stops calling a kernel leaves that kernel to
be compiled by its first real run, as before (slower, never different numbers). The slow test
``tests/app/test_warmup.py`` checks that after the warm-up the whole quick catalog compiles
nothing."""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor

# Claims whose quick runs open the kernel families, in two groups of about equal compile time
# (single-process compile seconds measured on the 2-core development machine):
OPENERS: tuple[tuple[str, ...], ...] = (
    ("fednorm.p10a",  # fednorm_rounds with fednorm_round, _client_rows, _project (≈ 6.8 s)
     "fedsgda.p1",  # storm_sync_means, storm_sync_update, storm_local_move, storm_update (≈ 2 s)
     "fedsgda.p4",  # storm_update on broadcast and strided views (≈ 1.1 s)
     "feddro.p1"),  # the exact Theorem 4.1 round map, verify.exact.feddro._rounds (≈ 0.3 s)
    ("feddro.p4",  # _scalar_grad_phi_sq with the pairwise client sums, _feddro_rows (≈ 4.5 s)
     "proxskip.p3",  # proxskip_steps with _proxskip_block, sq_distance on two layouts (≈ 3.4 s)
     "proxskip.p9"),  # gda_round (≈ 1.5 s)
)


def warm(claim_ids: tuple[str, ...]) -> float:
    """Run the quick profile of ``claim_ids`` at seed 0 (the verdicts are discarded: only the
    compiled kernels they leave in numba's cache matter); the seconds it took."""
    from fedbounds.verify import catalog

    start = time.perf_counter()
    claims = catalog.claims()
    for cid in claim_ids:
        try:
            claims[cid].run("quick", 0)
        except Exception as error:  # noqa: BLE001 - a warm-up never stops the install
            # the claim's own tests report the failure; its kernels compile on first use
            print(f"warm-up: {cid} failed ({type(error).__name__}: {error}); its kernels "
                  "will be compiled by their first run", file=sys.stderr)
    return time.perf_counter() - start


def main() -> int:
    """Warm the kernel cache with :data:`OPENERS`, one group per process."""
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=len(OPENERS)) as pool:
        seconds = list(pool.map(warm, OPENERS))
    print(f"numba kernels compiled or loaded in {time.perf_counter() - start:.1f} s "
          f"(groups: {', '.join(f'{s:.1f} s' for s in seconds)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
