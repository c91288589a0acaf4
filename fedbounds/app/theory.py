"""Theory commands: ``list``, ``show``, ``check``, ``max-step``, ``bound``, ``complexity``.

Exit codes: 0 done (``check``: feasible), 1 ``check`` infeasible or ``max-step`` without a
feasible value, 2 bad input (including values that violate a relation every instance satisfies,
such as μ ≤ L_f), 3 internal error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import sympy as sp
import typer
from rich.markup import escape
from rich.table import Table

from fedbounds import engine, registry
from fedbounds.complexity import accuracy_target, derive
from fedbounds.errors import BadInput
from fedbounds.findings import explain, findings
from fedbounds.pretty import fmt_order, pretty
from fedbounds.snapshot import write as write_snapshot
from fedbounds.verify import catalog

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
    load_theorem_files,
    out,
)
from .files import atomic_file, disk_errors

IgnoreRelationsOpt = Annotated[bool, typer.Option(
    "--ignore-relations", help="Evaluate values that violate a relation every instance of the "
    "theorem satisfies (such as μ ≤ L_f, m ≤ M); without it they are refused (exit 2).")]
EXIT_THEORY = "Exit codes: 0 done, 1 {one}, 2 bad input, 3 internal error."


def _relations(t, values: dict, ignore: bool, vary: str | None = None) -> list:
    """The theorem's relations decided at the given values; a violation is bad input (exit 2)
    unless --ignore-relations, then a warning."""
    if not ignore:
        return engine.check_relations(t, values, vary)
    decided = [r for r in engine.relations(t, values) if vary not in r.names]
    for r in decided:
        if not r.holds:
            err.print(f"[yellow]warning[/]: {escape(', '.join(r.names))} violate the relation "
                      f"{escape(r.text)} ({escape(r.relation.reason)}); evaluated anyway "
                      "(--ignore-relations)", highlight=False)
    return decided


# ---------------------------------------------------------------------------------------------
@app.command("list")
@guarded
def list_cmd(theorems: TheoremsOpt = None, json_: JsonOpt = False) -> None:
    """Theorems, claims, algorithms and problems (built in, plugins, and --theorems files)."""
    load_theorem_files(theorems)
    rows = [{"id": t.id, "paper": t.paper, "title": t.title, "source": t.source,
             "corrected_of": t.corrected_of} for t in registry.theorems().values()]
    extra = _extra_listing()
    if json_:
        emit_json({"theorems": rows, **extra})
        return
    table = Table(title="theorems", show_lines=False)
    table.add_column("id", no_wrap=True)
    table.add_column("title")
    table.add_column("source")
    for r in rows:
        table.add_row(*esc(r["id"], r["title"], r["source"]))
    out.print(table)
    for kind, items in extra.items():
        if items:
            t = Table(title=kind)
            t.add_column("id", no_wrap=True)
            if kind == "claims":  # whose prediction it is: paper, derived or conjecture
                t.add_column("provenance", no_wrap=True)
            t.add_column("description")
            for it in items:
                cells = [it["id"], *([it["provenance"]] if kind == "claims" else []),
                         it.get("description", "")]
                t.add_row(*esc(*cells))
            out.print(t)


def _extra_listing() -> dict[str, list[dict]]:
    """Claims, algorithms and problems from the numeric side."""
    return catalog.listing()


@app.command()
@guarded
def show(theorem_id: Annotated[str, typer.Argument(metavar="ID")], theorems: TheoremsOpt = None,
         json_: JsonOpt = False) -> None:
    """Statement, symbols with domains, conditions with source lines, bound, errata."""
    load_theorem_files(theorems)
    t = registry.get(theorem_id)
    syms = [t.notation.spec(n) for n in t.inputs()]
    data = {
        "id": t.id, "paper": t.paper, "title": t.title, "source": t.source,
        "statement": t.statement, "assumptions": t.assumptions,
        "symbols": [{"name": s.name, "description": s.description,
                     "domain": s.domain.describe(), "source": s.source} for s in syms],
        "derived": [{"name": k.name, "expr": sp.sstr(v)} for k, v in t.derived.items()],
        "conditions": [{"name": c.name, "relation": sp.sstr(c.rel), "source": c.source,
                        "note": c.note} for c in t.conditions],
        "bound": {"lhs": t.bound_lhs, "sense": t.bound_sense, "terms": [{"name": b.name, "expr": sp.sstr(b.expr),
                                                  "source": b.source} for b in t.bound]},
        "schedule": {k.name: sp.sstr(v) for k, v in t.schedule.items()},
        "claimed": {k: sp.sstr(v) for k, v in t.claimed.items()},
        "errata": [{"id": e.id, "source": e.source, "printed": e.printed,
                    "corrected": e.corrected, "description": e.description}
                   for e in t.errata],
        "corrected_of": t.corrected_of, "notes": t.notes, "algorithms": t.algorithms,
        "findings": [f.as_json() for f in findings(t)],
    }
    if json_:
        emit_json(data)
        return
    out.print(f"[bold]{escape(t.id)}[/] — {escape(t.title)}  [dim]({escape(t.source)})[/]")
    if t.corrected_of:
        out.print(f"[yellow]corrected variant of {t.corrected_of}[/]")
    out.print(t.statement, markup=False)
    for a in t.assumptions:
        out.print(f"  • {a}", markup=False)
    st = Table(title="symbols")
    for c in ("name", "domain", "meaning", "source"):
        st.add_column(c)
    for s in syms:
        st.add_row(*esc(s.name, s.domain.describe(), s.description, s.source))
    for k, v in t.derived.items():
        st.add_row(*esc(k.name, "derived", f"{k.name} = {sp.sstr(v)}", ""))
    out.print(st)
    ct = Table(title="conditions")
    for c in ("name", "relation", "source"):
        ct.add_column(c)
    for c in t.conditions:
        ct.add_row(*esc(c.name, sp.sstr(c.rel), c.source))
    out.print(ct)
    if t.bound:
        rel = "≥" if t.bound_sense == ">=" else "≤"
        bt = Table(title=escape(f"bound: {t.bound_lhs} {rel} sum of"))
        for c in ("term", "expression", "source"):
            bt.add_column(c)
        for b in t.bound:
            bt.add_row(*esc(b.name, sp.sstr(b.expr), b.source))
        out.print(bt)
    if t.schedule:
        out.print("schedule: " + escape(", ".join(f"{k} = {sp.sstr(v)}"
                                                  for k, v in t.schedule.items()))
                  + f"  [dim]({escape(t.schedule_source)})[/]")
    if t.errata:
        et = Table(title="errata")
        for c in ("id", "line", "printed", "corrected", "why"):
            et.add_column(c)
        for e in t.errata:
            et.add_row(*esc(e.id, e.source, e.printed, e.corrected, e.description))
        out.print(et)
    else:
        out.print("errata: none documented for this statement")
    for n in t.notes:
        out.print(f"note: {n}", markup=False)
    for f in data["findings"]:
        out.print(f"finding (computed from the conditions): {f['text']}", markup=False,
                  highlight=False)


@app.command(epilog=EXIT_THEORY.format(one="infeasible (a condition fails)"))
@guarded
def check(theorem_id: Annotated[str, typer.Argument(metavar="ID")], more: MoreOpt = None,
          set_: SetOpt = None, theorems: TheoremsOpt = None,
          ignore_relations: IgnoreRelationsOpt = False, json_: JsonOpt = False) -> None:
    """Each condition of ID at the given values: lhs, rhs, margin, holds; when infeasible, the
    computed findings that explain why (e.g. a step-size ratio the conditions forbid)."""
    load_theorem_files(theorems)
    t = registry.get(theorem_id)
    values = assignments(set_, more)
    feasible, results = engine.check(t, values)
    relations = _relations(t, values, ignore_relations)
    why = [] if feasible else explain(t, values, [r.name for r in results if not r.holds])
    if json_:
        emit_json({"theorem": t.id, "feasible": feasible,
                   "conditions": [r.as_json() for r in results],
                   "relations": [r.as_json() for r in relations],
                   "explanations": [e.as_json() for e in why]})
    else:
        table = Table(title=f"{t.id}: {'feasible' if feasible else 'INFEASIBLE'}")
        numbers = [[_shown(getattr(r, k), r.exact.get(k)) for k in ("lhs", "rhs", "margin")]
                   for r in results]
        table.add_column("condition")
        for k, c in enumerate(("lhs", "rhs", "margin")):  # numbers are never cut short
            table.add_column(c, min_width=max((len(row[k]) for row in numbers), default=1))
        for c in ("holds", "source"):
            table.add_column(c)
        for r, row in zip(results, numbers, strict=True):
            holds = "[green]yes[/]" if r.holds else (
                "[yellow]undecided[/]" if r.undecided else "[red]no[/]")
            table.add_row(*esc(r.name, *row), holds, escape(r.source))
        out.print(table)
        if any(r.undecided for r in results):
            err.print("[yellow]warning[/]: the sign of an undecided margin could not be "
                      "certified at 3000 digits; the condition is not counted as holding",
                      highlight=False)
        for e in why:
            out.print(f"why: {e.text}", markup=False, highlight=False)
    raise typer.Exit(0 if feasible else 1)


def _shown(x: float | None, exact_form: str | None) -> str:
    """A number for a table: g() format, or the exact scientific form float64 cannot hold."""
    if not exact_form:
        return g(x)
    mantissa, _, exponent = exact_form.partition("e")
    try:
        return f"{float(mantissa):.6g}e{exponent}" if exponent else exact_form
    except ValueError:
        return exact_form


@app.command("max-step", epilog=EXIT_THEORY.format(one="no feasible value of --vary"))
@guarded
def max_step(theorem_id: Annotated[str, typer.Argument(metavar="ID")],
             more: MoreOpt = None,
             vary: Annotated[str, typer.Option("--vary", metavar="NAME",
                                               help="The symbol to maximise.")] = "",
             set_: SetOpt = None, theorems: TheoremsOpt = None,
             ignore_relations: IgnoreRelationsOpt = False, json_: JsonOpt = False) -> None:
    """Largest value of --vary satisfying every condition of ID, the others fixed by --set,
    and the whole feasible set of --vary (every piece, both ends). A symbol the statement only
    asks to exist (ProxSkip's "some M > B/ρ") may be left out: max-step then chooses the value
    that allows the largest --vary and says which."""
    load_theorem_files(theorems)
    t = registry.get(theorem_id)
    if not vary:
        raise BadInput("--vary", "required: the symbol to maximise, e.g. --vary gamma")
    values = assignments(set_, more)
    engine.validate(t, values, [])  # names and domains first
    _relations(t, values, ignore_relations, vary)
    if ignore_relations:
        searched = t
    else:  # relations with the varied symbol bound it (mu <= L_f keeps mu below L_f)
        searched = engine.with_relations(t, vary, values)
    choose = [n for n in t.existential if n not in values and n != vary
              and n in engine.compiled(t).condition_inputs]
    if len(choose) > 1:
        raise BadInput("--set", f"give all but one of {', '.join(choose)} (the statement only "
                       "asks them to exist; max-step chooses one of them at a time)")
    r = (engine.max_step_choosing(searched, vary, values, choose[0], t.existential[choose[0]],
                                  exact_ends=True)
         if choose else engine.max_step(searched, vary, values, exact_ends=True))
    feasible = r.value is not None or r.unbounded or r.unbounded_unproven
    if json_:
        emit_json(r.as_json(t.id))
        raise typer.Exit(0 if feasible else 1)
    _print_max_step(t, vary, r)
    raise typer.Exit(0 if feasible else 1)


def _print_max_step(t, vary: str, r: engine.MaxStepResult) -> None:
    """The max-step answer for people: the largest value, binding conditions, the whole
    feasible set, what was chosen."""
    for name, value in r.chosen.items():
        out.print(f"chose {name} = {value} (not given; see the note)", markup=False,
                  highlight=False)
    if r.value is None:
        if r.unbounded:
            msg = "unbounded above (proven: every large value is feasible)"
        elif r.unbounded_unproven:
            msg = ("no largest value found: every value tried up to 1e1064 is feasible, but "
                   "unboundedness could not be proven")
        else:
            msg = f"no feasible value; failing: {', '.join(r.binding_all) or '—'}"
        out.print(f"{t.id}: {vary}: {msg}", markup=False)
        out.print(f"feasible set of {vary}: {engine.set_text(r.intervals)}", markup=False,
                  highlight=False)
        if r.note:
            out.print(f"note: {r.note}", markup=False)
        return
    shown = r.decimal or repr(r.value)
    exact_note = f" (exact: {r.exact})" if r.exact and r.exact != shown else ""
    out.print(f"{escape(t.id)}: largest {escape(vary)} = [bold]{escape(shown)}[/]"
              f"{escape(exact_note)}"
              f"{'' if r.attained else ' (supremum, not attained: strict condition)'}")
    out.print(f"binding: {', '.join(r.binding_all) or '—'}", markup=False)
    pieces = "" if r.interval else f" ({len(r.intervals)} pieces: not an interval)"
    out.print(f"feasible set of {vary}: {engine.set_text(r.intervals)}{pieces}", markup=False,
              highlight=False)
    if r.note:
        out.print(f"note: {r.note}", markup=False)


@app.command("bound", epilog="Exit codes: 0 done (a warning when a condition fails), 2 bad "
             "input, 3 internal error.")
@guarded
def bound_cmd(theorem_id: Annotated[str, typer.Argument(metavar="ID")], more: MoreOpt = None,
              set_: SetOpt = None, theorems: TheoremsOpt = None,
              ignore_relations: IgnoreRelationsOpt = False, json_: JsonOpt = False) -> None:
    """Value of the bound of ID and its named terms (and whether its conditions hold)."""
    load_theorem_files(theorems)
    t = registry.get(theorem_id)
    values = assignments(set_, more)
    r = engine.bound(t, values)
    _relations(t, values, ignore_relations)
    if json_:
        emit_json(r.as_json(t))
        return
    rel = "≥" if t.bound_sense == ">=" else "≤"
    table = Table(title=escape(f"{t.id}: {t.bound_lhs} {rel} "
                               f"{_shown(r.value, r.exact.get('value'))}"))
    table.add_column("term")
    table.add_column("value")
    table.add_column("source")
    for b in t.bound:
        table.add_row(*esc(b.name, _shown(r.terms[b.name], r.exact.get("terms", {}).get(b.name)),
                           b.source))
    for k, v in r.derived.items():
        table.add_row(*esc(f"({k})", _shown(v, r.exact.get("derived", {}).get(k)), "derived"))
    out.print(table)
    if not r.feasible:
        err.print(f"[yellow]warning[/]: conditions violated: {escape(', '.join(r.violated))} — "
                  "the bound is not guaranteed at these values", highlight=False)


@app.command()
@guarded
def complexity(theorem_id: Annotated[str, typer.Argument(metavar="ID")],
               theorems: TheoremsOpt = None, json_: JsonOpt = False) -> None:
    """Orders derived from the encoded bound and schedule, beside the paper's claims."""
    load_theorem_files(theorems)
    t = registry.get(theorem_id)
    rep = derive(t)
    if json_:
        emit_json(rep.as_json())
        return
    out.print(f"[bold]{escape(t.id)}[/] — {escape(t.title)}")
    if rep.T_eps is not None:
        target = accuracy_target(t)
        out.print(f"T_ε (bound ≤ {pretty(target) if target is not None else 'ε'}, term by term): "
                  f"{pretty(rep.T_eps)}", highlight=False)
    for reg in rep.regimes:
        table = Table(title=escape(f"{reg.name}  [{reg.source}]"))
        table.add_column("cost", no_wrap=True)
        table.add_column("derived", overflow="fold")
        table.add_column("claimed", overflow="fold")
        table.add_column("verdict", no_wrap=True)
        for row in reg.rows:
            colour = {"agree": "green", "disagree": "red"}.get(row.verdict, "yellow")
            table.add_row(*esc(row.cost, fmt_order(row.derived_order), fmt_order(row.claimed)),
                          f"[{colour}]{row.verdict}[/]")
        out.print(table)
        if reg.note:
            out.print(f"  note: {reg.note}", markup=False)
        for row in reg.rows:
            if row.verdict == "disagree":
                out.print(f"  {row.cost}: {row.detail}", markup=False)
    if rep.schedule:
        st = Table(title="schedule vs conditions")
        for c in ("condition", "verdict", "detail", "source"):
            st.add_column(c)
        for s in rep.schedule:
            st.add_row(*esc(s.condition, s.verdict, s.detail, s.source))
        out.print(st)
    for n in rep.notes:
        out.print(f"note: {n}", markup=False)




@app.command()
@guarded
def snapshot(out: Annotated[Path, typer.Option("--out", help="folder of the golden files, one "
                                               "per paper")] = Path("tests/data/snapshots"),
             paper: Annotated[list[str] | None, typer.Option("--paper", help="only these papers")] = None,
             orders: Annotated[bool, typer.Option(
                 "--orders/--no-orders", help="also the derived complexity orders (slow)")] = True,
             theorems: TheoremsOpt = None, json_: JsonOpt = False) -> None:
    """Write every theorem's conditions, bound terms, schedules, costs, claimed and derived orders
    evaluated exactly at reference points: OUT/<paper>.snapshot, the regression golden files
    that fedbounds.testing.check_snapshot compares against."""
    load_theorem_files(theorems)
    known = sorted({t.paper for t in registry.theorems().values()})
    for p in paper or []:
        if p not in known:
            raise BadInput("--paper", f"unknown paper {p!r}; allowed: {', '.join(known)}")
    with disk_errors("--out", out):
        out.mkdir(parents=True, exist_ok=True)
    written = {}
    for key in paper or known:
        chosen = [t for t in registry.theorems().values() if t.paper == key]
        target = out / f"{key}.snapshot"
        with atomic_file(target, "--out") as tmp:
            written[str(target)] = write_snapshot(tmp, chosen, orders=orders)
    if json_:
        emit_json({"files": written})
        return
    for target, n in written.items():
        err.print(f"wrote {target}: {n} values", highlight=False)
