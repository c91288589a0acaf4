"""Fixtures of the app tests: the test plugin's ``gda`` paper with two seeded stand-in claims,
so that a report over it takes a second or two."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fedbounds import registry
from fedbounds.verify import catalog
from fedbounds.verify.claim import FigureSpec, Interval, Measurement, RunConfig, claim

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"


def stand_in(claim_id: str, log: Path):
    """Draws 16 uniforms from the noise seed; each measurement appends its id to ``log``."""

    @claim(claim_id, title="mean of U(0,1)", prediction="about 1/2", source="test",
           provenance="conjecture", rule=Interval(0.5, 0.2), figure=FigureSpec("x", "i", "x"))
    def measure(params, seed):
        with open(log, "a") as f:
            f.write(claim_id + "\n")
        x = np.random.default_rng(seed).random(16)
        return Measurement(float(x.mean()), series={"x": (list(range(16)), x.tolist())},
                           evidence={"max": float(x.max())},
                           run=RunConfig("toy-gda", "toy-rotation", rounds=16, seed=seed))

    return measure


@pytest.fixture
def gda(monkeypatch, tmp_path: Path):
    """The gda plugin paper with two stand-in claims; yields a function giving the ids of the
    claims measured so far."""
    monkeypatch.syspath_prepend(str(PLUGINS))
    monkeypatch.setenv("FEDBOUNDS_PAPERS", "toygda")
    registry.clear_caches()
    catalog.clear_caches()
    log = tmp_path / "measured.log"
    table = {cid: stand_in(cid, log) for cid in ("gda.p901", "gda.p902")}
    monkeypatch.setattr(catalog, "claims", lambda: table)
    yield lambda: log.read_text().split() if log.exists() else []
    monkeypatch.undo()
    registry.clear_caches()
    catalog.clear_caches()
