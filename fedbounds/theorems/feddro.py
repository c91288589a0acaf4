"""FedDRO — Khanduri, Li, Sultan, Qiang, Kliewer, Zhu: federated compositional optimization.

Statements as printed (arXiv:2311.12652). Sources cite the paper's own numbering (Theorem 5.1,
Lemma F.5, eq. (8), Algorithm 2 line 6, Appendix D …) with ``[Lnnn]``, a line of the arXiv v1
text as plain text, as a secondary reference. Where an erratum changes a condition or a
constant, ``<id>.corrected`` holds the corrected statement; both list it. "[derived]" marks a
statement of ours, not the paper's.

Objective, eq. (2) [L49–L53]: Φ(x) = h(x) + f(g(x)), h = (1/K)Σ h_k, g = (1/K)Σ g_k.
"""

# ruff: noqa: E741  (I is the paper's number of local steps, Algorithm 1 [L167])

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import sympy as sp

from ..minmax import Max
from ..model import (
    NONNEGATIVE,
    POSITIVE,
    POSITIVE_INTEGER,
    Condition,
    Erratum,
    Notation,
    Term,
    Theorem,
)

PAPER = {
    "key": "feddro",
    "title": "FedDRO: Federated Compositional Optimization for Distributionally Robust Learning",
    "authors": "Prashant Khanduri, Chengyin Li, Rafi Ibn Sultan, Yao Qiang, Joerg Kliewer, "
               "Dongxiao Zhu",
    "venue": "arXiv preprint (venue not stated in the text)",
    "arxiv": "2311.12652",
    "url": "https://arxiv.org/abs/2311.12652",
    "text": "the arXiv v1 text (2311.12652v1) as plain text",
}
THEORY_SECONDS = 2.0  # its theory page's seconds on a fresh run (a scheduling hint)

N = Notation("feddro")
L_f = N.add("L_f", POSITIVE, "smoothness of the outer function f (Assumption 1.1)", "L_f",
            "Assumption 1.1 [L118]")
L_g = N.add("L_g", NONNEGATIVE, "smoothness of each g_k (Assumption 1.1; 0 for linear g_k)",
            "L_g", "Assumption 1.1 [L118]")
L_h = N.add("L_h", NONNEGATIVE, "smoothness of each h_k (Assumption 1.1; 0 when h = 0)",
            "L_h", "Assumption 1.1 [L118]")
B_f = N.add("B_f", POSITIVE, "Lipschitz constant of f (Assumption 1.2)", "B_f",
            "Assumption 1.2 [L122]")
B_g = N.add("B_g", POSITIVE, "mean-squared Lipschitz constant of g_k (Assumption 1.2)", "B_g",
            "Assumption 1.2 [L122]")
sigma_h = N.add("sigma_h", NONNEGATIVE, "std bound of ∇h_k(x; ξ) (Assumption 2)", r"\sigma_h",
                "Assumption 2 [L131]")
sigma_g = N.add("sigma_g", NONNEGATIVE, "std bound of g_k(x; ζ) and ∇g_k(x; ζ) (Assumption 2)",
                r"\sigma_g", "Assumption 2 [L132]")
Delta_h = N.add("Delta_h", NONNEGATIVE, "heterogeneity sup‖∇h_k − ∇h‖ (Assumption 3)",
                r"\Delta_h", "Assumption 3 [L140]")
Delta_g = N.add("Delta_g", NONNEGATIVE, "heterogeneity sup‖∇g_k − ∇g‖ (Assumption 3)",
                r"\Delta_g", "Assumption 3 [L140]")
K = N.add("K", POSITIVE_INTEGER, "number of clients K", "K", "eq. (2) [L49–L51]")
I = N.add("I", POSITIVE_INTEGER, "local steps between model averagings I", "I",
          "Algorithm 1, line 1; Algorithm 2, line 1 [L167, L203]")
T = N.add("T", POSITIVE_INTEGER, "number of iterations T", "T",
          "Algorithm 2, line 3 [L205]")
b = N.add("b", POSITIVE_INTEGER, "per-client batch size |b| (|b_h| = |b_g| = |b|)", "|b|",
          "Theorem 5.1 [L234]")
eta = N.add("eta", POSITIVE, "step size η (constant)", r"\eta", "Theorem 5.1 [L234]")
beta = N.add("beta", POSITIVE, "momentum parameter β of estimator (8)", r"\beta",
           "eq. (8) [L224–L226]")
epsilon = N.add("epsilon", POSITIVE, "target ε for E‖∇Φ‖² ≤ ε (Def. 3.2: squared norm)",
                r"\epsilon", "Definition 3.2 [L154]")
Phi_gap0 = N.add("Phi_gap0", NONNEGATIVE, "initial gap Φ(x̄⁰) − Φ(x*)", r"\Phi(\bar x^0)-\Phi^*",
                 "Theorem 5.1 [L236]")
