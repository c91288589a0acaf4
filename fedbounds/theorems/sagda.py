"""SAGDA — Yang, Liu, Zhang, Liu (NeurIPS 2022, arXiv:2210.00611).

Statements as printed. Every source cites the paper's own numbering first (Theorem 1 Option I,
Corollary 2, eq. (11), Lemma 5, Appendix B.2, Table 1, Algorithm 1, line 4) and the line of the
plain-text rendering named in ``PAPER["text"]`` second, in brackets: ``[L154]``. The step-size
conditions of Theorems 1 and 2 are unnumbered in the main text; they carry the numbers of the
appendix equations that restate them: (7)–(9) for Theorem 2 (Appendix B.1), (10)–(13) for
Option I (Appendix B.2), (14)–(16) for Option II (Appendix B.3). Where an erratum changes a
constant, a condition or a term, a second theorem ``<id>.corrected`` holds the corrected
statement and both list the erratum.

Conventions: η_x = η_{x,l}η_{x,g}, η_y = η_{y,l}η_{y,g} (no factor K; remark after Theorem 1
[L174], Appendix B [L507]), L = L_f + L_f²/μ (Section 3, smoothness of Φ [L88]). Every bound is
on (1/T)Σ_t E‖∇Φ(x_t)‖² and ε-stationarity is ‖∇Φ‖ ≤ ε (Definition 1 [L90]), so the accuracy
target of the bound is ε². Corollary step sizes η = Θ(·) carry explicit Θ-constants c_x, c_y;
the Ω in T = Ω(mK) is taken as 1.
"""

from __future__ import annotations

import sympy as sp

from ..minmax import Max
from ..model import (
    NONNEGATIVE,
    POSITIVE,
    POSITIVE_INTEGER,
    REAL,
    UNIT,
    Condition,
    Erratum,
    Notation,
    Relation,
    Term,
    Theorem,
)

PAPER = {
    "key": "sagda",
    "title": "SAGDA: Achieving O(ε^-2) Communication Complexity in Federated Min-Max Learning",
    "authors": "Haibo Yang, Zhuqing Liu, Xin Zhang, Jia Liu",
    "venue": "NeurIPS 2022",
    "arxiv": "2210.00611",
    "url": "https://arxiv.org/abs/2210.00611",
    "text": "the arXiv 2210.00611 HTML rendering as plain text (908 lines: the NeurIPS 2022 "
            "version with its paper checklist and Appendices A–B; the arXiv version number is "
            "not printed in it)",
}
THEORY_SECONDS = 11.8  # its theory page's seconds on a fresh run (a scheduling hint)

R = sp.Rational

# -- notation ------------------------------------------------------------------------------------
_HELPERS = {
    "opt1": {"a_1": ("a_1 = KL_f²(31/20 η_x + 1/20 η_y)", "Theorem 1 (Option I) [L152]"),
             "a_2": ("a_2 = ½(L + L_f/10) + 1 + M²/m² − M/m", "Theorem 1 (Option I) [L152]")},
    "opt2": {"b_1": ("b_1 = L_f²[31/20 η_xK + 1/20 η_yK + 2(L + L_f/10)η_x²K² + ⅕L_fη_y²K²]",
                     "Theorem 1 (Option II) [L166]")},
    "fsgda": {"a_1": ("a_1 = 1/10 − 2(2L + L_f/5)η_xK", "Theorem 2 [L219]"),
              "a_2": ("a_2 = 1/20 − ⅖L_fη_yK − (η_x/η_y)L_f²/μ²", "Theorem 2 [L219]"),
              "a_3": ("a_3 = 31/20 + (2L + L_f/5)η_xK", "Theorem 2 [L219]"),
              "a_4": ("a_4 = 1/20 + ⅕L_fη_yK", "Theorem 2 [L219]")},
}


