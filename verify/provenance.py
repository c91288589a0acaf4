"""Whose prediction a claim tests, read how, and what its refutation would refute.

A claim's ``provenance`` says which reading of the paper its prediction is:

* ``"paper"`` — the paper's statement as printed (a theorem, lemma, corollary, equation or a
  sentence of its text), cited by number and line: a refutation refutes the paper;
* ``"erratum"`` — the paper's statement under a declared erratum or corrected constant, named
  in the claim's ``errata``: a refutation refutes the paper as corrected;
* ``"derived"`` — a consequence we derive from the paper's statements, written out in
  ``derivation``. ``exact_derivation=True`` when it follows by mathematics alone (an identity,
  a limit, a bound evaluated exactly): a refutation then still refutes the paper. Otherwise (a
  bound read as a rate, a leading term read as the whole, a scaling implied by a term) it
  refutes the derived prediction;
* ``"consistency"`` — a check of the encoding's own algebra (no experiment): a refutation
  refutes the encoding;
* ``"conjecture"`` — a prediction of ours beyond the paper: a refutation refutes us;
* ``"extrapolation"`` — the paper's prediction taken where its theorem's conditions fail
  (``derivation`` says which and why the run goes there): a refutation refutes the
  extrapolation, never the paper.

Independently of the declaration, a verdict whose run failed its theorem's conditions
(:mod:`verify.conditions`) is an extrapolation: it is shown and counted as one.
"""

from __future__ import annotations

from typing import Any, Literal

Provenance = Literal["paper", "erratum", "derived", "consistency", "conjecture",
                     "extrapolation"]
PROVENANCES: tuple[str, ...] = ("paper", "erratum", "derived", "consistency", "conjecture",
                                "extrapolation")
# what a refutation means, by reading (the report and the README count refutations by these)
MEANINGS: dict[str, str] = {
    "paper": "refutes the paper",
    "erratum": "refutes the paper as corrected",
    "derived": "refutes a derived prediction",
    "consistency": "refutes the encoding",
    "conjecture": "refutes a conjecture",
    "extrapolation": "refutes an extrapolation beyond the theorem",
}
REFUTATION_MEANINGS: tuple[str, ...] = tuple(dict.fromkeys(MEANINGS.values()))
_NEEDS_DERIVATION = ("derived", "extrapolation")


def refutes_paper(provenance: str, exact_derivation: bool = False) -> bool:
    """Whether a refutation under this reading refutes the paper (as printed or as corrected by
    a declared erratum): a paper or erratum reading, or an exact derivation from one."""
    return provenance in ("paper", "erratum") or (provenance == "derived" and exact_derivation)


def meaning(provenance: str, exact_derivation: bool = False) -> str:
    """What a ``refuted`` verdict under this reading means, in words."""
    if provenance == "derived" and exact_derivation:
        return MEANINGS["paper"]
    return MEANINGS[provenance]


def check_provenance(claim_id: str, provenance: Any, derivation: str,
                     exact_derivation: bool, errata: tuple[str, ...] = ()) -> None:
    """A claim's provenance is one of :data:`PROVENANCES`; a ``derived`` or ``extrapolation``
    claim writes out its derivation (why the prediction follows, or why the run goes beyond
    the conditions), only a derived claim can call it exact, and an ``erratum`` claim names its
    errata (``ValueError`` otherwise: a mistake in a claim's declaration, found when its module
    is imported)."""
    if provenance not in PROVENANCES:
        raise ValueError(f"{claim_id}: provenance must be one of {', '.join(PROVENANCES)}, "
                         f"got {provenance!r}")
    if provenance in _NEEDS_DERIVATION and not derivation.strip():
        raise ValueError(f"{claim_id}: a {provenance} claim needs its derivation written out "
                         "(derivation=...)")
    if provenance not in _NEEDS_DERIVATION and derivation:
        raise ValueError(f"{claim_id}: only a derived or extrapolation claim has a derivation "
                         f"(provenance is {provenance!r})")
    if exact_derivation and provenance != "derived":
        raise ValueError(f"{claim_id}: only a derived claim can be an exact derivation "
                         f"(provenance is {provenance!r})")
    if provenance == "erratum" and not errata:
        raise ValueError(f"{claim_id}: an erratum claim names the errata it reads the paper "
                         "under (errata=(...))")
