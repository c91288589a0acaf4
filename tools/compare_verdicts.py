"""Compare `fedbounds verify … --json` output with a recorded reference, claim by claim.

    python tools/compare_verdicts.py NEW.json [--reference tests/data/verdicts_before_redesign.json]
                                     [--rtol 1e-9] [--paper PAPER ...] [--evidence] [--subset]

A claim differs when its verdict differs or its statistic differs by more than ``rtol``
relative (a missing claim on either side is listed too); with ``--evidence`` also when any
number of its interval, prediction, tolerance or evidence does (recursively; text must match
exactly). Exit 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

REFERENCE = Path(__file__).resolve().parent.parent / "tests/data/verdicts_before_redesign.json"


def _numbers_differ(a: object, b: object, rtol: float, where: str, out: list[str]) -> None:
    """Append where ``a`` and ``b`` differ: numbers beyond ``rtol`` relative, anything else
    (text, keys, lengths) exactly."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        if a != b:
            out.append(f"{where}: {a!r} -> {b!r}")
    elif isinstance(a, int | float) and isinstance(b, int | float):
        if not (a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(
                a, b, rel_tol=rtol, abs_tol=1e-300)):
            out.append(f"{where}: {a!r} -> {b!r}")
    elif isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{where}.{k}: {'added' if k not in a else 'removed'}")
            else:
                _numbers_differ(a[k], b[k], rtol, f"{where}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{where}: length {len(a)} -> {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _numbers_differ(x, y, rtol, f"{where}[{i}]", out)
    elif a != b:
        out.append(f"{where}: {a!r} -> {b!r}")


def differences(new: dict, reference: dict, rtol: float = 1e-9,
                papers: list[str] | None = None, evidence: bool = False,
                subset: bool = False) -> list[str]:
    """One line per claim whose verdict or statistic moved (claims in ``new`` only are
    ignored: they are new claims, not moved ones); ``papers`` limits the comparison."""
    got = {c["id"]: c for c in new["claims"]}
    out = []
    for ref in reference["claims"]:
        if papers and ref["id"].split(".")[0] not in papers:
            continue
        cid = ref["id"]
        if cid not in got:
            if not subset:
                out.append(f"{cid}: missing")
            continue
        c = got[cid]
        if c["verdict"] != ref["verdict"]:
            out.append(f"{cid}: verdict {ref['verdict']} -> {c['verdict']}")
        a, b = ref["statistic"], c["statistic"]
        if (a is None) != (b is None) or (a is not None and not math.isclose(
                a, b, rel_tol=rtol, abs_tol=1e-300)):
            out.append(f"{cid}: statistic {a!r} -> {b!r}")
        if evidence:
            for key in ("interval", "predicted", "tolerance", "evidence"):
                if key in ref or key in c:
                    _numbers_differ(ref.get(key), c.get(key), rtol, f"{cid}: {key}", out)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("new", type=Path)
    ap.add_argument("--reference", type=Path, default=REFERENCE)
    ap.add_argument("--rtol", type=float, default=1e-9)
    ap.add_argument("--paper", action="append", help="compare only this paper's claims")
    ap.add_argument("--evidence", action="store_true",
                    help="compare every number of the interval, prediction and evidence too")
    ap.add_argument("--subset", action="store_true",
                    help="NEW holds some claims only: the reference's others are not missing")
    a = ap.parse_args()
    diff = differences(json.loads(a.new.read_text()), json.loads(a.reference.read_text()),
                       a.rtol, a.paper, a.evidence, a.subset)
    print("\n".join(diff) if diff else "no claim moved")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
