"""A claim's run checked against the conditions of the theorem it tests.

A measure function reports, for each run of its experiment, the theorem (or lemma) whose
prediction the run tests and that theorem's inputs at the run (:class:`RunConditions`);
:func:`check_runs` evaluates every condition there with the engine (exactly where float64
cannot decide) and gives the verdict's ``conditions`` record:

    {"status": "hold" | "fail", "runs": [{"theorem", "where", "holds",
                                          "failing": [{"name", "margin", "source"}]}]}

A claim with no theorem run to check (an exact analysis, a check of the encoding) declares why
(``ClaimSpec.no_conditions``): ``{"status": "not applicable", "why": …}``; a claim that neither
reports its runs nor declares why is ``{"status": "not checked"}``. A verdict whose runs fail
their conditions is an extrapolation beyond the theorem (:mod:`verify.provenance`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fedbounds import engine, registry

STATUSES = ("hold", "fail", "not applicable", "not checked")


@dataclass(frozen=True)
class RunConditions:
    """The inputs of ``theorem`` at one run of a claim (``where`` names the run, e.g. "K = 16");
    inputs the conditions do not involve may be left out."""

    theorem: str
    values: Mapping[str, Any]
    where: str = ""


def _exact(value: Any) -> Fraction:
    return value if isinstance(value, Fraction) else Fraction(value)


def check_run(run: RunConditions) -> dict[str, Any]:
    """One run's record: whether every condition of its theorem holds, and the failing ones
    with their margins (negative: by how much the condition fails)."""
    thm = registry.get(run.theorem)
    holds, results = engine.check(thm, {k: _exact(v) for k, v in run.values.items()})
    return {"theorem": run.theorem, "where": run.where, "holds": holds,
            "failing": [{"name": r.name, "margin": r.margin, "source": r.source}
                        for r in results if not r.holds]}


def check_runs(runs: Sequence[RunConditions]) -> dict[str, Any]:
    """The verdict's ``conditions``: ``hold`` when every run's conditions hold, else ``fail``."""
    records = [check_run(run) for run in runs]
    return {"status": "hold" if all(r["holds"] for r in records) else "fail",
            "runs": records}


def record(runs: Sequence[RunConditions], no_conditions: str) -> dict[str, Any]:
    """The ``conditions`` of a verdict: the runs checked, else why there is nothing to check,
    else ``not checked``."""
    if runs:
        return check_runs(runs)
    if no_conditions:
        return {"status": "not applicable", "why": no_conditions}
    return {"status": "not checked"}
