"""FedSGDA+ / FedSGDA-M — Wu, Sun, Hu, Zhang, Huang (NeurIPS 2023).

"Solving a Class of Non-Convex Minimax Optimization in Federated Learning", arXiv:2310.03613.
Statements as printed. Every source cites the paper's own numbering first (Theorem 3.12,
Lemma C.3, eq. (51), Remark 3.14, Appendix C.2); ``[Lnnn]`` is a secondary reference to a line of
the paper's full text with its appendices (``PAPER["text"]``). Where an erratum changes a
constant, a condition or a term, a second theorem ``<id>.corrected`` holds the corrected
statement and both list the erratum.

Both criteria are averages of squared norms, ``(1/T)Σ E‖∇Φ_{1/2L_f}(x̄_t)‖² ≤ ε²`` (Remark 3.8
[L183]) and ``(1/T)Σ E‖∇Φ(x̄_t)‖² ≤ ε²`` (Remark 3.14 [L255]): every theorem here sets
``accuracy_target = ε²`` for :func:`fedbounds.complexity.derive` (the ``Theorem.accuracy_target`` field).

NC-SC (Section 3.3 [L257–L263]) has no numbered result: it inherits Theorem 3.12 / Corollary
3.13 (Section 3.3 [L263]), so its claim is a :class:`Specialization` of ``fedsgda.cor3.13``, not
a separate id.
"""

from __future__ import annotations

import sympy as sp

from ..minmax import Max
from ..model import (
    NONNEGATIVE,
    POSITIVE,
    POSITIVE_INTEGER,
    Condition,
    Domain,
    Erratum,
    Notation,
    Relation,
    Specialization,
    Term,
    Theorem,
)

PAPER = {
    "key": "fedsgda",
    "title": "Solving a Class of Non-Convex Minimax Optimization in Federated Learning "
             "(FedSGDA+, FedSGDA-M)",
    "authors": "Xidong Wu, Jianhui Sun, Zhengmian Hu, Aidong Zhang, Heng Huang",
    "venue": "NeurIPS 2023",
    "arxiv": "2310.03613",
    "url": "https://arxiv.org/abs/2310.03613",
    "text": "the paper's full text with Appendices A–D, as plain text (line 1 is the title; the "
            "text itself names no arXiv version)",
}
THEORY_SECONDS = 8.5  # its theory page's seconds on a fresh run (a scheduling hint)

CLOSED_UNIT = Domain("closed unit", 0.0, 1.0, lo_open=False, hi_open=False)  # [0, 1]
third = sp.Rational(1, 3)

N_ = Notation("fedsgda")
# -- problem constants -------------------------------------------------------------------------
L_f = N_.add("L_f", POSITIVE, "smoothness L_f of each f_i (Assumptions 3.3 / 3.11)", "L_f",
             "Assumptions 3.3, 3.11 [L157, L230]")
mu = N_.add("mu", POSITIVE, "PL modulus μ of F in y (Assumption 3.9)", r"\mu",
            "Assumption 3.9 [L187]")
kappa = N_.add("kappa", POSITIVE, "condition number κ = L_f/μ (derived)", r"\kappa",
               "Table 1 caption [L56], Lemma A.1 [L401]")
L = N_.add("L", POSITIVE, "the bare L of Thm 3.12 / Cor 3.13; Lemma A.1 defines "
           "L = L_f(1 + κ) (derived)", "L", "Lemma A.1 [L401]")
L_Phi = N_.add("L_Phi", POSITIVE, "smoothness of Φ, L_f(1 + κ) (Lemma A.1; derived)", r"L_\Phi",
               "Lemma A.1, eq. (7) [L399–L401]")
G_x = N_.add("G_x", NONNEGATIVE, "Lipschitz constant G_x of F in x (Assumption 3.4)", "G_x",
             "Assumption 3.4 [L163]")
sigma = N_.add("sigma", NONNEGATIVE, "gradient-noise standard deviation σ (Assumption 3.1)",
               r"\sigma", "Assumption 3.1 (ii) [L136–L138]")
zeta = N_.add("zeta", NONNEGATIVE, "heterogeneity ζ (Assumption 3.1, (2))", r"\zeta",
              "Assumption 3.1 (ii), eq. (2) [L140–L141]")
D = N_.add("D", NONNEGATIVE, "D with ‖ȳ_t‖² ≤ D (the proof needs ‖ȳ_kS − y*(x̃_k)‖² ≤ D)", "D",
           "Theorem 3.6 [L175]")
Delta_lam = N_.add("Delta_lam", NONNEGATIVE, "Moreau gap Δ = E Φ_{1/2L_f}(x_0) − E Φ_{1/2L_f}(x̄_T)",
                   r"\Delta", "Theorem 3.6 [L177], Corollary 3.7 [L181]")
Delta = N_.add("Delta", NONNEGATIVE, "Δ = Φ(x̄_0) − Φ* (bounds Φ(x̄_0) − Φ(x̄_T))", r"\Delta",
               "Theorem 3.12 [L247], Corollary 3.13 [L251]")
Delta_y = N_.add("Delta_y", NONNEGATIVE, "Δ_y = Φ(x̄_0) − F(x̄_0, ȳ_0)", r"\Delta_y",
                 "Theorem 3.12 [L247], eq. (52) [L913]")
N = N_.add("N", POSITIVE_INTEGER, "number of clients N", "N", "eq. (1) [L41]")
# -- FedSGDA+ (Algorithm 1) ----------------------------------------------------------------------
c = N_.add("c", POSITIVE, "local y step size c (Alg. 1) / y scale c (Alg. 2)", "c",
           "Algorithms 1, 2 [L104, L194]")
c_hat = N_.add("c_hat", POSITIVE, "local x step size ĉ (Alg. 1) / x scale ĉ (Alg. 2)", r"\hat c",
               "Algorithms 1, 2 [L104, L194]")
eta_x = N_.add("eta_x", POSITIVE, "global (server) x step size η_x", r"\eta_x",
               "Section 3.1, Algorithm 1 [L155]")
eta_y = N_.add("eta_y", POSITIVE, "global (server) y step size η_y", r"\eta_y",
               "Section 3.1, Algorithm 1 [L155]")
