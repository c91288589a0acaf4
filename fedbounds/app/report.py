"""The verification report: theory pages (statements, errata, complexity) and verification pages
(a verdict per claim with statistic, prediction, tolerance and one SVG figure per claim).

Written to ``reports/``: ``index.html``, ``<paper>.md`` and ``<paper>.html`` per paper,
``figures/<claim>.svg`` and ``verdicts.json``. These files hold results only: nothing that
changes from run to run with the same code and seeds (no time, seconds, host or backend), so a
rerun leaves them byte for byte as they were; those live in the result store (:mod:`.store`),
from which verdicts, complexity derivations and figure renderings are reused. Everything is
rendered into a temporary folder beside the output and swapped in whole at the end
(:mod:`.lifecycle`), so a failed, interrupted or killed run leaves the previous report or the
new one, never a mix, and no temporary folder.
An existing ``--out`` is replaced only if it is empty or an earlier report.

Escaping: the HTML templates (``*.html.j2``) are autoescaped, so data is always text (a
``Σ_{t<T}`` in a statement can never become a tag); nothing is marked safe but ``tojson``.
The Markdown template is not HTML-escaped (it must read as Markdown): code spans hold the text
verbatim (filter ``code``: a longer backtick fence if the text has backticks), prose gets a
backslash before what would start emphasis, a code span or raw HTML (filter ``md``), and inside
table cells ``|`` is escaped and line breaks become spaces (``cell=True``).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import os
import platform
import re
import time
from collections.abc import Callable
from functools import cache
from importlib import metadata
from pathlib import Path

import sympy as sp
from jinja2 import Environment, PackageLoader
from markupsafe import Markup, escape

from fedbounds import registry
from fedbounds.errors import BadInput
from fedbounds.exprtree import from_tree
from fedbounds.findings import findings
from fedbounds.pretty import pretty
from fedbounds.verify import catalog
from fedbounds.verify.claim import RunConfig
from fedbounds.verify.provenance import REFUTATION_MEANINGS, meaning
from fedbounds.verify.publication import (
    CONFIG_DIGITS,
    DIGITS,
    FIGURE_DIGITS,
    at_floor,
    declarations,
    publish,
)

from . import mathtext
from .complexity_rows import complexity_of, complexity_rows_problem
from .files import disk_errors, write_atomic
from .lifecycle import replace_folder, sweep_stale, temp_folder
from .store import ResultStore, cached_derivation, figure_key, open_store, source_hash

VERDICT_COLOURS = {"confirmed": "#1a7f37", "refuted": "#cf222e", "inconclusive": "#9a6700",
                   "diverged": "#8250df"}
REPORT_TITLE = "fedbounds verification report"  # the index page's title marks a report folder


def _env() -> Environment:
    env = Environment(loader=PackageLoader("fedbounds.app", "templates"),
                      autoescape=_autoescape, trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = _num
    env.filters["colour"] = lambda v: VERDICT_COLOURS.get(v, "#57606a")
    env.filters["md"] = md_text
    env.filters["code"] = md_code
    env.filters["web"] = web_url
    env.filters["m"] = html_math
    env.filters["mm"] = md_math
    env.filters["typed"] = typed_html
    env.globals["report_title"] = REPORT_TITLE
    return env


def _autoescape(template_name: str | None) -> bool:
    """HTML-escape every template but the Markdown ones (``*.md.j2``)."""
    return not (template_name or "").endswith((".md.j2", ".md"))


_MD_SPECIAL = re.compile(r"[\\`*]|(?<![^\W_])_|<(?=[A-Za-z/!?])|&(?=#?\w+;)|\](?=\()")
_MD_BLOCK_START = re.compile(r"^([ \t]*\d*)([#>+~-]|(?<=\d)[.)])", re.M)  # heading, quote, list …


def md_text(value: object, cell: bool = False, inline: bool = False) -> str:
    """Text for Markdown prose: a backslash before ``\\``, a backtick, ``*``, a ``_`` that
    could open emphasis, a ``<`` that could open raw HTML, an ``&`` that could start an entity
    and a ``](`` that would make a link; unless ``inline`` (the text sits inside a line), also
    before what would start a heading, quote, list or fence at the start of a line. In a table
    cell (``cell``, inline too) also before ``|``, with line breaks as spaces."""
    text = _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), str(value))
    if cell:
        return _cell(text)
    if not inline:
        text = _MD_BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    return text


def md_code(value: object, cell: bool = False) -> str:
    """A Markdown code span holding ``value`` verbatim (in a table cell, ``|`` escaped)."""
    text = str(value)
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    span = f"{fence}{pad}{text}{pad}{fence}"
    return _cell(span) if cell else span


def _cell(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", text).replace("|", "\\|")


def web_url(value: object) -> str:
    """A link target from paper metadata: http(s) only (anything else links nowhere)."""
    url = str(value)
    return url if re.match(r"https?://", url, re.I) else "#"


def html_math(value: object) -> Markup:
    """HTML of a :class:`Math` (its MathML), a :class:`Prose` (escaped text and MathML) or
    anything else (escaped text): only formulas printed by :mod:`.mathtext` are markup."""
    if isinstance(value, (Math, TypedMath)):
        return Markup(value.html)
    if isinstance(value, Prose):
        return Markup("").join(html_math(part) if kind == "math" else escape(part)
                               for kind, part in value.parts)
    return escape(str(value))


def typed_html(value: object) -> Markup:
    """HTML of plain typed text (a source citation): escaped, its LaTeX-style fragments
    (``O(T^{1/4})``, ``‖ū_{t+1}‖²``) as MathML."""
    return html_math(_prose(value, {}))


def md_math(value: object, cell: bool = False, inline: bool = True) -> str:
    """Markdown of a :class:`Math` (``$…$``), a :class:`Prose` (escaped text and ``$…$``) or
    anything else (escaped text, :func:`md_text`)."""
    if isinstance(value, Math):
        return _cell(value.md) if cell else value.md
    if isinstance(value, TypedMath):  # typed text: shown as typed (escaped) in Markdown
        return md_text(value.text, cell, inline)
    if isinstance(value, Prose):
        return "".join(md_math(part, cell, inline) if kind == "math"
                       else md_text(part, cell, inline) for kind, part in value.parts)
    return md_text(value, cell, inline)


def _num(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, (int, float)):
        if isinstance(x, float) and not math.isfinite(x):
            return str(x)
        return f"{x:.4g}"
    return _typed(str(x))


@dataclasses.dataclass(frozen=True)
class Math:
    """A formula printed from its sympy form: MathML (``html``) and ``$…$`` LaTeX (``md``)."""

    html: str
    md: str


@dataclasses.dataclass(frozen=True)
class TypedMath:
    """A LaTeX-style fragment of typed text (``η_{x,l}``, ``T^{-1/4}``): MathML on the HTML
    pages (``html``, from :func:`.mathtext.typed_mathml`), the typed ``text`` (escaped) in
    Markdown."""

    html: str
    text: str


@dataclasses.dataclass(frozen=True)
class Prose:
    """Typed text with the notation's symbols and typed LaTeX-style fragments set as math: a
    list of ("text", …) and ("math", :class:`Math` or :class:`TypedMath`) parts (the templates
    escape the text parts)."""

    parts: tuple[tuple[str, str | Math | TypedMath], ...]


def _math(expr: sp.Basic, names: dict[str, str]) -> Math:
    return Math(str(mathtext.to_mathml(expr, names)), mathtext.to_latex(expr, names))


def _prose(text: object, names: dict[str, str]) -> Prose:
    """Typed text as :class:`Prose`: the notation's code names as its symbols, LaTeX-style
    fragments as MathML (:func:`.mathtext.typed_parts`), code spellings of math in the
    reader's (:func:`_typed`)."""
    parts: list[tuple[str, str | Math | TypedMath]] = []
    for kind, part in mathtext.prose_parts(str(text), names):
        if kind != "text":
            parts.append(("math", _math(sp.Symbol(part), names)))
            continue
        for _kind, piece, markup in mathtext.typed_parts(_typed(part)):
            parts.append(("text", piece) if markup is None
                         else ("math", TypedMath(str(markup), piece)))
    return Prose(tuple(parts))


_TYPED_MATH = {"sqrt(": "√(", "**": "^", "<=": "≤", ">=": "≥", "Max(": "max(", "Min(": "min("}


def _typed(text: str) -> str:
    """Typed text (a condition's name, a claim's prediction) with code spellings of math in
    the reader's: ``sqrt(`` → ``√(``, ``**`` → ``^``, ``<=`` → ``≤`` …"""
    for code, shown in _TYPED_MATH.items():
        text = text.replace(code, shown)
    return text


def _text_then_math(*parts: str | sp.Basic, names: dict[str, str]) -> Prose:
    """A sentence of typed text and formulas (sympy objects become :class:`Math`)."""
    out: list[tuple[str, str | Math]] = []
    for part in parts:
        if isinstance(part, str):
            out += _prose(part, names).parts
        else:
            out.append(("math", _math(part, names)))
    return Prose(tuple(out))


def paper_names(paper: str) -> dict[str, str]:
    """{code name: LaTeX name} over the notations of all of a paper's theorems."""
    names: dict[str, str] = {}
    for t in registry.papers()[paper]["theorems"]:
        for name, tex in mathtext.symbol_names(t.notation).items():
            names.setdefault(name, tex)
    return names


def theory(paper: str, store: Path | None = None, fresh: bool = False) -> dict:
    """Statements, errata (with the claims that check them) and complexity rows of a paper;
    the complexity derivations come from the result store at ``store`` when it holds them
    (unless ``fresh``). Every formula is printed from its sympy form in the paper's notation
    (:class:`Math`), typed text has its symbols' code names set as math (:class:`Prose`)."""
    meta = registry.papers()[paper]
    thms = meta["theorems"]
    errata: dict[str, dict] = {}
    for t in thms:
        for e in t.errata:
            names = mathtext.symbol_names(t.notation)
            row = errata.setdefault(e.id, {"e": dataclasses.asdict(e), "theorems": [],
                                           "claims": [], "printed": _prose(e.printed, names),
                                           "corrected": _prose(e.corrected, names),
                                           "description": _prose(e.description, names)})
            row["theorems"].append(t.id)
    complexity_rows = []
    for t in thms:
        if t.claimed or t.specializations:
            rows = cached_derivation(t.id, store, lambda t=t: complexity_of(t), fresh,
                                     check=lambda rows, t=t: complexity_rows_problem(rows, t.id))
            complexity_rows += [_complexity_row(r, mathtext.symbol_names(t.notation))
                                for r in rows]
    statements = []
    for t in thms:
        names = mathtext.symbol_names(t.notation)
        statements.append({
            "id": t.id, "title": _prose(t.title, names), "source": t.source,
            "statement": _prose(t.statement, names),
            "conditions": [(_prose(c.name, names), _math(c.rel, names), c.source)
                           for c in t.conditions],
            "bound": [(_prose(b.name, names), _math(b.expr, names), b.source) for b in t.bound],
            "lhs": _prose(t.bound_lhs, names), "sense": "≥" if t.bound_sense == ">=" else "≤",
            "findings": [finding_prose(t, f, names) for f in findings(t)]})
    meta = {k: v for k, v in meta.items() if k != "theorems"}  # plain data: picklable
    return {"meta": meta, "statements": statements, "errata": errata,
            "complexity": complexity_rows}


DEFAULT_THEORY_SECONDS = 2.0  # a paper that declares no "theory_seconds"


def theory_cost(paper: str, measured: dict[str, float]) -> float:
    """A paper's theory seconds for the schedule: its derivations' seconds in the store
    (``measured``, by theorem), else the ``THEORY_SECONDS`` its theorems module declares."""
    meta = registry.papers()[paper]
    stored = [measured[t.id] for t in meta["theorems"] if t.id in measured]
    return sum(stored) if stored else float(meta.get("theory_seconds") or DEFAULT_THEORY_SECONDS)


def theory_jobs(keys: list[str], store: Path | None = None, fresh: bool = False) -> list:
    """:func:`theory` of each paper in ``keys`` as a :class:`.runner.Job` (key: the paper),
    to run in worker processes beside the claims."""
    from .runner import Job

    measured: dict[str, float] = {}
    if store is not None and store.is_file():
        with ResultStore(store) as db:
            measured = db.derivation_seconds()
    return [Job(paper, theory_job, (paper, store, fresh), theory_cost(paper, measured))
            for paper in keys]


def theory_job(paper: str, store: Path | None = None, fresh: bool = False) -> dict:
    """:func:`theory`, looked up by name where the job runs (a worker forked from this process
    runs this module's ``theory`` as it was at the fork)."""
    return theory(paper, store, fresh)


def finding_prose(theorem, finding, names: dict[str, str]) -> Prose:
    """A computed finding with its formulas printed from sympy: the forced range of a ratio
    (``η_y/η_x > 20κ²`` …) and the inputs that empty the condition set; any other finding's
    text with its symbols set as math."""
    kind, value = getattr(finding, "kind", ""), getattr(finding, "value", None)
    try:
        if kind == "ratio" and isinstance(value, sp.Basic):
            num, den = (sp.Symbol(n, positive=True)
                        for n in finding.id.rsplit(":", 1)[1].split("/"))
            op = (finding.detail or finding.text.split()[1]).split()[0]
            relation = _RELATIONS[op](sp.Mul(num, sp.Pow(den, -1), evaluate=False), value,
                                      evaluate=False)
            parts: list[str | sp.Basic] = [relation]
            expanded = theorem.expand(value)
            if expanded != value:
                parts += [" (= ", expanded, ")"]
            rest = finding.text.split(" is forced by ", 1)
            parts.append(" is forced by " + rest[1] if len(rest) == 2 else "")
            return _text_then_math(*parts, names=names)
        match = re.fullmatch(r"the conditions are empty, whatever .*, when .* "
                             r"(\(condition .*\))", finding.text)
        if kind == "empty" and match and isinstance(value, sp.Basic):
            parts = ["the conditions are empty, whatever "]
            for i, name in enumerate(getattr(finding, "free", ())):
                parts += [", "] * bool(i) + [sp.Symbol(name, positive=True)]
            parts += [", when ", value, " " + match.group(1)]
            return _text_then_math(*parts, names=names)
    except (KeyError, ValueError, TypeError, IndexError):
        pass
    return _prose(finding.text, names)


_RELATIONS = {">": sp.Gt, ">=": sp.Ge, "<": sp.Lt, "<=": sp.Le}
SCHEDULE_WORDS = {"never": "fails at every grid point",
                  "partial": "holds on part of the grid only",
                  "threshold": "holds only for T above a threshold"}


def _complexity_row(row: dict, names: dict[str, str]) -> dict:
    """A stored complexity row for the page: orders as :class:`Math` ``O(…)``, a schedule
    check's outcome in words (the claimed side: the schedule is meant to satisfy the
    condition), code names in the texts as math."""
    out = dict(row)
    order = sp.Function("O")
    if row.get("schedule"):
        out["derived_m"] = SCHEDULE_WORDS.get(row["verdict"], row["verdict"])
        out["claimed_m"] = "satisfied for every T"
    else:
        for side in ("derived", "claimed"):
            tree = row.get(f"{side}_tree")
            out[f"{side}_m"] = _math(order(from_tree(tree)), names) if tree else "—"
    for key in ("regime", "cost", "note", "detail"):
        out[key] = _prose(row.get(key) or "", names)
    return out


@cache
def _renderer() -> str:
    """What a figure's SVG depends on besides its data: the figure module's code and
    matplotlib."""
    import matplotlib

    from . import figures

    return f"{inspect.getsource(figures)}\0matplotlib {matplotlib.__version__}"


def _stored_figure_svg(fig, path: Path, db: ResultStore | None, fresh: bool,
                       svg: bytes | None = None) -> None:
    """``svg`` (drawn by the worker that computed the claim), or the stored rendering of the
    same data by the same renderer, or :func:`_figure_svg`; a new rendering is stored."""
    if svg is not None:
        path.write_bytes(svg)
        if db is not None:
            db.put_figure_svg(figure_key(fig, _renderer()), svg)
        return
    if db is None:
        _figure_svg(fig, path)
        return
    key = figure_key(fig, _renderer())
    svg = None if fresh else db.figure_svg(key)
    if svg is None:
        _figure_svg(fig, path)
        db.put_figure_svg(key, path.read_bytes())
    else:
        path.write_bytes(svg)


def _figure_svg(fig, path: Path) -> None:
    """One claim's figure as SVG, in the report's figure style (:mod:`.figures`)."""
    from .figures import render_svg

    render_svg(fig, path)


def write_report(out: Path, profile: str = "quick", backend: str = "serial", seed: int = 0,
                 papers: list[str] | None = None,
                 progress: Callable[[str], None] | None = None, *, instance_seed: int = 0,
                 store: Path | None = None, fresh: bool = False,
                 scheduler: str | None = None, readme: Path | bool | None = None,
                 workers: int | None = None) -> dict:
    """Run every claim, render the report and swap it into ``out`` whole; return a summary
    (each claim's JSON verdict, with ``cached`` when it came from the store).

    ``readme``: the README whose results block (between :data:`RESULTS_BEGIN` and
    :data:`RESULTS_END`) is rewritten from the verdicts just written; ``None`` (default) means
    the checkout's README.md when ``out`` is the ``reports`` folder of a repository checkout
    whose README has the markers (:func:`default_readme`), ``False`` never. A given README
    without the markers is ``BadInput("--readme", …)`` before anything runs. The summary names
    the README rewritten (``readme``, or None) and whether it changed (``readme_changed``).

    ``out`` must be missing, empty, or an earlier report (``BadInput("--out", …)`` otherwise,
    before anything runs or is written). With a result store (``store``), stored verdicts and
    derivations are reused and new ones stored; ``fresh`` recomputes (and replaces) them."""

    from .runner import Plan, TimingLog, check_backend, run_with_jobs

    check_backend(backend, scheduler)
    out = report_folder(out)
    target = readme_target(out, readme)  # checked before anything runs
    sweep_stale(out.parent, out.name)
    keys = papers or list(registry.papers())
    all_claims = catalog.claims()
    ids = [c.id for c in all_claims.values() if c.paper in keys]
    plan = Plan([(cid, seed) for cid in ids], profile, instance_seed, backend, store, fresh,
                scheduler, figures=True, workers=workers)
    registry.papers()  # loaded once, here: the forked theory workers inherit it
    if store is not None:
        source_hash()  # hashed once, here: the forked theory workers key derivations by it too
    # the theory pages' slow parts (findings, symbolic derivations) run in worker processes
    # beside the claims: with the process backend in the claims' pool, longest first
    log = TimingLog()
    started = time.time()
    results, theories = run_with_jobs(plan, progress, theory_jobs(keys, store, fresh), log)
    log.phase("claims and theory", started)
    catalog.with_provenance([r.verdict for r in results])  # stored verdicts lack it
    with disk_errors("--out", out):
        out.parent.mkdir(parents=True, exist_ok=True)
    verdicts = {r.verdict.id: r.verdict for r in results}
    drawn = {r.verdict.id: r.svg for r in results if r.svg is not None}
    with disk_errors("--out", out), temp_folder(out.parent) as tmp:
        db = open_store(store)
        started = time.time()
        try:
            render_pages(tmp, keys, theories, verdicts, all_claims, profile=profile,
                         seed=seed, instance_seed=instance_seed, store=db, fresh=fresh,
                         drawn=drawn)
        finally:
            if db is not None:
                db.close()
        log.phase("pages", started)
        report_folder(out)  # still ours to replace (nothing turned up there meanwhile)
        replace_folder(tmp, out)
    changed = False
    if target is not None:
        changed = update_readme(target, json.loads((out / "verdicts.json").read_text("utf-8")))
    return {"claims": [{**r.verdict.as_json(), "cached": r.cached} for r in results],
            "readme": None if target is None else str(target), "readme_changed": changed}


def render_pages(folder: Path, keys: list[str], theories: dict, verdicts: dict,
                 all_claims: dict, profile: str, seed: int, instance_seed: int = 0,
                 store: ResultStore | None = None, fresh: bool = False,
                 drawn: dict[str, bytes] | None = None) -> dict:
    """Write every page, figure and ``verdicts.json`` of the report into ``folder``: results
    only (no seconds, times, host or backend), so equal results give equal bytes. Figures
    ``drawn`` by the workers (claim id → SVG) are written as they are, figures already
    rendered into ``store`` are copied from it (unless ``fresh``), the others drawn here."""
    (folder / "figures").mkdir()
    floors = {cid: at_floor(v.statistic, all_claims[cid].published, "statistic")
              for cid, v in verdicts.items() if cid in all_claims}
    verdicts = {cid: publish(v, all_claims[cid].published) if cid in all_claims else v
                for cid, v in verdicts.items()}  # the digits each computation determines
    env = _env()
    pages = []
    for key in keys:
        th = theories[key]
        claims = sorted((c for c in all_claims.values() if c.paper == key),
                        key=lambda c: _natural(c.id))
        rows = []
        names = paper_names(key) if key in registry.papers() else {}
        for c in claims:
            v = verdicts[c.id]
            v.provenance = v.provenance or c.provenance
            fig_name = None
            if v.figure is not None:
                fig_name = f"figures/{c.id}.svg"
                _stored_figure_svg(v.figure, folder / fig_name, store, fresh,
                                   (drawn or {}).get(c.id))
            for eid in c.errata:
                if eid in th["errata"]:
                    th["errata"][eid]["claims"].append(c.id)
            rows.append({"claim": c, "v": v, "figure": fig_name,
                         "evidence": json.dumps(v.as_json()["evidence"], indent=1)[:4000],
                         "rerun": _rerun(v), "verify": verify_command(c.id, profile, seed,
                                                                      instance_seed),
                         "text": {field: _prose(getattr(c, field), names) for field in
                                  ("title", "prediction", "source", "derivation")},
                         "rule": _prose(v.rule, names),
                         "published": [p.words for p in c.published],
                         "conditions": conditions_text(v.conditions),
                         "meaning": meaning(v.provenance or c.provenance,
                                            c.exact_derivation and v.provenance == c.provenance),
                         "statistic": (v.statistic if floors.get(c.id) is None
                                       else f"≤ {floors[c.id]:g}")})
        counts = {k: sum(r["v"].verdict == k for r in rows) for k in VERDICT_COLOURS}
        page = {"key": key, "theory": th, "rows": rows, "counts": counts,
                "pep_rows": [r for r in rows if r["claim"].module.endswith(".pep")],
                "sweeps": sweep_tables(rows, names),
                "refutations": refutations(rows),
                "predictions": prediction_counts(key, rows),
                "summary": paper_summary(rows), "environment": environment(),
                "profile": profile, "seed": seed, "instance_seed": instance_seed}
        for ext in ("md", "html"):
            _write_page(folder / f"{key}.{ext}",
                        env.get_template(f"paper.{ext}.j2").render(**page))
        pages.append(page)
    _write_page(folder / "index.html", env.get_template("index.html.j2").render(
        pages=pages, profile=profile, environment=environment(), seed=seed, instance_seed=instance_seed,
        version=_version(), meanings=REFUTATION_MEANINGS,
        digits={"default": DIGITS, "figure": FIGURE_DIGITS, "config": CONFIG_DIGITS},
        refutations={m: sum(p["refutations"][m] for p in pages) for m in REFUTATION_MEANINGS},
        predictions={k: sum((p["predictions"] or {}).get(k, 0) for p in pages)
                     for k in ("count", "with_verdict", "inconclusive")}))
    ids = [c.id for c in all_claims.values() if c.paper in keys]
    meanings = {r["claim"].id: r["meaning"] for p in pages for r in p["rows"]}
    summary = {"claims": [{**tracked_json(verdicts[i]),
                           **({"refutes": meanings[i]} if verdicts[i].verdict == "refuted"
                              else {}),
                           **({"published": declarations(all_claims[i].published)}
                              if all_claims[i].published else {})} for i in ids]}
    _write_page(folder / "verdicts.json", json.dumps(summary, indent=1, allow_nan=False) + "\n")
    return summary


def verify_command(claim_id: str, profile: str, seed: int, instance_seed: int) -> str:
    """The command that recomputes one claim's verdict exactly as the report did."""
    return (f"fedbounds verify {claim_id} --profile {profile} --seed {seed} "
            f"--instance-seed {instance_seed} --fresh")


def paper_summary(rows: list[dict]) -> dict:
    """What a paper page says first, built from the verdicts: counts per verdict, and each
    refuted, diverged and inconclusive claim with its title and what its refutation means."""
    counts = {k: sum(r["v"].verdict == k for r in rows) for k in VERDICT_COLOURS}
    by_kind = {k: [r for r in rows if r["v"].verdict == k]
               for k in ("refuted", "diverged", "inconclusive")}
    return {"total": len(rows), "counts": counts, **by_kind}


ENVIRONMENT_PACKAGES = ("numpy", "scipy", "sympy", "cvxpy", "matplotlib", "fedbounds")


@cache
def environment() -> list[tuple[str, str]]:
    """(name, version) of Python and the packages that determine the results (versions only:
    no host, time or path, so equal versions give equal pages)."""
    out = [("python", platform.python_version())]
    for name in ENVIRONMENT_PACKAGES:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, "not installed"))
    return out


