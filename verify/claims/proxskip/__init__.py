"""ProxSkip-VIP claims P1–P26: the paper's checkable predictions and ours (P20–P25: exact
worst cases by performance estimation, module ``pep``). Sources cite the
paper's numbering (Theorem 3.1, Corollary 3.6 …) with ``[Lnnn]``, a line of the text named in
``fedbounds.theorems.proxskip.PAPER["text"]``.

Exact second moments (``verify.exact.proxskip``) wherever the algorithm is affine with
deterministic oracles; Monte Carlo through the algorithm units (``verify.algorithms.proxskip``)
elsewhere, with confidence intervals over replicas. Bounds, schedules and lemma right-hand sides
come from the encoded theorems (``fedbounds.theorems.proxskip``), not from retyped formulas.
"""

from ...claim import Predictions
from . import instances, noise, pep, rates

PREDICTIONS = Predictions(
    "proxskip", 19, "the numbered checkable predictions of the paper's theorems, corollaries, "
    "lemmas and experiments: claims p1–p19 test them; higher numbers are additions")

# the specs in the order P1–P26 (discovery keeps the order in which they are bound here)
p1, p2, p3, p4, p5 = rates.p1, rates.p2, rates.p3, noise.p4, noise.p5
p6, p7, p8, p9, p10 = rates.p6, rates.p7, rates.p8, rates.p9, rates.p10
p11, p12, p13, p14, p15 = noise.p11, noise.p12, noise.p13, instances.p14, instances.p15
p16, p17, p18, p19 = instances.p16, instances.p17, rates.p18, instances.p19
p20, p21, p22, p23, p24, p25, p26 = pep.p20, pep.p21, pep.p22, pep.p23, pep.p24, pep.p25, pep.p26

__all__ = [f"p{k}" for k in range(1, 27)]