y_err0 = N.add("y_err0", NONNEGATIVE, "initial tracking error ‖ȳ⁰ − g(x̄⁰)‖²",
               r"\|\bar y^0-g(\bar x^0)\|^2", "Theorem 5.1 [L236]")
L_Phi = N.add("L_Phi", POSITIVE, "smoothness of Φ, L_Φ = L_h + B_f L_g + B_g² L_f (Lemma 3.1)",
              r"L_\Phi", "Lemma 3.1 [L148]")
Lbar = N.add("Lbar_fg", POSITIVE, "L̄_{f,g} of the proof of Theorem 5.1 (Appendix F)",
             r"\bar L_{f,g}", "proof of Theorem 5.1, Appendix F [L980]")
c_beta = N.add("c_beta", POSITIVE, "momentum constant c_β = β/η", r"c_\beta",
               "Theorem F.1; Lemma F.5 [L627, L890]")
x0 = N.add("x0", POSITIVE, "initial point x̄⁰ of the counterexample", r"\bar x^0",
           "Appendix D, proof of Theorem 4.1 [L461, L511]")
# per-iteration quantities of the Appendix F lemmas (Lemma F.4, Lemma F.5)
grad_sq = N.add("grad_sq", NONNEGATIVE, "E‖∇Φ(x̄^t)‖² at iteration t",
                r"\mathbb{E}\|\nabla\Phi(\bar x^t)\|^2", "Lemma F.5 [L896]")
grad_mean_sq = N.add("grad_mean_sq", NONNEGATIVE,
                     "E‖(1/K)Σ_k E[∇Φ_k(x_k^t; ξ̄_k^t) | F^t]‖² at iteration t",
                     r"\mathbb{E}\|\frac1K\sum_k\mathbb{E}[\nabla\Phi_k]\|^2", "Lemma F.4 [L822]")
drift = N.add("drift", NONNEGATIVE, "client drift (1/K)Σ_k E‖x_k^t − x̄^t‖² at iteration t",
              r"\frac1K\sum_k\mathbb{E}\|x_k^t-\bar x^t\|^2",
              "Term IV of eq. (18), Lemma F.3 [L716, L741]")
track = N.add("track", NONNEGATIVE, "tracking error E‖ȳ^t − (1/K)Σ_k g_k(x_k^t)‖² (part of V^t, (21))",
              r"\mathbb{E}\|\bar y^t-\frac1K\sum_k g_k(x_k^t)\|^2",
              "Term V of eq. (18); potential (21) [L716, L884]")

LEMMA31 = L_h + B_f * L_g + B_g**2 * L_f  # Lemma 3.1 [L148]
LBAR_PRINTED = 10 * L_h**2 + B_f**2 * L_g**2 + 40 * B_g**4 * L_f**2  # proof of Thm 5.1 [L980]
LBAR_CORRECTED = 10 * L_h**2 + 20 * B_f**2 * L_g**2 + 40 * B_g**4 * L_f**2  # Thm F.6 [L924–L927]
C_BETA = 4 * B_g**4 * L_f**2  # Theorem 5.1, Theorem F.1 [L234, L627]
C_BETA_CORRECTED = 4 * Max(B_g**2, B_g**4) * L_f**2  # [derived] from Lemma F.2 [L690, L697]
ETA_THM = sp.sqrt(b * K / T)  # Theorem 5.1 [L234]
I_COR3 = T**sp.Rational(1, 4) / (b * K) ** sp.Rational(3, 4)  # Cor. 2, Cor. 3 [L253, L639]

ASSUMPTIONS = [
    "Assumption 1 [L112–L122]: f, h_k, g_k smooth (L_f, L_h, L_g); f B_f-Lipschitz; g_k "
    "mean-squared B_g-Lipschitz",
    "Assumption 2 [L126–L134]: unbiased oracles; variances ≤ σ_h², σ_g² (σ_g bounds both the "
    "value and the gradient of g_k)",
    "Assumption 3 [L136–L142]: sup‖∇h_k − ∇h‖² ≤ Δ_h², sup‖∇g_k − ∇g‖² ≤ Δ_g²",
    "[derived, unstated] Φ* = inf Φ > −∞ (proof of Theorem 5.1 [L986]); samples independent "
    "across clients, iterations and between b_h and b_g; T − 1 a multiple of I (Appendix F "
    "[L623])",
]