Q = N_.add("Q", POSITIVE_INTEGER, "local steps per round Q (Alg. 1) / communication period Q "
           "(Alg. 2)", "Q", "Algorithms 1, 2 [L104, L194]")
S = N_.add("S", POSITIVE_INTEGER, "snapshot period S (rounds)", "S",
           "Section 3.1, Algorithm 1 [L153]")
T = N_.add("T", POSITIVE_INTEGER, "rounds T (Alg. 1) / total local iterations T (Alg. 2)", "T",
           "Algorithms 1, 2 [L104, L194]")
# -- FedSGDA-M (Algorithm 2) ---------------------------------------------------------------------
eta = N_.add("eta", POSITIVE, "common step η of FedSGDA-M (x step ĉη, y step cη)", r"\eta",
             "Algorithm 2 [L194]")
c_1 = N_.add("c_1", POSITIVE, "momentum scale c_1 (α = c_1η²)", "c_1", "Theorem 3.12 [L245]")
c_2 = N_.add("c_2", POSITIVE, "momentum scale c_2 (β = c_2η²)", "c_2", "Theorem 3.12 [L245]")
alpha = N_.add("alpha", POSITIVE, "x-momentum coefficient α = c_1η² (derived)", r"\alpha",
               "Theorem 3.12 [L245]")
beta = N_.add("beta", POSITIVE, "y-momentum coefficient β = c_2η² (derived)", r"\beta",
              "Theorem 3.12 [L245]")
nu = N_.add("nu", CLOSED_UNIT, "batch exponent ν ∈ [0, 1] (b = O(κ^ν))", r"\nu",
             "Theorem 3.12 [L245], Corollary 3.13 [L249]")
b = N_.add("b", POSITIVE_INTEGER, "minibatch size b", "b", "Section 3, Notation [L98]")
B = N_.add("B", POSITIVE_INTEGER, "initial minibatch size B", "B", "Algorithm 2 [L195]")
T_0 = N_.add("T_0", POSITIVE, "T_0 with T = κ^(3−ν) T_0 (Cor. 3.13)", "T_0",
             "Corollary 3.13 [L249]")
epsilon = N_.add("epsilon", POSITIVE, "target accuracy ε: (1/T)Σ E‖∇·‖² ≤ ε²", r"\varepsilon",
                 "Remarks 3.8, 3.14 [L183, L255]")

ACC = epsilon**2  # the criterion is ε² (Remarks 3.8, 3.14)
KAPPA = {kappa: L_f / mu}
FIXED_NCC = {L_f: 1, Delta_lam: 1, D: 1, G_x: 1, sigma: 1, zeta: 1, b: 1}  # "b = O(1)" (Remark 3.8)
FIXED_NCPL = {L_f: 1, Delta: 1, Delta_y: 1, sigma: 1, zeta: 1}
# κ ≥ 1 (Appendix C.2 assumes κ > 1 [L908]); the second relation is the same with L_f = 1 fixed
# in the orders
REGIME_NCPL = [sp.Le(mu, L_f), sp.Le(mu, 1)]
RELATIONS_NCPL = [Relation(sp.Le(mu, L_f), "an L_f-smooth F(x, ·) that is μ-PL has μ ≤ L_f",
                           "Assumptions 3.9, 3.11 [L187, L230]")]
LHS_NCC = "(1/T) Σ_{t<T} E‖∇Φ_{1/2L_f}(x̄_t)‖² (Moreau envelope, Definition 3.5 [L169])"
LHS_NCPL = "(1/T) Σ_{t<T} E‖∇Φ(x̄_t)‖² (Definition 3.10 [L226])"
ASSUME_NCC = ["Assumption 3.1 [L136–L141]: unbiased, σ² variance, ζ² heterogeneity",
              "Assumption 3.2 [L147–L149]: concavity in y", "Assumption 3.3 [L157–L159]: "
              "each f_i L_f-smooth", "Assumption 3.4 [L163–L165]: F G_x-Lipschitz in x",
              "‖ȳ_t‖² ≤ D (Theorem 3.6 [L175])"]
ASSUME_NCPL = ["Assumption 3.1 [L136–L141]", "Assumption 3.9 [L187]: F μ-PL in y",
               "Assumption 3.11 [L230–L233]: L_f-Lipschitz stochastic gradients (the proofs "
               "use the mean-squared form, proof of Lemma C.5 [L746])"]

# -- errata -------------------------------------------------------------------------------------
E_CHAT = Erratum(
    "thm3.6-c_hat", "Theorem 3.6 [L175] vs Lemma B.2 [L451]", "max{cη_y, c} ≤ 1/(10QL_f)",
    "max{cη_y, c} ≤ 1/(10QL_f) and ĉ ≤ 1/(10QL_f)",
    "Lemma B.2 [L451], used in the proof of Theorem 3.6 (Appendix B.2), needs ĉ ≤ 1/(10QL_f); "
    "the theorem omits it. The proof of Lemma B.1 also drops a factor 2 and the 1/b in "
    "E‖(1/N)ΣΣg‖² (eq. (12) [L430]): not encoded (only adversarial cases).")
E_GX = Erratum(
    "G_x-per-client", "Assumption 3.4 [L163–L165] vs eqs. (12), (19) [L430, L509–L513]",
    "F is G_x-Lipschitz in x", "each f_i is G_x-Lipschitz in x (on the visited points)",
    "The proofs of Lemmas B.1 and B.3 bound ‖(1/N)ΣΣ∇_x f_i(x^i_{t,q}, ·)‖ at local iterates. "
    "No change to the formulas; G_x must be read per client.")
E_D = Erratum(
    "D-diameter", "Theorem 3.6 [L175], proof of Lemma B.3 [L559] vs eq. (23) [L557–L561]",
    "‖ȳ_t‖² ≤ D", "‖ȳ_kS − y*(x̃_k)‖² ≤ D (and max_y F(x, ·) attained)",
    "The telescoping of eq. (23) in the proof of Lemma B.3 needs the distance to y*(x̃_k), not "
    "‖ȳ_t‖². No change to the formulas; D must be read as that distance.")
