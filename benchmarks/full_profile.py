"""Wall time of ``fedbounds verify`` on every backend: serial, process (2 workers) and dask (a
2-worker LocalCluster), each as a fresh command without a result store, with the ratio of each
to serial measured in the same run and the verdicts of every backend compared with serial's.

    python benchmarks/full_profile.py                      # the full profile, every claim
    python benchmarks/full_profile.py --profile quick      # the quick profile
    python benchmarks/full_profile.py --target proxskip --backends serial,process

Each time includes starting the command (imports, discovering the papers) and, for dask,
starting and stopping the cluster: what a user waits for.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter

BACKENDS = ("serial", "process", "dask")


def run(target: str, profile: str, backend: str) -> tuple[float, list[dict]]:
    """Wall seconds of one ``verify`` command and its verdicts."""
    argv = [sys.executable, "-m", "fedbounds", "verify", target, "--profile", profile,
            "--backend", backend, "--store", "off", "--json"]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ})
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[2:])} exited {done.returncode}:\n{done.stderr}")
    return seconds, json.loads(done.stdout)["claims"]


def _compare(verdicts: list[tuple], reference: list[tuple]) -> str:
    """Verdicts compared with serial's, and the largest relative difference of a statistic
    (dask's workers run single-threaded BLAS, so sums may round differently)."""
    if [v[:2] for v in verdicts] != [r[:2] for r in reference]:
        return "DIFFERENT verdicts from serial"
    pairs = zip(verdicts, reference, strict=True)
    gaps = [abs(a - b) / max(abs(b), 1e-300) for (_, _, a), (_, _, b) in pairs
            if a is not None and b is not None]
    worst = max(gaps, default=0.0)
    return "same verdicts and statistics as serial" if worst == 0 else \
        f"same verdicts as serial, statistics within {worst:.1e} (relative)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="full", choices=("quick", "full"))
    parser.add_argument("--target", default="all", help="claim, paper or all (default)")
    parser.add_argument("--backends", default=",".join(BACKENDS),
                        help="comma-separated, serial first (default: all three)")
    args = parser.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    if not backends or backends[0] != "serial" or set(backends) - set(BACKENDS):
        parser.error(f"--backends: serial first, then any of {', '.join(BACKENDS[1:])}")
    print(f"verify {args.target} --profile {args.profile} on {os.cpu_count()} cores", flush=True)
    times: dict[str, float] = {}
    reference: list[tuple] = []
    for backend in backends:
        seconds, claims = run(args.target, args.profile, backend)
        times[backend] = seconds
        verdicts = [(c["id"], c["verdict"], c["statistic"]) for c in claims]
        if backend == "serial":
            reference = verdicts
        same = _compare(verdicts, reference)
        counts = Counter(c["verdict"] for c in claims)
        print(f"{backend:8s} {seconds:8.1f} s   x{times['serial'] / seconds:4.2f} vs serial   "
              f"{len(claims)} claims ({', '.join(f'{n} {k}' for k, n in counts.items())}); "
              f"{same}", flush=True)


if __name__ == "__main__":
    main()