# -- errata, with the statement of the paper they concern -----------------------------------------
E_CE_SCOPE = Erratum(
    "thm4.1-scope", "Theorem 4.1 [L188]", "for a fixed number of local updates I > 1 and any "
    "0 < η^t < C_η (one C_η)", "proved (Appendix D) for K = 2, I = 2, x̄⁰ = 0.5, constant η, "
    "with C_η = 1/8 (Case I claim [L481]) and C_η = 1/22 (Case II claim [L531]); Case I fails "
    "for every I ≥ 1 and η^t ≤ 1/8 [derived]",
    "The statement's single C_η and 'I > 1' hide that the two cases have different step bounds "
    "and that Case I fails even with I = 1 (no local steps): the failure is due to the local "
    "inner estimate, not to local updates.")
E_CE_ALG1 = Erratum(
    "alg1-caseI-variant", "Algorithm 1, lines 2 and 5; Appendix D, Case I, Step 1 [L168, L171, "
    "L465–L468]", "y_k^{t+1} = g_k(x_k^{t+1}) before averaging, y_k⁰ = ȳ⁰ (Algorithm 1)",
    "the proof uses y_k = g_k(x̄^t) at every round start",
    "Two different algorithms (literal vs proof variant); both fail.")
E_LBAR = Erratum(
    "Lbar-coefficient", "proof of Theorem 5.1, Appendix F [L980]",
    "L̄_{f,g} = 10L_h² + B_f²L_g² + 40B_g⁴L_f²", "L̄_{f,g} = 10L_h² + 20B_f²L_g² + 40B_g⁴L_f²",
    "Theorem F.6's coefficients ([L924–L927], with Δ coefficients 30/60/120) give 20, not 1.")
E_BETA = Erratum(
    "beta-le-1", "eq. (8); Theorem 5.1 [L226, L234]", "β = 4B_g⁴L_f²η with T ≥ T_th only",
    "also β ≤ 1, i.e. T ≥ 16B_g⁸L_f⁴|b|K",
    "β^t ∈ (0, 1) is required (after eq. (8) [L226]) and used by Lemma F.5's cancellation "
    "(1−β)² − 1 + c_βη ≤ 0; T_th does not imply it (counterexample: T_th = 41472 < 131072).")
E_CBETA = Erratum(
    "lemmaF2-track-coefficient", "Lemma F.2; Term V of eq. (18) [L653, L716]",
    "Term V coefficient 4B_g⁴L_f²η (c_β = 4B_g⁴L_f²)",
    "4B_g²L_f²η; c_β = 4 max(B_g², B_g⁴) L_f² makes Lemma F.5 valid also for B_g < 1",
    "Terms I and III of the proof of Lemma F.2 ([L690], [L697]) give 4B_g²L_f²η; the printed "
    "coefficient is an upper bound only when B_g ≥ 1.")
E_COMM = Erratum(
    "communication-count", "Definition 3.3; Corollary 2(ii) and the text after it [L158, L261, "
    "L263]", "communication complexity O(ε^{-3/2})",
    "O(ε^{-3/2}) model-sharing rounds; with the per-iteration ȳ exchange (Definition 3.3 counts "
    "all rounds) T = O(K^{-1}ε^{-2}) rounds",
    "FedDRO exchanges ȳ every iteration (Algorithm 2, line 6 [L208]); ε^{-3/2} counts only the "
    "d-dimensional model rounds (Algorithm 2, line 8 [L210]).")
E_BATCH = Erratum(
    "batch-correlation", "eqs. (7), (8) vs eq. (16) [L220, L224 vs L674–L675]",
    "E[∇g_k(x; ζ^t) ∇f(ȳ^t) | F^t] = ∇g_k(x) ∇f(ȳ^t) with ȳ^t built from the same batch",
    "independent batches for ȳ^t and for ∇g_k (or a bias term in the analysis)",
    "Algorithm 2 samples one batch per step (line 5 [L207]) and uses it both in the tracking "
    "update (8) and in the gradient (7); the conditional expectation in (16) needs them "
    "independent. No change to the printed bound; feddro.p14 measures the bias (O(η)).")
E_I_CONDITION = Erratum(
    "I-condition", "Theorem 4.2; Corollary 1 [L194, L245]",
    "I ≤ O(T^{1/4}) (Thm 4.2), I ≤ O(T^{1/4}/(|b|K)^{3/4}) (Cor. 1)",
    "I ≤ 1 + T^{1/4}/(|b|K)^{3/4} (exact form: |b|K(I−1)²/T ≤ 1/√(|b|KT))",
    "Encoded in its exact sufficient form; Theorem 4.2's O(T^{1/4}) omits the |b|K dependence.")


