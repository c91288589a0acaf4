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
import re
from collections.abc import Callable
from functools import cache
from importlib import metadata
from pathlib import Path

import sympy as sp
from jinja2 import Environment, PackageLoader

from fedbounds import registry
from fedbounds.complexity import derive
from fedbounds.errors import BadInput
from fedbounds.findings import findings
from fedbounds.pretty import fmt_order
from fedbounds.verify import catalog
from fedbounds.verify.claim import RunConfig

from .lifecycle import replace_folder, sweep_stale, temp_folder, worker_pool
from .store import ResultStore, cached_derivation, figure_key, open_store, source_hash

VERDICT_COLOURS = {"confirmed": "#1a7f37", "refuted": "#cf222e", "inconclusive": "#9a6700",
                   "diverged": "#8250df"}
# what a refutation means, by the claim's provenance (ClaimSpec.refutation_meaning)
REFUTATION_MEANINGS = ("refutes the paper", "refutes a derived prediction",
                       "refutes a conjecture")
REPORT_TITLE = "fedbounds verification report"  # the index page's title marks a report folder


def _env() -> Environment:
    env = Environment(loader=PackageLoader("fedbounds.app", "templates"),
                      autoescape=_autoescape, trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = _num
    env.filters["colour"] = lambda v: VERDICT_COLOURS.get(v, "#57606a")
    env.filters["md"] = md_text
    env.filters["code"] = md_code
    env.filters["web"] = web_url
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


def _num(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, (int, float)):
        if isinstance(x, float) and not math.isfinite(x):
            return str(x)
        return f"{x:.4g}"
    return str(x)


def theory(paper: str, store: Path | None = None, fresh: bool = False) -> dict:
    """Statements, errata (with the claims that check them) and complexity rows of a paper;
    the complexity derivations come from the result store at ``store`` when it holds them
    (unless ``fresh``)."""
    meta = registry.papers()[paper]
    thms = meta["theorems"]
    errata: dict[str, dict] = {}
    for t in thms:
        for e in t.errata:
            row = errata.setdefault(e.id, {"e": dataclasses.asdict(e), "theorems": [],
                                           "claims": []})
            row["theorems"].append(t.id)
    complexity_rows = []
    for t in thms:
        if t.claimed or t.specializations:
            complexity_rows += cached_derivation(t.id, store, lambda t=t: complexity_of(t),
                                                 fresh)
    statements = [{"id": t.id, "title": t.title, "source": t.source, "statement": t.statement,
                   "conditions": [(c.name, sp.sstr(c.rel), c.source) for c in t.conditions],
                   "bound": [(b.name, sp.sstr(b.expr), b.source) for b in t.bound],
                   "lhs": t.bound_lhs, "sense": "≥" if t.bound_sense == ">=" else "≤",
                   "findings": [f.text for f in findings(t)]}
                  for t in thms]
    meta = {k: v for k, v in meta.items() if k != "theorems"}  # plain data: picklable
    return {"meta": meta, "statements": statements, "errata": errata,
            "complexity": complexity_rows}


def complexity_of(theorem) -> list[dict]:
    """The report's complexity rows of one theorem (:func:`derive`: derived vs claimed order
    per regime and cost, and the schedule checks that do not always hold)."""
    rep = derive(theorem)
    rows = []
    for reg in rep.regimes:
        for row in reg.rows:
            rows.append({
                "theorem": theorem.id, "regime": reg.name, "cost": row.cost,
                "derived": fmt_order(row.derived_order), "claimed": fmt_order(row.claimed),
                "verdict": row.verdict, "note": reg.note if row.verdict != "agree" else "",
                "detail": row.detail if row.verdict == "disagree" else ""})
    for s in rep.schedule:
        if s.verdict != "always":
            rows.append({
                "theorem": theorem.id, "regime": "schedule vs conditions", "cost": s.condition,
                "derived": s.verdict, "claimed": "holds", "verdict": s.verdict,
                "note": s.source, "detail": s.detail})
    return rows


@cache
def _renderer() -> str:
    """What a figure's SVG depends on besides its data: this renderer's code and matplotlib."""
    import matplotlib

    return f"{inspect.getsource(_figure_svg)}\0matplotlib {matplotlib.__version__}"


def _stored_figure_svg(fig, path: Path, db: ResultStore | None, fresh: bool) -> None:
    """:func:`_figure_svg`, or the stored rendering of the same data by the same renderer."""
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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "fedbounds"  # identical SVGs for identical data
    f, ax = plt.subplots(figsize=(6.4, 4.0))
    for label, (xs, ys) in fig.series.items():
        if fig.kind == "scatter":
            ax.scatter(xs, ys, label=label, s=14)
        else:
            ax.plot(xs, ys, label=label, lw=1.4)
    for label, y in fig.hlines.items():
        ax.axhline(y, ls="--", lw=1, color="0.3")
        ax.annotate(label, (0.01, y), xycoords=("axes fraction", "data"), fontsize=8,
                    va="bottom", color="0.3")
    if fig.logx:
        ax.set_xscale("log")
    if fig.logy:
        ax.set_yscale("log")
    ax.set_xlabel(fig.xlabel)
    ax.set_ylabel(fig.ylabel)
    ax.set_title(fig.title, fontsize=10)
    if fig.series:
        ax.legend(fontsize=8)
    f.tight_layout()
    f.savefig(path, format="svg", metadata={"Date": None})
    plt.close(f)


def write_report(out: Path, profile: str = "quick", backend: str = "serial", seed: int = 0,
                 papers: list[str] | None = None,
                 progress: Callable[[str], None] | None = None, *, instance_seed: int = 0,
                 store: Path | None = None, fresh: bool = False,
                 scheduler: str | None = None) -> dict:
    """Run every claim, render the report and swap it into ``out`` whole; return a summary
    (each claim's JSON verdict, with ``cached`` when it came from the store).

    ``out`` must be missing, empty, or an earlier report (``BadInput("--out", …)`` otherwise,
    before anything runs or is written). With a result store (``store``), stored verdicts and
    derivations are reused and new ones stored; ``fresh`` recomputes (and replaces) them."""

    from .runner import Plan, check_backend, run_tasks

    check_backend(backend, scheduler)
    out = report_folder(out)
    sweep_stale(out.parent, out.name)
    keys = papers or list(registry.papers())
    all_claims = catalog.claims()
    ids = [c.id for c in all_claims.values() if c.paper in keys]
    plan = Plan([(cid, seed) for cid in ids], profile, instance_seed, backend, store, fresh,
                scheduler)
    registry.papers()  # loaded once, here: the forked theory workers inherit it
    if store is not None:
        source_hash()  # hashed once, here: the forked theory workers key derivations by it too
    # theory pages (symbolic complexity derivations) in worker processes while claims run here
    with worker_pool(2) as pool:
        pending = {key: pool.submit(theory, key, store, fresh) for key in keys}
        results = run_tasks(plan, progress)
        theories = {key: f.result() for key, f in pending.items()}
    catalog.with_provenance([r.verdict for r in results])  # stored verdicts lack it
    verdicts = {r.verdict.id: r.verdict for r in results}
    out.parent.mkdir(parents=True, exist_ok=True)
    with temp_folder(out.parent) as tmp:
        db = open_store(store)
        try:
            render_pages(tmp, keys, theories, verdicts, all_claims, profile=profile,
                         seed=seed, instance_seed=instance_seed, store=db, fresh=fresh)
        finally:
            if db is not None:
                db.close()
        report_folder(out)  # still ours to replace (nothing turned up there meanwhile)
        replace_folder(tmp, out)
    return {"claims": [{**r.verdict.as_json(), "cached": r.cached} for r in results]}


def render_pages(folder: Path, keys: list[str], theories: dict, verdicts: dict,
                 all_claims: dict, profile: str, seed: int, instance_seed: int = 0,
                 store: ResultStore | None = None, fresh: bool = False) -> dict:
    """Write every page, figure and ``verdicts.json`` of the report into ``folder``: results
    only (no seconds, times, host or backend), so equal results give equal bytes. Figures
    already rendered into ``store`` are copied from it (unless ``fresh``)."""
    (folder / "figures").mkdir()
    env = _env()
    pages = []
    for key in keys:
        th = theories[key]
        claims = sorted((c for c in all_claims.values() if c.paper == key),
                        key=lambda c: _natural(c.id))
        rows = []
        for c in claims:
            v = verdicts[c.id]
            v.provenance = v.provenance or c.provenance
            fig_name = None
            if v.figure is not None:
                fig_name = f"figures/{c.id}.svg"
                _stored_figure_svg(v.figure, folder / fig_name, store, fresh)
            for eid in c.errata:
                if eid in th["errata"]:
                    th["errata"][eid]["claims"].append(c.id)
            rows.append({"claim": c, "v": v, "figure": fig_name,
                         "evidence": json.dumps(v.as_json()["evidence"], indent=1)[:4000],
                         "rerun": _rerun(v)})
        counts = {k: sum(r["v"].verdict == k for r in rows) for k in VERDICT_COLOURS}
        page = {"key": key, "theory": th, "rows": rows, "counts": counts,
                "pep_rows": [r for r in rows if r["claim"].module.endswith(".pep")],
                "sweeps": sweep_tables(rows),
                "refutations": refutations(rows),
                "predictions": prediction_counts(key, rows),
                "profile": profile, "seed": seed, "instance_seed": instance_seed}
        for ext in ("md", "html"):
            _write_page(folder / f"{key}.{ext}",
                        env.get_template(f"paper.{ext}.j2").render(**page))
        pages.append(page)
    _write_page(folder / "index.html", env.get_template("index.html.j2").render(
        pages=pages, profile=profile, seed=seed, instance_seed=instance_seed,
        version=_version(), meanings=REFUTATION_MEANINGS,
        refutations={m: sum(p["refutations"][m] for p in pages) for m in REFUTATION_MEANINGS},
        predictions={k: sum((p["predictions"] or {}).get(k, 0) for p in pages)
                     for k in ("count", "with_verdict", "inconclusive")}))
    ids = [c.id for c in all_claims.values() if c.paper in keys]
    summary = {"claims": [tracked_json(verdicts[i]) for i in ids]}
    _write_page(folder / "verdicts.json", json.dumps(summary, indent=1, allow_nan=False) + "\n")
    return summary


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


def sweep_tables(rows: list[dict]) -> list[dict]:
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
             "where": ", ".join(f"{k}={_num(v)}" for k, v in (t.get("constants") or {}).items())
             or "—", "points": f"{t.get('conditions_hold_at', '?')}/{t.get('points', '?')}"}
            for t in table]})
    return out


def refutations(rows: list[dict]) -> dict[str, int]:
    """Refuted claims counted by what their refutation means (:data:`REFUTATION_MEANINGS`):
    "refutes the paper" only for a paper claim or an exactly derived one."""
    out = dict.fromkeys(REFUTATION_MEANINGS, 0)
    for r in rows:
        if r["v"].verdict == "refuted":
            out[r["claim"].refutation_meaning] += 1
    return out


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
