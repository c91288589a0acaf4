"""What the benchmark scripts share: the min / median / max of repeated timings and writing a
run's results as JSON (each script runs as ``python benchmarks/<script>.py``, so this folder is
on its import path)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path


def summary(values: list[float]) -> dict[str, float]:
    """min / median / max of repeated measurements."""
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def write_json(out: Path, result: dict) -> None:
    """``result`` as indented JSON in ``out`` (its folder made), and say so."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"\nwritten {out}")