def prediction_counts(paper: str, rows: list[dict]) -> dict[str, int] | None:
    """How many of the paper's catalogued checkable predictions have a verdict in ``rows``
    (every claim testing it was run), and how many of those are only ``inconclusive``; None
    for a paper without a catalogue (``PREDICTIONS`` in its claims module)."""
    catalogue = catalog.predictions().get(paper)
    if catalogue is None:
        return None
    by_number: dict[int, list[str]] = {}
    for r in rows:
        n = catalogue.number(r["claim"].id)
        if n is not None:
            by_number.setdefault(n, []).append(r["v"].verdict)
    return {"count": catalogue.count, "with_verdict": len(by_number),
            "inconclusive": sum(all(v == "inconclusive" for v in vs)
                                for vs in by_number.values())}


def sweep_tables(rows: list[dict], names: dict[str, str] | None = None) -> list[dict]:
    """A paper's bound-validity sweeps (claims whose evidence has a ``sweep_table``): per
    theorem, whether the verdict is decided on it, the worst ratio observed/bound with its
    interval, the constants where it occurs and the grid points run (conditions holding)."""
    out = []
    for r in rows:
        table = (r["v"].evidence or {}).get("sweep_table")
        if not table:
            continue
        out.append({"claim": r["claim"], "v": r["v"], "rows": [
            {"theorem": t["theorem"], "decides": t.get("decides", True),
             "worst": t.get("worst_ratio"), "interval": t.get("worst_ratio_interval"),
             "where": _prose(", ".join(f"{pretty(sp.Symbol(k))}={_num(v)}"
                                       for k, v in (t.get("constants") or {}).items()) or "—",
                             names or {}), "points": f"{t.get('conditions_hold_at', '?')}/{t.get('points', '?')}"}
            for t in table]})
    return out