def _notation(kind: str) -> Notation:
    """Symbols of the paper plus the helper constants of one theorem family (a_1, a_2 … mean
    different things in Theorem 1 Option I [L152] and Theorem 2 [L219])."""
    n = Notation(f"sagda ({kind})")
    n.add("L_f", POSITIVE, "smoothness L_f of every f_i (Assumption 1)", "L_f",
          "Assumption 1 [L67–L69]")
    n.add("mu", POSITIVE, "PL constant μ of f(x, ·) (Assumption 2)", r"\mu",
          "Assumption 2 [L71–L75]")
    n.add("K", POSITIVE_INTEGER, "local steps per round K", "K", "Algorithm 1, line 11 [L111]")
    n.add("M", POSITIVE_INTEGER, "number of clients M", "M", "eq. (1) [L61]")
    n.add("m", POSITIVE_INTEGER, "clients sampled per round m (|S_t| = m ≤ M)", "m",
          "Algorithm 1, line 4 [L104, L123]")
    n.add("T", POSITIVE_INTEGER, "communication rounds T", "T", "Theorem 1 [L143]")
    n.add("eta_xl", POSITIVE, "local (client) step size η_{x,l}", r"\eta_{x,l}",
          "Theorem 1 [L145]")
    n.add("eta_yl", POSITIVE, "local (client) step size η_{y,l}", r"\eta_{y,l}",
          "Theorem 1 [L145]")
    n.add("eta_xg", POSITIVE, "global (server) step size η_{x,g}", r"\eta_{x,g}",
          "Theorem 1 [L145]")
    n.add("eta_yg", POSITIVE, "global (server) step size η_{y,g}", r"\eta_{y,g}",
          "Theorem 1 [L145]")
    n.add("sigma_x", NONNEGATIVE, "gradient-noise bound σ_x (Assumption 3)", r"\sigma_x",
          "Assumption 3 [L79–L86]")
    n.add("sigma_y", NONNEGATIVE, "gradient-noise bound σ_y (Assumption 3)", r"\sigma_y",
          "Assumption 3 [L79–L86]")
    n.add("sigma_xG", NONNEGATIVE, "gradient dissimilarity σ_{x,G} (Assumption 4)",
          r"\sigma_{x,G}", "Assumption 4 [L205–L207]")
    n.add("sigma_yG", NONNEGATIVE, "gradient dissimilarity σ_{y,G} (Assumption 4)",
          r"\sigma_{y,G}", "Assumption 4 [L205–L207]")
    n.add("D_0", NONNEGATIVE, "Lyapunov gap 𝓛_0 − 𝓛_* (𝓛_t = Φ(x_t) − f(x_t, y_t)/10)",
          r"\mathcal{L}_0-\mathcal{L}_*", "Theorem 1 [L143, L154]")
    n.add("L", POSITIVE, "smoothness of Φ: L = L_f + L_f²/μ (derived)", "L",
          "Section 3, smoothness of Φ [L88]")
    n.add("kappa", POSITIVE, "condition number κ = L_f/μ (derived; the paper writes L_f²/μ²)",
          r"\kappa", "Section 3 [L88]")
    n.add("eta_x", POSITIVE, "effective step η_x = η_{x,l}η_{x,g} (derived)", r"\eta_x",
          "remark after Theorem 1 [L174]")
    n.add("eta_y", POSITIVE, "effective step η_y = η_{y,l}η_{y,g} (derived)", r"\eta_y",
          "remark after Theorem 1 [L174]")
    n.add("c_x", POSITIVE, "Θ-constant of η_x in the corollaries' schedule", "c_x",
          "Corollary 1 [L180]")
    n.add("c_y", POSITIVE, "Θ-constant of η_y in the corollaries' schedule", "c_y",
          "Corollary 1 [L180]")
    n.add("epsilon", UNIT, "target accuracy ε of ‖∇Φ‖ (ε-stationarity, Definition 1)",
          r"\epsilon", "Definition 1 [L90]")
    for name, (desc, src) in _HELPERS.get(kind, {}).items():
        n.add(name, REAL, desc + " (derived)", name, src)
    return n


N1, N2, NF = _notation("opt1"), _notation("opt2"), _notation("fsgda")
_s = sp.Symbol
L_f, mu = _s("L_f", positive=True), _s("mu", positive=True)
K, M, m, T = (_s(x, integer=True, positive=True) for x in ("K", "M", "m", "T"))
eta_xl, eta_yl, eta_xg, eta_yg = (_s(x, positive=True) for x in
                                  ("eta_xl", "eta_yl", "eta_xg", "eta_yg"))
sigma_x, sigma_y, sigma_xG, sigma_yG, D_0 = (_s(x, nonnegative=True) for x in
                                             ("sigma_x", "sigma_y", "sigma_xG", "sigma_yG", "D_0"))
L, kappa, eta_x, eta_y = (_s(x, positive=True) for x in ("L", "kappa", "eta_x", "eta_y"))
c_x, c_y = _s("c_x", positive=True), _s("c_y", positive=True)
epsilon = _s("epsilon", positive=True)
a_1, a_2, a_3, a_4, b_1 = (_s(x, real=True) for x in ("a_1", "a_2", "a_3", "a_4", "b_1"))
for _sym in (L_f, mu, K, M, m, T, eta_xl, sigma_x, D_0, L, eta_x, c_x, epsilon, a_1, b_1):
    assert _sym == (N1 if _sym.name != "b_1" else N2).spec(_sym.name).symbol, _sym

BASE_DERIVED = {L: L_f + L_f**2 / mu, kappa: L_f / mu, eta_x: eta_xl * eta_xg,
                eta_y: eta_yl * eta_yg}