E_SPEEDUP = Erratum(
    "linear-speedup", "Remark 3.8 [L183], Section 1, contribution 1) [L52], Section 5 [L313]",
    "linear speedup in N (per-client samples N⁻¹ε⁻⁸)",
    "the rate is N-free; N only lowers Q = T^(1/3)/N, which needs N ≤ T^(1/3) = ε⁻²",
    "Under Corollary 3.7 the server steps are η_x = T^(−1/3), η_y = T^(1/3) and the total "
    "sample count NbQT = ε⁻⁸ does not fall with N (derived here). No change to the statement.")
E_WHICH_L = Erratum(
    "which-L", "Theorem 3.12 [L245], Corollary 3.13 [L249] vs Lemma A.1 [L401], Section 3.2 "
    "[L228], Appendix C.2 [L908]", "η = 1/(20QL), c_i = 30L²/(bNκ^…) with "
    "L = L_f(1 + κ) (Lemma A.1 [L401]: the paper's only definition of L)",
    "L = L_f in η, c_1, c_2 (reading R1; Section 3.2 [L228] writes Φ as (L + κL)-smooth with "
    "L = L_f and the arithmetic (3 + 18κ²)/200 after eq. (51) [L908] is exact only for "
    "η = 1/(20QL_f)); Φ's smoothness L_f(1 + κ) stays where Lemma C.2 uses it",
    "Both readings satisfy the proof's final inequalities (derived here), but only L = L_f "
    "gives the claimed κ³ samples / κ^(3−ν)ε⁻² communication; with L = L_f(1 + κ) the leading "
    "term is 2160L_f(1 + κ)Δ/(NT_0)^(2/3).")
E_DRIFT = Erratum(
    "L908-drift-constant", "Appendix C.2, after eq. (51) [L908] (from the display after "
    "eq. (50) [L896])", "(3 + 18κ²)/200",
    "(6 + 36κ²)L_f²Q²η² (equal to (3 + 18κ²)/200 when η = 1/(20QL_f))",
    "The drift factor in the display after eq. (50) [L896] is (36L_f⁴/μ² + 6L_f²)(Q − 1)Qη² ≤ "
    "(6 + 36κ²)L_f²Q²η²; the printed constant substitutes η = 1/(20QL) with L = L_f (derived "
    "here).")
E_LEMC3 = Erratum(
    "lemmaC3-condition", "Lemma C.3 [L646] vs its proof [L715] vs Appendix C.2 [L910]",
    "ĉ ≤ c/(4κ²) (Lemma C.3 statement)",
    "ĉ ≤ c/(8κ²), plus ηĉL_Φ + η²ĉcL_f² ≤ 1/8 for step (b) (derived here)",
    "The proof of Lemma C.3 (step (a) of eq. (34) [L715]) needs 4ĉηL_f²/μ ≤ cημ/2, i.e. "
    "ĉ ≤ c/(8κ²); the proof of Theorem 3.12 itself uses ĉ ≤ c/(9κ²) [L910], so its feasibility "
    "is unchanged. Step (b) [L715] also cites 'η ≤ 1/(20ĉL_f)' (sic).")
E_YBAR = Erratum(
    "thm3.12-ybar", "Theorem 3.12 [L247] vs eq. (52) [L913, L915]",
    "Φ(x̄_0) − F(x̄_0, ȳ_t) and Φ(x̄_0) − Φ(x̄_T)",
    "Φ(x̄_0) − F(x̄_0, ȳ_0) = Δ_y and Φ(x̄_0) − Φ* = Δ",
    "The first line of eq. (52) [L913] has ȳ_0; Φ(x̄_T) is random, so the deterministic bound "
    "needs Φ* (as Corollary 3.13 writes [L253]). Encoded with Δ and Δ_y in both variants.")
E_COR313 = Erratum(
    "cor3.13-arithmetic", "Corollary 3.13 [L251] = eq. (53) [L921]",
    "480σ²/(κ²(NT_0)^(2/3)) and 240L_f[Φ(x̄_0) − F(x̄_0, ȳ_0)]/(NT_0)^(2/3)",
    "480σ²/(NT_0)^(2/3) and 1440L[Φ(x̄_0) − F(x̄_0, ȳ_0)]/(NT_0)^(2/3)",
    "Substituting the schedule into Theorem 3.12 (derived here): 36L_f²σ²/(μ²βTBN) = "
    "480σ²/(NT_0)^(2/3) (the κ² = L_f²/μ² was dropped) and 12L_f²Δ_y/(cημ²T) = "
    "1440LΔ_y/(NT_0)^(2/3) (factor 6, and L not L_f). The b-terms 9σ²/(20bκ), 27σ²/5 and the "
    "ζ-bracket are exact only with b = κ^ν; the corrected variant keeps the exact forms for "
    "any b.")
E_BATCH = Erratum(
    "batch-kappa-nu", "Section 1, contribution 3) [L72], Section 2.2 [L94], Remark 3.14 "
    "[L255] vs Corollary 3.13 [L249]", "FedSGDA-M 'does not rely on a large batch' "
    "and reaches O(κ²ε⁻²) communication (Table 1 [L64, L68])",
    "communication κ^(3−ν)ε⁻² with b = κ^ν: κ²ε⁻² needs ν = 1, b = κ; with b = 1 it is κ³ε⁻²",
    "Remark 3.14 [L255] itself states T/Q = κ^(3−ν)ε⁻². No change to the statement; the "
    "derivation shows the disagreement (specializations of fedsgda.cor3.13).")
E_MSS = Erratum(
    "assumption3.11-first-moment", "Assumption 3.11, eq. (5) [L232] vs the proof of Lemma C.5 "
    "[L746, L773]", "E‖∇f_i(z_1; ξ) − ∇f_i(z_2; ξ)‖ ≤ "
    "L_f‖z_1 − z_2‖", "E‖∇f_i(z_1; ξ) − ∇f_i(z_2; ξ)‖² ≤ L_f²‖z_1 − z_2‖² (mean-squared)",
    "The proof of Lemma C.5 [L746] uses the mean-squared form. No change to the formulas.")
E_NCSC = Erratum(
    "assumption3.15", "Assumption 3.15 [L259–L261]",
    "‖∇_y f_i(x, y_1) − ∇_y f_i(x, y_2)‖ ≥ μ‖y_1 − y_2‖",
    "⟨∇_y f_i(x, y_1) − ∇_y f_i(x, y_2), y_1 − y_2⟩ ≤ −μ‖y_1 − y_2‖²",
    "As printed, strongly convex functions satisfy it too. No change to the formulas.")
