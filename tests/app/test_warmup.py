"""The kernel warm-up (``python -m fedbounds.app.warmup``, run by ``make`` after installing)
leaves nothing for the quick catalog to compile: with an empty numba cache, the warm-up and
then every claim's quick run, and no kernel compiled by the claims."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from fedbounds.app.warmup import OPENERS
from fedbounds.verify import catalog

_CATALOG_COMPILES = """
from numba.core import event
compiled = []
class Compiles(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)
event.register("numba:compile", Compiles())
from fedbounds.verify import catalog
for spec in catalog.claims().values():
    spec.run("quick", 0)
print(sorted(set(compiled)))
"""


def test_openers_are_claims_of_the_catalog():
    claims = catalog.claims()
    named = [cid for group in OPENERS for cid in group]
    assert len(named) == len(set(named)) and all(cid in claims for cid in named)
    assert len(OPENERS) == 2  # one group per core of the machine the split was measured on


def test_a_failing_claim_does_not_stop_the_warm_up(monkeypatch, capsys):
    from dataclasses import replace

    from fedbounds.app import warmup

    def broken(params, seed):
        raise RuntimeError("boom")

    claims = catalog.claims()
    cheap = "proxskip.p14"
    monkeypatch.setattr(catalog, "claims",
                        lambda: {**claims, cheap: replace(claims[cheap], measure=broken)})
    assert warmup.warm((cheap,)) >= 0.0
    err = capsys.readouterr().err
    assert f"warm-up: {cheap} failed" in err and "boom" in err


@pytest.mark.slow
def test_after_the_warm_up_the_quick_catalog_compiles_nothing(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "fedbounds.app.warmup"], env=env, check=True)
    assert any(tmp_path.rglob("*.nbi"))  # the kernels went to the cache given
    done = subprocess.run([sys.executable, "-c", _CATALOG_COMPILES], env=env, check=True,
                          capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
