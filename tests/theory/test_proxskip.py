"""Every ProxSkip-VIP theorem id: each condition and each bound term at hand-computed points.

The comments cite the paper's numbering (Theorem 3.1, Corollary 3.6, Lemma 3.8 …) with, in
brackets, the line ``[Lnnn]`` of the text named in ``proxskip.PAPER["text"]``. Every expected
number below was computed by hand from the paper's formula at the cited place (fractions written
out in the comments); none is taken from the code under test.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from fedbounds import engine
from fedbounds.theorems import proxskip


class registry:  # noqa: N801 - the proxskip module only: other papers' modules may be in flux
    @staticmethod
    def theorems() -> dict:
        return {t.id: t for t in proxskip.THEOREMS}

    @staticmethod
    def get(theorem_id: str):
        return registry.theorems()[theorem_id]

PROXSKIP_IDS = [
    "proxskip.thm3.1", "proxskip.cor3.2", "proxskip.cor3.2.corrected", "proxskip.cor3.5",
    "proxskip.cor3.5.corrected", "proxskip.cor3.6", "proxskip.cor3.6.corrected",
    "proxskip.cor3.9", "proxskip.cor3.9.corrected", "proxskip.thm4.2",
    "proxskip.thm4.2.corrected", "proxskip.thm4.4", "proxskip.thm4.4.corrected",
]
REL = 1e-12


def fr(**kw: object) -> dict[str, Fraction]:
    return {k: Fraction(str(v)) for k, v in kw.items()}


def conds(theorem_id: str, **values: object) -> dict[str, engine.ConditionResult]:
    thm = registry.get(theorem_id)
    inputs = set(thm.condition_inputs())
    _, results = engine.check(thm, {k: v for k, v in fr(**values).items() if k in inputs})
    return {r.name: r for r in results}


def assert_cond(r: engine.ConditionResult, lhs: float, rhs: float, holds: bool) -> None:
    assert r.lhs == pytest.approx(lhs, rel=REL), r
    assert r.rhs == pytest.approx(rhs, rel=REL), r
    assert r.holds is holds, r


def terms(theorem_id: str, **values: object) -> engine.BoundResult:
    return engine.bound(registry.get(theorem_id), fr(**values))


def test_every_proxskip_id_is_registered_and_tested_here() -> None:
    ids = sorted(registry.theorems())
    assert ids == sorted(PROXSKIP_IDS)
    # DESIGN: a .corrected theorem lists the erratum its printed twin lists
    for tid in PROXSKIP_IDS:
        if tid.endswith(".corrected"):
            thm, printed = registry.get(tid), registry.get(tid.removesuffix(".corrected"))
            assert thm.corrected_of == printed.id
            assert {e.id for e in printed.errata} <= {e.id for e in thm.errata}
            assert all(cites_numbering(e.source) for e in thm.errata)


#: the paper's own numbering first, then the text line in brackets: "Corollary 3.6 [L182]"
NUMBERING = re.compile(r"^(Theorem|Corollary|Lemma|Assumption|Algorithm|Appendix|Table|Section|"
                       r"Proposition|proof of|remark after) [^\[]*\[L\d+")


def cites_numbering(source: str) -> bool:
    return bool(NUMBERING.match(source))


def test_every_source_cites_the_paper_numbering_first() -> None:
    for tid in PROXSKIP_IDS:
        thm = registry.get(tid)
        places = [("theorem", thm.source)] + [(c.name, c.source) for c in thm.conditions]
        places += [(t.name, t.source) for t in thm.bound]
        places += [(e.id, e.source) for e in thm.errata]
        places += [(s.name, s.source) for s in thm.specializations]
        places += [("schedule", thm.schedule_source)] if thm.schedule else []
        places += [("claimed", thm.claimed_source)] if thm.claimed else []
        for what, source in places:
            assert cites_numbering(source), (tid, what, source)
    for thm in (*proxskip.LEMMAS, proxskip.cor39_step, proxskip.cor39_given_step,
                proxskip.cor35_given_step):
        assert cites_numbering(thm.source) and cites_numbering(thm.schedule_source or thm.source)
    assert cites_numbering("Corollary 3.6 [L182]") and not cites_numbering("L182")


def test_the_paper_is_cited_by_its_arxiv_id() -> None:
    # the paper's own arXiv record, and no pointer to files outside the repository
    assert proxskip.PAPER["arxiv"] == "2306.05100"
    assert proxskip.PAPER["url"] == "https://arxiv.org/abs/2306.05100"
    assert set(proxskip.PAPER) == {"key", "title", "authors", "venue", "arxiv", "url", "text"}


# ---------------------------------------------------------------------------------------------
# Theorem 3.1 (conditions and τ [L140], bound [L142])
# ---------------------------------------------------------------------------------------------
P31_A = dict(gamma="1/6", mu=1, A=1, M=4, C="1/2", B=1, rho="1/2", p="1/2", D_1=1,
             D_2="1/4", V_0=2, T=3)
P31_B = dict(gamma="1/10", mu=2, A=3, M=10, C="1/5", B=2, rho="1/4", p="1/5", D_1="1/2",
             D_2="1/10", V_0=1, T=10)


def test_thm31_conditions_point_a() -> None:
    r = conds("proxskip.thm3.1", **P31_A)
    # Thm 3.1 [L140]: gamma <= 1/mu with mu=1 -> 1/6 <= 1
    assert_cond(r["gamma <= 1/mu"], 1 / 6, 1.0, True)
    # Thm 3.1 [L140]: gamma <= 1/(2(A+MC)) with A=1, M=4, C=1/2 -> 1/(2*3) = 1/6 (equality holds)
    assert_cond(r["gamma <= 1/(2(A+MC))"], 1 / 6, 1 / 6, True)
    # Thm 3.1 [L140]: M > B/rho with B=1, rho=1/2 -> 4 > 2
    assert_cond(r["M > B/rho"], 4.0, 2.0, True)
    assert r["M > B/rho"].margin == pytest.approx(2.0)


def test_thm31_conditions_point_b() -> None:
    r = conds("proxskip.thm3.1", **P31_B)
    # Thm 3.1 [L140]: 1/mu = 1/2
    assert_cond(r["gamma <= 1/mu"], 0.1, 0.5, True)
    # Thm 3.1 [L140]: 1/(2(A+MC)) = 1/(2(3 + 10/5)) = 1/10 (equality)
    assert_cond(r["gamma <= 1/(2(A+MC))"], 0.1, 0.1, True)
    # Thm 3.1 [L140]: B/rho = 2/(1/4) = 8 < 10
    assert_cond(r["M > B/rho"], 10.0, 8.0, True)


def test_thm31_conditions_violated() -> None:
    r = conds("proxskip.thm3.1", gamma="1/2", mu=4, A=1, M=1, C=1, B=1, rho=1)
    # Thm 3.1 [L140]: 1/mu = 1/4 < 1/2; 1/(2(A+MC)) = 1/4 < 1/2; M > B/rho is strict: 1 > 1 fails
    assert_cond(r["gamma <= 1/mu"], 0.5, 0.25, False)
    assert_cond(r["gamma <= 1/(2(A+MC))"], 0.5, 0.25, False)
    assert_cond(r["M > B/rho"], 1.0, 1.0, False)
    assert r["gamma <= 1/mu"].margin == pytest.approx(-0.25)


def test_thm31_bound_point_a() -> None:
    b = terms("proxskip.thm3.1", **P31_A)
    # Thm 3.1 [L140]: tau = min{gamma*mu, p^2, rho - B/M} = min{1/6, 1/4, 1/2 - 1/4} = 1/6
    assert b.derived["tau"] == pytest.approx(1 / 6, rel=REL)
    # Thm 3.1 [L142]: (1 - tau)^T V_0 = (5/6)^3 * 2 = 125/108
    assert b.terms["contraction"] == pytest.approx(125 / 108, rel=REL)
    # Thm 3.1 [L142]: gamma^2 (D_1 + M D_2)/tau = (1/36)(1 + 1)/(1/6) = 1/3
    assert b.terms["neighborhood"] == pytest.approx(1 / 3, rel=REL)
    assert b.value == pytest.approx(161 / 108, rel=REL)
    assert b.feasible


def test_thm31_bound_point_b() -> None:
    b = terms("proxskip.thm3.1", **P31_B)
    # Thm 3.1 [L140]: tau = min{2/10, 1/25, 1/4 - 2/10} = min{1/5, 1/25, 1/20} = 1/25 (the p^2
    # branch)
    assert b.derived["tau"] == pytest.approx(0.04, rel=REL)
    # Thm 3.1 [L142]: (24/25)^10 * 1 = 0.664832635991501
    assert b.terms["contraction"] == pytest.approx(0.664832635991501, rel=REL)
    # Thm 3.1 [L142]: (1/100)(1/2 + 10/10)/(1/25) = 0.375
    assert b.terms["neighborhood"] == pytest.approx(0.375, rel=REL)


def test_thm31_bound_rho_branch() -> None:
    b = terms("proxskip.thm3.1", gamma="1/5", mu=1, A=0, C=0, M="5/2", B=1, rho="1/2", p=1,
              D_1=1, D_2=2, V_0=1, T=5)
    # Thm 3.1 [L140]: tau = min{1/5, 1, 1/2 - 1/(5/2)} = min{1/5, 1, 1/10} = 1/10 (the rho - B/M
    # branch)
    assert b.derived["tau"] == pytest.approx(0.1, rel=REL)
    # Thm 3.1 [L142]: 0.9^5 = 0.59049 and (1/25)(1 + 5)/(1/10) = 2.4
    assert b.terms["contraction"] == pytest.approx(0.59049, rel=REL)
    assert b.terms["neighborhood"] == pytest.approx(2.4, rel=REL)


# ---------------------------------------------------------------------------------------------
# Corollary 3.2 (conditions [L148], bound in its proof, Appendix F.2 [L637]) and its corrected
# variant
# ---------------------------------------------------------------------------------------------
P32_A = dict(gamma="1/20", mu=1, A=1, B=1, C=1, rho="1/2", D_1="1/10", D_2="1/20", epsilon=1,
             V_0=1, T=10)


@pytest.mark.parametrize("tid", ["proxskip.cor3.2", "proxskip.cor3.2.corrected"])
def test_cor32_conditions_point_a(tid: str) -> None:
    # the corrected variant takes M as an input; M = 2B/rho = 4 reproduces the printed one
    extra = {"M": 4} if tid.endswith("corrected") else {}
    r = conds(tid, **P32_A, **extra)
    # Cor. 3.2 [L148]: 1/mu = 1
    assert_cond(r["gamma <= 1/mu"], 0.05, 1.0, True)
    # Cor. 3.2 [L148]: M = 2B/rho = 4, 1/(2(A+MC)) = 1/(2(1+4)) = 1/10
    assert_cond(r["gamma <= 1/(2(A+MC))"], 0.05, 0.1, True)
    # Cor. 3.2 [L148]: rho/(2mu) = 1/4
    assert_cond(r["gamma <= rho/(2mu)"], 0.05, 0.25, True)
    # Cor. 3.2 [L148]: mu*eps/(2(D_1 + 2B/rho D_2)) = 1/(2(1/10 + 4/20)) = 5/3
    assert_cond(r["gamma <= mu*eps/(2(D_1+2B/rho D_2))"], 0.05, 5 / 3, True)
    # Thm 3.1 [L140]: M > B/rho: 4 > 2
    assert_cond(r["M > B/rho"], 4.0, 2.0, True)
    if extra:  # Cor. 3.2 [L148] corrected: M >= 2B/rho, 4 >= 4
        assert_cond(r["M >= 2B/rho"], 4.0, 4.0, True)


def test_cor32_printed_with_B_zero_violates_M_condition() -> None:
    r = conds("proxskip.cor3.2", gamma="1/4", mu=1, A=1, B=0, C=3, rho=1, D_1=1, D_2=0,
              epsilon=1)
    # Cor. 3.2 [L148]: M = 2B/rho = 0; Thm 3.1 [L140] needs M > B/rho: 0 > 0 fails (erratum
    # cor3.2-M-zero)
    assert_cond(r["M > B/rho"], 0.0, 0.0, False)
    # Cor. 3.2 [L148]: with M = 0: 1/(2(A+MC)) = 1/2, rho/(2mu) = 1/2, mu*eps/(2 D_1) = 1/2
    assert_cond(r["gamma <= 1/(2(A+MC))"], 0.25, 0.5, True)
    assert_cond(r["gamma <= rho/(2mu)"], 0.25, 0.5, True)
    assert_cond(r["gamma <= mu*eps/(2(D_1+2B/rho D_2))"], 0.25, 0.5, True)


def test_cor32_corrected_with_B_zero_point_b() -> None:
    r = conds("proxskip.cor3.2.corrected", gamma="1/8", mu=1, A=1, B=0, C=3, rho=1, D_1=1,
              D_2=0, epsilon=1, M=1)
    # Thm 3.1 [L140]: M > B/rho: 1 > 0; Cor. 3.2 [L148] corrected: M >= 2B/rho: 1 >= 0
    assert_cond(r["M > B/rho"], 1.0, 0.0, True)
    assert_cond(r["M >= 2B/rho"], 1.0, 0.0, True)
    # Cor. 3.2 [L148]: 1/(2(A+MC)) = 1/(2(1+3)) = 1/8 (equality); mu*eps/(2(D_1+M D_2)) = 1/2
    assert_cond(r["gamma <= 1/(2(A+MC))"], 0.125, 0.125, True)
    assert_cond(r["gamma <= mu*eps/(2(D_1+2B/rho D_2))"], 0.125, 0.5, True)
    assert_cond(r["gamma <= rho/(2mu)"], 0.125, 0.5, True)


def test_cor32_bound() -> None:
    b = terms("proxskip.cor3.2", **P32_A)
    # Cor. 3.2's proof, App. F.2 [L637]: (1 - gamma*mu)^T V_0 = (19/20)^10 = 0.5987369392383789
    assert b.terms["contraction"] == pytest.approx(0.5987369392383789, rel=REL)
    # Cor. 3.2's proof, App. F.2 [L637]: gamma(D_1 + 2B/rho D_2)/mu = (1/20)(1/10 + 4/20) = 0.015
    assert b.terms["neighborhood"] == pytest.approx(0.015, rel=REL)
    b = terms("proxskip.cor3.2", gamma="1/4", mu=1, A=1, B=0, C=3, rho=1, D_1=1, D_2=0,
              epsilon=1, V_0=4, T=2)
    # Cor. 3.2's proof, App. F.2 [L637]: (3/4)^2 * 4 = 9/4 and (1/4)(1 + 0)/1 = 1/4
    assert b.terms["contraction"] == pytest.approx(2.25, rel=REL)
    assert b.terms["neighborhood"] == pytest.approx(0.25, rel=REL)
    assert not b.feasible and b.violated == ["M > B/rho"]


def test_cor32_corrected_differs_from_printed() -> None:
    # where: B = 0 (SGDA/GDA). The printed M = 2B/rho = 0 fails M > B/rho (Thm 3.1 [L140]) at every
    # gamma, so max-step finds nothing; the corrected one (any M > 0) gives
    # min{1/mu, 1/(2(A+MC)), rho/(2mu), mu*eps/(2 D_1)} = min{1, 1/8, 1/2, 1/2} = 1/8 (Cor. 3.2
    # [L148])
    common = fr(mu=1, A=1, B=0, C=3, rho=1, D_1=1, D_2=0, epsilon=1)
    printed = engine.max_step(registry.get("proxskip.cor3.2"), "gamma", common)
    assert printed.value is None and "M > B/rho" in printed.binding_all
    corrected = engine.max_step(registry.get("proxskip.cor3.2.corrected"), "gamma",
                                {**common, "M": Fraction(1)})
    assert corrected.value == pytest.approx(1 / 8, rel=REL)
    # by how much elsewhere: with M = 2B/rho the two agree; a larger M (8 instead of 4 at
    # P32_A) enlarges the neighborhood gamma(D_1 + M D_2)/mu from 0.015 to (1/20)(1/10 + 8/20)
    # = 0.025 (Cor. 3.2's proof, App. F.2 [L637] with M in place of 2B/rho)
    same = terms("proxskip.cor3.2.corrected", **P32_A, M=4)
    assert same.terms["neighborhood"] == pytest.approx(0.015, rel=REL)
    bigger = terms("proxskip.cor3.2.corrected", **P32_A, M=8)
    assert bigger.terms["neighborhood"] == pytest.approx(0.025, rel=REL)


# ---------------------------------------------------------------------------------------------
# Corollary 3.5 [L174] and Theorem 4.2 [L238] (step sizes via Cor. 3.5, Appendix G [L786])
# ---------------------------------------------------------------------------------------------
SGDA = ["proxskip.cor3.5", "proxskip.thm4.2"]


@pytest.mark.parametrize("tid", SGDA)
def test_sgda_conditions_point_a(tid: str) -> None:
    r = conds(tid, gamma="1/100", L_g=10, mu=1, epsilon="1/10", sigma_star="1/2")
    # Cor. 3.5 [L174]: 1/(2L_g) = 1/20, 1/(2mu) = 1/2, mu*eps/(8 sigma_*^2) = (1/10)/(8/4) = 1/20
    assert_cond(r["gamma <= 1/(2L_g)"], 0.01, 0.05, True)
    assert_cond(r["gamma <= 1/(2mu)"], 0.01, 0.5, True)
    assert_cond(r["gamma <= mu*eps/(8sigma_star^2)"], 0.01, 0.05, True)


@pytest.mark.parametrize("tid", SGDA)
def test_sgda_conditions_point_b(tid: str) -> None:
    r = conds(tid, gamma="1/4", L_g=1, mu=2, epsilon=1, sigma_star=1)
    # Cor. 3.5 [L174]: 1/(2L_g) = 1/2; 1/(2mu) = 1/4 (equality); mu*eps/(8 sigma_*^2) = 2/8
    # (equality)
    assert_cond(r["gamma <= 1/(2L_g)"], 0.25, 0.5, True)
    assert_cond(r["gamma <= 1/(2mu)"], 0.25, 0.25, True)
    assert_cond(r["gamma <= mu*eps/(8sigma_star^2)"], 0.25, 0.25, True)
    r = conds(tid, gamma="1/3", L_g=1, mu=2, epsilon=1, sigma_star=1)
    assert not r["gamma <= 1/(2mu)"].holds and r["gamma <= 1/(2L_g)"].holds


@pytest.mark.parametrize("tid", SGDA)
def test_sgda_deterministic_sigma_zero_is_no_cap(tid: str) -> None:
    # Sec. 4 [L240]: deterministic case sigma_*^2 = 0: the eps-cap mu*eps/(8*0) is +inf, no
    # constraint
    r = conds(tid, gamma="1/4", L_g=2, mu=1, epsilon="1/100", sigma_star=0)
    assert r["gamma <= mu*eps/(8sigma_star^2)"].holds
    assert all(x.holds for x in r.values())


@pytest.mark.parametrize("tid", SGDA + [t + ".corrected" for t in SGDA])
def test_sgda_bound(tid: str) -> None:
    b = terms(tid, gamma="1/100", L_g=10, mu=1, epsilon="1/10", sigma_star="1/2", T=100, V_0=1)
    # Thm 3.1 [L142] with Lemma 3.4 ([L168]: D_1 = 2 sigma_*^2, B = C = D_2 = 0, rho = 1), tau =
    # gamma*mu:
    # (99/100)^100 = 0.3660323412732295 and gamma^2 * 2 sigma_*^2/(gamma mu) = 2(1/100)(1/4)
    assert b.terms["contraction"] == pytest.approx(0.3660323412732295, rel=REL)
    assert b.terms["neighborhood"] == pytest.approx(0.005, rel=REL)
    b = terms(tid, gamma="1/4", L_g=1, mu=2, epsilon=1, sigma_star=1, T=3, V_0=1)
    # (1 - 1/2)^3 = 1/8 and 2(1/4)(1)/2 = 1/4
    assert b.terms["contraction"] == pytest.approx(0.125, rel=REL)
    assert b.terms["neighborhood"] == pytest.approx(0.25, rel=REL)


@pytest.mark.parametrize("tid", [t + ".corrected" for t in SGDA])
def test_sgda_corrected_conditions(tid: str) -> None:
    r = conds(tid, gamma="1/100", L_g=10, mu=1, epsilon="1/10", sigma_star="1/2")
    # Cor. 3.5 [L174] corrected (erratum cor3.5-eps-factor): mu*eps/(4 sigma_*^2) = (1/10)/1
    # = 1/10
    assert_cond(r["gamma <= mu*eps/(4sigma_star^2)"], 0.01, 0.1, True)
    assert_cond(r["gamma <= 1/(2L_g)"], 0.01, 0.05, True)
    assert_cond(r["gamma <= 1/(2mu)"], 0.01, 0.5, True)
    r = conds(tid, gamma="1/4", L_g=1, mu=2, epsilon=1, sigma_star=1)
    # 2/4 = 1/2
    assert_cond(r["gamma <= mu*eps/(4sigma_star^2)"], 0.25, 0.5, True)


@pytest.mark.parametrize("tid", SGDA + [t + ".corrected" for t in SGDA])
def test_sgda_schedule_is_the_largest_step_allowed(tid: str) -> None:
    from fedbounds.complexity import schedule_values

    # Cor. 3.5 [L174]: γ = min{1/(2L_g), 1/(2μ), με/(8σ_*²)}. At L_g = 10, μ = 1, ε = 1,
    # σ_* = 1/10 the caps are 1/20, 1/2 and 1/(8/100) = 25/2 (25 corrected): γ = 1/20 = 1/(2L_g),
    # the step Table G prescribes for ProxSkip-VIP-FL, γ = 1/(2 max ℓ_ij) with L_g = max ℓ_ij
    # (Appendix G [L784–L786])
    thm = registry.get(tid)
    at = {"L_g": 10.0, "mu": 1.0, "epsilon": 1.0, "sigma_star": 0.1}
    assert schedule_values(thm, at) == {"gamma": pytest.approx(1 / 20, rel=REL)}
    # L_g = μ = 1, σ_* = 1: caps 1/2, 1/2 and 1/8 (1/4 corrected, erratum cor3.5-eps-factor)
    at = {"L_g": 1.0, "mu": 1.0, "epsilon": 1.0, "sigma_star": 1.0}
    cap = 1 / 4 if tid.endswith("corrected") else 1 / 8
    assert schedule_values(thm, at) == {"gamma": pytest.approx(cap, rel=REL)}


@pytest.mark.parametrize("tid", SGDA)
def test_sgda_corrected_differs_from_printed(tid: str) -> None:
    # where: the eps-term binds (mu=1, L_g=1, eps=1/100, sigma_*=1): printed cap
    # (1/100)/8 = 1/800 (Cor. 3.5 [L174]), corrected (1/100)/4 = 1/400 -- exactly a factor 2
    vals = fr(mu=1, L_g=1, epsilon="1/100", sigma_star=1)
    printed = engine.max_step(registry.get(tid), "gamma", vals)
    corrected = engine.max_step(registry.get(tid + ".corrected"), "gamma", vals)
    assert printed.value == pytest.approx(1 / 800, rel=REL)
    assert corrected.value == pytest.approx(1 / 400, rel=REL)
    assert printed.binding == "gamma <= mu*eps/(8sigma_star^2)"
    assert corrected.binding == "gamma <= mu*eps/(4sigma_star^2)"
    # elsewhere they agree: sigma_* = 1/100 -> caps 12.5 and 25, 1/(2L_g) = 1/(2mu) = 1/2 binds
    vals = fr(mu=1, L_g=1, epsilon="1/100", sigma_star="1/100")
    a = engine.max_step(registry.get(tid), "gamma", vals).value
    b = engine.max_step(registry.get(tid + ".corrected"), "gamma", vals).value
    assert a == pytest.approx(0.5, rel=REL) and b == pytest.approx(0.5, rel=REL)


# ---------------------------------------------------------------------------------------------
# Corollary 3.6 [L182] (γ ≤ 1/μ from the setting of Theorem 3.1 [L140])
# ---------------------------------------------------------------------------------------------
def test_cor36_conditions() -> None:
    r = conds("proxskip.cor3.6", gamma="1/20", mu=1, ell=10)
    # Thm 3.1 [L140]: 1/mu = 1; Cor. 3.6 [L182]: gamma = 1/(2 ell) = 1/20 (equality)
    assert_cond(r["gamma <= 1/mu"], 0.05, 1.0, True)
    assert_cond(r["gamma <= 1/(2ell)"], 0.05, 0.05, True)
    r = conds("proxskip.cor3.6", gamma="1/4", mu="1/2", ell=1)
    # Thm 3.1 [L140]: 1/mu = 2; Cor. 3.6 [L182]: 1/(2 ell) = 1/2
    assert_cond(r["gamma <= 1/mu"], 0.25, 2.0, True)
    assert_cond(r["gamma <= 1/(2ell)"], 0.25, 0.5, True)
    r = conds("proxskip.cor3.6", gamma="1/10", mu=1, ell=10)
    assert_cond(r["gamma <= 1/(2ell)"], 0.1, 0.05, False)


@pytest.mark.parametrize("tid", ["proxskip.cor3.6", "proxskip.cor3.6.corrected"])
def test_cor36_bound(tid: str) -> None:
    # Cor. 3.6 [L182]: (1 - min{gamma mu, p^2})^T V_0
    b = terms(tid, gamma="1/20", mu=1, ell=10, p="1/10", T=10, V_0=1)
    # min{1/20, 1/100} = 1/100 -> (99/100)^10 = 0.9043820750088045
    assert b.terms["contraction"] == pytest.approx(0.9043820750088045, rel=REL)
    b = terms(tid, gamma="1/4", mu="1/2", ell=1, p="1/2", T=4, V_0=3)
    # min{1/8, 1/4} = 1/8 -> (7/8)^4 * 3 = 7203/4096
    assert b.terms["contraction"] == pytest.approx(7203 / 4096, rel=REL)
    assert list(b.terms) == ["contraction"]


def test_cor36_corrected_conditions_and_difference() -> None:
    r = conds("proxskip.cor3.6.corrected", gamma="1/10", mu=1, ell=10)
    # erratum cor3.6-step (Cor. 3.6 [L182] with A = ell/2 in Thm 3.1 [L140]): gamma <= 1/ell
    # = 1/10 (equality)
    assert_cond(r["gamma <= 1/ell"], 0.1, 0.1, True)
    assert_cond(r["gamma <= 1/mu"], 0.1, 1.0, True)
    r = conds("proxskip.cor3.6.corrected", gamma="1/2", mu=1, ell=4)
    assert_cond(r["gamma <= 1/ell"], 0.5, 0.25, False)
    # where and by how much: the largest step doubles, 1/(2 ell) -> 1/ell (ell=10: 1/20 -> 1/10)
    vals = fr(mu=1, ell=10)
    a = engine.max_step(registry.get("proxskip.cor3.6"), "gamma", vals)
    b = engine.max_step(registry.get("proxskip.cor3.6.corrected"), "gamma", vals)
    assert a.value == pytest.approx(0.05, rel=REL) and a.binding == "gamma <= 1/(2ell)"
    assert b.value == pytest.approx(0.1, rel=REL) and b.binding == "gamma <= 1/ell"


# ---------------------------------------------------------------------------------------------
# Corollary 3.9 [L204] and Theorem 4.4 [L256] (parameters via Cor. 3.9, Appendix G [L786]);
# Lemma 3.8 [L198]: A = ell_hat, B = 2, C = q ell_hat/2, rho = q, D_1 = D_2 = 0; conditions of
# Theorem 3.1 [L140]
# ---------------------------------------------------------------------------------------------
SVRG = ["proxskip.cor3.9", "proxskip.thm4.4"]


@pytest.mark.parametrize("tid", SVRG + [t + ".corrected" for t in SVRG])
def test_svrg_conditions_point_a(tid: str) -> None:
    r = conds(tid, mu=1, ell_hat=2)
    # Cor. 3.9 [L204]: gamma = min{1/mu, 1/(6 ell_hat)} = 1/12, q = 2 gamma mu = 1/6, M = 4/q = 24
    # Thm 3.1 [L140]: gamma <= 1/mu: 1/12 <= 1
    assert_cond(r["gamma <= 1/mu"], 1 / 12, 1.0, True)
    # Thm 3.1 [L140] + Lemma 3.8 [L198]: 1/(2(ell_hat + M q ell_hat/2)) = 1/(2(2 + 24 (1/6)(2)/2)) =
    # 1/12 (equality)
    assert_cond(r["gamma <= 1/(2(A+MC))"], 1 / 12, 1 / 12, True)
    # Thm 3.1 [L140] + Lemma 3.8 [L198]: M > B/rho = 2/q = 12
    assert_cond(r["M > B/rho"], 24.0, 12.0, True)
    if tid.endswith("corrected"):  # Alg. 3 line 4 [L458]: q in [0, 1]: 1/6 <= 1
        assert_cond(r["q <= 1"], 1 / 6, 1.0, True)


@pytest.mark.parametrize("tid", SVRG + [t + ".corrected" for t in SVRG])
def test_svrg_conditions_point_b(tid: str) -> None:
    r = conds(tid, mu=3, ell_hat=1)
    # Cor. 3.9 [L204]: gamma = min{1/3, 1/6} = 1/6, q = 2(1/6)(3) = 1, M = 4
    assert_cond(r["gamma <= 1/mu"], 1 / 6, 1 / 3, True)
    # Thm 3.1 [L140] + Lemma 3.8 [L198]: 1/(2(1 + 4 (1)(1)/2)) = 1/6 (equality)
    assert_cond(r["gamma <= 1/(2(A+MC))"], 1 / 6, 1 / 6, True)
    # 2/q = 2 < 4
    assert_cond(r["M > B/rho"], 4.0, 2.0, True)


@pytest.mark.parametrize("tid", SVRG + [t + ".corrected" for t in SVRG])
def test_svrg_bound(tid: str) -> None:
    b = terms(tid, mu=1, ell_hat=2, T=12, V_0=1)
    # Thm 3.1 [L140]: tau = min{gamma mu, p^2, q - 2/M} = min{1/12, 1/12, 1/6 - 1/12} = 1/12
    assert b.derived["tau"] == pytest.approx(1 / 12, rel=REL)
    # Thm 3.1 [L142] with D_1 = D_2 = 0 (Lemma 3.8 [L198]): (11/12)^12 = 0.3519956280141371, no
    # neighborhood
    assert b.terms["contraction"] == pytest.approx(0.3519956280141371, rel=REL)
    assert b.value == pytest.approx(0.3519956280141371, rel=REL)
    b = terms(tid, mu=3, ell_hat=1, T=3, V_0=8)
    # tau = min{1/2, 1/2, 1 - 2/4} = 1/2 -> (1/2)^3 * 8 = 1
    assert b.terms["contraction"] == pytest.approx(1.0, rel=REL)


@pytest.mark.parametrize("tid", SVRG)
def test_svrg_corrected_differs_from_printed(tid: str) -> None:
    # where: ell_hat < mu/6, so the printed 1/mu branch of Cor. 3.9 [L204] is active. mu=1,
    # ell_hat=1/10:
    # printed gamma = min{1, 5/3} = 1 and q = 2 gamma mu = 2 > 1 -- yet every printed
    # condition holds: 1 <= 1; 1/(2(1/10 + 2 (2)(1/10)/2)) = 5/3 >= 1; M = 2 > 2/q = 1
    r = conds(tid, mu=1, ell_hat="1/10")
    assert_cond(r["gamma <= 1/mu"], 1.0, 1.0, True)
    assert_cond(r["gamma <= 1/(2(A+MC))"], 1.0, 5 / 3, True)
    assert_cond(r["M > B/rho"], 2.0, 1.0, True)
    # corrected: gamma = 1/(6 ell_hat) = 5/3, q = 10/3: q <= 1 fails (Alg. 3 line 4 [L458]) and so
    # does
    # gamma <= 1/mu (5/3 > 1); M = 4/q = 6/5, C = q ell_hat/2 = 1/6: 1/(2(1/10 + 1/5)) = 5/3
    r = conds(tid + ".corrected", mu=1, ell_hat="1/10")
    assert_cond(r["q <= 1"], 10 / 3, 1.0, False)
    assert_cond(r["gamma <= 1/mu"], 5 / 3, 1.0, False)
    assert_cond(r["gamma <= 1/(2(A+MC))"], 5 / 3, 5 / 3, True)
    assert_cond(r["M > B/rho"], 1.2, 0.6, True)
    # elsewhere (ell_hat >= mu/6) both give gamma = 1/(6 ell_hat): identical bounds
    a = terms(tid, mu=1, ell_hat=2, T=12, V_0=1).value
    b = terms(tid + ".corrected", mu=1, ell_hat=2, T=12, V_0=1).value
    assert a == pytest.approx(b, rel=REL)


# ---------------------------------------------------------------------------------------------
# regime relations (used by the order comparisons): facts of the paper's assumptions
# ---------------------------------------------------------------------------------------------
def regime_holds(**values: object) -> dict[str, bool]:
    """Each regime relation of the theorems at the point ``values`` (exact rationals)."""
    import sympy as sp

    exact = {k: sp.Rational(v.numerator, v.denominator) for k, v in fr(**values).items()}
    thm = registry.get("proxskip.cor3.2.corrected")
    assert all(t.regime == thm.regime for t in registry.theorems().values())
    return {str(rel): bool(rel.xreplace({s: exact[s.name] for s in rel.free_symbols}))
            for rel in thm.regime}


# F(x) = μ(x − x*) with g = F is an instance of every assumption with all constants tight:
# κ = L/μ = 1 (remark after Cor. 3.6 [L184]), ℓ = μ (Assumption 2.1 [L96]), L_g = ℓ (Section
# 3.2 (ii) [L178]), ℓ̂ = μ (Assumption 3.7 [L192], one summand), and Assumption 2.2 [L109] with
# ‖F(x) − F(x*)‖² = μ⟨F(x) − F(x*), x − x*⟩ = 2A⟨·⟩ at A = μ/2, B = 0, ρ = 1.
TIGHT = dict(mu=2, kappa=1, L=2, ell=2, L_g=2, ell_hat=2, A=1, B=1, rho="1/2", M=4,
             epsilon="1/2", V_0="1/2")


def test_regime_admits_the_tight_instance() -> None:
    # M = 2B/rho = 4 is Corollary 3.2's choice [L148]; eps = V_0 the trivial target
    held = regime_holds(**TIGHT)
    assert all(held.values()), held


@pytest.mark.parametrize(("change", "why"), [
    ({"kappa": "9/10"}, "κ = L/μ < 1 would need L < μ [L184]"),
    ({"A": "9/10"}, "A < μ/2 contradicts ‖F(x) − F(x*)‖² ≥ μ⟨·⟩ in Assumption 2.2 [derived]"),
    ({"M": "39/10"}, "M < 2B/ρ is below Corollary 3.2's M = 2B/ρ [L148]"),
    ({"ell": "19/10"}, "ℓ < μ contradicts Assumption 2.1 [L96] (Cauchy–Schwarz)"),
    ({"ell_hat": "19/10"}, "ℓ̂ < μ contradicts Assumption 3.7 [L192] (Jensen)"),
    ({"L_g": "19/10"}, "L_g < μ contradicts Assumption 3.3 [L162] (Jensen, then Assumption 2.1)"),
    ({"L": "19/10"}, "L < μ for an L-Lipschitz μ-strongly monotone F [L184]"),
    ({"epsilon": 1}, "a target above V_0 is met at T = 0"),
])
def test_regime_excludes_points_just_past_each_boundary(change: dict, why: str) -> None:
    held = regime_holds(**{**TIGHT, **change})
    assert not all(held.values()), why
    assert sum(not v for v in held.values()) == 1, (why, held)


# ---------------------------------------------------------------------------------------------
# additions for the numeric layer (not registered): schedules and the estimator lemmas
# ---------------------------------------------------------------------------------------------
def test_additions_are_not_registered() -> None:
    ids = {t.id for t in proxskip.THEOREMS}
    assert ids == set(PROXSKIP_IDS)
    assert all(t not in proxskip.THEOREMS for t in (*proxskip.LEMMAS, proxskip.cor39_step,
                                                    proxskip.cor39_given_step,
                                                    proxskip.cor35_given_step))
    # the schedule copies keep their corollary's statement and bound
    assert proxskip.cor39_step.statement == registry.get("proxskip.cor3.9.corrected").statement


def test_schedules_of_cor39_and_of_a_given_step() -> None:
    from fedbounds.complexity import schedule_values

    # Cor. 3.9 [L204]: γ = 1/(6ℓ̂) = 1/12 at ℓ̂ = 2; then q = 2γμ = 1/12 and p = √(γμ) = √(1/24) at
    # μ = 1/2
    assert schedule_values(proxskip.cor39_step, {"ell_hat": 2.0}) == {
        "gamma": pytest.approx(1 / 12, rel=REL)}
    sched = schedule_values(proxskip.cor39_given_step, {"gamma": 1 / 12, "mu": 0.5})
    assert sched == {"q": pytest.approx(1 / 12, rel=REL), "p": pytest.approx(24**-0.5, rel=REL)}
    # Cor. 3.5 [L174]: p = √(γμ) = 0.2 at a given γ = 0.08, μ = 1/2
    assert schedule_values(proxskip.cor35_given_step, {"gamma": 0.08, "mu": 0.5}) == {
        "p": pytest.approx(0.2, rel=REL)}


def test_lemma34_constants_and_right_hand_side() -> None:
    """Lemma 3.4 [L168]: A = L_g, D_1 = 2σ_*², ρ = 1, B = C = D_2 = 0; at L_g = 3, ⟨·⟩ = 2,
    σ_* = 1/2 the bound 2A⟨·⟩ + Bσ_t² + D_1 of Assumption 2.2 [L109] is 12 + 1/2 = 12.5."""
    b = engine.bound(proxskip.lemma34, fr(L_g=3, inner=2, sigma_star=0.5))
    assert b.value == pytest.approx(12.5, rel=REL)
    assert b.derived == {"A": 3.0, "B": 0.0, "C": 0.0, "D_1": 0.5, "D_2": 0.0, "rho": 1.0}


def test_lemma38_both_inequalities() -> None:
    """Lemma 3.8 [L198] (σ_t at w_t, its proof in App. E [L533]): A = ℓ̂, B = 2, C = qℓ̂/2,
    ρ = q. At ℓ̂ = 2, ⟨·⟩ = 3, σ_t = 1.5, q = 1/4: 2ℓ̂⟨·⟩ + 2σ_t² = 12 + 4.5 = 16.5 and
    qℓ̂⟨·⟩ + (1 − q)σ_t² = 1.5 + 1.6875."""
    first = engine.bound(proxskip.lemma38, fr(ell_hat=2, inner=3, sigma_t=1.5))
    assert first.value == pytest.approx(16.5, rel=REL)
    second = engine.bound(proxskip.lemma38_refresh, fr(ell_hat=2, inner=3, sigma_t=1.5, q=0.25))
    assert second.value == pytest.approx(3.1875, rel=REL)
    assert second.derived["C"] == pytest.approx(0.25) and second.derived["rho"] == 0.25