# -- Theorem 4.1: the counterexample as data --------------------------------------------------
@dataclass(frozen=True)
class Counterexample:
    """The instance of Theorem 4.1's proof (Appendix D [L432–L438, L481, L511, L531])."""

    K: int
    g: tuple[sp.Expr, ...]  # g_k(x), client k
    f: sp.Expr  # f(y)
    x0: sp.Rational
    C_eta: dict[str, sp.Rational]  # per case
    I_proved: int
    x: sp.Symbol
    y: sp.Symbol

    # sympy's own evaluation gives these in their simplest form (√(x² + 4), x/√(x² + 4), 1/17:
    # tests/theory/test_feddro.py), without ``sp.simplify``, which took most of this module's
    # import time (about 0.6 s, every command that loads FedDRO's theorems)
    @cached_property
    def Phi(self) -> sp.Expr:
        """Φ(x) = f(ḡ(x)), ḡ = (1/K)Σ_k g_k (eq. (10) [L434–L438])."""
        return self.f.subs(self.y, sp.Add(*self.g) / self.K)

    @cached_property
    def grad_Phi(self) -> sp.Expr:
        return sp.diff(self.Phi, self.x)

    @cached_property
    def lower_bound_grad_sq(self) -> sp.Expr:
        """‖∇Φ(x̄)‖² at x̄ = x̄⁰ = 1/2: 1/17, a lower bound while x̄ ≥ 1/2 [derived: Φ'(x)² =
        x²/(x² + 4) increases for x > 0; x̄^t ≥ 1/2 by the claims of Appendix D, L481, L531]."""
        return self.grad_Phi.subs(self.x, self.x0) ** 2


_x, _y = sp.symbols("x y", real=True)
COUNTEREXAMPLE = Counterexample(
    K=2, g=(4 * _x - 4, -2 * _x + 4), f=sp.sqrt(_y**2 + 4), x0=sp.Rational(1, 2),
    C_eta={"I": sp.Rational(1, 8), "II": sp.Rational(1, 22)}, I_proved=2, x=_x, y=_y)
CE_CONSTANTS = {"L_f": sp.Rational(1, 2), "B_f": 1, "B_g": 4, "L_g": 0, "L_h": 0, "Delta_g": 3,
                "Delta_h": 0, "sigma_h": 0, "sigma_g": 0, "K": 2}  # [derived] eq. (10) [L434–L438]

_CE_STATEMENT = (
    "There exist f and g_k satisfying Assumptions 1–3 and an initialization such that, for a "
    "fixed number of local updates I > 1 and any 0 < η^t < C_η, Algorithm 1 under Cases I and II "
    "does not converge to the stationary point of Φ (h = 0). Instance (Appendix D, eq. (10) "
    "[L432–L438]): K = 2, g_1 = 4x − 4, g_2 = −2x + 4, f(y) = √(y² + 4), Φ(x) = √(x² + 4), "
    "x* = 0, x̄⁰ = 1/2; C_η = 1/8 (Case I claim [L481]), 1/22 (Case II claim [L531]); then "
    "x̄^t ≥ 1/2 at every communication round, so ‖∇Φ(x̄^t)‖² ≥ 1/17.")


def _thm41(corrected: bool) -> Theorem:
    ce = COUNTEREXAMPLE
    conds = [
        Condition("eta < C_eta (Case I)", sp.Lt(eta, ce.C_eta["I"]),
                  "Appendix D, Case I claim [L481]"),
        Condition("eta < C_eta (Case II)", sp.Lt(eta, ce.C_eta["II"]),
                  "Appendix D, Case II claim [L531]"),
        Condition("x0 >= 1/2", sp.Ge(x0, ce.x0),
                  "Appendix D, Cases I and II (x̄⁰ = 0.5) [L461, L481, L511]"),
    ]
    if corrected:
        conds.insert(2, Condition("I >= 2 (Case II; Case I: any I >= 1)",
                                  sp.Ge(I, 2, evaluate=False),
                                  "Theorem 4.1 [L188]; the per-case scope is [derived]",
                                  "Case II with I = 1 converges to x* = 0"))
    else:
        conds.insert(2, Condition("I > 1", sp.Gt(I, 1, evaluate=False), "Theorem 4.1 [L188]"))
    return Theorem(
        id="feddro.thm4.1" + (".corrected" if corrected else ""), paper="feddro",
        title="Vanilla FedAvg for CO does not converge (counterexample)"
              + (" (corrected: per-case C_η, Case I for all I ≥ 1)" if corrected else ""),
        source="Theorem 4.1 [L186–L188]; proof: Appendix D, Theorem D.1 [L422–L605]",
        statement=_CE_STATEMENT if not corrected else _CE_STATEMENT + (
            " Corrected scope [derived]: Case I fails for every I ≥ 1 and all η^t ≤ 1/8 (node 1 "
            "moves toward 1 with steps < 4η ≤ 1/2, node 2 toward 2), Case II for every I ≥ 2; "
            "the two step bounds are per case."),
        notation=N, assumptions=ASSUMPTIONS[:3],
        conditions=conds,
        bound_lhs="‖∇Φ(x̄^t)‖² at every communication round (t mod I = 0)", bound_sense=">=",
        bound=[Term("lower bound on ||grad Phi||^2", ce.lower_bound_grad_sq,
                    "Appendix D, claims of Cases I and II: x̄^t ≥ 1/2 [L481, L531]; "
                    "[derived] ‖∇Φ‖² ≥ (1/2)²/((1/2)² + 4) = 1/17")],
        errata=[E_CE_SCOPE, E_CE_ALG1], corrected_of="feddro.thm4.1" if corrected else None,
        algorithms=["feddro-fedavg-co-case1", "feddro-fedavg-co-case2"],
        notes=["Data: fedbounds.theorems.feddro.COUNTEREXAMPLE (functions, clients, x̄⁰, C_η per "
               "case); run `fedbounds counterexample feddro.thm4.1 --case I|II`.",
               "Both step conditions are listed: Case I needs only the first, Case II the "
               "second (η < 1/22 implies both)."])


