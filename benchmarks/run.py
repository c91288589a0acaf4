"""Run every benchmark script in this folder (``make bench``); each prints its own table (the
executor's ratios, the report's and the test suite's times) and writes its JSON to results/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

if __name__ == "__main__":
    here = Path(__file__).parent
    status = 0
    for script in [*sorted(here.glob("bench_*.py")), here / "authors_game.py",
                   here / "suite_times.py"]:
        print(f"== {script.name}", flush=True)
        status |= subprocess.call([sys.executable, str(script)])
    raise SystemExit(status)
