"""Report rendering and the claim runner, with stand-in claims whose verdicts are computed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from fedbounds.app.cli import app
from fedbounds.app.report import write_report
from fedbounds.verify import catalog
from fedbounds.verify.claim import ClaimSpec, FigureSpec, Interval, Measurement, RunConfig, claim


def _geometric_claim(rate: float, predicted: float) -> ClaimSpec:
    """Fits the rate of x_t = rate^t and compares with a predicted rate (could fail)."""

    @claim("proxskip.p901", title="geometric rate", prediction=f"rate = {predicted}",
           source="test", provenance="conjecture", rule=Interval("predicted", 1e-2),
           params={"predicted": predicted},
           perturb={"predicted": predicted + 1}, errata=("cor3.6-step",),
           figure=FigureSpec("x_t", "t", "x"))
    def measure(params, seed):
        t = np.arange(30)
        x = rate**t * (1 + 1e-3 * np.random.default_rng(seed).standard_normal(30))
        slope = float(np.polyfit(t, np.log(x), 1)[0])
        est = math.exp(slope)
        return Measurement(est, (est - 1e-3, est + 1e-3), series={"x": (t.tolist(), x.tolist())},
                           hlines={"1": 1.0}, evidence={"slope": slope},
                           run=RunConfig("a", "b", {"eta": 0.1}, rounds=30))

    return measure


@pytest.fixture
def fake_claims(monkeypatch, theory_once):
    """Install one claim as the whole catalogue; the proxskip theory page is computed once."""
    theory_once(monkeypatch, "proxskip")

    def install(spec: ClaimSpec) -> None:
        monkeypatch.setattr(catalog, "claims", lambda: {spec.id: spec})

    return install


def test_report_writes_pages_and_figures(tmp_path: Path, fake_claims) -> None:
    fake_claims(_geometric_claim(0.9, 0.9))
    summary = write_report(tmp_path / "r", papers=["proxskip"])
    out = tmp_path / "r"
    assert (out / "index.html").exists() and (out / "proxskip.md").exists()
    svg = (out / "figures" / "proxskip.p901.svg").read_text()
    assert svg.startswith("<?xml") and "<svg" in svg
    md = (out / "proxskip.md").read_text()
    assert "proxskip.p901" in md and "confirmed" in md
    # the erratum lists the claim that checks it
    assert any("cor3.6-step" in line and "proxskip.p901" in line for line in md.splitlines())
    assert summary["claims"][0]["verdict"] == "confirmed"


def test_refuted_verdict_shows_rerun_config(tmp_path: Path, fake_claims) -> None:
    fake_claims(_geometric_claim(0.9, 0.5))  # wrong prediction: the verifier must fail
    summary = write_report(tmp_path / "r", papers=["proxskip"])
    assert summary["claims"][0]["verdict"] == "refuted"
    md = (tmp_path / "r" / "proxskip.md").read_text()
    assert "fedbounds run a --problem b --set eta=0.1 --rounds 30 --seeds 1 --seed 0" in md


def test_failed_report_leaves_previous_report_intact(tmp_path: Path, fake_claims,
                                                     monkeypatch) -> None:
    fake_claims(_geometric_claim(0.9, 0.9))
    write_report(tmp_path / "r", papers=["proxskip"])
    before = (tmp_path / "r" / "proxskip.md").read_text()

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr("fedbounds.app.report._write_page", boom)  # fails mid-render
    with pytest.raises(RuntimeError):
        write_report(tmp_path / "r", papers=["proxskip"])
    assert (tmp_path / "r" / "proxskip.md").read_text() == before
    assert not list(tmp_path.glob(".report-*"))  # no temporary folder left behind


def test_same_seed_same_report(tmp_path: Path, fake_claims) -> None:
    fake_claims(_geometric_claim(0.8, 0.8))
    a = write_report(tmp_path / "a", papers=["proxskip"], seed=3)
    b = write_report(tmp_path / "b", papers=["proxskip"], seed=3)
    strip = lambda s: [{k: v for k, v in c.items() if k != "seconds"} for c in s["claims"]]  # noqa: E731
    assert strip(a) == strip(b)  # wall-clock seconds are the only difference allowed
    assert (tmp_path / "a/figures/proxskip.p901.svg").read_bytes() == \
        (tmp_path / "b/figures/proxskip.p901.svg").read_bytes()


def test_claim_exception_becomes_inconclusive_with_error(fake_claims) -> None:
    @claim("proxskip.p902", title="broken", prediction="—", source="test",
           provenance="conjecture", rule=Interval(0, 1), figure=FigureSpec("t", "x", "y"))
    def broken(params, seed):
        raise FloatingPointError("overflow in round 7")

    fake_claims(broken)
    result = CliRunner().invoke(app, ["verify", "proxskip.p902", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["claims"][0]["verdict"] == "inconclusive"
    assert "overflow in round 7" in doc["claims"][0]["evidence"]["error"]


def test_verify_bad_profile_and_backend_exit_2(fake_claims) -> None:
    fake_claims(_geometric_claim(0.9, 0.9))
    r = CliRunner().invoke(app, ["verify", "proxskip", "--profile", "medium"])
    assert r.exit_code == 2 and "--profile" in r.output
    r = CliRunner().invoke(app, ["verify", "proxskip", "--backend", "gpu"])
    assert r.exit_code == 2 and "--backend" in r.output


def test_rerun_command_from_config_runs() -> None:
    """A verdict's RunConfig becomes a `fedbounds run` command that the CLI accepts; swept
    values are named after it."""
    from types import SimpleNamespace

    from fedbounds.app.report import _rerun

    cfg = {"algorithm": "proxskip-gda-fl", "problem": "proxskip-g-norm", "set": {"n": 3, "s": 2.0},
           "rounds": 30, "seeds": 1, "seed": 1, "sweeps": {"s": [2.0, 4.0]}}
    line = _rerun(SimpleNamespace(config=cfg))
    assert line.startswith("fedbounds run proxskip-gda-fl --problem proxskip-g-norm --set n=3 s=2.0")
    assert "--rounds 30" in line and "--seed 1" in line and "# swept: s in [2.0, 4.0]" in line
    argv = line.split("  #")[0].split()[1:]
    r = CliRunner().invoke(app, argv + ["--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["config"]
    assert _rerun(SimpleNamespace(config={})) is None
