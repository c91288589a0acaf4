"""Two seeds with one meaning each (issue 13): ``instance_seed`` (``--instance-seed``) fixes the
problem instance, ``seed`` (``--seed``) the noise. Changing the noise seed alone leaves every
instance quantity as it was and moves the noise; changing the instance seed moves the
instance; both seeds are recorded in the verdict and in its rerun command, which
``fedbounds run`` accepts and which rebuilds the claim's instance; at 0/0 the numbers recorded
before the split are reproduced; bad seeds are refused naming their option."""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fedbounds.app.cli import app
from fedbounds.errors import BadInput
from fedbounds.verify import catalog
from fedbounds.verify.claim import RunConfig, Verdict

REFERENCE = Path(__file__).resolve().parents[1] / "data/verdicts_before_redesign.json"
P8A_SMALL = {"T": 200, "R": 4}  # sagda.p8a at a short horizon: the same instance, fast


def _checks(v: Verdict, key: str) -> list[float]:
    return [c[key] for c in v.evidence["checks"]]


def _rows(rows: str, key: str) -> Callable[[Verdict], list[float]]:
    return lambda v: [r[key] for r in v.evidence[rows] if key in r]


# claim id -> (overrides that keep it fast, what only the instance determines, what the noise
# moves)
CASES: dict[str, tuple[dict[str, Any], Callable[[Verdict], Any], Callable[[Verdict], Any]]] = {
    # the predicted bound depends on the game through D_0 = L_0 − L_* (issue 13's example)
    "sagda.p8a": (P8A_SMALL, lambda v: (v.predicted, v.evidence["D0"]), lambda v: v.statistic),
    # z_t is part of the instance; the local phase's gradients are noise
    "sagda.p4": ({"R": 200}, lambda v: v.evidence["z_t"], lambda v: _checks(v, "lhs")),
    # the DRO datasets are the instance (Lemma 3.1's bound); the sampled points are noise
    "feddro.p12": ({"dro_points": 20, "scalar": []}, _rows("rows", "bound"),
                   _rows("rows", "max_abs_Phi2")),
    # the exact E[V_t] depends on the operator only; the Monte Carlo mean on the coins
    "proxskip.p3": ({"replicas": 20}, _rows("checkpoints", "exact"),
                    _rows("checkpoints", "mc_mean")),
}


@pytest.fixture(scope="module")
def runs() -> dict[tuple[str, int, int], Verdict]:
    """Each case at (seed, instance_seed) = (0, 0), (1, 0) and (0, 1)."""
    return {(cid, seed, inst): catalog.claims()[cid].run("quick", seed, inst, **overrides)
            for cid, (overrides, _, _) in CASES.items() for seed, inst in ((0, 0), (1, 0), (0, 1))}


@pytest.mark.parametrize("cid", sorted(CASES))
def test_noise_seed_moves_the_noise_only(cid, runs):
    _, instance, noise = CASES[cid]
    base, other = runs[(cid, 0, 0)], runs[(cid, 1, 0)]
    assert instance(other) == instance(base)
    assert noise(other) != noise(base)


@pytest.mark.parametrize("cid", sorted(CASES))
def test_instance_seed_moves_the_instance(cid, runs):
    _, instance, _ = CASES[cid]
    assert instance(runs[(cid, 0, 1)]) != instance(runs[(cid, 0, 0)])


def test_p8a_prediction_moves_with_the_instance_seed_only(runs):
    """Issue 13: ``--seed 1`` used to move sagda.p8a's predicted bound (D_0 changed)."""
    base, noise, inst = (runs[("sagda.p8a", s, i)] for s, i in ((0, 0), (1, 0), (0, 1)))
    assert noise.predicted == base.predicted and noise.statistic != base.statistic
    assert inst.predicted != base.predicted