E_SYNC = Erratum(
    "lemmaC4-sync", "Lemma C.4 [L722–L732], proof of Lemma C.5, eqs. (38)–(40) [L776–L791]",
    "x^i_t − x^i_{t−1} = −ĉηu^i_t at every t",
    "at sync steps the displacement also contains x̄_{t−1} − x^i_{t−1} (client drift)",
    "A possible gap in Lemmas C.4/C.5 (testable at sync steps with state-dependent noise and "
    "heterogeneous Hessians; our prediction). No change to the formulas.")


# ---------------------------------------------------------------------------------------------
# Theorem 3.6 / Corollary 3.7 (FedSGDA+, NC-C)
# ---------------------------------------------------------------------------------------------
def _thm36_conditions(corrected: bool, line: str = "Theorem 3.6 [L175]") -> list[Condition]:
    conds = [Condition("max{c*eta_y, c} <= 1/(10QL_f)",
                       sp.Le(Max(c * eta_y, c), 1 / (10 * Q * L_f)), line)]
    if corrected:
        conds.append(Condition("c_hat <= 1/(10QL_f)", sp.Le(c_hat, 1 / (10 * Q * L_f)),
                               "Lemma B.2 [L451], used by the proof (Appendix B.2)",
                               "omitted from the statement of Theorem 3.6"))
    return conds


_THM36_TERMS = [
    Term("x-step noise", 8 * L_f * c_hat * eta_x * (Q * G_x**2 + sigma**2 / N),
         "Theorem 3.6 [L177], from Lemma B.1"),
    Term("Moreau descent", 8 * Delta_lam / (Q * c_hat * eta_x * T),
         "Theorem 3.6 [L177], from Lemma B.1"),
    Term("local drift (noise, heterogeneity)",
         48 * L_f**2 * Q * (c_hat**2 + c**2) * (sigma**2 + 6 * Q * zeta**2),
         "Theorem 3.6 [L177], from Lemma B.2"),
    Term("local drift (x-gradients)", 288 * L_f**2 * Q**2 * c_hat**2 * G_x**2,
         "Theorem 3.6 [L177], from Lemma B.2"),
    Term("snapshot gap via drift",
         576 * L_f**3 * Q**2 * c**2 * (D / (c * eta_y * Q * S) + c * eta_y * sigma**2 / N
                                       + 6 * L_f * Q**2 * c**2 * (sigma**2 + 6 * zeta**2)),
         "Theorem 3.6 [L177], from Lemmas B.2, B.3"),
    Term("snapshot staleness", 32 * L_f * G_x * eta_x * c_hat * S * Q
         * sp.sqrt(G_x**2 + sigma**2 / N), "Theorem 3.6 [L177], from Lemma B.3"),
    Term("y-gap: diameter", 16 * L_f * D / (c * eta_y * Q * S),
         "Theorem 3.6 [L177], from Lemma B.3"),
    Term("y-gap: noise", 16 * L_f * c * eta_y * sigma**2 / N, "Theorem 3.6 [L177], from Lemma B.3"),
    Term("y-gap: drift", 96 * L_f**2 * Q**2 * c**2 * (sigma**2 + 6 * zeta**2),
         "Theorem 3.6 [L177], from Lemma B.3"),
]

_THM36 = ("Under Assumptions 3.1–3.4, with max{cη_y, c} ≤ 1/(10QL_f) and ‖ȳ_t‖² ≤ D, FedSGDA+ "
          "satisfies (1/T)Σ E‖∇Φ_{1/2L_f}(x̄_t)‖² ≤ 8L_fĉη_x(QG_x² + σ²/N) + 8Δ/(QĉηxT) + "
          "48L_f²Q(ĉ² + c²)(σ² + 6Qζ²) + 288L_f²Q²ĉ²G_x² + 576L_f³Q²c²[D/(cη_yQS) + cη_yσ²/N + "
          "6L_fQ²c²(σ² + 6ζ²)] + 32L_fG_xη_xĉSQ√(G_x² + σ²/N) + 16L_fD/(cη_yQS) + "
          "16L_fcη_yσ²/N + 96L_f²Q²c²(σ² + 6ζ²).")


def _thm36(corrected: bool) -> Theorem:
    return Theorem(
        id="fedsgda.thm3.6" + (".corrected" if corrected else ""), paper="fedsgda",
        title="Convergence of FedSGDA+ (NC-C)" + (" (corrected: ĉ ≤ 1/(10QL_f))"
                                                  if corrected else ""),
        source="Theorem 3.6 [L175–L177]; proof in Appendix B.2 [L563–L573]",
        statement=_THM36 + (" Corrected: the proof (Lemma B.2 [L451]) also needs "
                            "ĉ ≤ 1/(10QL_f)." if corrected else ""),
        notation=N_, assumptions=ASSUME_NCC, conditions=_thm36_conditions(corrected),
        bound_lhs=LHS_NCC, bound=list(_THM36_TERMS),
        costs={"communications": T, "samples_per_client": b * Q * T},
        errata=[E_CHAT, E_GX, E_D], corrected_of="fedsgda.thm3.6" if corrected else None,
        horizon=T, accuracy=epsilon, fixed_in_orders=FIXED_NCC,
        algorithms=["FedSGDA+ (Alg. 1)", "Local SGDA+ (η_x = η_y = 1, Section 3.1 [L155])"],
        notes=["The bound contains no b: σ² is the variance of the minibatch gradient.",
               "Only the products ĉη_x and cη_y enter the server step (Algorithm 1, server "
               "update [L123])."])


