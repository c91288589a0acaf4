"""``fedbounds verify all`` at 1, 2, … workers up to this machine's cores, on the process and
Dask backends: wall time, CPU time of the command and its workers, speedup over one worker of
the same backend, and parallel efficiency (speedup / workers).

    python benchmarks/bench_workers.py [--repetitions 3] [--backends process dask]
                                       [--profile quick] [--max-workers N]

Every configuration runs as its own process with ``--store off`` (nothing reused), and the
repetitions are interleaved (1, 2, …, 1, 2, …) so that a slow spell of the machine hits every
worker count alike; each figure is min / median / max over the repetitions. The speedup is the
median wall time at one worker divided by the median at N, measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from common import summary, write_json

FEDBOUNDS = str(Path(sys.executable).with_name("fedbounds"))


def cores() -> int:
    counter = getattr(os, "process_cpu_count", None)
    return (counter() if counter else len(os.sched_getaffinity(0))) or 1


def once(backend: str, workers: int, profile: str) -> tuple[float, float]:
    """Wall and CPU seconds (this command and all its descendants) of one ``verify all``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([FEDBOUNDS, "verify", "all", "--profile", profile, "--store", "off",
                    "--backend", backend, "--workers", str(workers), "--json"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--backends", nargs="+", default=["process", "dask"])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--max-workers", type=int, default=cores())
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "workers.json")
    args = parser.parse_args()
    counts = sorted({1, *range(2, args.max_workers + 1)})
    walls: dict[tuple[str, int], list[float]] = {}
    cpus: dict[tuple[str, int], list[float]] = {}
    for _ in range(args.repetitions):
        for backend in args.backends:
            for n in counts:
                wall, cpu = once(backend, n, args.profile)
                walls.setdefault((backend, n), []).append(wall)
                cpus.setdefault((backend, n), []).append(cpu)
    rows = []
    print(f"verify all --profile {args.profile} --store off, {args.repetitions} interleaved "
          f"repetitions, {cores()} cores\n")
    print("| backend | workers | wall s (min / median / max) | CPU s (median) | speedup | "
          "efficiency |\n|---|---:|---|---:|---:|---:|")
    for backend in args.backends:
        one = summary(walls[(backend, 1)])["median"]
        for n in counts:
            wall, cpu = summary(walls[(backend, n)]), summary(cpus[(backend, n)])
            speedup = one / wall["median"]
            rows.append({"backend": backend, "workers": n, "wall": wall, "cpu": cpu,
                         "speedup": speedup, "efficiency": speedup / n})
            print(f"| {backend} | {n} | {wall['min']:.1f} / {wall['median']:.1f} / "
                  f"{wall['max']:.1f} | {cpu['median']:.1f} | {speedup:.2f}x | "
                  f"{speedup / n:.0%} |")
    write_json(args.out, {"profile": args.profile, "cores": cores(), "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
