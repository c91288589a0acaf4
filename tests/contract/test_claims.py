"""The claim contract, over every discovered claim (benchopt-style generated tests).

* the quick profile gives a verdict, computed from the claim's measurement;
* the spec's declared perturbation gives ``refuted``;
* an unknown override is a clear error naming the allowed parameters;
* the run the claim reports is accepted verbatim by ``fedbounds run`` (checked with 2 rounds);
* every claim says whose prediction it is and read how (verify/provenance.py), a derived or
  extrapolation one writes its derivation out (tests/verify/test_claim.py: the verdict
  carries it);
* every verdict carries the conditions check of its runs, and no claim that would refute the
  paper runs outside its theorem's conditions.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from fedbounds.app.cli import app
from fedbounds.errors import BadInput
from fedbounds.verify import catalog
from fedbounds.verify.claim import ClaimSpec, tolerance_needs_why
from fedbounds.verify.provenance import PROVENANCES

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
    assert spec.provenance in PROVENANCES, cid
    if spec.provenance in ("derived", "extrapolation"):
        assert len(spec.derivation.split()) >= 15, f"{cid}: the derivation is not written out"
    else:
        assert not spec.derivation and not spec.exact_derivation, cid
    if spec.provenance == "erratum":
        assert spec.errata, f"{cid}: an erratum reading names its errata"


def test_provenance_of_the_claims_the_issue_names():
    table = catalog.claims()
    assert table["fedsgda.p14"].provenance == "conjecture"
    assert table["feddro.p9"].provenance == "extrapolation"  # Thm 5.1's T condition fails
    assert not table["feddro.p9"].refutes_paper
    assert table["sagda.p10"].provenance == "extrapolation"  # conditions (11)–(13) fail
    assert table["sagda.p8a"].provenance == "paper"  # inside Theorem 1's conditions (issue 27)
    assert table["feddro.p13"].provenance == "consistency"  # the encoding's cost model vs ε
    assert all(table[c].provenance == "erratum" for c in ("proxskip.p1", "proxskip.p13"))


@pytest.mark.parametrize("cid", CLAIMS)
def test_the_runs_are_checked_against_the_theorems_conditions(cid, quick_verdict):
    """Every verdict carries the conditions check of its runs (or says why there is none),
    and no claim whose refutation would refute the paper runs outside its theorem's
    conditions: such a run is an extrapolation, declared as one."""
    spec, verdict = catalog.claims()[cid], quick_verdict(cid)
    status = verdict.conditions.get("status")
    assert status in ("hold", "fail", "not applicable"), (
        f"{cid}: its runs are not checked against {', '.join(spec.theorems)}'s conditions")
    if status == "fail":
        failing = [(r["theorem"], r["where"], [c["name"] for c in r["failing"]])
                   for r in verdict.conditions["runs"] if not r["holds"]]
        assert not spec.refutes_paper, f"{cid} reads the paper but its runs fail: {failing}"
        assert verdict.provenance in ("extrapolation", "conjecture", "consistency"), cid


@pytest.mark.parametrize("cid", CLAIMS)
def test_declared_perturbation_is_refuted(cid, quick_runs):
    """Under its perturbation the claim is refuted. A perturbation of parameters the quick
    run's measure did not read (a prediction, a tolerance, a bound's scale) is decided on that
    run's measurement (a measure is a function of the parameters it reads and the seed); any
    other runs the measure again."""
    spec = catalog.claims()[cid]
    assert spec.perturb, f"{cid} declares no perturbation"
    _, record = quick_runs(cid)
    if record is not None:
        spec = record.replaying(spec)
    verdict = spec.run("quick", 0, **spec.perturb)
    assert verdict.verdict == "refuted", (cid, verdict.statistic, verdict.evidence.get("checks"))


@pytest.mark.parametrize("cid", CLAIMS)
def test_a_tolerance_says_where_it_comes_from(cid):
    """A rule with a tolerance says where it comes from (round-off, solver accuracy,
    confidence level, a stated modelling slack) in the claim's spec."""
    spec = catalog.claims()[cid]
    if tolerance_needs_why(spec.rule, spec.resolve_params()):
        assert len(spec.tolerance_why.split()) >= 6, f"{cid}: say where its tolerance comes from"


PLANTED = [(cid, i) for cid in CLAIMS for i in range(len(catalog.claims()[cid].plants))]


@pytest.mark.parametrize("cid, index", PLANTED)
def test_each_planted_wrong_theory_is_refuted(cid, index, quick_runs):
    """Under each experiment-level perturbation (verify/perturbation.py: a changed experiment
    or a planted wrong theory) the claim is refuted."""
    spec = catalog.claims()[cid]
    plant = spec.plants[index]
    _, record = quick_runs(cid)
    if record is not None:
        spec = record.replaying(spec)
    verdict = spec.run("quick", 0, **plant.overrides)
    assert verdict.verdict == "refuted", (cid, plant.why, verdict.statistic,
                                          verdict.evidence.get("checks"))


def test_most_claims_with_a_run_test_their_experiment(quick_verdict):
    """At least 80 % of the claims whose statistic comes from a run declare a perturbation
    that tests the experiment, not only the rule (issue 27)."""
    with_run = [cid for cid in CLAIMS if quick_verdict(cid).config]
    planted = [cid for cid in with_run if catalog.claims()[cid].plants]
    missing = sorted(set(with_run) - set(planted))
    assert len(planted) >= 0.8 * len(with_run), (
        f"{len(planted)} of {len(with_run)} claims with a run plant a wrong theory; "
        f"without: {', '.join(missing)}")


def test_read_tracking_notes_every_name_a_measure_looks_at(read_tracking):
    import json

    tracking, _ = read_tracking
    reads: set[str] = set()
    params = tracking({"a": 1, "b": 2.0, "c": (1, 2)}, reads)
    assert params["a"] == 1 and params.get("missing") is None and "b" in params
    assert reads == {"a", "missing", "b"}
    for look_at_all in (lambda p: {**p}, dict, list, json.dumps, repr, lambda p: p.items(),
                        lambda p: p == {}, lambda p: p | {}, lambda p: p.copy()):
        reads.clear()
        look_at_all(params)
        assert reads == {"a", "b", "c"}, look_at_all


def test_quick_measurement_is_reused_only_on_the_same_inputs(read_tracking):
    """A toy claim whose measure reads ``a`` (and looks for ``z``) but not ``b``: its
    measurement is decided again when only ``b`` changes, measured again otherwise."""
    from dataclasses import replace

    _, quick_measurement = read_tracking
    calls: list[dict] = []

    def measure(params, seed):
        calls.append(dict(params))
        return ("measured", params["a"], params.get("z"), seed)

    inputs = {"a": 1, "b": 2.0}
    record = quick_measurement(inputs, {"a", "z"}, 0, measure(inputs, 0))
    assert record.same_inputs({"a": 1, "b": 5.0}, 0)
    assert not record.same_inputs({"a": 2, "b": 2.0}, 0)
    assert not record.same_inputs({"a": 1.0, "b": 2.0}, 0)  # another type: another input
    assert not record.same_inputs({"a": 1, "b": 2.0, "z": 3}, 0)  # looked for and now there
    assert not record.same_inputs(inputs, 1)
    spec = replace(catalog.claims()[CLAIMS[0]], measure=measure)
    replayed = record.replaying(spec)
    assert replayed.measure({"a": 1, "b": 9.0}, 0) == ("measured", 1, None, 0)
    assert len(calls) == 1
    assert replayed.measure({"a": 3, "b": 2.0}, 0) == ("measured", 3, None, 0)
    assert len(calls) == 2


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