ACC = epsilon**2  # the bound is on E‖∇Φ‖², ε-stationarity is ‖∇Φ‖ ≤ ε (Definition 1 [L90])
COSTS_SAGDA = {"communications": T, "samples_per_client": (K + 1) * T}  # K local + 1 CV sample
COSTS_FSGDA = {"communications": T, "samples_per_client": K * T}
REGIME = [sp.Ge(L_f, mu), sp.Le(m, M)]  # μ ≤ L_f for a PL, L_f-smooth f; |S_t| = m ≤ M
RELATIONS = [  # every instance of the assumptions satisfies them (checked on user values)
    Relation(sp.Le(mu, L_f), "an L_f-smooth f(x, ·) that is μ-PL has μ ≤ L_f",
             "Assumptions 1–2 [L67–L75]"),
    Relation(sp.Le(m, M), "the m clients of a round are sampled among the M clients",
             "Algorithm 1, line 4 (S_t ⊂ [M], |S_t| = m) [L104, L123]"),
]
FIXED = {L_f: 1, mu: 1, sigma_x: 1, sigma_y: 1, sigma_xG: 1, sigma_yG: 1, D_0: 1,
         c_x: 1, c_y: 40}  # the paper's O(·) treats problem constants and Θ-constants as O(1)
FIXED = {k: sp.Integer(v) for k, v in FIXED.items()}
LHS = "(1/T) Σ_{t<T} E‖∇Φ(x_t)‖² (Theorem 1 [L154])"
ALG_SAGDA = ["SAGDA (Alg. 1)"]
ALG_FSGDA = ["FSGDA (Alg. 2)"]

# -- errata (checked against the text) ----------------------------------------------------------
E_A2_REPLACED = Erratum(
    "thm1-opt1-a2-replaced", "proof of Theorem 1 Option I, Appendix B.2 [L789]; used in the "
    "bound and ψ1 of Theorem 1 (Option I) [L154, L158, L796–L797]",
    "statistical factor [(L + L_f/10) + 4] and [½(L + L_f/10) + 2] in ψ1 (a_2 replaced)",
    "2a_2 = (L + L_f/10) + 2(1 + M²/m² − M/m) and a_2 in ψ1",
    "The proof's per-round residual carries a_2 = ½(L + L_f/10) + 1 + M²/m² − M/m (Theorem 1 "
    "[L152]), replaced in Appendix B.2 [L789] by ½(L + L_f/10) + 2, which is an upper bound only "
    "when M/m ≤ (1 + √5)/2: the printed bound hides a (M/m)² dependence.")
E_LEMMA5 = Erratum(
    "lemma5-coefficient", "Lemma 5, Appendix B.2 [L673–L680]",
    "Γ_t ≤ (1 − m/(2M))Γ_{t−1} + (m/M + M/m − 1)E‖z_t − z_{t−1}‖²",
    "second coefficient 2M/m − 2 + m/M (with the proof's b = 2M/m − 1), so "
    "a_2 = ½(L + L_f/10) + (M/m)(2M/m − 2 + m/M)",
    "(1 − m/M)(1 + b) + m/M with b = 2M/m − 1 is 2M/m − 2 + m/M, larger than the printed "
    "coefficient by (M − m)/m; a_2 = ½(L + L_f/10) + α·coefficient with α = M/m (Appendix "
    "B.2 [L782]).")
E_LEMMA7 = Erratum(
    "lemma7-noise", "Lemma 7, Appendix B.2 [L729–L737]",
    "E‖Δx_t‖² ≤ 4L_f²Ψ_t + 4L_f²Γ_t + 4‖∇_x f‖² + 9σ_x²/(mK)",
    "not applied: the noise of the stored control variates is O(σ_x²/m), not O(σ_x²/(mK)), and "
    "the Γ_t coefficient should be 8L_f² — no closed form for the corrected theorem",
    "Listed for completeness; the .corrected variant does not fix it (claim sagda.p10 measures "
    "the consequence: no speed-up in K under partial participation).")
E_OPT2_SAMPLING = Erratum(
    "thm1-opt2-sampling", "Lemmas 9 and 11, Appendix B.3 [L820, L866–L868] → Theorem 1 "
    "Option II [L168]",
    "Theorem 1 Option II for every m ≤ M (no σ_G, no (1 − m/M) term)",
    "valid for full participation m = M only (condition m ≥ M added)",
    "Lemma 9/11 treat v̄ = (1/m)Σ_{i∈S_t} as unbiased with variance σ_x², ignoring client "
    "sampling; Option II's aggregate equals FSGDA's, whose sampling variance Theorem 2 charges "
    "as ψ4 ∝ (1 − m/M)σ_G²/m. Numerically violated for m < M (claim sagda.p8a).")