# Corollary 3.7: c = ĉ = 1/(10L_fQT^(1/3)), Q = T^(1/3)/N, ĉη_x = N/(10L_fT),
# cη_y = 1/(10L_fQ) = N/(10L_fT^(1/3)), S = T^(1/3)  (Corollary 3.7 [L179], Appendix B.2 [L576])
_COR37_SCHEDULE = {
    c: 1 / (10 * L_f * Q * T**third),
    c_hat: 1 / (10 * L_f * Q * T**third),
    Q: T**third / N,
    S: T**third,
    eta_x: N / (10 * L_f * T) / c_hat,  # ĉη_x = N/(10L_fT) → η_x = T^(−1/3) [derived]
    eta_y: N / (10 * L_f * T**third) / c,  # cη_y = N/(10L_fT^(1/3)) → η_y = T^(1/3) [derived]
}
_t23 = T ** (-2 * third)
_t13 = T ** (-third)
_COR37_TERMS = [
    Term("Moreau descent", 80 * L_f * Delta_lam * _t13, "Corollary 3.7 [L181]"),
    Term("x-step noise", sp.Rational(4, 5) * (G_x**2 + sigma**2) * _t23, "Corollary 3.7 [L181]"),
    Term("local drift (noise, heterogeneity)", sp.Rational(24, 25) * (sigma**2 + 6 * zeta**2)
         * _t23, "Corollary 3.7 [L181] (first of the two equal terms)"),
    Term("local drift (x-gradients)", sp.Rational(72, 25) * G_x**2 * _t23,
         "Corollary 3.7 [L181]"),
    Term("y-gap: drift", sp.Rational(24, 25) * (sigma**2 + 6 * zeta**2) * _t23,
         "Corollary 3.7 [L181] (second of the two equal terms; eq. (24) [L581])"),
    Term("snapshot gap via drift: D", sp.Rational(144, 25) * L_f * _t23 * 10 * L_f * D * _t13,
         "Corollary 3.7 [L181] (bracket, first summand)"),
    Term("snapshot gap via drift: noise", sp.Rational(144, 25) * L_f * _t23 * sigma**2
         / (10 * L_f) * _t13, "Corollary 3.7 [L181] (bracket, second summand)"),
    Term("snapshot gap via drift: drift", sp.Rational(144, 25) * L_f * _t23 * 3
         * (sigma**2 + 6 * zeta**2) / (50 * L_f) * _t23,
         "Corollary 3.7 [L181] (bracket, third summand)"),
    Term("snapshot staleness", sp.Rational(16, 5) * G_x * _t13 * sp.sqrt(G_x**2 + sigma**2 / N),
         "Corollary 3.7 [L181]"),
    Term("y-gap: diameter", 160 * L_f**2 * D * _t13, "Corollary 3.7 [L181]"),
    Term("y-gap: noise", sp.Rational(8, 5) * sigma**2 * _t13, "Corollary 3.7 [L181]"),
]
_COR37_CLAIM = {"communications": epsilon**-6, "samples_per_client": epsilon**-8 / N}


def _cor37(corrected: bool) -> Theorem:
    conds = _thm36_conditions(corrected, "Theorem 3.6 [L175], the setting of Corollary 3.7")
    conds.append(Condition("Q >= 1", sp.Ge(Q, 1, evaluate=False),
                           "Corollary 3.7 [L179] (Q = T^(1/3)/N local steps)",
                           "under the schedule: T ≥ N³ (derived here)"))
    return Theorem(
        id="fedsgda.cor3.7" + (".corrected" if corrected else ""), paper="fedsgda",
        title="Rate of FedSGDA+ (NC-C)" + (" (corrected: with ĉ ≤ 1/(10QL_f))"
                                          if corrected else ""),
        source="Corollary 3.7, Remark 3.8 [L179–L183]; proof in Appendix B.2, eq. (24) "
               "[L575–L583]",
        statement=("With c = ĉ = 1/(10L_fQT^(1/3)), Q = T^(1/3)/N, ĉη_x = N/(10L_fT), "
                   "cη_y = 1/(10L_fQ) = N/(10L_fT^(1/3)), S = T^(1/3), FedSGDA+ satisfies "
                   "(1/T)Σ E‖∇Φ_{1/2L_f}(x̄_t)‖² ≤ 80L_fΔ/T^(1/3) + … + 8σ²/(5T^(1/3)) [L181]; "
                   "Remark 3.8: T = O(ε⁻⁶) communication rounds and bQT = N⁻¹ε⁻⁸ samples per "
                   "client with b = O(1).") + (" Corrected: the conditions include "
                                               "ĉ ≤ 1/(10QL_f) (Lemma B.2)." if corrected else ""),
        notation=N_, assumptions=ASSUME_NCC, conditions=conds, bound_lhs=LHS_NCC,
        bound=list(_COR37_TERMS), schedule=dict(_COR37_SCHEDULE),
        schedule_source="Corollary 3.7 [L179] (= Appendix B.2 [L576]); η_x, η_y from the "
                        "products",
        costs={"communications": T, "samples_per_client": b * Q * T,
               "samples_total": N * b * Q * T},
        claimed=dict(_COR37_CLAIM), claimed_source="Remark 3.8 [L183], Table 1 [L60]",
        specializations=[Specialization(
            "Table 1 reading: 'sample complexity is the total number of IFO' (L56)", {},
            {**_COR37_CLAIM, "samples_total": epsilon**-8 / N},
            "Table 1 and its caption [L56, L60]",
            "Table 1's caption defines sample complexity as the total over clients, yet "
            "lists N⁻¹ε⁻⁸; the derived total NbQT does not fall with N (derived here)")],
        errata=[E_CHAT, E_GX, E_D, E_SPEEDUP],
        corrected_of="fedsgda.cor3.7" if corrected else None,
        horizon=T, accuracy=epsilon, fixed_in_orders=FIXED_NCC,
        algorithms=["FedSGDA+ (Alg. 1)"],
        notes=["Δ in Corollary 3.7 [L181] is undefined in the text; it is the Moreau gap of "
               "Theorem 3.6.",
               "Substituting the schedule into Theorem 3.6 gives these terms except two "
               "relaxations (4σ²/(5T) → 4σ²/(5T^(2/3)), 24Nσ²/(25T) → 24σ²/(25T^(2/3))), "
               "valid when Q ≥ 1 (derived here)."])


