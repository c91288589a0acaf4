"""Shared fixtures. ``quick_verdict(cid)`` runs a claim's quick profile at seed 0 once per test
session: the contract tests and the per-paper claim tests read the same computed verdict
instead of recomputing it (a verdict is still computed from its run, never stored)."""

from __future__ import annotations

import pytest

from fedbounds.verify import catalog


@pytest.fixture(scope="session")
def quick_verdict():
    cache: dict[str, object] = {}

    def get(cid: str):
        if cid not in cache:
            cache[cid] = catalog.claims()[cid].run("quick", 0)
        return cache[cid]

    return get
