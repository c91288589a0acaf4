"""The claim contract, over every discovered claim (benchopt-style generated tests).

* the quick profile gives a verdict, computed from the claim's measurement;
* the spec's declared perturbation gives ``refuted``;
* an unknown override is a clear error naming the allowed parameters;
* the run the claim reports is accepted verbatim by ``fedbounds run`` (checked with 2 rounds);
* every claim says whose prediction it is (paper, derived or conjecture), a derived one writes
  its derivation out (tests/verify/test_claim.py: the verdict carries it).
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from fedbounds.app.cli import app
from fedbounds.errors import BadInput
from fedbounds.verify import catalog
from fedbounds.verify.claim import ClaimSpec

CLAIMS = sorted(catalog.claims())
VERDICTS = {"confirmed", "refuted", "inconclusive", "diverged"}


def test_every_claim_is_a_spec():
    assert CLAIMS, "no claims discovered"
    assert all(isinstance(catalog.claims()[c], ClaimSpec) for c in CLAIMS)


@pytest.mark.parametrize("cid", CLAIMS)
def test_quick_run_gives_a_verdict(cid, quick_verdict):
    verdict = quick_verdict(cid)
    assert verdict.id == cid and verdict.verdict in VERDICTS
    assert verdict.seconds is not None and verdict.seconds >= 0
    if verdict.verdict in ("confirmed", "refuted"):
        assert verdict.statistic is not None
        assert verdict.predicted is not None and verdict.tolerance is not None
    assert verdict.figure is not None, f"{cid} draws no figure"


@pytest.mark.parametrize("cid", CLAIMS)
def test_provenance_is_declared(cid):
    spec = catalog.claims()[cid]
    assert spec.provenance in ("paper", "derived", "conjecture"), cid
    if spec.provenance == "derived":
        assert len(spec.derivation.split()) >= 15, f"{cid}: the derivation is not written out"
    else:
        assert not spec.derivation and not spec.exact_derivation, cid


def test_provenance_of_the_claims_the_issue_names():
    table = catalog.claims()
    assert table["fedsgda.p14"].provenance == "conjecture"
    assert table["feddro.p9"].provenance == "derived"
    assert not table["feddro.p9"].refutes_paper
    assert all(table[c].provenance == "paper" for c in ("sagda.p8a", "sagda.p10"))


@pytest.mark.parametrize("cid", CLAIMS)
def test_declared_perturbation_is_refuted(cid):
    spec = catalog.claims()[cid]
    assert spec.perturb, f"{cid} declares no perturbation"
    verdict = spec.run("quick", 0, **spec.perturb)
    assert verdict.verdict == "refuted", (cid, verdict.statistic, verdict.evidence.get("checks"))


@pytest.mark.parametrize("cid", CLAIMS)
def test_unknown_override_names_the_allowed_ones(cid):
    spec = catalog.claims()[cid]
    with pytest.raises(BadInput) as err:
        spec.run("quick", 0, not_a_parameter_of_any_claim=1.0)
    assert "not_a_parameter_of_any_claim" in str(err.value)
    for name in spec.params:
        assert name in err.value.message


@pytest.mark.parametrize("cid", CLAIMS)
def test_reported_run_is_accepted_by_fedbounds_run(cid, quick_verdict):
    config = quick_verdict(cid).config
    if not config:
        pytest.skip(f"{cid} reports no single run (exact analysis only)")
    args = ["run", config["algorithm"], "--problem", config["problem"], "--rounds", "2",
            "--seeds", "1", "--seed", str(config["seed"]),
            "--instance-seed", str(config["instance_seed"]), "--json"]
    if config["set"]:
        args += ["--set", *(f"{k}={v}" for k, v in config["set"].items())]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, (cid, args, result.output)