# ---------------------------------------------------------------------------------------------
# Theorem 3.12 / Corollary 3.13 (FedSGDA-M, NC-PL)
# ---------------------------------------------------------------------------------------------
def _thm312_parts(corrected: bool):
    """(derived, conditions, bound terms, L used in η/c_i) of Theorem 3.12, printed or R1."""
    Lp = L_f if corrected else L  # the L of η = 1/(20QL) and c_i = 30L²/(…)
    LPhi = L_Phi if corrected else L  # smoothness of Φ (Lemma C.2's ĉ²η²L/2)
    derived = {kappa: L_f / mu, alpha: c_1 * eta**2, beta: c_2 * eta**2}
    derived[L_Phi if corrected else L] = L_f * (1 + kappa)
    drift = ((6 + 36 * kappa**2) * L_f**2 * Q**2 * eta**2 if corrected
             else (3 + 18 * kappa**2) / 200)
    conds = [
        Condition("kappa > 1", sp.Gt(kappa, 1), "Appendix C.2, after eq. (51) [L908]"),
        Condition("alpha < 1", sp.Lt(alpha, 1),
                  "Section 3.2, after Algorithm 2 [L224] (0 < α < 1)"),
        Condition("beta < 1", sp.Lt(beta, 1), "Section 3.2, after Algorithm 2 [L224] (0 < β < 1)"),
        Condition("eta <= 1/(20QL)", sp.Le(eta, 1 / (20 * Q * Lp)),
                  "Theorem 3.12 [L245] (η = 1/(20QL)), Lemma C.5 [L734], Appendix C.2 [L910]"),
        Condition("c_1 <= 30L^2/(bN)", sp.Le(c_1, 30 * Lp**2 / (b * N)), "Lemma C.5 [L734]"),
        Condition("c_2 <= 30L^2/(bN)", sp.Le(c_2, 30 * Lp**2 / (b * N)), "Lemma C.5 [L734]"),
        Condition("c_hat <= c/(8kappa^2)" if corrected else "c_hat <= c/(4kappa^2)",
                  sp.Le(c_hat, c / ((8 if corrected else 4) * kappa**2)),
                  "proof of Lemma C.3, step (a) of eq. (34) [L715], corrected" if corrected else
                  "Lemma C.3 [L646]"),
        Condition("eta <= 1/(20QL_f)", sp.Le(eta, 1 / (20 * Q * L_f)), "Lemma C.3 [L646]"),
        Condition("c*eta <= 1/(20L_f)", sp.Le(c * eta, 1 / (20 * L_f)),
                  "proof of Lemma C.3, step (b) of eq. (34) [L715]"),
        Condition("c_hat <= c/(9kappa^2)", sp.Le(c_hat, c / (9 * kappa**2)),
                  "Appendix C.2, after eq. (51) [L910]"),
        Condition("u-coefficient >= 0",
                  sp.Ge(1 - c_hat * eta * LPhi - 3 * c_hat * L_f**2 / (c * mu**2)
                        - 12 * L_f**2 * eta**2 * c_hat**2 / (N * b * alpha)
                        - 144 * c_hat**2 * eta**2 * L_f**4 / (N * b * beta * mu**2)
                        - c_hat**2 * kappa**2 / 12, 0),
                  "Appendix C.2: coefficient of ‖ū_{t+1}‖² in eq. (51) [L904, L910]"),
        Condition("v-coefficient >= 0",
                  sp.Ge(3 * L_f**2 / mu**2 - 12 * L_f**2 * eta**2 * c**2 / (N * b * alpha)
                        - 144 * c**2 * eta**2 * L_f**4 / (N * b * beta * mu**2)
                        - c**2 * kappa**2 / 12, 0),
                  "Appendix C.2: coefficient of ‖v̄_{t+1}‖² in eq. (51) [L905, L910]"),
        Condition("drift factor <= 2kappa^2/5",
                  sp.Le((24 * L_f**2 * eta**2 / (N * b * alpha)
                         + 288 * kappa**2 * L_f**2 * eta**2 / (N * b * beta) + drift)
                        * Max(c_hat**2, c**2), 2 * kappa**2 / 5),
                  ("Appendix C.2, after eq. (51) [L908], with the general drift constant "
                   "(6 + 36κ²)L_f²Q²η² of the display after eq. (50) [L896] (derived here)"
                   if corrected else "Appendix C.2, after eq. (51) [L908]"),
                  "needed to absorb the estimator drift with Lemma C.5, eq. (36) [L736]"),
    ]
    if corrected:
        conds.append(Condition(
            "eta*c_hat*L_Phi + eta^2*c_hat*c*L_f^2 <= 1/8",
            sp.Le(eta * c_hat * L_Phi + eta**2 * c_hat * c * L_f**2, sp.Rational(1, 8)),
            "proof of Lemma C.3, step (b) of eq. (34) [L710–L712] (derived here)",
            "what step (b) needs; its proof cites 'η ≤ 1/(20ĉL_f)' (sic) [L715]"))
    terms = [
        Term("primal descent", 2 * Delta / (c_hat * eta * T),
             "Theorem 3.12 [L247] (Φ(x̄_T) ≥ Φ*, Corollary 3.13 [L253])"),
        Term("u initial error", 3 * sigma**2 / (alpha * T * B * N),
             "Theorem 3.12 [L247] (eq. (52), batch B [L913–L915])"),
        Term("v initial error", 36 * L_f**2 * sigma**2 / (mu**2 * beta * T * B * N),
             "Theorem 3.12 [L247]"),
        Term("y-gap", 12 * L_f**2 * Delta_y / (c * eta * mu**2 * T),
             "Theorem 3.12 [L247] (ȳ_0 as in eq. (52) [L913])"),
        Term("u STORM noise", 6 * alpha * sigma**2 / (N * b), "Theorem 3.12 [L247]"),
        Term("v STORM noise", 72 * beta * sigma**2 * L_f**2 / (N * b * mu**2),
             "Theorem 3.12 [L247]"),
        Term("estimator drift: noise", sigma**2 * (c_1**2 + c_2**2) / (30 * b * Lp**2)
             * kappa**2 * eta**2, "Theorem 3.12 [L247], from Lemma C.5, eq. (36) [L736]"),
        Term("estimator drift: heterogeneity", zeta**2 * (c_1**2 + c_2**2) / (12 * Lp**2)
             * kappa**2 * eta**2, "Theorem 3.12 [L247], from Lemma C.5, eq. (36) [L736]"),
    ]
    return derived, conds, terms, Lp