# -- Theorem 5.1 / F.1 and its corollaries ----------------------------------------------------
def T_th_conditions(source: str = "Theorem F.1, T_th [L629–L630]") -> list[Condition]:
    return [
        Condition("T >= 4(L_Phi bK + 8B_g^2)^2/(bK)",
                  sp.Ge(T, 4 * (L_Phi * b * K + 8 * B_g**2) ** 2 / (b * K)), source,
                  "⇔ η ≤ |b|K/(2(L_Φ|b|K + 8B_g²)) (Lemma F.5 [L892])"),
        Condition("T >= B_g^4(96L_h^2+96B_f^2L_g^2)^2/(bK(L_h^2+2B_f^2L_g^2+4B_g^4L_f^2)^2)",
                  sp.Ge(T, B_g**4 * (96 * L_h**2 + 96 * B_f**2 * L_g**2) ** 2
                        / (b * K * (L_h**2 + 2 * B_f**2 * L_g**2 + 4 * B_g**4 * L_f**2) ** 2)),
                  source, "⇔ second step bound of Lemma F.5 [L892]"),
        Condition("T >= (216L_h^2+216B_f^2L_g^2) I^2 bK",
                  sp.Ge(T, (216 * L_h**2 + 216 * B_f**2 * L_g**2) * I**2 * b * K), source,
                  "⇔ η ≤ 1/(3I√(24L_h² + 24B_f²L_g²)) (Theorem F.6 [L920])"),
    ]


def _beta_condition() -> Condition:
    return Condition("beta <= 1", sp.Le(beta, 1),
                     "after eq. (8): β^t ∈ (0, 1) [L226]; added to Theorem 5.1 [derived]",
                     "with β = c_β√(|b|K/T): T ≥ c_β²|b|K (= 16B_g⁸L_f⁴|b|K)")


def _consts(lbar: sp.Expr, cb: sp.Expr) -> dict[str, sp.Expr]:
    """C_σh, C_σg, C_Δh, C_Δg of the proof of Theorem 5.1, Appendix F [L1001–L1004] (C_Δh is
    printed C_Δf [L999, L1003])."""
    return {"C_sigma_h": 2 * lbar + 4 * L_Phi + 8 * B_g**2,
            "C_sigma_g": 2 * B_f**2 * lbar + 4 * L_Phi * B_f**2 + 4 * cb**2 + 8 * B_f**2 * B_g**2,
            "C_Delta_h": 6 * lbar + 96 * B_g**2,
            "C_Delta_g": 6 * B_f**2 * lbar + 96 * B_f**2 * B_g**2}


def bound_F1_terms(lbar: sp.Expr = Lbar, cb: sp.Expr = c_beta) -> list[Term]:
    """The exact bound of Theorem F.1 [L634–L636] as named terms."""
    r = 1 / sp.sqrt(b * K * T)
    return [
        Term("initialization", 2 * (Phi_gap0 + y_err0) * r, "Theorem F.1 [L634]"),
        Term("variance x drift", K * (I - 1) ** 2 / T * (2 * lbar * sigma_h**2
                                                         + 2 * B_f**2 * lbar * sigma_g**2),
             "Theorem F.1 [L634]"),
        Term("variance", r * ((4 * L_Phi + 8 * B_g**2) * sigma_h**2
                              + (4 * L_Phi * B_f**2 + 4 * cb**2 + 8 * B_f**2 * B_g**2) * sigma_g**2),
             "Theorem F.1 [L635]"),
        Term("heterogeneity x drift", b * K * (I - 1) ** 2 / T * (6 * lbar * Delta_h**2
                                                                  + 6 * B_f**2 * lbar * Delta_g**2),
             "Theorem F.1 [L636]"),
        Term("heterogeneity", r * (96 * B_g**2 * Delta_h**2 + 96 * B_f**2 * B_g**2 * Delta_g**2),
             "Theorem F.1 [L636]"),
    ]


