"""ProxSkip-VIP claims (digest ``proxskip_vip.md`` §8, P1–P19; Lnnn = lines of the paper).

Exact second moments (``verify.exact.proxskip``) wherever the algorithm is affine with
deterministic oracles; Monte Carlo through the algorithm units (``verify.algorithms.proxskip``)
elsewhere, with confidence intervals over replicas. Bounds, schedules and lemma right-hand sides
come from the encoded theorems (``fedbounds.theorems.proxskip``), not from retyped formulas.
"""

from .instances import p14, p15, p16, p17, p19
from .noise import p4, p5, p11, p12, p13
from .rates import p1, p2, p3, p6, p7, p8, p9, p10, p18

__all__ = ["p1", "p2", "p4", "p6", "p8", "p9", "p10", "p11", "p12", "p3", "p5", "p7", "p13",
           "p14", "p15", "p16", "p17", "p18", "p19"]  # the digest's order
