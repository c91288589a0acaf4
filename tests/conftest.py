"""Shared fixtures. ``quick_verdict(cid)`` runs a claim's quick profile at seed 0 once per test
session: the contract tests and the per-paper claim tests read the same computed verdict
instead of recomputing it (a verdict is still computed from its run in every session, never
stored between sessions). Under pytest-xdist the workers of one session share it through a
folder of that session's temporary directory: the first worker to need a claim computes it
(holding the claim's lock), the others read its pickle.

The fixture ``theory_once(patch, *papers)`` lets the reports a test writes reuse one computed theory page
per paper (statements, errata, complexity derivations) within a test process."""

from __future__ import annotations

import copy
import fcntl
import os
import pickle
from pathlib import Path

import pytest

from fedbounds.verify import catalog

_THEORIES: dict[str, dict] = {}
_UNPATCHED: dict[str, object] = {}  # report.theory as first seen (before any patch of ours)


def _theory_once(patch: pytest.MonkeyPatch, *papers: str) -> None:
    """Through ``patch``: ``report.theory`` of each of ``papers`` computed once in this process
    (here, before any worker forks) and every later call without a store given its own deep
    copy (the pages append claims to its errata). Only for tests about the claims and pages of
    a report, with the real theory (``derive``, ``findings`` not replaced)."""
    from fedbounds.app import report

    computed = _UNPATCHED.setdefault("theory", report.theory)
    for paper in papers:
        if paper not in _THEORIES:
            _THEORIES[paper] = computed(paper)

    def once(paper: str, store: Path | None = None, fresh: bool = False) -> dict:
        if store is None and paper in _THEORIES:
            return copy.deepcopy(_THEORIES[paper])
        return computed(paper, store, fresh)

    patch.setattr(report, "theory", once)


@pytest.fixture(scope="session")
def theory_once():
    """:func:`_theory_once`, for a test or a module's fixture to call with its own patch."""
    return _theory_once


def _shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This session's folder shared by its xdist workers (each worker's base temp is a
    subfolder of the session's), or the session's own base temp without xdist."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder = base / "quick-verdicts"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def quick_verdict(tmp_path_factory: pytest.TempPathFactory):
    cache: dict[str, object] = {}
    folder = _shared_folder(tmp_path_factory)

    def get(cid: str):
        if cid not in cache:
            stored = folder / f"{cid}.pickle"
            with open(folder / f"{cid}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
                if stored.exists():
                    cache[cid] = pickle.loads(stored.read_bytes())
                else:
                    cache[cid] = catalog.claims()[cid].run("quick", 0)
                    try:
                        data = pickle.dumps(cache[cid])
                    except (pickle.PicklingError, TypeError, AttributeError):
                        data = None  # not shareable: each worker computes its own
                    if data is not None:
                        partial = stored.with_suffix(".partial")
                        partial.write_bytes(data)
                        partial.replace(stored)
        return cache[cid]

    return get