def thm51_terms(lbar: sp.Expr = Lbar, cb: sp.Expr = c_beta) -> list[Term]:
    """Main-text form of Theorem 5.1 [L236–L239] with 𝒞 = max{|b|K(I−1)²/T, 1/√(|b|KT)}."""
    C = _consts(lbar, cb)
    cal = Max(b * K * (I - 1) ** 2 / T, 1 / sp.sqrt(b * K * T))
    return [
        Term("initialization", 2 * (Phi_gap0 + y_err0) / sp.sqrt(b * K * T),
             "Theorem 5.1 [L236]"),
        Term("variance", cal * (C["C_sigma_h"] * sigma_h**2 + C["C_sigma_g"] * sigma_g**2),
             "Theorem 5.1; constants: proof in Appendix F [L237, L239, L1001–L1002]"),
        Term("heterogeneity", cal * (C["C_Delta_h"] * Delta_h**2 + C["C_Delta_g"] * Delta_g**2),
             "Theorem 5.1; constants: proof in Appendix F [L237, L239, L1003–L1004]"),
    ]


def _cor1_terms(lbar: sp.Expr, cb: sp.Expr) -> list[Term]:
    C = _consts(lbar, cb)
    r = 1 / sp.sqrt(b * K * T)
    return [
        Term("initialization", 2 * (Phi_gap0 + y_err0) * r, "Corollary 1 [L247]"),
        Term("variance", (C["C_sigma_h"] * sigma_h**2 + C["C_sigma_g"] * sigma_g**2) * r,
             "Corollary 1 [L247]"),
        Term("heterogeneity", (C["C_Delta_h"] * Delta_h**2 + C["C_Delta_g"] * Delta_g**2) * r,
             "Corollary 1 [L247]"),
    ]


def derived_quantities(corrected: bool) -> dict[sp.Symbol, sp.Expr]:
    # order matters: a later entry may use earlier ones (Theorem.expand)
    return {L_Phi: LEMMA31, Lbar: LBAR_CORRECTED if corrected else LBAR_PRINTED,
            c_beta: C_BETA_CORRECTED if corrected else C_BETA, eta: ETA_THM, beta: c_beta * eta}


_THM51 = ("For Algorithm 2 with η = √(|b|K/T), β = 4B_g⁴L_f²η, |b_h| = |b_g| = |b| and T ≥ T_th "
          "(Theorem F.1 [L629–L630]), E‖∇Φ(x̄^{a(T)})‖² ≤ 2[Φ(x̄⁰) − Φ* + ‖ȳ⁰ − g(x̄⁰)‖²]"
          "/√(|b|KT) + "
          "𝒞(|b|,K,T,I)[C_σh σ_h² + C_σg σ_g²] + 𝒞(|b|,K,T,I)[C_Δh Δ_h² + C_Δg Δ_g²] with "
          "𝒞 = max{|b|K(I−1)²/T, 1/√(|b|KT)} (Theorem 5.1 [L232–L239]).")
_COR1 = ("Under Theorem 5.1 with I ≤ O(T^{1/4}/(|b|K)^{3/4}), E‖∇Φ(x̄^{a(T)})‖² ≤ [2(Φ(x̄⁰) − Φ* "
         "+ ‖ȳ⁰ − g(x̄⁰)‖²) + C_σh σ_h² + C_σg σ_g² + C_Δh Δ_h² + C_Δg Δ_g²]/√(|b|KT) "
         "(Corollary 1 [L243–L247]).")
_COR2 = ("With I = O(T^{1/4}/(|b|K)^{3/4}) (Corollary 3: I = T^{1/4}/(|b|K)^{3/4}): (i) sample "
         "complexity O(ε^{-2}), O(K^{-1}ε^{-2}) per client (linear speed-up); (ii) communication "
         "complexity O(ε^{-3/2}) (Corollary 2 [L251–L261]).")
_THM42 = ("If Algorithm 1 is modified so that y_k^t = ȳ^t is updated at every iteration, then "
          "under Assumptions 1–3 and 1 ≤ I ≤ O(T^{1/4}) there is a choice of η^t > 0 such that "
          "the iterates converge to a stationary point of Φ (h = 0) (Theorem 4.2 [L192–L194]; its "
          "proof, Appendix E [L615]: a consequence of Theorem 5.1). Encoded as Theorem F.1 with "
          "σ_h = σ_g = 0, and ȳ⁰ = g(x̄⁰) [derived: the modified FedAvg is FedDRO with σ = 0, "
          "any β].")