E_THM2_LF100 = Erratum(
    "thm2-lf100", "Theorem 2 [L221] and its proof, Appendix B.1 [L647] (per-round term "
    "[L630, L636])", "2η_x/m (L + L_f/100) σ_x²",
    "2η_x/m (L + L_f/10) σ_x²",
    "The per-round term (η_x²K/m)(L + L_f/10)σ_x² divided by ½η_xK telescopes to "
    "(2η_x/m)(L + L_f/10)σ_x².")
E_THM2_PSI4 = Erratum(
    "thm2-psi4-factor2", "Theorem 2, ψ4 [L226] and its proof, Appendix B.1 [L648] (per-round "
    "term [L637])",
    "ψ4 = (2L + L_f/5)η_xK(1 − m/M)(2/m)σ_{x,G}² + (2/(5m))L_fη_yK(η_y/η_x)(1 − m/M)σ_{y,G}²",
    "ψ4 = (2L + L_f/5)η_xK(1 − m/M)(4/m)σ_{x,G}² + (4/(5m))L_fη_yK(η_y/η_x)(1 − m/M)σ_{y,G}²",
    "The per-round sampling terms (L637) divided by ½η_xK give twice the printed ψ4 (ψ3 and "
    "the σ_y term do include the factor 2).")
E_COR1_CAP = Erratum(
    "cor1-local-cap", "Corollary 1 [L180]",
    "η_{x,l}, η_{y,l} ≤ min{1/(m^{1/2}K^{3/2}), K^{3/4}/(m^{1/4}T^{1/4})}",
    "η_{x,l}, η_{y,l} ≤ 1/(m^{1/4}K^{5/4}T^{1/4}) (as in Corollary 2)",
    "ψ1 = Θ(K²η_l²): the entry K^{3/4}/(m^{1/4}T^{1/4}) gives ψ1 ∝ K⁴/√(mKT) and the entry "
    "1/(m^{1/2}K^{3/2}) a floor ∝ 1/(mK); only 1/(m^{1/4}K^{5/4}T^{1/4}) (≤ both when T ≥ mK) "
    "gives O(1/√(mKT)).")
E_ETA_Y_TYPO = Erratum(
    "cor-eta-y", "Corollary 1 [L180], Corollary 2 [L236]", "η_x = Θ(√m/√(KT)), η_x = Θ(√m/√(KT))",
    "η_x = Θ(√m/√(KT)), η_y = Θ(√m/√(KT))",
    "Typo: the second step size is η_y. No change to the encoded schedule.")
E_TABLE1_COR3 = Erratum(
    "table1-cor3-communication", "Table 1 [L47] vs Corollary 3 [L244]",
    "Table 1: FSGDA (Cor. 2, 3) communication O(ε^-2)",
    "Corollary 3 (partial participation) gives O(1/√(mT)) ⇒ O(1/(mε⁴)) rounds for any K",
    "The Table's O(ε^-2) needs K = Θ(T/m) and the linear speed-up in K, which Corollary 3 "
    "does not have. No change to Corollary 3's own statement.")
E_LSTAR = Erratum(
    "lyapunov-star", "Theorem 1 [L154, L168], Theorem 2 [L221], Appendix B.1 [L647]",
    "𝓛_0 − 𝓛_* (𝓛_* undefined; Theorem 2 [L221] has 𝓛_T)",
    "𝓛_0 − 𝓛_* with 𝓛_* ≤ E𝓛_T, e.g. 𝓛_* = (9/10) inf Φ (needs Φ bounded below)",
    "Encoded as the input D_0 = 𝓛_0 − 𝓛_*. No change to the statement's constants.")


# -- common pieces --------------------------------------------------------------------------------
def _drift_condition(src: str, label: str) -> Condition:
    return Condition(f"({label}) 8K(K-1)(2K-1)L_f^2 max(eta_xl^2, eta_yl^2) <= 1",
                     sp.Le(8 * K * (K - 1) * (2 * K - 1) * L_f**2 * Max(eta_xl**2, eta_yl**2), 1),
                     src, f"local-drift condition; ⇔ eq. ({label}): 4K max{{L_f²η_l²}} ≤ "
                          "1/(2(K−1)(2K−1))")


M_LE = Condition("m <= M", sp.Le(m, M), "Algorithm 1, line 4 (S_t ⊂ [M], |S_t| = m) [L104, L123]",
                 "implicit in the sampling; makes (1 − m/M) ≥ 0")
OPT_TERM = Term("optimization", 2 * D_0 / (eta_x * K * T),
                "Theorem 1, optimization error [L154, L168] (as in Theorem 2 [L221])")


