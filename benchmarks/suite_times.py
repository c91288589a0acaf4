"""Benchmark: wall and CPU time of the main job and of the test suite (issue 16).

* the report: ``fedbounds report --profile quick --backend process`` into a temporary folder,
  fresh (``--store off``: every claim, derivation and figure computed), README untouched —
  what ``make report`` runs on a fresh checkout;
* the test suite: ``python -m pytest`` with the project's settings (``make test``), its own
  "test time" (what pytest prints) beside the command's wall time;
* a new machine's first report (``report-cold``): the same report with an empty numba cache
  (``NUMBA_CACHE_DIR`` a new folder), so its claims compile every kernel; and
  (``report-warmed``) an empty cache filled first by ``python -m fedbounds.app.warmup``, what
  ``make`` runs after installing: the warm-up's own time beside the report's.

Each is run ``--repetitions`` times, alternating; CPU time is the children's user + system
time (``resource.getrusage(RUSAGE_CHILDREN)``), so it counts every worker process. The load
average before each run is recorded: a figure measured on a busy machine says so.

    .venv/bin/python benchmarks/suite_times.py [--repetitions 1]
        [--only report|tests|report-cold|report-warmed ...]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import write_json

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"


def timed(argv: list[str], env: dict[str, str] | None = None) -> dict:
    """Wall and CPU seconds (children) of one command, its exit code and its output's tail."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "exit": done.returncode, "load_before": load,
            "tail": (done.stdout + done.stderr)[-2000:]}


def report_run(env: dict[str, str] | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        return timed([sys.executable, "-m", "fedbounds", "report", "--profile", "quick",
                      "--backend", "process", "--store", "off", "--no-readme",
                      "--out", str(Path(tmp) / "reports")], env)


def cold_report_run(warm_up: bool) -> dict:
    """The report with an empty numba cache; with ``warm_up``, the cache filled first by the
    warm-up ``make`` runs after installing (its times under ``warmup_*``)."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        warm = timed([sys.executable, "-m", "fedbounds.app.warmup"], env) if warm_up else None
        result = report_run(env)
        if warm is not None:
            result.update(warmup_wall=warm["wall"], warmup_cpu=warm["cpu"])
            result["exit"] = result["exit"] or warm["exit"]
        return result


def test_run() -> dict:
    result = timed([sys.executable, "-m", "pytest"])
    found = re.findall(r"in ([0-9.]+)s", result["tail"])
    result["test_seconds"] = float(found[-1]) if found else None
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repetitions", type=int, default=1)
    ap.add_argument("--only", nargs="+",
                    choices=("report", "tests", "report-cold", "report-warmed"),
                    help="jobs to run (default: report and tests)")
    ap.add_argument("--out", type=Path, default=RESULTS / "suite_times.json")
    a = ap.parse_args()
    jobs = {"report": report_run, "tests": test_run,
            "report-cold": lambda: cold_report_run(False),
            "report-warmed": lambda: cold_report_run(True)}
    jobs = {name: jobs[name] for name in (a.only or ("report", "tests"))}
    runs: dict[str, list[dict]] = {name: [] for name in jobs}
    for _ in range(a.repetitions):
        for name, job in jobs.items():
            runs[name].append(job())
            r = runs[name][-1]
            warm = (f" (after a warm-up of {r['warmup_wall']:.1f} s wall, "
                    f"{r['warmup_cpu']:.1f} s CPU)" if "warmup_wall" in r else "")
            print(f"{name}: exit {r['exit']}, wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s"
                  f"{warm}, load before {r['load_before']:.1f}", flush=True)
            if r["exit"] != 0:
                print(r["tail"], file=sys.stderr)
    print("\n| job | wall min / median / max | CPU median | pytest's test time | warm-up wall "
          "(median) | load before |")
    print("|---|---|---|---|---|---|")
    for name, rs in runs.items():
        walls = [r["wall"] for r in rs]
        tests = [r.get("test_seconds") for r in rs if r.get("test_seconds") is not None]
        warms = [r["warmup_wall"] for r in rs if "warmup_wall" in r]
        print(f"| {name} | {min(walls):.0f} / {statistics.median(walls):.0f} / {max(walls):.0f} s"
              f" | {statistics.median(r['cpu'] for r in rs):.0f} s | "
              f"{f'{statistics.median(tests):.0f} s' if tests else '—'} | "
              f"{f'{statistics.median(warms):.0f} s' if warms else '—'} | "
              f"{max(r['load_before'] for r in rs):.1f} |")
    write_json(a.out, {"machine": {"python": platform.python_version(), "cores": os.cpu_count()},
                       "runs": {k: [{key: v for key, v in r.items() if key != "tail"}
                                    for r in rs] for k, rs in runs.items()}})
    return 0 if all(r["exit"] == 0 for rs in runs.values() for r in rs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