def _thm51(corrected: bool) -> Theorem:
    conds = T_th_conditions()
    if corrected:
        conds.append(_beta_condition())
    return Theorem(
        id="feddro.thm5.1" + (".corrected" if corrected else ""), paper="feddro",
        title="Convergence of FedDRO" + (" (corrected: L̄ coefficient 20, β ≤ 1, "
                                         "c_β = 4max(B_g²,B_g⁴)L_f²)" if corrected else ""),
        source="Theorem 5.1 [L232–L241] (= Theorem F.1 [L625–L636]; proof: Appendix F "
               "[L976–L1008])",
        statement=_THM51 if not corrected else _THM51 + (
            " Corrected: L̄_{f,g} = 10L_h² + 20B_f²L_g² + 40B_g⁴L_f² ([L980] vs Theorem F.6 "
            "[L924–L927]), "
            "β ≤ 1 added (T ≥ c_β²|b|K), c_β = 4max(B_g², B_g⁴)L_f²."),
        notation=N, assumptions=ASSUMPTIONS, derived=derived_quantities(corrected),
        conditions=conds, bound_lhs="E‖∇Φ(x̄^{a(T)})‖² = (1/T)Σ_t E‖∇Φ(x̄^t)‖² (proof of "
                                    "Theorem 5.1 [L982, L990])",
        bound=thm51_terms(Lbar, c_beta),
        errata=[E_LBAR, E_BETA, E_CBETA, E_BATCH], corrected_of="feddro.thm5.1" if corrected else None,
        horizon=T, accuracy=epsilon, algorithms=["feddro"],
        notes=["The exact Theorem F.1 bound [L634–L636] is ≤ this main-text form; "
               "fedbounds.theorems.feddro.bound_F1_terms gives it.",
               "Ambiguities fixed by the algorithm: (8) skipped at t = 0 (it needs y_k^{-1}, "
               "which Algorithm 2, line 2 [L204] never initialises), ȳ⁰ = g(x̄⁰) (ȳ⁰ is not "
               "specified)."])


def _thm42(corrected: bool) -> Theorem:
    conds = [Condition("I >= 1", sp.Ge(I, 1, evaluate=False), "Theorem 4.2 [L194]"),
             Condition("I - 1 <= T^(1/4)/(bK)^(3/4)",
                       sp.Le(I - 1, T**sp.Rational(1, 4) / (b * K) ** sp.Rational(3, 4)),
                       "Theorem 4.2, 'I ≤ O(T^{1/4})' [L194]; exact form via Corollary 1 "
                       "[L245]"),
             *T_th_conditions("Theorem F.1 [L629–L630] (via Theorem 5.1, Appendix E [L615])")]
    terms = [t for t in bound_F1_terms(Lbar, c_beta)
             if t.name in ("initialization", "heterogeneity x drift", "heterogeneity")]
    return Theorem(
        id="feddro.thm4.2" + (".corrected" if corrected else ""), paper="feddro",
        title="Modified FedAvg (ȳ shared every iteration) converges"
              + (" (corrected L̄)" if corrected else ""),
        source="Theorem 4.2 [L192–L194]; proof: Appendix E, Theorem E.1 [L607–L615]",
        statement=_THM42,
        notation=N, assumptions=ASSUMPTIONS[:3], derived=derived_quantities(corrected), conditions=conds,
        bound_lhs="(1/T)Σ_t ‖∇Φ(x̄^t)‖² (Theorem F.1 with σ_h = σ_g = 0)",
        bound=terms, errata=[E_I_CONDITION, E_LBAR],
        corrected_of="feddro.thm4.2" if corrected else None, horizon=T, accuracy=epsilon,
        algorithms=["feddro-modified-fedavg"],
        notes=["'Converge' means (1/T)Σ‖∇Φ(x̄^t)‖² → 0; convergence of the iterates is not "
               "shown (the proof, Appendix E [L615], is one sentence).",
               "No momentum condition: with σ = 0 and ȳ⁰ = g(x̄⁰) the tracking error is 0 for "
               "every β [derived from eq. (8): it is multiplied by (1 − β) each iteration]."])


def _cor1(corrected: bool) -> Theorem:
    conds = [Condition("I - 1 <= T^(1/4)/(bK)^(3/4)",
                       sp.Le(I - 1, T**sp.Rational(1, 4) / (b * K) ** sp.Rational(3, 4)),
                       "Corollary 1 [L245] (exact form of I ≤ O(T^{1/4}/(|b|K)^{3/4}))",
                       "⇔ |b|K(I−1)²/T ≤ 1/√(|b|KT), so 𝒞 = 1/√(|b|KT)"),
             *T_th_conditions("Theorem F.1 [L629–L630] (setting of Theorem 5.1)")]
    if corrected:
        conds.append(_beta_condition())
    return Theorem(
        id="feddro.cor1" + (".corrected" if corrected else ""), paper="feddro",
        title="FedDRO with few local updates: O(1/√(|b|KT))" + (" (corrected)" if corrected else ""),
        source="Corollary 1 [L243–L247]", statement=_COR1, notation=N, assumptions=ASSUMPTIONS,
        derived=derived_quantities(corrected), conditions=conds,
        bound_lhs="E‖∇Φ(x̄^{a(T)})‖²", bound=_cor1_terms(Lbar, c_beta),
        errata=[E_I_CONDITION, E_LBAR, E_BETA, E_CBETA],
        corrected_of="feddro.cor1" if corrected else None, horizon=T, accuracy=epsilon,
        algorithms=["feddro"])