@pytest.mark.parametrize("cid", sorted(CASES))
def test_both_seeds_are_recorded_in_the_verdict_and_its_rerun_command(cid, runs):
    v = runs[(cid, 1, 0)], runs[(cid, 0, 1)]
    for verdict, (seed, inst) in zip(v, ((1, 0), (0, 1)), strict=True):
        doc = verdict.as_json()
        assert (doc["seed"], doc["instance_seed"]) == (seed, inst)
        if verdict.config:
            assert (doc["config"]["seed"], doc["config"]["instance_seed"]) == (seed, inst)
            words = shlex.split(RunConfig(**verdict.config).command(), comments=True)
            assert words[words.index("--seed") + 1] == str(seed)
            assert words[words.index("--instance-seed") + 1] == str(inst)


def test_both_seeds_at_zero_reproduce_the_recorded_numbers(quick_verdict):
    """Claims whose instance and noise shared one generator (sagda.p4's z_t, proxskip.p14's
    random matrices) draw what they drew before the split."""
    recorded = {c["id"]: c for c in json.loads(REFERENCE.read_text())["claims"]}
    for cid in ("sagda.p4", "proxskip.p14", "proxskip.p3"):
        v = quick_verdict(cid)
        assert (v.seed, v.instance_seed) == (0, 0)
        assert v.verdict == recorded[cid]["verdict"]
        assert math.isclose(v.statistic, recorded[cid]["statistic"], rel_tol=1e-9)


def _run_json(command: str) -> dict[str, Any]:
    """``fedbounds run`` on a rerun command (its words after ``fedbounds``), as JSON."""
    result = CliRunner().invoke(app, [*shlex.split(command, comments=True)[1:], "--json"])
    assert result.exit_code == 0, (command, result.output)
    return json.loads(result.stdout)


def test_rerun_command_rebuilds_the_claims_instance(runs):
    """The rerun command of sagda.p8a runs the claim's game: its first ‖∇Φ(x_0)‖² (the
    instance's, before any noise) and, with the same noise seed, the trajectory average (the
    claim's statistic) are the claim's; another instance seed gives another game."""
    first = {}
    for seed, inst in ((0, 0), (1, 0), (0, 1)):
        v = runs[("sagda.p8a", seed, inst)]
        curve = _run_json(RunConfig(**v.config).command())["metrics"]["grad_phi_sq"]
        assert math.isclose(curve[0], v.figure.series["measured"][1][0], rel_tol=1e-12)
        assert math.isclose(sum(curve[:-1]) / (len(curve) - 1), v.statistic, rel_tol=1e-9)
        first[(seed, inst)] = curve[0]
    assert first[(1, 0)] == first[(0, 0)] != first[(0, 1)]


@pytest.mark.parametrize(("seeds", "option"), [
    ({"seed": -1}, "--seed"), ({"seed": 2**63}, "--seed"), ({"seed": 1.0}, "--seed"),
    ({"seed": True}, "--seed"), ({"instance_seed": -1}, "--instance-seed"),
    ({"instance_seed": 2**63}, "--instance-seed"), ({"instance_seed": "1"}, "--instance-seed")])
def test_bad_seeds_are_refused_naming_the_option(seeds, option):
    with pytest.raises(BadInput) as err:
        catalog.claims()["sagda.p8a"].run("quick", **seeds)
    assert err.value.argument == option


def test_the_largest_seeds_are_accepted():
    v = catalog.claims()["sagda.p4"].run("quick", 2**63 - 1, 2**63 - 1, R=20)
    assert (v.seed, v.instance_seed) == (2**63 - 1, 2**63 - 1)


@pytest.mark.parametrize(("args", "option"), [
    (["verify", "sagda.p8a", "--instance-seed", "-1"], "--instance-seed"),
    (["verify", "sagda.p8a", "--seed", "-1"], "--seed"),
    (["run", "sagda2", "--problem", "minmax-quadratic", "--instance-seed", "-1"],
     "--instance-seed")])
def test_cli_refuses_bad_seeds_with_exit_2(args, option):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert f"error: {option}" in result.output
