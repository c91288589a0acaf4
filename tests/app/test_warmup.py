"""The kernel warm-up (``python -m fedbounds.app.warmup``, run by ``make`` after installing)
runs the whole catalog (no list of claims) into the store and leaves nothing for the quick
catalog to compile: with an empty numba cache, the warm-up and then every claim's quick run,
and no kernel compiled by the claims."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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


@pytest.mark.forks_on_purpose
def test_the_warm_up_runs_the_catalog_into_the_store_and_names_a_failing_claim(
        monkeypatch, capsys, tmp_path):
    """Every claim of the catalog (no hand list): one that raises is named and the rest run;
    the verdicts are in the store for the first report."""
    from dataclasses import replace

    from fedbounds.app import warmup
    from fedbounds.app.store import ResultStore

    def broken(params, seed):
        raise RuntimeError("boom")

    claims = catalog.claims()
    cheap, other = "proxskip.p14", "feddro.p15"
    monkeypatch.setattr(catalog, "claims", lambda: {
        cheap: replace(claims[cheap], measure=broken), other: claims[other]})
    monkeypatch.setenv("FEDBOUNDS_STORE", str(tmp_path / "s.sqlite"))
    assert warmup.main() == 0
    err = capsys.readouterr().err
    assert f"warm-up: {cheap} failed" in err and "boom" in err and "2 quick claims" in err
    with ResultStore(tmp_path / "s.sqlite") as db:
        assert [r["claim"] for r in db.rows()] == [other]  # a failure is not stored


@pytest.mark.slow
def test_after_the_warm_up_the_quick_catalog_compiles_nothing(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "FEDBOUNDS_STORE": "off"}
    subprocess.run([sys.executable, "-m", "fedbounds.app.warmup"], env=env, check=True)
    assert any(tmp_path.rglob("*.nbi"))  # the kernels went to the cache given
    done = subprocess.run([sys.executable, "-c", _CATALOG_COMPILES], env=env, check=True,
                          capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