def refutations(rows: list[dict]) -> dict[str, int]:
    """Refuted claims counted by what their refutation means (:data:`REFUTATION_MEANINGS`,
    by the verdict's reading: an extrapolation when its run failed the theorem's conditions)."""
    out = dict.fromkeys(REFUTATION_MEANINGS, 0)
    for r in rows:
        if r["v"].verdict == "refuted":
            out[r["meaning"]] += 1
    return out


def conditions_text(conditions: dict) -> str:
    """A verdict's conditions record (:mod:`fedbounds.verify.conditions`) in words."""
    status = conditions.get("status", "not checked")
    if status == "not applicable":
        return f"not applicable: {conditions.get('why', '')}"
    runs = conditions.get("runs", [])
    theorems = ", ".join(dict.fromkeys(r["theorem"] for r in runs))
    if status == "hold":
        return f"hold at every run ({len(runs)} of {theorems})"
    if status != "fail":
        return "not checked"
    failed = [r for r in runs if not r["holds"]]
    first = failed[0]
    where = f" at {first['where']}" if first["where"] else ""
    which = "; ".join(f"{c['name']} (margin {_num(c['margin'])})" for c in first["failing"])
    return (f"fail at {len(failed)} of {len(runs)} runs of {theorems} (e.g. {first['theorem']}"
            f"{where}: {which}): read as an extrapolation beyond the theorem")