# -- Theorem 1 Option I ---------------------------------------------------------------------------
def _a2_opt1(corrected: bool) -> sp.Expr:
    if corrected:  # Lemma 5's coefficient 2M/m − 2 + m/M times α = M/m (Appendix B.2 [L782])
        return R(1, 2) * (L + L_f / 10) + (M / m) * (2 * M / m - 2 + m / M)
    return R(1, 2) * (L + L_f / 10) + 1 + M**2 / m**2 - M / m


def opt1_conditions(src: tuple[str, str, str, str]) -> list[Condition]:
    A = a_1 + a_2 * 4 * L_f**2 * K**2 * (eta_x**2 + eta_y**2)
    return [
        _drift_condition(src[0], "10"),
        Condition("(11) Gamma-coefficient >= 0",
                  sp.Ge(R(1, 2) - 4 * a_2 * L_f**2 * K**2 * (eta_x**2 + eta_y**2)
                        - A * 160 * K**2 * (eta_xl**2 + eta_yl**2) * L_f**2, 0), src[1],
                  "the ½ is α·m/(2M) with α = M/m (Appendix B.2 [L782–L784])"),
        Condition("(12) x-descent >= 0",
                  sp.Ge((R(1, 10) * eta_x * K - 4 * a_2 * K**2 * eta_x**2)
                        - A * 40 * K**2 * eta_xl**2, 0), src[2]),
        Condition("(13) y-descent >= 0",
                  sp.Ge((eta_y * K * (R(1, 20) - eta_x / eta_y * L_f**2 / mu**2)
                         - 4 * a_2 * K**2 * eta_y**2) - A * 40 * K**2 * eta_yl**2, 0), src[3],
                  "forces η_y/η_x > 20L_f²/μ² (fedbounds.findings)"),
        M_LE,
    ]


def _opt1_terms(corrected: bool) -> list[Term]:
    noise = eta_x**2 * sigma_x**2 + eta_y**2 * sigma_y**2
    local = 20 * K**2 * (eta_xl**2 * sigma_x**2 + eta_yl**2 * sigma_y**2)
    if corrected:
        stat = 2 * a_2 * 9 / (m * eta_x) * noise
        coef = a_2
        src = ("derived here: statistical error of Theorem 1 (Option I) with a_2 kept and "
               "Lemma 5 corrected (Appendix B.2) [L780, L789]",
               "derived here: ψ1 of Theorem 1 (Option I) with a_2 kept (Appendix B.2) [L790, L797]")
    else:
        stat = ((L + L_f / 10) + 4) * 9 / (m * eta_x) * noise
        coef = R(1, 2) * (L + L_f / 10) + 2
        src = ("Theorem 1 (Option I), statistical error [L154; Appendix B.2, L796]",
               "Theorem 1 (Option I), ψ1 [L158; Appendix B.2, L797]")
    psi1 = (L_f**2 * (R(31, 20) + R(1, 20) * eta_y / eta_x)
            + coef * 4 * L_f**2 * K * (eta_x + eta_y**2 / eta_x)) * local
    return [OPT_TERM, Term("statistical", stat, src[0]),
            Term("local update psi_1", psi1, src[1])]


def _opt1_derived(corrected: bool) -> dict:
    return {**BASE_DERIVED, a_1: K * L_f**2 * (R(31, 20) * eta_x + R(1, 20) * eta_y),
            a_2: _a2_opt1(corrected)}


OPT1_SRC = ("Theorem 1 (Option I), eq. (10) in the proof of Lemma 6 [L147, L721]",
             "Theorem 1 (Option I), eq. (11) [L148, L784]",
             "Theorem 1 (Option I), eq. (12) [L149, L785]",
             "Theorem 1 (Option I), eq. (13) [L150, L786]")
_OPT1_STATEMENT = (
    "Under Assumptions 1–3, with 𝓛_t = Φ(x_t) − f(x_t, y_t)/10 and learning rates satisfying "
    "eqs. (10)–(13) [L147–L150] (a_1 = KL_f²(31/20 η_x + 1/20 η_y), a_2 = ½(L + L_f/10) + 1 + "
    "M²/m² − M/m [L152]), SAGDA Option I satisfies (1/T)Σ E‖∇Φ(x_t)‖² ≤ 2(𝓛_0 − 𝓛_*)/(η_xKT) + "
    "[(L + L_f/10) + 4]·9/(mη_x)·(η_x²σ_x² + η_y²σ_y²) + ψ1 [L154, L158].")


