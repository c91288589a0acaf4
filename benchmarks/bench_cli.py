"""Benchmark: how long the command line takes to answer, each command a new process.

A theory command cannot start faster than the interpreter importing sympy, so the reference,
measured in the same run, is ``python -c "import sympy"``; each command's wall time is reported
beside it and as a ratio to it. Repetitions are interleaved (the reference, then every command,
then again), and each figure is min / median / max over them.

    .venv/bin/python benchmarks/bench_cli.py [--repetitions 5] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import summary, write_json

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent

REFERENCE = ("python -c 'import sympy'", [sys.executable, "-c", "import sympy"])
CLI = [sys.executable, "-m", "fedbounds"]
COMMANDS = [
    ("fedbounds --help", [*CLI, "--help"]),
    ("fedbounds check proxskip.thm3.1 --set …",
     [*CLI, "check", "proxskip.thm3.1", "--set", "gamma=1/10", "mu=1", "A=1", "B=1", "C=1/2",
      "M=4", "rho=1/2", "p=1/2"]),
    ("fedbounds check feddro.thm4.1 --set …",
     [*CLI, "check", "feddro.thm4.1", "--set", "eta=1/100", "I=2", "x0=1/2"]),
    ("fedbounds list --json", [*CLI, "list", "--json"]),
]


def wall(argv: list[str]) -> float:
    """Wall seconds of one run of ``argv`` (its exit code must be 0: a feasible check)."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]}")
    return seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--out", type=Path, default=RESULTS / "cli.json")
    a = ap.parse_args()
    if a.repetitions < 1:
        ap.error(f"--repetitions must be at least 1, got {a.repetitions}")
    wall(REFERENCE[1])  # the first run of each fills the operating system's file cache
    for _, argv in COMMANDS:
        wall(argv)
    times: dict[str, list[float]] = {name: [] for name, _ in [REFERENCE, *COMMANDS]}
    for _ in range(a.repetitions):
        for name, argv in [REFERENCE, *COMMANDS]:
            times[name].append(wall(argv))
    reference = times[REFERENCE[0]]
    result = {"reference": REFERENCE[0], "repetitions": a.repetitions,
              "load_average": os.getloadavg(), "commands": {}}
    print(f"\nreference: {REFERENCE[0]}, {statistics.median(reference):.2f} s (median); "
          f"{a.repetitions} interleaved repetitions, load average {os.getloadavg()[0]:.1f}")
    print("\n| command | wall min / median / max | ratio to the reference min / median / max |")
    print("|---|---|---|")
    for name, _ in COMMANDS:
        ratios = [t / r for t, r in zip(times[name], reference, strict=True)]
        result["commands"][name] = {"seconds": summary(times[name]), "ratio": summary(ratios)}
        s, q = summary(times[name]), summary(ratios)
        print(f"| `{name}` | {s['min']:.2f} / {s['median']:.2f} / {s['max']:.2f} s | "
              f"{q['min']:.1f}× / {q['median']:.1f}× / {q['max']:.1f}× |")
    write_json(a.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
