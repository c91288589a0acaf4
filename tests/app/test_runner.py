"""The claim runner gives the same verdicts and statistics on every backend (reproducible)."""

from __future__ import annotations

import pytest

from fedbounds.app.runner import run_claims
from fedbounds.errors import BadInput

IDS = ["proxskip.p11", "feddro.p15"]  # two fast claims from two papers


def _key(verdicts) -> list[tuple]:
    return [(v.id, v.verdict, v.statistic) for v in verdicts]


def test_process_backend_equals_serial() -> None:
    assert _key(run_claims(IDS, backend="process")) == _key(run_claims(IDS, backend="serial"))


def test_dask_backend_equals_serial() -> None:
    """On a LocalCluster the runner starts itself (dask[distributed] is in the test extra)."""
    assert _key(run_claims(IDS, backend="dask")) == _key(run_claims(IDS, backend="serial"))


def test_unknown_backend_is_bad_input() -> None:
    with pytest.raises(BadInput) as e:
        run_claims(IDS, backend="gpu")
    assert e.value.argument == "--backend"