def build_thm1_opt1(corrected: bool) -> Theorem:
    return Theorem(
        id="sagda.thm1.opt1" + (".corrected" if corrected else ""), paper="sagda",
        title="Convergence rate of SAGDA, Option I"
              + (" (corrected: a_2 kept, Lemma 5 coefficient)" if corrected else ""),
        source="Theorem 1, Option I [L141–L158]; proof in Appendix B.2 [L651–L797]",
        statement=_OPT1_STATEMENT if not corrected else _OPT1_STATEMENT + (
            " Corrected: a_2 = ½(L + L_f/10) + (M/m)(2M/m − 2 + m/M) (Lemma 5 fixed) in the "
            "conditions and in the bound, whose statistical factor is 2a_2 and whose ψ1 uses "
            "a_2 (no replacement by ½(L + L_f/10) + 2)."),
        notation=N1,
        assumptions=["Assumption 1 [L67–L69]", "Assumption 2 [L71–L75]", "Assumption 3 "
                     "[L79–L86]", "implicit in the proof (Appendix B.2): control variates of all "
                     "M clients initialised at z_0 (Γ_0 = 0 [L792]); Φ bounded below"],
        derived=_opt1_derived(corrected), conditions=opt1_conditions(OPT1_SRC),
        bound_lhs=LHS, bound=_opt1_terms(corrected),
        errata=[E_A2_REPLACED, E_LEMMA5, E_LEMMA7, E_LSTAR],
        corrected_of="sagda.thm1.opt1" if corrected else None,
        horizon=T, accuracy=epsilon, regime=REGIME,
        relations=RELATIONS, fixed_in_orders=FIXED, algorithms=ALG_SAGDA,
        notes=["The printed bound has no M/m although the conditions do (through a_2)."])


# -- Theorem 1 Option II --------------------------------------------------------------------------
def _opt2_conditions(src: tuple[str, str, str]) -> list[Condition]:
    return [
        _drift_condition(src[0], "14"),
        Condition("(15) x-descent >= 0",
                  sp.Ge(R(1, 10) * eta_x * K - (2 * (L + L_f / 10) * eta_x**2 * K**2
                                                + 40 * K**2 * eta_xl**2 * b_1), 0), src[1]),
        Condition("(16) y-descent >= 0",
                  sp.Ge(eta_y * K * (R(1, 20) - eta_x / eta_y * L_f**2 / mu**2)
                        - (R(1, 5) * L_f * eta_y**2 * K**2 + 40 * K**2 * eta_yl**2 * b_1), 0),
                  src[2], "forces η_y/η_x > 20L_f²/μ² (fedbounds.findings)"),
    ]


def _opt2_terms() -> list[Term]:
    psi2 = (L_f**2 * (R(31, 20) * K + R(1, 20) * eta_y / eta_x * K + 2 * (L + L_f / 10) * eta_x * K**2
                      + R(1, 5) * L_f * eta_y**2 / eta_x * K**2)
            * (10 * (16 * K + 1)) * (eta_xl**2 * sigma_x**2 + eta_yl**2 * sigma_y**2))
    return [OPT_TERM,
            Term("statistical (x)", (L + L_f / 10) * 9 * eta_x / m * sigma_x**2,
                 "Theorem 1 (Option II), statistical error [L168; Appendix B.3, L908]"),
            Term("statistical (y)", R(9, 10) * L_f * eta_y**2 / (m * eta_x) * sigma_y**2,
                 "Theorem 1 (Option II), statistical error, stray '++' dropped [L168; Appendix "
                 "B.3, L908]"),
            Term("local update psi_2", psi2,
                 "Theorem 1 (Option II), ψ2 = 10(16K+1)b_1/η_x (·) [L172; Appendix B.3, "
                 "L906–L907]")]


_OPT2_STATEMENT = (
    "Under Assumptions 1–3, with learning rates satisfying eqs. (14)–(16) [L162–L166] (b_1 = "
    "L_f²[31/20 η_xK + 1/20 η_yK + 2(L + L_f/10)η_x²K² + ⅕L_fη_y²K²]), SAGDA Option II satisfies "
    "(1/T)Σ E‖∇Φ(x_t)‖² ≤ 2(𝓛_0 − 𝓛_*)/(η_xKT) + [(L + L_f/10)(9η_x/m)σ_x² + (9/10)L_f "
    "η_y²/(mη_x) σ_y²] + ψ2 [L168, L172].")