def _params_schedule(Lp: sp.Expr) -> dict:
    """η, c_1, c_2, c, ĉ of Theorem 3.12 [L245] (= Appendix C.2 [L869])."""
    return {eta: 1 / (20 * Q * Lp), c_1: 30 * Lp**2 / (b * N * kappa ** (1 - nu)),
            c_2: 30 * Lp**2 / (b * N * kappa ** (2 - 2 * nu)), c: 1 / (6 * kappa ** (1 - nu)),
            c_hat: 1 / (54 * kappa ** (3 - nu))}


_THM312 = ("Under Assumptions 3.1, 3.9, 3.11, with η = 1/(20QL), α = c_1η², β = c_2η², "
           "c_1 = 30L²/(bNκ^(1−ν)), c_2 = 30L²/(bNκ^(2−2ν)), c = 1/(6κ^(1−ν)), "
           "ĉ = 1/(54κ^(3−ν)), ν ∈ [0, 1], FedSGDA-M satisfies (1/T)Σ E‖∇Φ(x̄_t)‖² ≤ "
           "2[Φ(x̄_0) − Φ(x̄_T)]/(ĉηT) + 3σ²/(αTBN) + 36L_f²σ²/(μ²βTBN) + "
           "12L_f²[Φ(x̄_0) − F(x̄_0, ȳ_t)]/(cημ²T) + 6ασ²/(Nb) + 72βσ²L_f²/(Nbμ²) + "
           "[σ²(c_1² + c_2²)/(30bL²) + ζ²(c_1² + c_2²)/(12L²)]κ²η².")


def _thm312(corrected: bool) -> Theorem:
    derived, conds, terms, Lp = _thm312_parts(corrected)
    return Theorem(
        id="fedsgda.thm3.12" + (".corrected" if corrected else ""), paper="fedsgda",
        title="Convergence of FedSGDA-M (NC-PL)" + (" (corrected: L = L_f in η, c_i; "
                                                    "Lemma C.3 conditions)" if corrected else ""),
        source="Theorem 3.12 [L245–L247]; proof in Appendix C.2 [L865–L916]",
        statement=_THM312 + (
            " Step sizes are inputs; the printed settings [L245] are the schedule, and the "
            "conditions are the inequalities the proof uses (Lemmas C.3, C.5 and Appendix C.2 "
            "[L646, L715, L734, L908–L910])."
            + (" Corrected: L = L_f in η and c_i (Φ's smoothness L_f(1 + κ) only in Lemma "
               "C.2), ĉ ≤ c/(8κ²) in Lemma C.3, the general drift constant after eq. (51) "
               "[L908]."
               if corrected else " L = L_f(1 + κ) (Lemma A.1 [L401]).")),
        notation=N_, assumptions=ASSUME_NCPL, derived=derived, conditions=conds,
        bound_lhs=LHS_NCPL, bound=terms, schedule=_params_schedule(Lp),
        schedule_source="Theorem 3.12 [L245] (= Appendix C.2 [L869])",
        costs={"iterations": T, "communications": T / Q, "samples_per_client": b * T},
        errata=[E_WHICH_L, E_DRIFT, E_LEMC3, E_YBAR, E_MSS, E_SYNC],
        corrected_of="fedsgda.thm3.12" if corrected else None,
        horizon=T, accuracy=epsilon, regime=REGIME_NCPL,
        relations=RELATIONS_NCPL, fixed_in_orders=FIXED_NCPL,
        algorithms=["FedSGDA-M (Alg. 2)"],
        notes=["With the Theorem 3.12 parameters [L245] the STORM-noise and drift terms do not "
               "vanish as T grows: the rate needs Corollary 3.13's coupling of Q and B to T_0.",
               "Sample counts exclude the initial batch B and the factor 2 of two gradient "
               "evaluations per step (as Remark 3.14 counts bT)."])


# Corollary 3.13: b = κ^ν, T = κ^(3−ν)T_0, Q = T_0^(1/3)/N^(2/3), η = 1/(20QL),
# B = T_0^(1/3) b κ^(1−ν)/N^(2/3)  (Corollary 3.13 [L249] = Appendix C.2 [L918])
def _cor313_schedule(Lp: sp.Expr) -> dict:
    return {**_params_schedule(Lp), b: kappa**nu, T: kappa ** (3 - nu) * T_0,
            Q: T_0**third / N ** (2 * third), B: T_0**third * b * kappa ** (1 - nu) / N ** (2 * third)}


_M23 = (N * T_0) ** (2 * third)
_C313 = "Corollary 3.13 [L251] (= eq. (53) [L921–L922])"


def _cor313_terms(corrected: bool) -> list[Term]:
    if not corrected:
        return [
            Term("primal descent", 2160 * L * Delta / _M23, _C313),
            Term("u initial error", 40 * sigma**2 / (kappa ** (3 - nu) * _M23), _C313),
            Term("v initial error", 480 * sigma**2 / (kappa**2 * _M23), _C313),
            Term("y-gap", 240 * L_f * Delta_y / _M23, _C313),
            Term("u STORM noise", 9 * sigma**2 / (20 * b * kappa * _M23), _C313),
            Term("v STORM noise", sp.Rational(27, 5) * sigma**2 / _M23, _C313),
            Term("estimator drift: noise", 3 * sigma**2 / (20 * b) / _M23, _C313),
            Term("estimator drift: heterogeneity", sp.Rational(15, 40) * zeta**2 / _M23, _C313),
        ]
    # Theorem 3.12 (R1: L = L_f) with the schedule substituted, for any b (derived here)
    het = sp.Rational(9, 4) * (kappa ** (2 * nu) + kappa ** (4 * nu - 2)) / b**2
    return [
        Term("primal descent", 2160 * L_f * Delta / _M23, "Corollary 3.13 [L251] (R1: L = L_f)"),
        Term("u initial error", 40 * sigma**2 * kappa ** (nu - 3) / _M23, "Corollary 3.13 [L251]"),
        Term("v initial error", 480 * sigma**2 / _M23,
             "Corollary 3.13 [L251], corrected: κ² not dropped"),
        Term("y-gap", 1440 * L_f * Delta_y / _M23,
             "Corollary 3.13 [L251], corrected: 12L_f²Δ_y/(cημ²T) of Theorem 3.12"),
        Term("u STORM noise", 9 * sigma**2 / (20 * b**2 * kappa ** (1 - nu)) / _M23,
             "Corollary 3.13 [L251], corrected: exact for any b (printed form needs b = κ^ν)"),
        Term("v STORM noise", 27 * kappa ** (2 * nu) * sigma**2 / (5 * b**2) / _M23,
             "Corollary 3.13 [L251], corrected: exact for any b"),
        Term("estimator drift: noise", het * sigma**2 / (30 * b) / _M23,
             "Corollary 3.13 [L251], corrected: exact for any b"),
        Term("estimator drift: heterogeneity", het * zeta**2 / 12 / _M23,
             "Corollary 3.13 [L251], corrected: exact for any b (printed 15/40 is an upper "
             "bound at b = κ^ν)"),
    ]


