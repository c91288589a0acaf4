"""Regression tests on theorem constants, for fedbounds' own theorems and for plugin authors.

    # tests/test_my_theorems.py
    from fedbounds.testing import check_snapshot
    from mypaper.theorems import THEOREMS

    def test_theorem_constants_are_pinned():
        check_snapshot(THEOREMS, "tests/data/mypaper.snapshot")

The first run (or ``FEDBOUNDS_UPDATE_SNAPSHOT=1``) writes the golden file; afterwards any change
of a condition's side, a bound term, a derived quantity, a schedule, a cost or a claimed order at
the reference points fails the test, naming the theorem, the item and the point
(:mod:`fedbounds.snapshot`). ``fedbounds snapshot`` writes the same file from the command line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .model import Theorem
from .snapshot import differences, read, snapshot, write

UPDATE = "FEDBOUNDS_UPDATE_SNAPSHOT"


def check_snapshot(theorems: Iterable[Theorem], path: str | Path, *, orders: bool = False,
                   rtol: float = 1e-15) -> None:
    """Compare ``theorems`` with the golden file at ``path`` (write it when missing or when
    ``FEDBOUNDS_UPDATE_SNAPSHOT=1``). ``orders`` also compares the derived complexity orders
    (slower). Raises AssertionError listing every changed value."""
    theorems = list(theorems)
    path = Path(path)
    if not path.exists() or os.environ.get(UPDATE) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path, theorems, orders=orders)
        return
    expected = {k: e for k, e in read(path).items()
                if orders or not e.item.startswith("complexity ")}
    actual = [e for thm in theorems for e in snapshot(thm, orders)]
    diff = differences(expected, actual, rtol, theorems={t.id for t in theorems})
    if diff:
        raise AssertionError(f"{len(diff)} theorem value(s) differ from {path} (set {UPDATE}=1 "
                             "to accept an intended change):\n  " + "\n  ".join(diff[:50]))