def _thm1_opt2(corrected: bool) -> Theorem:
    conds = _opt2_conditions(("Theorem 1 (Option II), eq. (14) in the proof of Lemma 11 "
                              "[L162, L861]", "Theorem 1 (Option II), eq. (15) [L163, L901]",
                              "Theorem 1 (Option II), eq. (16) [L164, L902]"))
    if corrected:
        conds += [M_LE, Condition("m >= M (full participation)", sp.Ge(m, M),
                                  "derived here from Lemmas 9 and 11, Appendix B.3 [L820, "
                                  "L866–L868]",
                                  "the bound ignores client-sampling variance: with m ≤ M this "
                                  "restricts Option II to m = M")]
    return Theorem(
        id="sagda.thm1.opt2" + (".corrected" if corrected else ""), paper="sagda",
        title="Convergence rate of SAGDA, Option II"
              + (" (corrected: full participation only)" if corrected else ""),
        source="Theorem 1, Option II [L160–L172]; proof in Appendix B.3 [L799–L908]",
        statement=_OPT2_STATEMENT if not corrected else _OPT2_STATEMENT + (
            " Corrected: valid for full participation m = M only (the client-sampling variance "
            "of v̄ is not charged)."),
        notation=N2,
        assumptions=["Assumption 1 [L67–L69]", "Assumption 2 [L71–L75]",
                     "Assumption 3 [L79–L86]"],
        derived={**BASE_DERIVED, b_1: L_f**2 * (R(31, 20) * eta_x * K + R(1, 20) * eta_y * K
                                                + 2 * (L + L_f / 10) * eta_x**2 * K**2
                                                + R(1, 5) * L_f * eta_y**2 * K**2)},
        conditions=conds, bound_lhs=LHS.replace("[L154]", "[L168]"), bound=_opt2_terms(),
        errata=[E_OPT2_SAMPLING, E_LSTAR],
        corrected_of="sagda.thm1.opt2" if corrected else None,
        horizon=T, accuracy=epsilon, regime=REGIME,
        relations=RELATIONS, fixed_in_orders=FIXED, algorithms=ALG_SAGDA)


# -- Theorem 2 (FSGDA) ------------------------------------------------------------------------------
def fsgda_derived(extra: dict | None = None) -> dict:
    return {**(extra or {}), **BASE_DERIVED,
            a_1: R(1, 10) - 2 * (2 * L + R(1, 5) * L_f) * eta_x * K,
            a_2: R(1, 20) - R(2, 5) * L_f * eta_y * K - eta_x / eta_y * L_f**2 / mu**2,
            a_3: R(31, 20) + (2 * L + R(1, 5) * L_f) * eta_x * K,
            a_4: R(1, 20) + R(1, 5) * L_f * eta_y * K}


def fsgda_conditions(src: tuple[str, str, str], with_m: bool = True) -> list[Condition]:
    c = [_drift_condition(src[0], "7"),
         Condition("(8) x-descent >= 0",
                   sp.Ge(a_1 - a_3 * 40 * L_f**2 * K**2 * eta_xl**2
                         - eta_y / eta_x * a_4 * 40 * L_f**2 * K**2 * eta_xl**2, 0), src[1]),
         Condition("(9) y-descent >= 0",
                   sp.Ge(a_2 - a_3 * eta_x / eta_y * 40 * L_f**2 * K**2 * eta_yl**2
                         - a_4 * 40 * L_f**2 * K**2 * eta_yl**2, 0), src[2],
                   "forces η_y/η_x > 20L_f²/μ² (fedbounds.findings)")]
    return c + ([M_LE] if with_m else [])


def _fsgda_terms(corrected: bool) -> list[Term]:
    f = 2 if corrected else 1
    psi3 = 2 * (a_3 * L_f**2 + a_4 * eta_y / eta_x * L_f**2) * (
        40 * K**2 * eta_xl**2 * sigma_xG**2 + 40 * K**2 * eta_yl**2 * sigma_yG**2
        + 5 * K * eta_xl**2 * sigma_x**2 + 5 * K * eta_yl**2 * sigma_y**2)
    psi4 = f * ((2 * L + R(1, 5) * L_f) * eta_x * K * (1 - m / M) * 2 / m * sigma_xG**2
                + R(2, 5) / m * L_f * eta_y * K * eta_y / eta_x * (1 - m / M) * sigma_yG**2)
    lf = L_f / 10 if corrected else L_f / 100
    return [Term("optimization", 2 * D_0 / (eta_x * K * T),
                 "Theorem 2, optimization error, 𝓛_0 − 𝓛_T [L221] (𝓛_* in Appendix B.1 [L647])"),
            Term("statistical (x)", 2 * eta_x / m * (L + lf) * sigma_x**2,
                 "derived here: statistical error of Theorem 2, the per-round term of its "
                 "proof telescoped (Appendix B.1 [L630, L636]; printed L_f/100 [L221])"
                 if corrected
                 else "Theorem 2, statistical error [L221; Appendix B.1, L647]"),
            Term("statistical (y)", L_f * eta_y**2 / (5 * m * eta_x) * sigma_y**2,
                 "Theorem 2, statistical error [L221; Appendix B.1, L647]"),
            Term("local update psi_3", psi3, "Theorem 2, ψ3 [L225; Appendix B.1, L649]"),
            Term("sampling variance psi_4", psi4,
                 "derived here: ψ4 of Theorem 2, the per-round sampling term of its proof "
                 "telescoped (Appendix B.1 [L637]; the printed ψ4 [L226] is half)" if corrected
                 else "Theorem 2, ψ4 [L226; Appendix B.1, L648]")]