_COR313_CLAIM = {"iterations": kappa ** (3 - nu) / (N * epsilon**3),
                 "communications": kappa ** (3 - nu) / epsilon**2,
                 "samples_per_client": kappa**3 / (N * epsilon**3)}
_COR313_SPECS = [
    Specialization("ν = 1, b = κ (Remark 3.14)", {nu: sp.Integer(1)},
                   {"iterations": kappa**2 / (N * epsilon**3),
                    "communications": kappa**2 / epsilon**2,
                    "samples_per_client": kappa**3 / (N * epsilon**3)}, "Remark 3.14 [L255]",
                   "the headline κ²ε⁻² communication"),
    Specialization("ν = 0, b = 1: Table 1 / abstract headline with 'no large batch'",
                   {nu: sp.Integer(0)},
                   {"communications": kappa**2 / epsilon**2,
                    "samples_per_client": kappa**3 / (N * epsilon**3),
                    "samples_total": kappa**3 / (N * epsilon**3)},
                   "Abstract [L25], Table 1 and its caption [L56, L68], Section 1, "
                   "contribution 3) [L72]",
                   "Table 1 claims κ²ε⁻² without a batch condition and defines sample "
                   "complexity as the total IFO count (its caption [L56])"),
    Specialization("NC-SC (Assumption 3.15), inherited from NC-PL", {},
                   {"communications": kappa**2 / epsilon**2,
                    "samples_per_client": kappa**3 / (N * epsilon**3)}, "Section 3.3 [L263]",
                   "Section 3.3 states κ²ε⁻² communication for NC-SC with no condition on ν or "
                   "b"),
]


def _cor313(corrected: bool) -> Theorem:
    _, conds, _, Lp = _thm312_parts(corrected)
    derived, _, _, _ = _thm312_parts(corrected)
    conds = [*conds, Condition("Q >= 1", sp.Ge(Q, 1, evaluate=False),
                               "Corollary 3.13 [L249] (Q = T_0^(1/3)/N^(2/3) local steps)",
                               "under the schedule: T_0 ≥ N² (derived here)")]
    return Theorem(
        id="fedsgda.cor3.13" + (".corrected" if corrected else ""), paper="fedsgda",
        title="Rate of FedSGDA-M (NC-PL, NC-SC)" + (" (corrected constants, L = L_f)"
                                                    if corrected else ""),
        source="Corollary 3.13, Remark 3.14 [L249–L255]; proof in Appendix C.2, eq. (53) "
               "[L918–L924]",
        statement=("With b = O(κ^ν), c_1, c_2, c, ĉ as in Theorem 3.12, T = κ^(3−ν)T_0, "
                   "Q = T_0^(1/3)/N^(2/3), η = 1/(20QL), B = T_0^(1/3)bκ^(1−ν)/N^(2/3): "
                   "(1/T)Σ E‖∇Φ(x̄_t)‖² ≤ [2160L(Φ(x̄_0) − Φ*) + 40σ²/κ^(3−ν) + 480σ²/κ² + "
                   "240L_f(Φ(x̄_0) − F(x̄_0, ȳ_0)) + 9σ²/(20bκ) + 27σ²/5 + 3σ²/(20b) + "
                   "15ζ²/40]/(NT_0)^(2/3); Remark 3.14: T/Q = κ^(3−ν)ε⁻², bT = O(κ³N⁻¹ε⁻³).")
        + (" Corrected: 480σ² (not 480σ²/κ²), 1440L_fΔ_y (not 240L_fΔ_y), L = L_f, exact "
           "b-terms." if corrected else ""),
        notation=N_, assumptions=ASSUME_NCPL + ["NC-SC: Assumption 3.15 [L259–L263] implies "
                                                "Assumption 3.9"],
        derived=derived, conditions=conds, bound_lhs=LHS_NCPL, bound=_cor313_terms(corrected),
        schedule=_cor313_schedule(Lp),
        schedule_source="Corollary 3.13 [L249] (= Appendix C.2 [L918])",
        costs={"iterations": T, "communications": T / Q, "samples_per_client": b * T,
               "samples_total": N * b * T},
        claimed=dict(_COR313_CLAIM), claimed_source="Remark 3.14 [L255], Appendix C.2 [L924]",
        specializations=list(_COR313_SPECS),
        errata=[E_WHICH_L, E_COR313, E_BATCH, E_DRIFT, E_LEMC3, E_YBAR, E_MSS, E_NCSC, E_SYNC],
        corrected_of="fedsgda.cor3.13" if corrected else None,
        horizon=T_0, accuracy=epsilon, regime=REGIME_NCPL,
        relations=RELATIONS_NCPL, fixed_in_orders=FIXED_NCPL,
        algorithms=["FedSGDA-M (Alg. 2)"],
        notes=["The orders treat L_f, Δ, Δ_y, σ, ζ as constants (L_f = 1, so κ = 1/μ in the "
               "derived column).",
               "Q ≥ 1 needs N ≤ (NT_0)^(1/3) = ε⁻¹ (derived here).",
               "Sample counts exclude the initial batch B and the factor 2 of two gradient "
               "evaluations per step (as Remark 3.14 counts bT)."])


thm36 = _thm36(False)
thm36c = _thm36(True)
cor37 = _cor37(False)
cor37c = _cor37(True)
thm312 = _thm312(False)
thm312c = _thm312(True)
cor313 = _cor313(False)
cor313c = _cor313(True)

THEOREMS = [thm36, thm36c, cor37, cor37c, thm312, thm312c, cor313, cor313c]
for _t in THEOREMS:
    _t.accuracy_target = ACC  # criterion ε² (module docstring)