_PROBLEM_CONSTANTS = [L_f, L_g, L_h, B_f, B_g, sigma_h, sigma_g, Delta_h, Delta_g, Phi_gap0,
                      y_err0]


def _cor2(corrected: bool) -> Theorem:
    conds = [*T_th_conditions("Theorem F.1 [L629–L630] (setting of Theorem 5.1)"),
             Condition("I >= 1", sp.Ge(I, 1, evaluate=False),
                       "Corollary 2 [L253] (I = T^{1/4}/(|b|K)^{3/4} needs T ≥ (|b|K)³)",
                       "[derived] from Corollary 3's I = T^{1/4}/(|b|K)^{3/4} [L639]")]
    if corrected:
        conds.append(_beta_condition())
    costs = {"samples": 4 * b * K * T, "samples per client": 4 * b * T,
             # the schedule I = T^{1/4}/(|b|K)^{3/4} is substituted here by hand:
             # complexity.derive replaces T by T_eps before applying a T-dependent schedule
             "communications (model sharing)": T / I_COR3,
             "communications (all rounds)": T}  # one ȳ exchange per iteration (Alg. 2, line 6)
    claimed = {"samples": epsilon**-2, "samples per client": 1 / (K * epsilon**2),
               "communications (model sharing)": epsilon ** sp.Rational(-3, 2),
               "communications (all rounds)": (1 / (b * K * epsilon**2)) if corrected
               else epsilon ** sp.Rational(-3, 2)}
    return Theorem(
        id="feddro.cor2" + (".corrected" if corrected else ""), paper="feddro",
        title="Sample and communication complexity of FedDRO"
              + (" (corrected: all rounds counted)" if corrected else ""),
        source="Corollary 2 [L251–L261] and the text after it [L263]",
        statement=_COR2 if not corrected else _COR2 + (
            " Corrected [derived]: the O(ε^{-3/2}) counts model-sharing rounds; counting the "
            "per-iteration ȳ exchange (Definition 3.3 [L158]) gives T = O(ε^{-2}/(|b|K)) "
            "rounds."),
        notation=N, assumptions=ASSUMPTIONS, derived=derived_quantities(corrected), conditions=conds,
        bound_lhs="E‖∇Φ(x̄^{a(T)})‖² (Corollary 1 bound)", bound=_cor1_terms(Lbar, c_beta),
        schedule={I: I_COR3},
        schedule_source="Corollary 2 [L253]; Corollary 3 [L637–L644]: I = T^{1/4}/(|b|K)^{3/4}",
        costs=costs, claimed=claimed,
        claimed_source="Corollary 2 (i), (ii) [L257, L261]; the text after it for the ȳ "
                       "embeddings [L263]",
        errata=[E_COMM, E_LBAR, E_BETA, E_I_CONDITION],
        corrected_of="feddro.cor2" if corrected else None, horizon=T, accuracy=epsilon,
        regime=[sp.Ge(T, (b * K) ** 3)],
        fixed_in_orders={s: sp.Integer(1) for s in _PROBLEM_CONSTANTS},
        algorithms=["feddro"],
        notes=["Costs per run: samples 4|b|KT (|b| ∇h_k, |b| ∇g_k, 2|b| g_k values per client and "
               "iteration: Algorithm 2, line 5 and eqs. (7), (8) [L207, L220, L224]); model "
               "rounds T/I; all rounds T (ȳ every iteration, Algorithm 2, line 6 [L208]).",
               "Orders treat the problem constants as O(1) (fixed to 1), as the paper does.",
               "T_ε comes from the Corollary 1 bound only; the T ≥ T_th and T ≥ (|b|K)³ "
               "thresholds add lower-order requirements (schedule_vs_conditions)."])


thm41 = _thm41(False)
thm41c = _thm41(True)
thm42 = _thm42(False)
thm42c = _thm42(True)
thm51 = _thm51(False)
thm51c = _thm51(True)
cor1 = _cor1(False)
cor1c = _cor1(True)
cor2 = _cor2(False)
cor2c = _cor2(True)

THEOREMS = [thm41, thm41c, thm42, thm42c, thm51, thm51c, cor1, cor1c, cor2, cor2c]
# Appendix F statements (Lemma 3.1, Theorem F.1, Lemmas F.3–F.5): feddro_appendix.py