FSGDA_SRC = ("Theorem 2, eq. (7) in the proof of Lemma 4 [L215, L609]",
              "Theorem 2, eq. (8) [L216, L642]", "Theorem 2, eq. (9) [L217, L643]")
_THM2_STATEMENT = (
    "Under Assumptions 1–4, with learning rates satisfying eqs. (7)–(9) [L215–L219], FSGDA "
    "satisfies (1/T)Σ E‖∇Φ(x_t)‖² ≤ 2(𝓛_0 − 𝓛_T)/(η_xKT) + (2η_x/m)(L + L_f/100)σ_x² + "
    "L_fη_y²/(5mη_x)σ_y² + ψ3 + ψ4 [L221–L226].")


def build_thm2(corrected: bool) -> Theorem:
    return Theorem(
        id="sagda.thm2" + (".corrected" if corrected else ""), paper="sagda",
        title="Convergence rate of FSGDA"
              + (" (corrected: L_f/10, factor 2 in ψ4)" if corrected else ""),
        source="Theorem 2 [L211–L226]; proof in Appendix B.1 [L620–L649]",
        statement=_THM2_STATEMENT if not corrected else _THM2_STATEMENT + (
            " Corrected: L_f/100 → L_f/10 and ψ4 doubled (4/m and 4/(5m))."),
        notation=NF,
        assumptions=["Assumptions 1–3 [L67–L86]", "Assumption 4, bounded gradient "
                     "dissimilarity [L205–L207]"],
        derived=fsgda_derived(), conditions=fsgda_conditions(FSGDA_SRC),
        bound_lhs=LHS.replace("Theorem 1 [L154]", "Theorem 2 [L221]"),
        bound=_fsgda_terms(corrected),
        errata=[E_THM2_LF100, E_THM2_PSI4, E_LSTAR],
        corrected_of="sagda.thm2" if corrected else None,
        horizon=T, accuracy=epsilon, regime=REGIME,
        relations=RELATIONS, fixed_in_orders=FIXED, algorithms=ALG_FSGDA)


thm1_opt1 = build_thm1_opt1(False)
thm1_opt1c = build_thm1_opt1(True)
thm1_opt2 = _thm1_opt2(False)
thm1_opt2c = _thm1_opt2(True)
thm2 = build_thm2(False)
thm2c = build_thm2(True)

for _thm in (thm1_opt1, thm1_opt1c, thm1_opt2, thm1_opt2c, thm2, thm2c):
    # the bound is on E‖∇Φ‖² and ε-stationarity is ‖∇Φ‖ ≤ ε (Definition 1 [L90]): target ε²
    _thm.accuracy_target = ACC

THEOREMS = [thm1_opt1, thm1_opt1c, thm1_opt2, thm1_opt2c, thm2, thm2c]
# Corollaries 1–3: sagda_corollaries.py

# -- lemma inequalities checked numerically at a fixed z_t (claim sagda.p4) ------------------------
# right-hand sides as Terms; the y-block versions substitute σ_y, σ_{y,G} for σ_x, σ_{x,G}
g_xi2, g_yi2, g_x2, u_x2, e_bar2 = (_s(x, nonnegative=True)
                                    for x in ("g_xi2", "g_yi2", "g_x2", "u_x2", "e_bar2"))
LEMMA_RHS = {
    "Lemma 4 drift": Term(
        "E‖z^j_{t,i} − z_t‖², j ≤ K + 1, under (7); g_xi2, g_yi2 = ‖∇_x f_i(z_t)‖², ‖∇_y f_i(z_t)‖²",
        20 * K**2 * eta_xl**2 * g_xi2 + 20 * K**2 * eta_yl**2 * g_yi2
        + 5 * K * eta_xl**2 * sigma_x**2 + 5 * K * eta_yl**2 * sigma_y**2,
        "proof of Lemma 4, Appendix B.1 [L603]"),
    "sampling": Term("E‖u_x‖² over S_t; g_x2 = ‖∇_x f(z_t)‖² (Theorem 2 proof)",
                     2 * g_x2 + 2 * (1 - m / M) * sigma_xG**2 / m,
                     "proof of Theorem 2, Appendix B.1 [L640]"),
    "Lemma 1": Term("E‖u_x − e_x‖²; e_bar2 = E‖ē_x‖², u_x2 = E‖u_x‖²",
                    4 * e_bar2 + 4 * u_x2 + 2 * sigma_x**2 / (m * K),
                    "Lemma 1, Appendix B.1 [L526–L536]"),
}