def tracked_json(verdict) -> dict:
    """A verdict as ``verdicts.json`` holds it: its JSON without the run's seconds."""
    return {k: v for k, v in verdict.as_json().items() if k != "seconds"}


def _write_page(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _version() -> str:
    """The installed fedbounds version: the index names it instead of a wall-clock time."""
    try:
        return metadata.version("fedbounds")
    except metadata.PackageNotFoundError:
        return "(not installed)"


def report_folder(out: Path) -> Path:
    """``out`` as an absolute path (a symlink followed), if it may receive a report: missing,
    an empty folder, or a fedbounds report; :class:`BadInput` otherwise."""
    out = Path(out).expanduser()
    out = out.resolve() if out.is_symlink() else Path(os.path.abspath(out))
    if out.exists() and not out.is_dir():
        raise BadInput("--out", f"{out} is a file, not a folder")
    where = next(p for p in out.parents if p.exists())  # the folder that gets a new entry
    if not where.is_dir():
        raise BadInput("--out", f"{where} is a file, not a folder")
    if not os.access(where, os.W_OK | os.X_OK):
        raise BadInput("--out", f"cannot write in {where}")
    if not out.is_dir():
        return out
    entries = sorted(out.iterdir())
    if not entries:
        return out
    marker = (out / "verdicts.json").is_file() or (
        (out / "index.html").is_file()
        and REPORT_TITLE in (out / "index.html").read_text(encoding="utf-8", errors="replace"))
    if not marker:
        raise BadInput("--out", f"{out} is a non-empty folder that is not a fedbounds report "
                                "(no verdicts.json or report index.html); refusing to replace it")
    for entry in entries:
        if not _report_entry(entry):
            raise BadInput("--out", f"{out} holds {entry.name!r}, which a report does not write; "
                                    "refusing to replace it (move it away or choose another --out)")
    return out


def _report_entry(entry: Path) -> bool:
    """Whether a report could have written ``entry`` (pages, verdicts.json, figures/*.svg)."""
    if entry.is_symlink():
        return False
    if entry.name == "figures" and entry.is_dir():
        return all(f.is_file() and not f.is_symlink() and f.suffix == ".svg"
                   for f in entry.iterdir())
    return entry.is_file() and (entry.name == "verdicts.json" or entry.suffix in (".md", ".html"))


def _natural(claim_id: str) -> tuple:
    """p2 < p5 < p10 < p10a: numbers compared as numbers."""
    return tuple(int(part) if part.isdigit() else part
                 for part in re.split(r"(\d+)", claim_id))


def _rerun(v) -> str | None:
    """The `fedbounds run` command of a verdict's run config (a :class:`RunConfig`)."""
    if not v.config:
        return None
    return RunConfig(**v.config).command()


# ---- the README's results block ------------------------------------------------------------------

RESULTS_BEGIN = "<!-- results:begin -->"
RESULTS_END = "<!-- results:end -->"
_RESULTS = re.compile(re.escape(RESULTS_BEGIN) + r"\n.*?" + re.escape(RESULTS_END), re.S)


def default_readme(out: Path) -> Path | None:
    """The README.md whose results block a report into ``out`` rewrites: only for the
    ``reports`` folder of a checkout (a ``pyproject.toml`` beside it) whose README has both
    markers; None otherwise (a report into any other folder leaves every README alone)."""
    out = Path(os.path.abspath(out))
    readme = out.parent / "README.md"
    if out.name != "reports" or not (out.parent / "pyproject.toml").is_file():
        return None
    if not readme.is_file():
        return None
    return readme if _RESULTS.search(readme.read_text(encoding="utf-8")) else None


def readme_target(out: Path, readme: Path | str | bool | None) -> Path | None:
    """The README a report into ``out`` rewrites: ``readme`` itself (it must be a file with the
    results markers, else :class:`BadInput`), the checkout's (:func:`default_readme`) for None
    or True, none for False."""
    if readme is None or readme is True:
        return default_readme(out)
    if readme is False:
        return None
    path = Path(readme).expanduser()
    if not path.is_file():
        raise BadInput("--readme", f"{path} is not a file")
    if not _RESULTS.search(path.read_text(encoding="utf-8", errors="replace")):
        raise BadInput("--readme", f"{path} has no {RESULTS_BEGIN} … {RESULTS_END} block "
                                   "(add the two markers where the results should go)")
    return path


def results_block(verdicts: dict) -> str:
    """The README's results block (markers included) from a report's ``verdicts.json`` data:
    verdict counts per paper and in all, and every claim not confirmed with its statistic,
    prediction and provenance, linked to its section of the report."""
    claims = verdicts["claims"]
    kinds = tuple(VERDICT_COLOURS)
    papers: dict[str, dict[str, int]] = {}
    for c in claims:
        counts = papers.setdefault(c["id"].split(".")[0], dict.fromkeys(kinds, 0))
        counts[c["verdict"]] += 1
    lines = [RESULTS_BEGIN,
             "<!-- written by `fedbounds report` from reports/verdicts.json: do not edit -->",
             "", "| paper | claims | " + " | ".join(kinds) + " |",
             "|---|" + "---:|" * (len(kinds) + 1)]
    for paper, counts in papers.items():
        lines.append(f"| [{paper}](reports/{paper}.html) | {sum(counts.values())} | "
                     + " | ".join(str(counts[k]) for k in kinds) + " |")
    lines.append(f"| all | {len(claims)} | "
                 + " | ".join(str(sum(c[k] for c in papers.values())) for k in kinds) + " |")
    refuted = [c["refutes"] for c in claims if c["verdict"] == "refuted" and "refutes" in c]
    if refuted:
        lines += ["", "Refutations by what they refute: " + "; ".join(
            f"{m} {refuted.count(m)}" for m in REFUTATION_MEANINGS if m in refuted) + "."]
    others = [c for c in claims if c["verdict"] != "confirmed"]
    if others:
        lines += ["", "Not confirmed:", ""]
    for c in others:
        paper = c["id"].split(".")[0]
        predicted = str(_num(c.get("predicted"))).replace("<=", "≤").replace(">=", "≥")
        whose = f" ({c['provenance']} claim)" if c.get("provenance") else ""
        whose += f", {c['refutes']}" if c.get("refutes") else ""
        lines.append(f"- [`{c['id']}`](reports/{paper}.html#{c['id']}) **{c['verdict']}**"
                     f"{whose}: statistic {_num(c.get('statistic'))}, predicted {predicted}")
    lines.append(RESULTS_END)
    return "\n".join(lines)


def update_readme(readme: Path, verdicts: dict) -> bool:
    """Rewrite the results block of ``readme`` from ``verdicts`` (verdicts.json data); whether
    the file changed. Everything outside the markers is kept byte for byte."""
    text = readme.read_text(encoding="utf-8")
    if not _RESULTS.search(text):
        raise BadInput("--readme", f"{readme} has no {RESULTS_BEGIN} … {RESULTS_END} block")
    new = _RESULTS.sub(lambda _m: results_block(verdicts), text, count=1)
    if new == text:
        return False
    write_atomic(readme, new, "--readme")
    return True
