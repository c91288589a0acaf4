"""``fedbounds pep ID --set … [--steps N] [--json]``: the exact worst case of a theorem's own
performance measure over its operator class (PEPit on cvxpy), beside the theorem's value.

Verdict ``valid`` (worst ≤ theorem·(1 + tol)), ``violated`` or ``not solved`` (with the
reason); the tightness ratio worst/theorem, solver, status, primal–dual gap and certificate
residuals are printed. ``--sweep kappa`` gives the worst-case communications to ε against κ.
``--theorems FILE.py`` (or ``FILE.py:ID``) loads a user's theorem with its PEP model
(``PEP_MODELS``). A method without a theorem is keyed by its algorithm name (``fedbounds pep
local-gda --set gamma=… mu=… ell=… K=… zeta=… n=…``, ``--steps`` = rounds R): its worst cases
(contraction at ζ = 0, bias from z*, fixed point) beside closed forms where they are known.
Exit codes: 0 done (whatever the verdict), 2 bad input, 3 internal error.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from fedbounds.errors import BadInput
from fedbounds.parse import parse_number
from fedbounds.verify import pep as pepmod
from fedbounds.verify.pep import localgda, sweeps

from .common import (
    JsonOpt,
    MoreOpt,
    SetOpt,
    TheoremsOpt,
    app,
    assignments,
    emit_json,
    err,
    esc,
    g,
    guarded,
    out,
)

COLOURS = {"valid": "green", "violated": "red", "not solved": "yellow", "matches": "green",
           "differs": "red", "no closed form": "default"}


def _kappas(text: str) -> list[float]:
    values = [float(parse_number(part, "--kappas")) for part in text.split(",") if part.strip()]
    if not values or any(k < 1 for k in values) or len(values) > 12:
        raise BadInput("--kappas", f"1 to 12 comma-separated numbers ≥ 1, got {text!r}")
    return values


def _sweep(theorem_id: str, kappas: str, epsilon: str, json_: bool) -> None:
    eps = float(parse_number(epsilon, "--epsilon"))
    results = [sweeps.kappa_sweep(theorem_id, _kappas(kappas), eps, regime)
               for regime in sweeps.REGIMES]
    if json_:
        emit_json({"theorem": theorem_id, "sweep": "kappa", "epsilon": eps,
                   "regimes": [s.as_json() for s in results]})
        return
    for s in results:
        table = Table(title=escape(f"{theorem_id}: communications to ε = {eps:g}, "
                                   f"{sweeps.REGIMES[s.regime]}, γ and p from the schedule"))
        for c in ("κ", "ℓ", "γ", "p", "ρ worst (PEP)", "ρ theorem", "comms worst",
                  "comms theorem", "verdict"):
            table.add_column(c)
        for r in s.rows:
            colour = COLOURS[r.result.verdict]
            table.add_row(*esc(g(r.kappa), g(r.ell), g(r.gamma), g(r.p), g(r.worst_rate),
                               g(r.theorem_rate), g(r.pep_communications),
                               g(r.theorem_communications)),
                          f"[{colour}]{r.result.verdict}[/]")
        out.print(table)
        slope = s.slope("pep")
        like = "—" if slope is None else ("κ" if abs(slope - 1) < 0.25 else
                                           "√κ" if abs(slope - 0.5) < 0.25 else f"κ^{slope:.2f}")
        out.print(f"log-log slope of the worst-case communications in κ: {g(slope)} "
                  f"(theorem: {g(s.slope('theorem'))}) — scales like {like}", markup=False)


def _method(method: localgda.LocalGdaModel, values: dict, steps: int, json_: bool) -> None:
    """A method without a theorem: its worst cases beside the closed forms where known."""
    result = method.solve(values, steps=steps)
    if json_:
        emit_json({**result.as_json(), "model": method.as_json()})
        return
    table = Table(title=escape(f"{method.id}: {method.title}"), show_header=False)
    table.add_column("what")
    table.add_column("value")
    for name, value in (("method", method.method), ("class", method.class_text),
                        ("constants", ", ".join(f"{k}={g(v)}" for k, v in
                                                result.values.items())),
                        ("rounds R", str(result.steps)), ("source", method.source)):
        table.add_row(*esc(name, value))
    for q in result.quantities:
        table.add_section()
        table.add_row(*esc(q.name, q.description))
        table.add_row(*esc("  worst case (PEP)", g(q.worst)))
        table.add_row(*esc("  closed form", f"{g(q.closed_form)}  {q.closed_form_text}"))
        table.add_row("  comparison", f"[{COLOURS[q.comparison]}]{escape(q.comparison)}[/]"
                      + ("" if q.deviation is None else f" (deviation {g(q.deviation)})"))
        table.add_row(*esc("  SDP value is", f"{q.kind} (worst case over the class)"))
        table.add_row(*esc("  solver", f"{q.solver}, status {q.status}, gap {g(q.gap)}, "
                                       f"residual {g(q.residual)}"))
    out.print(table)
    for q in result.quantities:
        if q.reason:
            err.print(f"[yellow]note[/] ({escape(q.name)}): {escape(q.reason)}",
                      highlight=False)


@app.command("pep")
@guarded
def pep_cmd(theorem_id: Annotated[str, typer.Argument(metavar="ID")], more: MoreOpt = None,
            set_: SetOpt = None,
            steps: Annotated[int, typer.Option("--steps", help="method steps N: the measure "
                                               "is E[V_N] from V_0 ≤ 1 (the SDP grows like "
                                               "2^N); rounds R for local-gda")] = 1,
            sweep: Annotated[str, typer.Option("--sweep", help="'kappa': worst-case "
                                               "communications to ε against κ (schedule of ID)"
                                               )] = "",
            kappas: Annotated[str, typer.Option("--kappas", help="κ grid of --sweep kappa")]
            = "2,4,8,16,32",
            epsilon: Annotated[str, typer.Option("--epsilon", help="accuracy ε of --sweep "
                                                 "kappa")] = "1e-6",
            theorems: TheoremsOpt = None, json_: JsonOpt = False) -> None:
    """Exact worst case of ID's measure by performance estimation, beside the theorem.

    ID is a theorem with a PEP model (--theorems FILE.py also loads the file's PEP_MODELS), or
    a method without a theorem: local-gda (paper's class) or local-gda.lipschitz, whose
    contraction, heterogeneity bias and fixed point are shown beside closed forms."""
    pepmod.load_files(theorems, "--theorems")
    methods = pepmod.method_models()
    if theorem_id in methods:
        if sweep:
            raise BadInput("--sweep", f"{theorem_id} has no theorem and no schedule to sweep")
        _method(methods[theorem_id], assignments(set_, more), steps, json_)
        return
    if sweep:
        if sweep != "kappa":
            raise BadInput("--sweep", f"{sweep!r}; allowed: kappa")
        _sweep(theorem_id, kappas, epsilon, json_)
        return
    pep_model = pepmod.model(theorem_id)
    result = pepmod.solve(pep_model, assignments(set_, more), steps=steps)
    if json_:
        emit_json({**result.as_json(), "model": pep_model.as_json()})
        return
    colour = COLOURS[result.verdict]
    table = Table(title=escape(f"{result.theorem}: worst case over the class, {result.steps} "
                               f"step(s)"), show_header=False)
    table.add_column("what")
    table.add_column("value")
    rows = [("method", pep_model.method), ("class", pep_model.operator_class),
            ("measure", pep_model.measure),
            ("constants", ", ".join(f"{k}={g(v)}" for k, v in
                                    {**result.values, **result.derived}.items())),
            ("worst case (PEP)", g(result.worst)), ("theorem", g(result.theorem_value)),
            ("ratio worst/theorem", g(result.ratio)), ("solver", result.solver),
            ("status", result.status), ("gap", g(result.gap))]
    rows += [(f"residual {k}", g(v)) for k, v in result.residuals.items()]
    rows.append(("SDP value is", f"{result.kind} (worst case over the class)"))
    for name, value in rows:
        table.add_row(*esc(name, value))
    table.add_row("verdict", f"[bold {colour}]{result.verdict}[/]")
    out.print(table)
    if result.reason:
        err.print(f"[yellow]note[/]: {escape(result.reason)}", highlight=False)
