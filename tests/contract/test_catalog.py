"""Cross-references between claims, theorems and errata resolve; ids follow DESIGN."""

from __future__ import annotations

import re

from fedbounds import registry
from fedbounds.verify import catalog
from fedbounds.verify.provenance import PROVENANCES

DESIGN_IDS = """sagda.thm1.opt1 sagda.thm1.opt2 sagda.cor1 sagda.thm2 sagda.cor2 sagda.cor3 fednorm.thm1
fednorm.cor1.1 fednorm.cor1.2 fednorm.thm2 fednorm.cor2.1 fednorm.cor2.2 fedsgda.thm3.6
fedsgda.cor3.7 fedsgda.thm3.12 fedsgda.cor3.13 feddro.thm4.1 feddro.thm4.2 feddro.thm5.1
feddro.cor1 feddro.cor2 proxskip.thm3.1 proxskip.cor3.2 proxskip.cor3.5 proxskip.cor3.6
proxskip.cor3.9 proxskip.thm4.2 proxskip.thm4.4""".split()  # CONTRIBUTING.md, "Theorem ids"


def test_every_design_theorem_id_is_encoded() -> None:
    assert set(DESIGN_IDS) <= set(registry.theorems())


def test_corrected_variants_point_to_their_printed_statement() -> None:
    table = registry.theorems()
    for tid, t in table.items():
        if tid.endswith(".corrected"):
            assert t.corrected_of == tid.removesuffix(".corrected") and t.corrected_of in table
            assert t.errata, f"{tid} must list the erratum it corrects"


def test_claims_reference_existing_theorems_and_errata() -> None:
    theorems = registry.theorems()
    errata = {e.id for t in theorems.values() for e in t.errata}
    for c in catalog.claims().values():
        assert re.fullmatch(r"[a-z]+\.p\d+[a-z]?", c.id), c.id  # DESIGN "Claim ids"
        assert c.paper in registry.papers()
        assert all(t in theorems for t in c.theorems), (c.id, c.theorems)
        assert all(e in errata for e in c.errata), (c.id, c.errata)


def test_algorithms_and_problems_are_listed_once() -> None:
    listing = catalog.listing()
    for kind in ("algorithms", "problems", "claims"):
        ids = [x["id"] for x in listing[kind]]
        assert len(ids) == len(set(ids)) and ids, kind


def test_list_shows_each_claims_provenance_and_a_derived_claims_derivation() -> None:
    rows = {r["id"]: r for r in catalog.listing()["claims"]}
    assert rows and all(r["provenance"] in PROVENANCES for r in rows.values())
    for cid, r in rows.items():
        spec = catalog.claims()[cid]
        assert r["provenance"] == spec.provenance
        assert ("derivation" in r) == (spec.provenance in ("derived", "extrapolation")), cid
        assert ("errata" in r) == (spec.provenance == "erratum"), cid
    assert rows["feddro.p9"]["derivation"] and not rows["feddro.p9"]["exact_derivation"]
    assert rows["fedsgda.p14"]["provenance"] == "conjecture"
