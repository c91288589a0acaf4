"""The Python API of ``fedbounds.verify.pep``: verdicts against the encoded theorems, the
perturbed theorem reported violated, bad input named, and 'not solved' (never an exception)
when a solver is missing, fails, or leaves residuals too large."""

from __future__ import annotations

from pathlib import Path

import pytest

from fedbounds import registry
from fedbounds.errors import BadInput
from fedbounds.verify import catalog, pep
from fedbounds.verify.pep import sdp, sweeps

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"
COVERED = {"proxskip.thm3.1", "proxskip.cor3.6", "proxskip.cor3.6.corrected",
           "proxskip.thm4.2", "proxskip.thm4.2.corrected"}
THM31 = {"gamma": 0.1, "mu": 1, "ell": 10, "p": 0.3}


def test_every_covered_theorem_has_a_model_of_a_known_theorem():
    models = pep.models()
    assert COVERED <= set(models)
    for theorem_id, model in models.items():
        assert registry.get(theorem_id).id == theorem_id
        assert model.kind == "exact" and model.paper == "proxskip"


def test_theorem_31_is_valid_and_tight_where_p_squared_binds():
    result = pep.solve("proxskip.thm3.1", THM31)
    assert result.verdict == "valid" and result.conditions_hold
    assert result.theorem_value == pytest.approx(1 - min(0.1 * 1, 0.3**2), rel=1e-12)
    assert result.ratio == pytest.approx(1.0, abs=1e-4)
    assert result.status == "optimal" and result.solver == "CLARABEL"
    assert set(result.residuals) >= {"primal_psd", "dual_psd", "dual_certificate"}
    assert result.residual < sdp.MAX_RESIDUAL and abs(result.gap) < sdp.MAX_RESIDUAL


def test_perturbed_rate_is_violated_somewhere_on_a_small_grid():
    """Acceptance 2: the theorem's rate multiplied by 0.9 is reported violated."""
    grid = [{"gamma": g, "mu": 1, "ell": 10, "p": p} for g in (0.05, 0.1) for p in (0.1, 0.5)]
    verdicts = [pep.solve("proxskip.thm3.1", v, rate_scale=0.9).verdict for v in grid]
    assert "violated" in verdicts
    assert all(pep.solve("proxskip.thm3.1", v).verdict == "valid" for v in grid)


def test_theorem_42_takes_p_from_the_encoded_theorem():
    result = pep.solve("proxskip.thm4.2", {"gamma": 0.05, "mu": 1, "ell": 10, "n": 3})
    assert result.derived["p"] == pytest.approx(0.05**0.5, rel=1e-12)  # p = √(γμ)
    assert result.verdict == "valid"
    assert result.worst == pytest.approx(1 - 0.05, rel=1e-4)  # tight for the FL form too


def test_outside_the_conditions_the_violation_is_explained():
    """Corollary 3.6 at γ = 1.5/ℓ > 1/(2ℓ): the class's worst case exceeds its formula, and
    the result says that the corollary claims nothing there."""
    result = pep.solve("proxskip.cor3.6", {"gamma": 0.15, "mu": 1, "ell": 10, "p": 1})
    assert result.verdict == "violated" and not result.conditions_hold
    assert "conditions fail" in result.reason


@pytest.mark.parametrize(("theorem", "values", "steps", "argument"), [
    ("proxskip.thm3.1", {**THM31, "zeta": 1}, 1, "--set zeta"),
    ("proxskip.thm4.2", {"gamma": 0.05, "mu": 1, "ell": 10, "p": 0.2}, 1, "--set p"),  # derived
    ("proxskip.thm3.1", {**THM31, "ell": 0.5}, 1, "--set ell"),  # ℓ < μ: the class is empty
    ("proxskip.thm3.1", {**THM31, "p": 1.5}, 1, "--set p"),
    ("proxskip.thm4.2", {"gamma": 0.05, "mu": 1, "ell": 10, "n": 5}, 1, "--set n"),
    ("proxskip.thm3.1", {"gamma": 0.1, "mu": 1}, 1, "--set"),
    ("proxskip.thm3.1", THM31, 9, "--steps"),
])
def test_bad_input_names_the_argument(theorem, values, steps, argument):
    with pytest.raises(BadInput) as err:
        pep.solve(theorem, values, steps=steps)
    assert err.value.argument == argument


def test_unknown_theorem_lists_the_covered_ones():
    with pytest.raises(BadInput) as err:
        pep.model("proxskip.thm3.2")
    assert "proxskip.thm3.1" in err.value.message


def test_missing_solver_gives_not_solved(monkeypatch):
    monkeypatch.setattr(sdp, "installed_solvers", lambda: ["ECOS"])
    result = pep.solve("proxskip.thm3.1", THM31)
    assert result.verdict == "not solved" and result.worst is None and result.ratio is None
    assert "no SDP solver available" in result.reason and "CLARABEL" in result.reason


def test_failing_solver_gives_not_solved(monkeypatch):
    import cvxpy

    def broken(self, *args, **kwargs):
        raise cvxpy.error.SolverError("simulated failure")

    monkeypatch.setattr(cvxpy.Problem, "solve", broken)
    result = pep.solve("proxskip.thm3.1", THM31)
    assert result.verdict == "not solved"
    assert "simulated failure" in result.reason
    assert [a["solver"] for a in result.attempts] == ["CLARABEL", "SCS"]


def test_residuals_above_the_threshold_give_not_solved(monkeypatch):
    monkeypatch.setattr(sdp, "MAX_RESIDUAL", 0.0)
    result = pep.solve("proxskip.thm3.1", THM31, solvers=("CLARABEL",))
    assert result.verdict == "not solved"
    assert "certificate residual too large" in result.reason or "gap" in result.reason
    assert result.worst is not None  # the value is reported, not trusted


def test_kappa_sweep_scales_like_kappa_for_minmax_constants():
    """Acceptance 3 (small grid): with ℓ = κ²μ the worst-case communications grow like κ,
    with ℓ = κμ like √κ (Corollary 3.6 and the remark after it [L184])."""
    minmax = sweeps.kappa_sweep("proxskip.cor3.6", [4.0, 16.0], 1e-6, "minmax")
    minimisation = sweeps.kappa_sweep("proxskip.cor3.6", [4.0, 16.0], 1e-6, "minimisation")
    assert minmax.slope("pep") == pytest.approx(1.0, abs=0.05)
    assert minimisation.slope("pep") == pytest.approx(0.5, abs=0.1)
    assert all(r.result.verdict == "valid" for r in minmax.rows + minimisation.rows)


@pytest.fixture
def toygda(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))
    monkeypatch.setenv("FEDBOUNDS_PAPERS", "toygda")
    registry.clear_caches()
    catalog.clear_caches()
    yield
    monkeypatch.delenv("FEDBOUNDS_PAPERS")
    registry.clear_caches()
    catalog.clear_caches()


def test_a_plugin_paper_declares_its_own_model(toygda):
    assert "gda.thm1" in catalog.pep_models()
    gamma, mu, lipschitz = 0.1, 1.0, 3.0
    result = pep.solve("gda.thm1", {"gamma": gamma, "mu": mu, "L": lipschitz})
    assert result.verdict == "valid" and result.conditions_hold  # γ ≤ μ/L² = 1/9
    assert result.worst == pytest.approx(1 - 2 * gamma * mu + gamma**2 * lipschitz**2, rel=1e-4)
    assert result.theorem_value == pytest.approx(1 - gamma * mu, rel=1e-12)
